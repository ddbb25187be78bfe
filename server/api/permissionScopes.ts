import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, duplicated, notFound } from '../errors.js';
import { inScope, locateRecords } from './guard.js';
import { addListRoute, type CrudRules, crudRoutes, type RecordOf, type ResourceDefinition, selectList } from './resource.js';
import { optionalText } from './schemas.js';

/**
 * Permission scopes of an API, at `/api/{apiId}/PermissionScopes`. Each write is one statement that
 * also checks the API's tenancy, so the API's id and the caller's company are the scope of every
 * route. The plain routes are produced from this definition (resource.ts); there is no GET of one
 * scope and no bulk write.
 */
export const permissionScopeDefinition = {
  name: 'PermissionScopes',
  permission: 'apis',
  label: 'permission scope',
  table: 'permission_scopes t',
  fields: {
    id: { column: 't.id' },
    // the id, always (create sets both, nothing renames one): lists filter and sort by the primary key
    permission: { column: 't.permission', listColumn: 't.id' },
    // searched (filter.q), shown; no index serves it as a filter or a sort (400)
    description: { column: 't.description', listed: false },
  },
  search: `(t.permission || ' ' || t.description)`,
  key: ['t.api_id', 't.id'],
  defaultSort: 'permission',
} satisfies ResourceDefinition;

export type PermissionScope = RecordOf<typeof permissionScopeDefinition>;

const SELECT = selectList(permissionScopeDefinition);

/** Tenancy of every scope statement: the API exists inside the caller's subtree ($1 api id, $2 caller's company). */
const API_IN_SCOPE = `EXISTS (SELECT 1 FROM apis a WHERE a.id = $1 AND ${inScope('a.company_id', '$2')})`;

/** An OAuth scope token (RFC 6749 3.3) without quotes: printable ASCII except space, " , ' and \. */
const permission = { type: 'string', pattern: '^[\\x21\\x23-\\x26\\x28-\\x5B\\x5D-\\x7E]{1,100}$', description: 'an OAuth scope token, e.g. read:users' } as const;

const createBody = {
  type: 'object',
  required: ['permission'],
  additionalProperties: false,
  properties: { permission, description: { ...optionalText(500), default: '' }, id: { ...permission, description: 'equal to permission when given' } },
} as const;

/** The permission is the scope's id and what tokens carry: it cannot be renamed (delete it and add another). */
const updateBody = {
  type: 'object',
  description: 'Changes the description; permission (the id) cannot be renamed: delete the scope and add a new one',
  additionalProperties: false,
  properties: { description: optionalText(500), permission, id: permission },
} as const;

type ScopeBody = { permission?: string; description?: string; id?: string };

async function apiExists(db: Queryable, apiId: string, callerCompanyId: string) {
  const { rows } = await db.query(`SELECT 1 WHERE ${API_IN_SCOPE}`, [apiId, callerCompanyId]);
  return rows.length > 0;
}

/** Every write of a permission scope goes through here; each is one statement that also checks the API's tenancy. */
export const permissionScopes = {
  async create(db: Queryable, callerCompanyId: string, apiId: string, body: ScopeBody & { permission: string }): Promise<PermissionScope> {
    if (body.id !== undefined && body.id !== body.permission) throw badRequest('id must equal permission').as('scope.idMismatch');
    let rows: PermissionScope[];
    try {
      ({ rows } = await db.query<PermissionScope>(
        `INSERT INTO permission_scopes AS t (api_id, id, permission, description)
         SELECT $1, $3, $3, $4 WHERE ${API_IN_SCOPE} RETURNING ${SELECT}`,
        [apiId, callerCompanyId, body.permission, body.description ?? ''],
      ));
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw duplicated(body.permission);
      throw error;
    }
    if (!rows[0]) throw notFound(`api ${apiId}`);
    return rows[0];
  },

  async update(db: Queryable, callerCompanyId: string, apiId: string, scopeId: string, body: ScopeBody): Promise<PermissionScope> {
    if ((body.permission ?? scopeId) !== scopeId || (body.id ?? scopeId) !== scopeId) {
      throw badRequest('permission cannot be changed: delete it and add the new one').as('scope.permissionFixed');
    }
    const { rows } = await db.query<PermissionScope>(
      `UPDATE permission_scopes t SET description = coalesce($4, t.description)
       WHERE t.api_id = $1 AND t.id = $3 AND ${API_IN_SCOPE} RETURNING ${SELECT}`,
      [apiId, callerCompanyId, scopeId, body.description ?? null],
    );
    if (!rows[0]) throw notFound(`permission scope ${scopeId} of api ${apiId}`);
    return rows[0];
  },

  async remove(db: Queryable, callerCompanyId: string, apiId: string, scopeId: string): Promise<PermissionScope> {
    const { rows } = await db.query<PermissionScope>(
      `DELETE FROM permission_scopes t WHERE t.api_id = $1 AND t.id = $3 AND ${API_IN_SCOPE} RETURNING ${SELECT}`,
      [apiId, callerCompanyId, scopeId],
    );
    if (!rows[0]) throw notFound(`permission scope ${scopeId} of api ${apiId}`);
    return rows[0];
  },
};

type ApiParams = { apiId: string };

const scopeRules: CrudRules<PermissionScope, ScopeBody, ApiParams> = {
  create: (db, { params, caller }, body) => permissionScopes.create(db, caller.companyId, params.apiId, body as ScopeBody & { permission: string }),
  async update(db, { params, caller }, changes) {
    const updated: PermissionScope[] = [];
    for (const { id: scopeId, body } of changes) updated.push(await permissionScopes.update(db, caller.companyId, params.apiId, scopeId, body));
    return updated;
  },
  async remove(db, { params, caller }, scopeIds) {
    const removed: PermissionScope[] = [];
    for (const scopeId of scopeIds) removed.push(await permissionScopes.remove(db, caller.companyId, params.apiId, scopeId));
    return removed;
  },
};

export async function permissionScopeRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['apis'];
  const path = '/api/:apiId/PermissionScopes';
  const scope = { params: ['apiId'], where: ['t.api_id = $1', API_IN_SCOPE], values: (request: FastifyRequest) => [(request.params as ApiParams).apiId, request.principal.companyId] };

  addListRoute(app, permissionScopeDefinition, {
    path,
    tags,
    scope,
    // the scope confines the rows to the caller's subtree; an empty list may mean "no such API here"
    guarded: false,
    locate: locateRecords('apis', 'apiId'),
    async whenEmpty(request) {
      const { apiId } = request.params as ApiParams;
      if (!(await apiExists(db, apiId, request.principal.companyId))) throw notFound(`api ${apiId}`);
    },
  });
  await crudRoutes(permissionScopeDefinition, {
    tags,
    path,
    idParam: 'scopeId',
    locate: locateRecords('apis', 'apiId'),
    idSchema: permission,
    scope,
    rules: scopeRules,
    bodies: { create: createBody, update: updateBody },
    routes: ['create', 'update', 'remove'],
  })(app);
}
