import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound, uniqueAs } from '../errors.js';
import { ADMIN_GROUP } from '../oauth/tokens.js';
import { keepingAnAdministrator } from './administrators.js';
import { listAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { email, errorResponses, id, idList, optionalText, params, requiredText, status } from './schemas.js';

export interface Group {
  id: string;
  name: string;
  displayName: string;
  notes: string;
  email: string;
  status: 'active' | 'deleted';
}

const SELECT = `t.id, t.name, t.display_name AS "displayName", t.notes, t.email, t.status`;

const groupResource: ListResource = {
  name: 'groups',
  table: 'groups t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    name: { column: 't.name' },
    displayName: { column: 't.display_name' },
    notes: { column: 't.notes' },
    email: { column: 't.email' },
    status: { column: 't.status' },
  },
  search: `(t.display_name || ' ' || t.name || ' ' || t.email)`,
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'displayName',
};

const groupJson = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    displayName: { type: 'string' },
    notes: { type: 'string' },
    email: { type: 'string' },
    status: { type: 'string' },
  },
} as const;

const groupFields = {
  id,
  name: { ...id, description: 'Group Name; the id on create' },
  displayName: requiredText(),
  notes: { anyOf: [optionalText(), { type: 'null' }], description: 'null (an emptied field) is stored as empty text' },
  email,
  status,
} as const;

const groupBody = { type: 'object', required: ['name', 'displayName', 'email'], additionalProperties: false, properties: groupFields } as const;
const updateListBody = {
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: { type: 'object', required: ['id'], additionalProperties: false, properties: groupFields },
  description: 'Groups to change, each with its id; fields left out keep their value (bulk soft delete and recover send {id, status})',
} as const;

type GroupBody = Partial<Group>;
type GroupPatch = GroupBody & { id: string };

/** The groups of one domain with these ids, in the order asked; 404 naming the first unknown id. */
export async function getGroups(db: Queryable, companyId: string, domainId: string, groupIds: string[]): Promise<Group[]> {
  const { rows } = await db.query<Group>(`SELECT ${SELECT} FROM groups t WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = ANY ($3)`, [
    companyId,
    domainId,
    groupIds,
  ]);
  return groupIds.map((groupId) => {
    const group = rows.find((row) => row.id === groupId);
    if (!group) throw notFound(`group ${groupId}`);
    return group;
  });
}

function distinct(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) throw badRequest('id: a group is listed twice');
  return unique;
}

// 409, like every refusal that would leave a domain without administrators (administrators.ts)
const keepsAdministrators = () =>
  new HttpError(409, `${ADMIN_GROUP}: this group makes the domain's administrators and cannot be deleted or purged`);

async function updateGroups(db: Queryable, companyId: string, domainId: string, patches: GroupPatch[]): Promise<Group[]> {
  const current = await getGroups(db, companyId, domainId, distinct(patches.map((patch) => patch.id)));
  const updated: Group[] = [];
  for (const [i, patch] of patches.entries()) {
    const next = { ...current[i], ...patch };
    if (patch.id === ADMIN_GROUP && next.status === 'deleted') throw keepsAdministrators();
    // the name is the id (it is locked in the console's edit form)
    if (next.name !== current[i].name) throw badRequest(`${patch.id}: name cannot be changed: it is the group id`);
    const { rows } = await uniqueAs(next.name, () =>
      db.query<Group>(
        `UPDATE groups t SET name = $4, display_name = $5, notes = $6, email = $7, status = $8, updated_at = now()
         WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3
         RETURNING ${SELECT}`,
        [companyId, domainId, patch.id, next.name, next.displayName, next.notes ?? '', next.email, next.status],
      ),
    );
    updated.push(rows[0]);
  }
  return updated;
}

