import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError } from '../errors.js';
import { randomAlphanumeric } from '../ids.js';
import { managementAudience } from '../accounts/tokens.js';
import { identifierNotAvailable, idNotAvailable, uniqueByConstraint } from './unique.js';
import { checkAccess, inScope, locateRecords } from './guard.js';
import {
  addListRoute,
  bodyProperties,
  type CrudRules,
  crudRoutes,
  findRecords,
  listBodySchema,
  type RecordOf,
  type ResourceDefinition,
  recordSchema,
  selectList,
} from './resource.js';
import { errorResponses, id, params, requiredText, status } from './schemas.js';
import { deletedFields } from './listFields.js';

export const SIGNING_ALGORITHMS = ['RS256', 'HS256'] as const;

export type Api = RecordOf<typeof apiDefinition>;
/** The settings an administrator edits. */
export type ApiSettings = Omit<Api, 'id' | 'domain' | 'companyId' | 'deletedAt' | 'deletedBy'>;

/** Returned once: when an API is created as HS256 or switched to HS256. */
export type ApiWithSecret = Api & { signingSecret?: string };

export type ApiBody = Partial<ApiSettings> & { id?: string; domain?: string; companyId?: string };

/** Defaults: docs/CONSOLE.md, "Constants". */
export const API_DEFAULTS: Omit<ApiSettings, 'name' | 'identifier'> = {
  tokenExpiration: 86400,
  tokenExpirationBrowser: 7200,
  signingAlgorithm: 'RS256',
  RBAC: false,
  addPermissionAccessToken: false,
  allowSkippingUserConsent: true,
  allowOfflineAccess: false,
  status: 'active',
};

// Auth0's bounds: access tokens live at most 30 days, browser-flow tokens at most a day.
const integer = (maximum: number) => ({ type: 'integer', minimum: 1, maximum }) as const;
const flag = { type: 'boolean' } as const;

/**
 * APIs (resource servers). Their ids are global (one namespace across tenants), so a record is at
 * `/api/{apiId}` within the caller's subtree; the plain routes on `/api` are produced from this
 * definition (resource.ts), the domain's list and create at `/{companyId}/{domainId}/api` are added
 * beside them.
 */
export const apiDefinition = {
  name: 'api',
  permission: 'apis',
  label: 'api',
  table: 'apis t',
  fields: {
    id: { column: 't.id', input: { ...id, description: 'generated (32 letters and digits) when absent; cannot be changed' } },
    name: { column: 't.name', input: requiredText() },
    domain: { column: 't.domain_id', input: { ...id, description: 'domain id; cannot be changed' } },
    companyId: { column: 't.company_id', input: { ...id, description: 'cannot be changed' } },
    identifier: {
      column: 't.identifier',
      input: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\S+$', description: 'the audience of its tokens; no whitespace; cannot be changed' },
    },
    tokenExpiration: { column: 't.token_expiration', type: 'integer', input: integer(2592000) },
    tokenExpirationBrowser: { column: 't.token_expiration_browser', type: 'integer', input: integer(86400) },
    signingAlgorithm: { column: 't.signing_algorithm', input: { type: 'string', enum: SIGNING_ALGORITHMS } },
    RBAC: { column: 't.rbac', type: 'boolean', input: flag },
    addPermissionAccessToken: { column: 't.add_permission_access_token', type: 'boolean', input: flag },
    allowSkippingUserConsent: { column: 't.allow_skipping_user_consent', type: 'boolean', input: flag },
    allowOfflineAccess: { column: 't.allow_offline_access', type: 'boolean', input: flag },
    status: { column: 't.status', input: status },
    ...deletedFields('apis'),
  },
  search: `(t.name || ' ' || t.identifier)`,
  key: ['t.id'],
  defaultSort: 'name',
} satisfies ResourceDefinition;

const SELECT = selectList(apiDefinition);
// fields with an input are settings (deletedAt and deletedBy are read from the audit trail)
const SETTINGS = Object.entries(apiDefinition.fields)
  .filter(([field, spec]) => 'input' in spec && !['id', 'domain', 'companyId'].includes(field))
  .map(([field]) => field) as (keyof ApiSettings)[];
