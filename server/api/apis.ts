import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { randomAlphanumeric } from '../ids.js';
import { idNotAvailable, uniqueByConstraint } from './unique.js';
import { checkAccess, inScope, listAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { errorResponses, id, params, requiredText, status } from './schemas.js';

export const SIGNING_ALGORITHMS = ['RS256', 'HS256'] as const;

/** The settings an administrator edits. */
export interface ApiSettings {
  name: string;
  identifier: string;
  tokenExpiration: number;
  tokenExpirationBrowser: number;
  signingAlgorithm: (typeof SIGNING_ALGORITHMS)[number];
  RBAC: boolean;
  addPermissionAccessToken: boolean;
  allowSkippingUserConsent: boolean;
  allowOfflineAccess: boolean;
  status: 'active' | 'deleted';
}

export interface Api extends ApiSettings {
  id: string;
  domain: string;
  companyId: string;
}

/** Returned once: when an API is created as HS256 or switched to HS256. */
export type ApiWithSecret = Api & { signingSecret?: string };

export type ApiBody = Partial<ApiSettings> & { id?: string; domain?: string; companyId?: string };

/** SPEC 9 defaults. */
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

/** API field -> column. */
const COLUMNS: Record<keyof ApiSettings, string> = {
  name: 'name',
  identifier: 'identifier',
  tokenExpiration: 'token_expiration',
  tokenExpirationBrowser: 'token_expiration_browser',
  signingAlgorithm: 'signing_algorithm',
  RBAC: 'rbac',
  addPermissionAccessToken: 'add_permission_access_token',
  allowSkippingUserConsent: 'allow_skipping_user_consent',
  allowOfflineAccess: 'allow_offline_access',
  status: 'status',
};
const SETTINGS = Object.keys(COLUMNS) as (keyof ApiSettings)[];

const SELECT = [
  't.id',
  't.domain_id AS domain',
  't.company_id AS "companyId"',
  ...SETTINGS.map((field) => `t.${COLUMNS[field]} AS "${field}"`),
].join(', ');

const integerFields = new Set(['tokenExpiration', 'tokenExpirationBrowser']);
const booleanFields = new Set(['RBAC', 'addPermissionAccessToken', 'allowSkippingUserConsent', 'allowOfflineAccess']);

const apiResource: ListResource = {
  name: 'api',
  table: 'apis t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    domain: { column: 't.domain_id' },
    companyId: { column: 't.company_id' },
    ...Object.fromEntries(
      SETTINGS.map((field) => [
        field,
        { column: `t.${COLUMNS[field]}`, type: integerFields.has(field) ? 'integer' : booleanFields.has(field) ? 'boolean' : 'text' },
      ]),
    ),
  },
  search: `(t.name || ' ' || t.identifier)`,
  key: ['t.id'],
  defaultSort: 'name',
};

// ---- schemas ----

// Auth0's bounds: access tokens live at most 30 days, browser-flow tokens at most a day.
const settingsSchema = {
  name: requiredText(),
  identifier: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\S+$', description: 'the audience of its tokens; no whitespace; cannot be changed' },
  tokenExpiration: { type: 'integer', minimum: 1, maximum: 2592000 },
  tokenExpirationBrowser: { type: 'integer', minimum: 1, maximum: 86400 },
  signingAlgorithm: { type: 'string', enum: SIGNING_ALGORITHMS },
  RBAC: { type: 'boolean' },
  addPermissionAccessToken: { type: 'boolean' },
  allowSkippingUserConsent: { type: 'boolean' },
  allowOfflineAccess: { type: 'boolean' },
  status,
} as const;

const identityProperties = {
  id: { ...id, description: 'generated (32 letters and digits) when absent; cannot be changed' },
  domain: { ...id, description: 'domain id; cannot be changed' },
  companyId: { ...id, description: 'cannot be changed' },
} as const;

const createBody = (required: string[]) => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: {
    ...identityProperties,
    ...Object.fromEntries(
      Object.entries(settingsSchema).map(([field, schema]) => [field, field in API_DEFAULTS ? { ...schema, default: API_DEFAULTS[field as keyof typeof API_DEFAULTS] } : schema]),
    ),
  },
});