/** Every write of a group goes through here (membership writes are in members.ts). */
export const groups = {
  async create(db: Queryable, companyId: string, domainId: string, body: GroupBody): Promise<Group> {
    const groupId = body.id ?? body.name!;
    if (body.id !== undefined && body.id !== body.name) throw badRequest('id must equal name when creating a group');
    return uniqueAs(body.name!, async () => {
      const { rows } = await db.query<Group>(
        `INSERT INTO groups (company_id, domain_id, id, name, display_name, notes, email, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING ${SELECT.replaceAll('t.', '')}`,
        [companyId, domainId, groupId, body.name, body.displayName, body.notes ?? '', body.email, body.status ?? 'active'],
      );
      return rows[0];
    });
  },

  /** Changes groups (fields left out keep their value); status deleted is the soft delete, active the recovery. */
  async update(db: Queryable, companyId: string, domainId: string, patches: GroupPatch[]): Promise<Group[]> {
    // soft-deleting a group inside administrators may take the domain's last administrator away
    if (patches.some((patch) => patch.status === 'deleted')) {
      return keepingAnAdministrator(db, companyId, domainId, () => updateGroups(db, companyId, domainId, patches));
    }
    return updateGroups(db, companyId, domainId, patches);
  },

  /** Purges soft-deleted groups for good: their own member lists and their places in other groups go with them. */
  async remove(db: Queryable, companyId: string, domainId: string, groupIds: string[]): Promise<Group[]> {
    const ids = [...new Set(groupIds)];
    const found = await getGroups(db, companyId, domainId, ids);
    if (ids.includes(ADMIN_GROUP)) throw keepsAdministrators();
    const active = found.find((group) => group.status !== 'deleted');
    if (active) throw new HttpError(409, `group ${active.id} is active: delete the group first, then purge it`);
    await db.query(`DELETE FROM group_members WHERE company_id = $1 AND domain_id = $2 AND member_type = 'group' AND member_id = ANY ($3)`, [
      companyId,
      domainId,
      ids,
    ]);
    await db.query(`DELETE FROM groups WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3)`, [companyId, domainId, ids]);
    return found;
  },
};

export async function groupRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['groups'];
  const base = '/companys/:companyId/domainNames/:domainId/groups';
  type DomainParams = { companyId: string; domainId: string };
  type GroupParams = DomainParams & { groupId: string };
  const domainParams = params('companyId', 'domainId');
  const groupParams = params('companyId', 'domainId', 'groupId');
  const groupList = { type: 'array', items: groupJson } as const;

  app.get<{ Params: DomainParams; Querystring: ListQuery }>(
    base,
    { config: { accessWithList: true }, schema: { tags, params: domainParams, querystring: listQuerySchema, response: { 200: groupList, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const parsed = parseListQuery(groupResource, request.query, [companyId, domainId]);
      return sendList(reply, 'groups', await runList(db, groupResource, parsed, ['t.company_id = $1', 't.domain_id = $2'], listAccess(request)));
    },
  );

  app.get<{ Params: GroupParams }>(
    `${base}/:groupId`,
    { schema: { tags, params: groupParams, response: { 200: groupJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, groupId } = request.params;
      return (await getGroups(db, companyId, domainId, [groupId]))[0];
    },
  );

  app.post<{ Params: DomainParams; Body: GroupBody }>(
    base,
    { schema: { tags, params: domainParams, body: groupBody, response: { 201: groupJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const group = await db.transaction((tx) => groups.create(tx, companyId, domainId, request.body));
      return reply.status(201).send(group);
    },
  );

  app.put<{ Params: GroupParams; Body: GroupBody }>(
    `${base}/:groupId`,
    { schema: { tags, params: groupParams, body: groupBody, response: { 200: groupJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, groupId } = request.params;
      if (request.body.id !== undefined && request.body.id !== groupId) throw badRequest('id cannot be changed');
      const patch = { ...request.body, id: groupId };
      return (await db.transaction((tx) => groups.update(tx, companyId, domainId, [patch])))[0];
    },
  );

  app.put<{ Params: DomainParams; Body: GroupPatch[] }>(
    base,
    { schema: { tags, params: domainParams, body: updateListBody, response: { 200: groupList, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId } = request.params;
      return db.transaction((tx) => groups.update(tx, companyId, domainId, request.body));
    },
  );

  app.delete<{ Params: GroupParams }>(
    `${base}/:groupId`,
    { schema: { tags, params: groupParams, response: { 200: groupJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, groupId } = request.params;
      return (await db.transaction((tx) => groups.remove(tx, companyId, domainId, [groupId])))[0];
    },
  );

  app.delete<{ Params: DomainParams; Body: string[] }>(
    base,
    { schema: { tags, params: domainParams, body: idList, response: { 200: groupList, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId } = request.params;
      return db.transaction((tx) => groups.remove(tx, companyId, domainId, request.body));
    },
  );
}