/** A setting's column, without the alias. */
const column = (field: keyof ApiSettings) => apiDefinition.fields[field].column.slice(2);

// ---- schemas ----

const createBody = (required: string[]) => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: Object.fromEntries(
    Object.entries(bodyProperties(apiDefinition)).map(([field, schema]) =>
      field in API_DEFAULTS ? [field, { ...schema, default: API_DEFAULTS[field as keyof typeof API_DEFAULTS] }] : [field, schema],
    ),
  ),
});

/** PUT: a full record or only the fields to change; absent fields keep their stored value. */
const updateBody = { type: 'object', additionalProperties: false, properties: bodyProperties(apiDefinition) };
const apiWithSecretJson = recordSchema(apiDefinition, {
  signingSecret: { type: 'string', description: 'HS256 only: shown once, on create or on the switch to HS256' },
});

// ---- writes ----

/** HS256 keys must be at least 256 bits: 64 letters and digits carry about 380. */
const newSigningSecret = () => randomAlphanumeric(64);

function definedSettings(body: ApiBody): Partial<ApiSettings> {
  const settings: Partial<ApiSettings> = {};
  for (const field of SETTINGS) if (body[field] !== undefined) (settings as Record<string, unknown>)[field] = body[field];
  return settings;
}

/** Where the caller reaches APIs: their company's subtree ($1, the caller's company). */
const inCallersSubtree = [inScope('t.company_id', '$1')];

/** The APIs, if they exist inside the caller's subtree (optionally locked for an update). */
export const findApi = (db: Queryable, callerCompanyId: string, apiIds: string[], lock = false) =>
  findRecords<Api>(db, apiDefinition, { where: inCallersSubtree, values: [callerCompanyId] }, apiIds, lock);

/** Every write of an API goes through here; callerCompanyId confines it to the caller's subtree. */
export const apis = {
  /** The caller has already been checked against companyId/domainId (guard or checkAccess). */
  async create(db: Queryable, companyId: string, domainId: string, body: ApiBody & { name: string; identifier: string }, reserved: string): Promise<ApiWithSecret> {
    // the management API's audience belongs to this provider: no tenant's API may claim it; nor an
    // identifier another domain purged while tokens for it may still be valid (migration 19)
    if (body.identifier === reserved) throw identifierNotAvailable(body.identifier);
    const retired = await db.query(
      `SELECT 1 FROM retired_api_identifiers WHERE identifier = $1 AND until > now() AND (company_id, domain_id) <> ($2, $3)`,
      [body.identifier, companyId, domainId],
    );
    if (retired.rowCount > 0) throw identifierNotAvailable(body.identifier);
    const apiId = body.id ?? randomAlphanumeric(32);
    const settings = { ...API_DEFAULTS, ...definedSettings(body) } as ApiSettings;
    const secret = settings.signingAlgorithm === 'HS256' ? newSigningSecret() : null;
    const columns = SETTINGS.map(column);
    const created = await uniqueByConstraint(
      { apis_pkey: idNotAvailable('API', apiId), apis_name: settings.name, apis_identifier: identifierNotAvailable(settings.identifier) },
      async () => {
        const { rows } = await db.query<Api>(
          `INSERT INTO apis AS t (id, company_id, domain_id, signing_secret, ${columns.join(', ')})
           VALUES ($1, $2, $3, $4, ${columns.map((_, i) => `$${i + 5}`).join(', ')}) RETURNING ${SELECT}`,
          [apiId, companyId, domainId, secret, ...SETTINGS.map((field) => settings[field])],
        );
        return rows[0];
      },
    );
    return secret ? { ...created, signingSecret: secret } : created;
  },

  /** Changes settings; status deleted/active = soft delete/recover. The identifier is the tokens' audience, so it stays. */
  async update(db: Queryable, callerCompanyId: string, apiId: string, body: ApiBody): Promise<ApiWithSecret> {
    const [current] = await findApi(db, callerCompanyId, [apiId], true);
    if ((body.id ?? apiId) !== apiId) throw badRequest('id cannot be changed').as('api.idFixed');
    if ((body.domain ?? current.domain) !== current.domain || (body.companyId ?? current.companyId) !== current.companyId) {
      throw badRequest('domain: an API cannot move to another company or domain').as('api.domainFixed');
    }
    if ((body.identifier ?? current.identifier) !== current.identifier) {
      throw badRequest('identifier cannot be changed: it is the audience of the tokens already issued').as('api.identifierFixed');
    }
    const next = { ...current, ...definedSettings(body) };
    const switchedToHs256 = current.signingAlgorithm !== 'HS256' && next.signingAlgorithm === 'HS256';
    const secret = switchedToHs256 ? newSigningSecret() : null;
    // $2: a new secret, or null meaning "keep it while HS256, drop it otherwise"
    const assignments = SETTINGS.map((field, i) => `${column(field)} = $${i + 3}`);
    const updated = await uniqueByConstraint({ apis_name: next.name }, async () => {
      const { rows } = await db.query<Api>(
        `UPDATE apis t SET ${assignments.join(', ')},
           signing_secret = CASE WHEN $${SETTINGS.indexOf('signingAlgorithm') + 3} = 'HS256' THEN coalesce($2, t.signing_secret) END,
           updated_at = now()
         WHERE t.id = $1 RETURNING ${SELECT}`,
        [apiId, secret, ...SETTINGS.map((field) => next[field])],
      );
      return rows[0];
    });
    return secret ? { ...updated, signingSecret: secret } : updated;
  },

  /** Purges APIs (with their permission scopes) that are already soft-deleted; all or nothing. */
  async remove(db: Queryable, callerCompanyId: string, apiIds: string[]): Promise<Api[]> {
    const found = await findApi(db, callerCompanyId, apiIds, true);
    const active = found.find((api) => api.status !== 'deleted');
    if (active) throw new HttpError(409, `api ${active.name} is active: delete it (status deleted) before purging it`).as('api.activePurge', { name: active.name.slice(0, 100) });
    await db.query(`DELETE FROM apis WHERE id = ANY ($1)`, [apiIds]);
    return found;
  },
};