/** PUT: a full record or only the fields to change; absent fields keep their stored value. */
const updateBody = { type: 'object', additionalProperties: false, properties: { ...identityProperties, ...settingsSchema } } as const;
const updateListBody = { type: 'array', minItems: 1, maxItems: 1000, items: { ...updateBody, required: ['id'] } } as const;
const apiIdList = { type: 'array', items: id, minItems: 1, maxItems: 1000 } as const;

const apiJson = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    domain: { type: 'string' },
    companyId: { type: 'string' },
    identifier: { type: 'string' },
    tokenExpiration: { type: 'integer' },
    tokenExpirationBrowser: { type: 'integer' },
    signingAlgorithm: { type: 'string' },
    RBAC: { type: 'boolean' },
    addPermissionAccessToken: { type: 'boolean' },
    allowSkippingUserConsent: { type: 'boolean' },
    allowOfflineAccess: { type: 'boolean' },
    status: { type: 'string' },
  },
} as const;
const apiWithSecretJson = {
  type: 'object',
  properties: {
    ...apiJson.properties,
    signingSecret: { type: 'string', description: 'HS256 only: shown once, on create or on the switch to HS256' },
  },
} as const;
const apiList = { type: 'array', items: apiJson } as const;

// ---- writes ----

/** HS256 keys must be at least 256 bits: 64 letters and digits carry about 380. */
const newSigningSecret = () => randomAlphanumeric(64);

function definedSettings(body: ApiBody): Partial<ApiSettings> {
  const settings: Partial<ApiSettings> = {};
  for (const field of SETTINGS) if (body[field] !== undefined) (settings as Record<string, unknown>)[field] = body[field];
  return settings;
}

/** The API, if it exists inside the caller's subtree (optionally locked for an update). */
export async function findApi(db: Queryable, callerCompanyId: string, apiIds: string[], lock = false): Promise<Api[]> {
  const { rows } = await db.query<Api>(
    `SELECT ${SELECT} FROM apis t WHERE t.id = ANY ($1) AND ${inScope('t.company_id', '$2')}${lock ? ' FOR UPDATE' : ''}`,
    [apiIds, callerCompanyId],
  );
  const missing = apiIds.find((apiId) => !rows.some((row) => row.id === apiId));
  if (missing !== undefined) throw notFound(`api ${missing}`);
  return apiIds.map((apiId) => rows.find((row) => row.id === apiId)!);
}

