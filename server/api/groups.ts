import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, uniqueAs } from '../errors.js';
import { ADMIN_GROUP } from '../accounts/tokens.js';
import { keepingAnAdministrator } from '../accounts/administrators.js';
import { bodyProperties, bodySchema, type Change, crudRoutes, findRecords, listBodySchema, type RecordOf, type ResourceDefinition, samePathId, selectList, type WriteContext } from './resource.js';
import { email, id, optionalText, requiredText, status } from './schemas.js';
import { groupFilters, groupListFields } from './listFields.js';

/**
 * Groups of a domain. Plain CRUD: the routes are produced from this definition (resource.ts);
 * members and permissions are routes of their own (members.ts, groupPermissions.ts).
 */
export const groupDefinition = {
  name: 'groups',
  permission: 'groups',
  label: 'group',
  table: 'groups t',
  fields: {
    id: { column: 't.id', input: id },
    name: { column: 't.name', input: { ...id, description: 'Group Name; the id on create' } },
    displayName: { column: 't.display_name', input: requiredText() },
    notes: { column: 't.notes', input: { anyOf: [optionalText(), { type: 'null' }], description: 'null (an emptied field) is stored as empty text' } },
    email: { column: 't.email', input: email },
    status: { column: 't.status', input: status },
    // member count, times, deleted by whom (listFields.ts; shown only)
    ...groupListFields,
  },
  search: `(t.display_name || ' ' || t.name || ' ' || t.email)`,
  filters: groupFilters,
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'displayName',
} satisfies ResourceDefinition;

export type Group = RecordOf<typeof groupDefinition>;

const SELECT = selectList(groupDefinition);

type GroupBody = Partial<Group>;
type GroupPatch = GroupBody & { id: string };
type DomainParams = { companyId: string; domainId: string };

/** The groups of one domain with these ids, in the order asked; 404 naming the first unknown id. */
export const getGroups = (db: Queryable, companyId: string, domainId: string, groupIds: string[]) =>
  findRecords<Group>(db, groupDefinition, { where: ['t.company_id = $1', 't.domain_id = $2'], values: [companyId, domainId] }, groupIds);

function distinct(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) throw badRequest('id: a group is listed twice').as('group.listedTwice');
  return unique;
}

// 409, like every refusal that would leave a domain without administrators (administrators.ts)
const keepsAdministrators = () =>
  new HttpError(409, `${ADMIN_GROUP}: this group makes the domain's administrators and cannot be deleted or purged`).as('group.administrators', { group: ADMIN_GROUP });

async function updateGroups(db: Queryable, { companyId, domainId }: DomainParams, patches: GroupPatch[]): Promise<Group[]> {
  const current = await getGroups(db, companyId, domainId, distinct(patches.map((patch) => patch.id)));
  const updated: Group[] = [];
  for (const [i, patch] of patches.entries()) {
    const next = { ...current[i], ...patch };
    if (patch.id === ADMIN_GROUP && next.status === 'deleted') throw keepsAdministrators();
    // the name is the id (it is locked in the console's edit form)
    if (next.name !== current[i].name) throw badRequest(`${patch.id}: name cannot be changed: it is the group id`).as('group.nameChanged', { group: patch.id.slice(0, 100) });
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
  async create(db: Queryable, { params }: WriteContext<DomainParams>, body: GroupBody): Promise<Group> {
    const groupId = body.id ?? body.name!;
    if (body.id !== undefined && body.id !== body.name) throw badRequest('id must equal name when creating a group').as('group.idNotName');
    return uniqueAs(body.name!, async () => {
      const { rows } = await db.query<Group>(
        `INSERT INTO groups AS t (company_id, domain_id, id, name, display_name, notes, email, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING ${SELECT}`,
        [params.companyId, params.domainId, groupId, body.name, body.displayName, body.notes ?? '', body.email, body.status ?? 'active'],
      );
      return rows[0];
    });
  },

  /** Changes groups (fields left out keep their value); status deleted is the soft delete, active the recovery. */
  async update(db: Queryable, { params }: WriteContext<DomainParams>, changes: Change<GroupBody>[]): Promise<Group[]> {
    const patches = changes.map(samePathId);
    // soft-deleting a group inside administrators may take the domain's last administrator away
    if (patches.some((patch) => patch.status === 'deleted')) {
      return keepingAnAdministrator(db, params.companyId, params.domainId, () => updateGroups(db, params, patches));
    }
    return updateGroups(db, params, patches);
  },

  /** Purges soft-deleted groups for good: their own member lists and their places in other groups go with them. */
  async remove(db: Queryable, { params }: WriteContext<DomainParams>, groupIds: string[]): Promise<Group[]> {
    const ids = [...new Set(groupIds)];
    const found = await getGroups(db, params.companyId, params.domainId, ids);
    if (ids.includes(ADMIN_GROUP)) throw keepsAdministrators();
    const active = found.find((group) => group.status !== 'deleted');
    if (active) throw new HttpError(409, `group ${active.id} is active: delete the group first, then purge it`).as('group.purgeActive', { group: active.id.slice(0, 100) });
    await purgeMembers(db, params, 'group', ids);
    return found;
  },
};

/**
 * Deletes users or groups of a domain for good, and their places in groups with them (a group's own
 * member list goes by the schema's cascade). Only their modules' purge rules call it.
 */
export async function purgeMembers(db: Queryable, { companyId, domainId }: DomainParams, type: 'user' | 'group', ids: string[]) {
  await db.query(`DELETE FROM group_members WHERE company_id = $1 AND domain_id = $2 AND member_type = $3 AND member_id = ANY ($4)`, [
    companyId,
    domainId,
    type,
    ids,
  ]);
  await db.query(`DELETE FROM ${type === 'user' ? 'users' : 'groups'} WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3)`, [companyId, domainId, ids]);
}

export const groupRoutes = crudRoutes(groupDefinition, {
  tags: ['groups'],
  path: '/companys/:companyId/domainNames/:domainId/groups',
  idParam: 'groupId',
  principal: 'group',
  scope: { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] },
  rules: groups,
  bodies: {
    create: bodySchema(groupDefinition, ['name', 'displayName', 'email']),
    update: bodySchema(groupDefinition, ['name', 'displayName', 'email']),
    updateList: listBodySchema(
      { type: 'object', additionalProperties: false, properties: bodyProperties(groupDefinition) },
      'Groups to change, each with its id; fields left out keep their value (bulk soft delete and recover send {id, status})',
    ),
  },
});
