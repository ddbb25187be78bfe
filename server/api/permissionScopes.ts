import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, duplicated, notFound } from '../errors.js';
import { inScope } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { errorResponses, id, optionalText } from './schemas.js';

export interface PermissionScope {
  id: string;
  permission: string;
  description: string;
}

const SELECT = `t.id, t.permission, t.description`;

/** Tenancy of every scope statement: the API exists inside the caller's subtree ($1 api id, $2 caller's company). */
const API_IN_SCOPE = `EXISTS (SELECT 1 FROM apis a WHERE a.id = $1 AND ${inScope('a.company_id', '$2')})`;

const scopeResource: ListResource = {
  name: 'PermissionScopes',
  table: 'permission_scopes t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    permission: { column: 't.permission' },
    description: { column: 't.description' },
  },
  search: `(t.permission || ' ' || t.description)`,
  key: ['t.api_id', 't.id'],
  defaultSort: 'permission',
};

/** An OAuth scope token (RFC 6749 3.3) without quotes: printable ASCII except space, " , ' and \. */
const permission = { type: 'string', pattern: '^[\\x21\\x23-\\x26\\x28-\\x5B\\x5D-\\x7E]{1,100}$', description: 'an OAuth scope token, e.g. read:users' } as const;

const scopeJson = {
  type: 'object',
  properties: { id: { type: 'string' }, permission: { type: 'string' }, description: { type: 'string' } },
} as const;

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

const scopeParams = {
  type: 'object',
  required: ['apiId', 'scopeId'],
  properties: { apiId: id, scopeId: permission },
} as const;
const apiParams = { type: 'object', required: ['apiId'], properties: { apiId: id } } as const;

type ScopeBody = { permission?: string; description?: string; id?: string };

async function apiExists(db: Queryable, apiId: string, callerCompanyId: string) {
  const { rows } = await db.query(`SELECT 1 WHERE ${API_IN_SCOPE}`, [apiId, callerCompanyId]);
  return rows.length > 0;
}

/** Every write of a permission scope goes through here; each is one statement that also checks the API's tenancy. */
export const permissionScopes = {
  async create(db: Queryable, callerCompanyId: string, apiId: string, body: ScopeBody & { permission: string }): Promise<PermissionScope> {
    if (body.id !== undefined && body.id !== body.permission) throw badRequest('id must equal permission');
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
      throw badRequest('permission cannot be changed: delete it and add the new one');
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

export async function permissionScopeRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['apis'];

  app.get<{ Params: { apiId: string }; Querystring: ListQuery }>(
    '/api/:apiId/PermissionScopes',
    { schema: { tags, params: apiParams, querystring: listQuerySchema, response: { 200: { type: 'array', items: scopeJson }, ...errorResponses } } },
    async (request, reply) => {
      const { apiId } = request.params;
      const parsed = parseListQuery(scopeResource, request.query, [apiId, request.principal.companyId]);
      const result = await runList<PermissionScope>(db, scopeResource, parsed, ['t.api_id = $1', API_IN_SCOPE]);
      // an empty list may mean "no such API here": only then is one more statement worth it
      if (result.total === 0 && !(await apiExists(db, apiId, request.principal.companyId))) throw notFound(`api ${apiId}`);
      return sendList(reply, 'PermissionScopes', result);
    },
  );

  app.post<{ Params: { apiId: string }; Body: ScopeBody & { permission: string } }>(
    '/api/:apiId/PermissionScopes',
    { schema: { tags, params: apiParams, body: createBody, response: { 201: scopeJson, ...errorResponses } } },
    async (request, reply) => reply.status(201).send(await permissionScopes.create(db, request.principal.companyId, request.params.apiId, request.body)),
  );

  app.put<{ Params: { apiId: string; scopeId: string }; Body: ScopeBody }>(
    '/api/:apiId/PermissionScopes/:scopeId',
    { schema: { tags, params: scopeParams, body: updateBody, response: { 200: scopeJson, ...errorResponses } } },
    async (request) => permissionScopes.update(db, request.principal.companyId, request.params.apiId, request.params.scopeId, request.body),
  );

  app.delete<{ Params: { apiId: string; scopeId: string } }>(
    '/api/:apiId/PermissionScopes/:scopeId',
    { schema: { tags, params: scopeParams, response: { 200: scopeJson, ...errorResponses } } },
    async (request) => permissionScopes.remove(db, request.principal.companyId, request.params.apiId, request.params.scopeId),
  );
}