/** Every write of an API goes through here; callerCompanyId confines it to the caller's subtree. */
export const apis = {
  /** The caller has already been checked against companyId/domainId (guard or checkAccess). */
  async create(db: Queryable, companyId: string, domainId: string, body: ApiBody & { name: string; identifier: string }): Promise<ApiWithSecret> {
    const apiId = body.id ?? randomAlphanumeric(32);
    const settings = { ...API_DEFAULTS, ...definedSettings(body) } as ApiSettings;
    const secret = settings.signingAlgorithm === 'HS256' ? newSigningSecret() : null;
    const columns = SETTINGS.map((field) => COLUMNS[field]);
    const created = await uniqueByConstraint(
      { apis_pkey: idNotAvailable('API', apiId), apis_name: settings.name, apis_identifier: settings.identifier },
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
    if ((body.id ?? apiId) !== apiId) throw badRequest('id cannot be changed');
    if ((body.domain ?? current.domain) !== current.domain || (body.companyId ?? current.companyId) !== current.companyId) {
      throw badRequest('domain: an API cannot move to another company or domain');
    }
    if ((body.identifier ?? current.identifier) !== current.identifier) {
      throw badRequest('identifier cannot be changed: it is the audience of the tokens already issued');
    }
    const next = { ...current, ...definedSettings(body) };
    const switchedToHs256 = current.signingAlgorithm !== 'HS256' && next.signingAlgorithm === 'HS256';
    const secret = switchedToHs256 ? newSigningSecret() : null;
    // $2: a new secret, or null meaning "keep it while HS256, drop it otherwise"
    const assignments = SETTINGS.map((field, i) => `${COLUMNS[field]} = $${i + 3}`);
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
    if (active) throw new HttpError(409, `api ${active.name} is active: delete it (status deleted) before purging it`);
    await db.query(`DELETE FROM apis WHERE id = ANY ($1)`, [apiIds]);
    return found;
  },
};

// ---- routes ----

export async function apiResourceRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['apis'];
  const apiIdParams = params('apiId');

  app.get<{ Params: { companyId: string; domainId: string }; Querystring: ListQuery }>(
    '/:companyId/:domainId/api',
    { config: { accessWithList: true }, schema: { tags, params: params('companyId', 'domainId'), querystring: listQuerySchema, response: { 200: apiList, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const parsed = parseListQuery(apiResource, request.query, [companyId, domainId]);
      return sendList(reply, 'api', await runList(db, apiResource, parsed, ['t.company_id = $1', 't.domain_id = $2'], listAccess(request)));
    },
  );

  app.get<{ Querystring: ListQuery }>(
    '/api',
    { config: { accessWithList: true }, schema: { tags, querystring: listQuerySchema, response: { 200: apiList, ...errorResponses } } },
    async (request, reply) => {
      const parsed = parseListQuery(apiResource, request.query, [request.principal.companyId]);
      return sendList(reply, 'api', await runList(db, apiResource, parsed, [inScope('t.company_id', '$1')], listAccess(request)));
    },
  );

  app.get<{ Params: { apiId: string } }>(
    '/api/:apiId',
    { schema: { tags, params: apiIdParams, response: { 200: apiJson, ...errorResponses } } },
    async (request) => (await findApi(db, request.principal.companyId, [request.params.apiId]))[0],
  );

  app.post<{ Body: ApiBody & { name: string; identifier: string; domain: string; companyId: string } }>(
    '/api',
    { schema: { tags, body: createBody(['name', 'identifier', 'domain', 'companyId']), response: { 201: apiWithSecretJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domain } = request.body;
      await checkAccess(db, request.principal, companyId, domain);
      return reply.status(201).send(await db.transaction((tx) => apis.create(tx, companyId, domain, request.body)));
    },
  );

  // the path names the company and domain (checked by the guard); they win over any in the body
  app.post<{ Params: { companyId: string; domainId: string }; Body: ApiBody & { name: string; identifier: string } }>(
    '/:companyId/:domainId/api',
    { schema: { tags, params: params('companyId', 'domainId'), body: createBody(['name', 'identifier']), response: { 201: apiWithSecretJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      return reply.status(201).send(await db.transaction((tx) => apis.create(tx, companyId, domainId, request.body)));
    },
  );

  app.put<{ Params: { apiId: string }; Body: ApiBody }>(
    '/api/:apiId',
    { schema: { tags, params: apiIdParams, body: updateBody, response: { 200: apiWithSecretJson, ...errorResponses } } },
    async (request) => db.transaction((tx) => apis.update(tx, request.principal.companyId, request.params.apiId, request.body)),
  );

  app.put<{ Body: (ApiBody & { id: string })[] }>(
    '/api',
    { schema: { tags, body: updateListBody, response: { 200: { type: 'array', items: apiWithSecretJson }, ...errorResponses } } },
    async (request) =>
      db.transaction(async (tx) => {
        const updated: ApiWithSecret[] = [];
        for (const item of request.body) updated.push(await apis.update(tx, request.principal.companyId, item.id, item));
        return updated;
      }),
  );

  app.delete<{ Params: { apiId: string } }>(
    '/api/:apiId',
    { schema: { tags, params: apiIdParams, response: { 200: apiJson, ...errorResponses } } },
    async (request) => (await db.transaction((tx) => apis.remove(tx, request.principal.companyId, [request.params.apiId])))[0],
  );

  app.delete<{ Body: string[] }>(
    '/api',
    { schema: { tags, body: apiIdList, response: { 200: apiList, ...errorResponses } } },
    async (request) => db.transaction((tx) => apis.remove(tx, request.principal.companyId, [...new Set(request.body)])),
  );
}
