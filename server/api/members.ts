import type { FastifyRequest } from 'fastify';
import type { ActsOn } from './containment.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, notFound } from '../errors.js';
import { keepingAnAdministrator } from '../accounts/administrators.js';
import { giveFirstOwner, isFirstAdministration } from './firstOwner.js';
import { getGroups } from './groups.js';
import { statementAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { addListRoute, recordSchema, type RecordOf, type ResourceDefinition, selectList } from './resource.js';
import { errorResponses, id, params } from './schemas.js';

export type MemberType = 'user' | 'group';

/** A member named by id alone, or by id and type (a user and a group may share an id). */
type MemberRef = string | { id: string; type?: MemberType; displayName?: string };

const MEMBERS_FROM = `group_members t
  LEFT JOIN users mu ON t.member_type = 'user' AND mu.company_id = t.company_id AND mu.domain_id = t.domain_id AND mu.id = t.member_id
  LEFT JOIN groups mg ON t.member_type = 'group' AND mg.company_id = t.company_id AND mg.domain_id = t.domain_id AND mg.id = t.member_id`;
const MEMBER_DISPLAY_NAME = `COALESCE(mu.display_name, mg.display_name, t.member_id)`;

/**
 * A group's members, users and groups of its domain. Not plain CRUD (members are added and taken
 * out, never edited): the list and the JSON are derived from this definition, the routes are below.
 */
const memberDefinition = {
  name: 'members',
  permission: 'groups',
  label: 'member',
  table: MEMBERS_FROM,
  fields: {
    id: { column: 't.member_id' },
    displayName: { column: MEMBER_DISPLAY_NAME },
    type: { column: 't.member_type' },
    // the user's or group's address (shown only: no index holds it in a group's member order)
    email: { column: 'COALESCE(mu.email, mg.email)', listed: false },
  },
  search: `(${MEMBER_DISPLAY_NAME} || ' ' || COALESCE(mu.username, mg.name) || ' ' || COALESCE(mu.email, mg.email))`,
  // filter.type (a field) is a prefix of the primary key; these, like the search, test the rows of
  // the one group the primary key finds, each joined to its user or group by that one's key: no
  // more rows than the list already reads to put them in display-name order
  filters: {
    emailDomain: {
      type: 'text',
      sql: (domain: string, bind) => `lower(split_part(COALESCE(mu.email, mg.email), '@', -1)) = lower(${bind(domain.trim().replace(/^@/, ''))})`,
    },
  },
  key: ['t.company_id', 't.domain_id', 't.group_id', 't.member_type', 't.member_id'],
  defaultSort: 'displayName',
} satisfies ResourceDefinition;

export type Member = Omit<RecordOf<typeof memberDefinition>, 'type'> & { type: MemberType };
const MEMBER_SELECT = selectList(memberDefinition);

/**
 * SQL: ids of the groups that contain group $3 of domain ($1, $2), directly or through nested
 * groups, deleted ones too (one may be recovered): adding any of them to $3 would close a cycle. The
 * database's member_groups (migration 13), the walk the administrator check and RBAC read.
 */
const CONTAINERS = `SELECT c.id FROM member_groups($1, $2, 'group', $3, false) AS c(id)`;

const candidateSearch = {
  user: `(t.display_name || ' ' || t.username || ' ' || t.email)`,
  group: `(t.display_name || ' ' || t.name || ' ' || t.email)`,
};

const candidateResource = (type: MemberType): ListResource => ({
  name: 'candidates',
  table: type === 'user' ? 'users t' : 'groups t',
  select: `t.id, t.display_name AS "displayName", t.email, '${type}' AS type`,
  fields: {
    id: { column: 't.id' },
    displayName: { column: 't.display_name' },
    email: { column: 't.email' },
    status: { column: 't.status' },
  },
  search: candidateSearch[type],
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'displayName',
});

/** Active users or groups of the domain that group $3 could take in: not members yet, not itself, no cycle. */
function candidateScope(type: MemberType): string[] {
  const scope = [
    't.company_id = $1',
    't.domain_id = $2',
    `t.status <> 'deleted'`,
    'EXISTS (SELECT 1 FROM groups tg WHERE tg.company_id = $1 AND tg.domain_id = $2 AND tg.id = $3)',
    `NOT EXISTS (SELECT 1 FROM group_members gm WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.group_id = $3
       AND gm.member_type = '${type}' AND gm.member_id = t.id)`,
  ];
  if (type === 'group') scope.push('t.id <> $3', `t.id NOT IN (${CONTAINERS})`);
  return scope;
}

const refOf = (ref: MemberRef) => (typeof ref === 'string' ? { id: ref, type: undefined } : { id: ref.id, type: ref.type });

/** The members of a group matching these references, in the order asked; 404 for a non-member, 400 when a bare id is both a user and a group. */
async function findMembers(db: Queryable, companyId: string, domainId: string, groupId: string, refs: MemberRef[]): Promise<Member[]> {
  const wanted = refs.map(refOf);
  const { rows } = await db.query<Member>(
    `SELECT ${MEMBER_SELECT} FROM ${MEMBERS_FROM} WHERE t.company_id = $1 AND t.domain_id = $2 AND t.group_id = $3 AND t.member_id = ANY ($4)`,
    [companyId, domainId, groupId, wanted.map((ref) => ref.id)],
  );
  const found: Member[] = [];
  for (const ref of wanted) {
    const matches = rows.filter((row) => row.id === ref.id && (ref.type === undefined || row.type === ref.type));
    if (matches.length === 0) throw notFound(`member ${ref.id} of group ${groupId}`);
    if (matches.length > 1) throw badRequest(`${ref.id} is both a user and a group member: say which with type`).as('member.ambiguous', { id: ref.id.slice(0, 100) });
    if (!found.some((member) => member.id === matches[0].id && member.type === matches[0].type)) found.push(matches[0]);
  }
  return found;
}

/** Every change of a group's members goes through here. */
export const members = {
  /**
   * Adds users and groups to a group, all or nothing. Unknown members are 404, deleted ones 400,
   * the group itself or a group containing it 400 (no cycles). Existing members are left as they are.
   */
  async add(db: Queryable, companyId: string, domainId: string, groupId: string, refs: { id: string; type: MemberType }[]): Promise<Member[]> {
    await getGroups(db, companyId, domainId, [groupId]);
    const wanted = refs.filter((ref, i) => refs.findIndex((other) => other.id === ref.id && other.type === ref.type) === i);
    const userIds = wanted.filter((ref) => ref.type === 'user').map((ref) => ref.id);
    const groupIds = wanted.filter((ref) => ref.type === 'group').map((ref) => ref.id);
    if (groupIds.includes(groupId)) throw badRequest(`${groupId}: a group cannot contain itself`).as('member.itself', { group: groupId.slice(0, 100) });

    const { rows } = await db.query<{ id: string; type: MemberType; displayName: string; email: string; status: string }>(
      `SELECT id, 'user' AS type, display_name AS "displayName", email, status FROM users WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3)
       UNION ALL
       SELECT id, 'group', display_name, email, status FROM groups WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($4)`,
      [companyId, domainId, userIds, groupIds],
    );
    const added: Member[] = wanted.map((ref) => {
      const row = rows.find((r) => r.id === ref.id && r.type === ref.type);
      if (!row) throw notFound(`${ref.type} ${ref.id}`);
      if (row.status === 'deleted') throw badRequest(`${ref.type} ${ref.id} is deleted: recover it before adding it`).as(ref.type === 'user' ? 'member.deletedUser' : 'member.deletedGroup', { id: ref.id.slice(0, 100) });
      return { id: row.id, displayName: row.displayName, type: row.type, email: row.email };
    });

    if (groupIds.length > 0) {
      const containers = await db.query<{ id: string }>(`${CONTAINERS} WHERE c.id = ANY ($4)`, [companyId, domainId, groupId, groupIds]);
      const cyclic = containers.rows[0]?.id;
      if (cyclic) throw badRequest(`group ${cyclic} already contains ${groupId}: adding it would make a cycle`).as('member.cycle', { container: cyclic.slice(0, 100), group: groupId.slice(0, 100) });
    }

    await db.query(
      `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
       SELECT $1, $2, $3, m.type, m.id FROM unnest($4::text[], $5::text[]) AS m(type, id)
       ON CONFLICT DO NOTHING`,
      [companyId, domainId, groupId, added.map((member) => member.type), added.map((member) => member.id)],
    );
    return added;
  },

  /** Takes members out of a group, all or nothing; returns them. */
  async remove(db: Queryable, companyId: string, domainId: string, groupId: string, refs: MemberRef[]): Promise<Member[]> {
    await getGroups(db, companyId, domainId, [groupId]);
    const removed = await findMembers(db, companyId, domainId, groupId, refs);
    // taking a user or a group out of administrators (or out of a group inside it) may leave none
    await keepingAnAdministrator(db, companyId, domainId, () =>
      db.query(
        `DELETE FROM group_members gm USING unnest($4::text[], $5::text[]) AS m(type, id)
         WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.group_id = $3 AND gm.member_type = m.type AND gm.member_id = m.id`,
        [companyId, domainId, groupId, removed.map((member) => member.type), removed.map((member) => member.id)],
      ),
    );
    return removed;
  },
};

export async function memberRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['group members'];
  const base = '/companys/:companyId/domainNames/:domainId/groups/:groupId';
  type GroupParams = { companyId: string; domainId: string; groupId: string };
  const groupParams = params('companyId', 'domainId', 'groupId');
  const memberType = { type: 'string', enum: ['user', 'group'] } as const;
  const memberJson = recordSchema(memberDefinition);
  const memberList = { type: 'array', items: memberJson } as const;
  const candidateList = {
    type: 'array',
    items: { type: 'object', properties: { ...memberJson.properties, email: { type: 'string' } } },
  } as const;
  const addBody = {
    type: 'array',
    minItems: 1,
    maxItems: 1000,
    items: {
      type: 'object',
      required: ['id', 'type'],
      additionalProperties: false,
      properties: { id, type: memberType, displayName: { type: 'string', description: 'ignored: read from the user or group' } },
    },
  } as const;
  const removeBody = {
    type: 'array',
    minItems: 1,
    maxItems: 1000,
    items: {
      anyOf: [id, { type: 'object', required: ['id'], additionalProperties: false, properties: { id, type: memberType, displayName: { type: 'string' } } }],
    },
    description: 'member ids, or {id, type} objects when a user and a group share an id',
  } as const;

  /**
   * What a change of members acts on (containment.ts): each member named, and the group, whose
   * membership is a role assignment when it gives roles.
   */
  const actsOnMembers = (request: FastifyRequest): ActsOn => {
    const { companyId, domainId, groupId, memberId } = request.params as GroupParams & { memberId?: string };
    const refs: MemberRef[] = memberId !== undefined ? [{ id: memberId, type: (request.query as { type?: MemberType }).type }] : ((request.body as MemberRef[] | undefined) ?? []);
    return { companyId, domainId, principals: refs.map(refOf), membershipOf: groupId };
  };

  /** A group with no rows may not exist at all: only then is the extra lookup paid (a list stays at guard + page + count). */
  const requireGroupWhenEmpty = async (rows: unknown[], { companyId, domainId, groupId }: GroupParams) => {
    if (rows.length === 0) await getGroups(db, companyId, domainId, [groupId]);
  };

  addListRoute(app, memberDefinition, {
    path: `${base}/members`,
    tags,
    scope: { params: ['companyId', 'domainId', 'groupId'], where: ['t.company_id = $1', 't.domain_id = $2', 't.group_id = $3'] },
    whenEmpty: (request) => requireGroupWhenEmpty([], request.params as GroupParams),
  });

  app.post<{ Params: GroupParams; Body: { id: string; type: MemberType }[] }>(
    `${base}/members`,
    { config: { permission: 'groups:write', acts: actsOnMembers }, schema: { tags, params: groupParams, body: addBody, response: { 200: memberList, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, groupId } = request.params;
      return db.transaction(async (tx) => {
        // a new company's first administrators are its Owners (firstOwner.ts)
        const first = await isFirstAdministration(tx, companyId, groupId);
        const added = await members.add(tx, companyId, domainId, groupId, request.body);
        if (first) await giveFirstOwner(tx, request.principal, companyId, domainId, added.filter((member) => member.type === 'user').map((member) => member.id));
        return added;
      });
    },
  );

  app.delete<{ Params: GroupParams & { memberId: string }; Querystring: { type?: MemberType } }>(
    `${base}/members/:memberId`,
    {
      config: { permission: 'groups:write', acts: actsOnMembers },
      schema: {
        tags,
        params: params('companyId', 'domainId', 'groupId', 'memberId'),
        querystring: { type: 'object', properties: { type: memberType } },
        response: { 200: memberJson, ...errorResponses },
      },
    },
    async (request) => {
      const { companyId, domainId, groupId, memberId } = request.params;
      const ref = { id: memberId, type: request.query.type };
      return (await db.transaction((tx) => members.remove(tx, companyId, domainId, groupId, [ref])))[0];
    },
  );

  app.delete<{ Params: GroupParams; Body: MemberRef[] }>(
    `${base}/members`,
    { config: { permission: 'groups:write', acts: actsOnMembers }, schema: { tags, params: groupParams, body: removeBody, response: { 200: memberList, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, groupId } = request.params;
      return db.transaction((tx) => members.remove(tx, companyId, domainId, groupId, request.body));
    },
  );

  app.get<{ Params: GroupParams; Querystring: ListQuery & { type: MemberType } }>(
    `${base}/candidates`,
    {
      config: { permission: 'groups:read', accessInStatement: true }, schema: {
        tags,
        description: 'Active users (type=user) or groups (type=group) that could be added as members: not members yet, never the group itself or a group containing it',
        params: groupParams,
        querystring: { ...listQuerySchema, properties: { ...listQuerySchema.properties, type: { ...memberType, default: 'user' } } },
        response: { 200: candidateList, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { companyId, domainId, groupId } = request.params;
      const resource = candidateResource(request.query.type);
      const parsed = parseListQuery(resource, request.query, [companyId, domainId, groupId]);
      const result = await runList(db, resource, parsed, candidateScope(request.query.type), statementAccess(request));
      await requireGroupWhenEmpty(result.rows, request.params);
      return sendList(reply, 'candidates', result);
    },
  );
}
