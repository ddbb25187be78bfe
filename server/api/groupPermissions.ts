import { actsOnParam } from './containment.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, notFound } from '../errors.js';
import { getGroups } from './groups.js';
import { addListRoute, recordSchema, type RecordOf, type ResourceDefinition, selectList } from './resource.js';
import { errorResponses, id, params } from './schemas.js';

type PermissionRef = { apiId: string; permission: string };
type GroupParams = { companyId: string; domainId: string; groupId: string };

const FROM = `group_permissions t
  JOIN apis a ON a.id = t.api_id
  JOIN permission_scopes s ON s.api_id = t.api_id AND s.id = t.scope_id`;

/**
 * RBAC grants: permission scopes of an API given to a group. Members of the group (directly or
 * through nested groups) hold them; an API with RBAC on puts only held permissions in its tokens.
 * Only APIs of the group's own company and domain can be granted. Not plain CRUD (grants are added
 * and taken back): the list and the JSON are derived from this definition, the routes are below.
 */
const permissionDefinition = {
  name: 'permissions',
  permission: 'groups',
  label: 'permission',
  table: FROM,
  fields: {
    apiId: { column: 't.api_id' },
    apiName: { column: 'a.name' },
    permission: { column: 't.scope_id' },
    description: { column: 's.description' },
  },
  search: `(a.name || ' ' || t.scope_id || ' ' || s.description)`,
  key: ['t.api_id', 't.scope_id'],
  defaultSort: 'apiName',
} satisfies ResourceDefinition;

export type GroupPermission = RecordOf<typeof permissionDefinition>;
const SELECT = selectList(permissionDefinition);
const permissionJson = recordSchema(permissionDefinition);
const permissionList = { type: 'array', items: permissionJson } as const;
const refList = {
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: {
    type: 'object',
    required: ['apiId', 'permission'],
    additionalProperties: false,
    properties: { apiId: id, permission: { type: 'string', minLength: 1, maxLength: 100 } },
  },
} as const;

const unique = (refs: PermissionRef[]) => [...new Map(refs.map((ref) => [`${ref.apiId}\n${ref.permission}`, ref])).values()];

/** The refs' rows, in order, from a query over (api id, permission) pairs; `what` names the first missing one. */
function inOrder(refs: PermissionRef[], rows: GroupPermission[], missing: (ref: PermissionRef) => Error): GroupPermission[] {
  return refs.map((ref) => {
    const row = rows.find((candidate) => candidate.apiId === ref.apiId && candidate.permission === ref.permission);
    if (!row) throw missing(ref);
    return row;
  });
}

/** Every write of group permissions goes through here; the guard has checked company and domain. */
export const groupPermissions = {
  /** Grants all or nothing: every permission must be a scope of an active API of the group's domain. */
  async add(db: Queryable, { companyId, domainId, groupId }: GroupParams, body: PermissionRef[]): Promise<GroupPermission[]> {
    await getGroups(db, companyId, domainId, [groupId]);
    const refs = unique(body);
    const { rows } = await db.query<GroupPermission>(
      `SELECT s.api_id AS "apiId", a.name AS "apiName", s.id AS permission, s.description
       FROM unnest($3::text[], $4::text[]) AS r(api_id, permission)
       JOIN apis a ON a.id = r.api_id AND a.company_id = $1 AND a.domain_id = $2 AND a.status = 'active'
       JOIN permission_scopes s ON s.api_id = a.id AND s.id = r.permission`,
      [companyId, domainId, refs.map((ref) => ref.apiId), refs.map((ref) => ref.permission)],
    );
    const found = inOrder(refs, rows, (ref) => badRequest(`permission ${ref.permission} of api ${ref.apiId}: no such permission scope of an active API in this domain`).as('groupPermission.unknown', {
        permission: ref.permission.slice(0, 100),
        api: ref.apiId.slice(0, 100),
      }));
    await db.query(
      `INSERT INTO group_permissions (company_id, domain_id, group_id, api_id, scope_id)
       SELECT $1, $2, $3, unnest($4::text[]), unnest($5::text[]) ON CONFLICT DO NOTHING`,
      [companyId, domainId, groupId, found.map((row) => row.apiId), found.map((row) => row.permission)],
    );
    return found;
  },

  /** Takes back all or nothing: a permission the group does not hold is a 404. */
  async remove(db: Queryable, { companyId, domainId, groupId }: GroupParams, body: PermissionRef[]): Promise<GroupPermission[]> {
    await getGroups(db, companyId, domainId, [groupId]);
    const refs = unique(body);
    const { rows } = await db.query<GroupPermission>(
      `DELETE FROM group_permissions t USING apis a, permission_scopes s, unnest($4::text[], $5::text[]) AS r(api_id, permission)
       WHERE t.company_id = $1 AND t.domain_id = $2 AND t.group_id = $3 AND t.api_id = r.api_id AND t.scope_id = r.permission
         AND a.id = t.api_id AND s.api_id = t.api_id AND s.id = t.scope_id
       RETURNING ${SELECT}`,
      [companyId, domainId, groupId, refs.map((ref) => ref.apiId), refs.map((ref) => ref.permission)],
    );
    return inOrder(refs, rows, (ref) => notFound(`permission ${ref.permission} of api ${ref.apiId} in group ${groupId}`));
  },
};

export async function groupPermissionRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['groups'];
  const path = '/companys/:companyId/domainNames/:domainId/groups/:groupId/permissions';
  const groupParams = params('companyId', 'domainId', 'groupId');

  addListRoute(app, permissionDefinition, {
    path,
    tags,
    summary: 'Permissions (API scopes) granted to the group',
    scope: { params: ['companyId', 'domainId', 'groupId'], where: ['t.company_id = $1', 't.domain_id = $2', 't.group_id = $3'] },
    // the guard has checked company and domain; an empty list may mean "no such group"
    guarded: false,
    whenEmpty: async (request) => {
      const { companyId, domainId, groupId } = request.params as GroupParams;
      await getGroups(db, companyId, domainId, [groupId]);
    },
  });

  app.post<{ Params: GroupParams; Body: PermissionRef[] }>(
    path,
    { config: { permission: 'groups:write', acts: actsOnParam('group', 'groupId') }, schema: { tags, summary: 'Grant permissions [{apiId, permission}] to the group, all or nothing', params: groupParams, body: refList, response: { 200: permissionList, ...errorResponses } } },
    async (request) => db.transaction((tx) => groupPermissions.add(tx, request.params, request.body)),
  );

  app.delete<{ Params: GroupParams; Body: PermissionRef[] }>(
    path,
    { config: { permission: 'groups:write', acts: actsOnParam('group', 'groupId') }, schema: { tags, summary: 'Take permissions [{apiId, permission}] back from the group, all or nothing', params: groupParams, body: refList, response: { 200: permissionList, ...errorResponses } } },
    async (request) => db.transaction((tx) => groupPermissions.remove(tx, request.params, request.body)),
  );
}