// ---- routes ----

type ApiCreateBody = ApiBody & { name: string; identifier: string };

/** The plain routes' rules: the caller's company confines every record; a create names its company and domain in the body. */
const apiRules = (managementApi: string): CrudRules<ApiWithSecret, ApiBody, unknown> => ({
  async create(db, { caller }, body) {
    const { companyId, domain } = body as ApiCreateBody & { companyId: string; domain: string };
    await checkAccess(db, caller, companyId, domain, 'apis:write');
    return apis.create(db, companyId, domain, body as ApiCreateBody, managementApi);
  },
  async update(db, { caller }, changes) {
    const updated: ApiWithSecret[] = [];
    for (const { id: apiId, body } of changes) updated.push(await apis.update(db, caller.companyId, apiId, body));
    return updated;
  },
  remove: (db, { caller }, apiIds) => apis.remove(db, caller.companyId, [...new Set(apiIds)]),
});

export async function apiResourceRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const managementApi = managementAudience(app.ctx);
  const tags = ['apis'];
  const domainScope = { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] };

  addListRoute(app, apiDefinition, { path: '/:companyId/:domainId/api', tags, scope: domainScope });
  await crudRoutes(apiDefinition, {
    tags,
    path: '/api',
    idParam: 'apiId',
    scope: { params: [], where: inCallersSubtree, values: (request) => [request.principal.companyId] },
    locate: locateRecords('apis', 'apiId'),
    rules: apiRules(managementApi),
    bodies: { create: createBody(['name', 'identifier', 'domain', 'companyId']), update: updateBody, updateList: listBodySchema(updateBody) },
    responses: { created: apiWithSecretJson, updated: apiWithSecretJson },
  })(app);

  // the path names the company and domain (checked by the guard); they win over any in the body
  app.post<{ Params: { companyId: string; domainId: string }; Body: ApiCreateBody }>(
    '/:companyId/:domainId/api',
    { config: { permission: 'apis:write' }, schema: { tags, params: params('companyId', 'domainId'), body: createBody(['name', 'identifier']), response: { 201: apiWithSecretJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      return reply.status(201).send(await db.transaction((tx) => apis.create(tx, companyId, domainId, request.body, managementApi)));
    },
  );
}
