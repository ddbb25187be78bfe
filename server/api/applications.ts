import type { FastifyInstance } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest, duplicated, HttpError, notFound } from '../errors.js';
import { randomAlphanumeric, sha256 } from '../ids.js';
import { idNotAvailable, uniqueByConstraint } from './unique.js';
import { checkAccess, inScope, listAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { errorResponses, id, optionalText, params, requiredText, status } from './schemas.js';

export const APP_TYPES = ['SPA', 'web', 'native', 'machine'] as const;
export const GRANT_TYPES = ['implicit', 'authorization_code', 'refresh_token', 'client_credentials', 'password', 'MFA', 'passwordless_otp'] as const;
type AppType = (typeof APP_TYPES)[number];

/** The settings an administrator edits; API field names are the column names. */
export interface ApplicationSettings {
  client_name: string;
  description: string;
  logo_uri: string;
  app_type: AppType;
  client_uri: string;
  client_logout_uri: string[];
  redirect_uris: string[];
  allowed_web_orgins: string[];
  id_token_expiration: number;
  refresh_token_rotation: boolean;
  refresh_reuse_interval: number;
  refresh_absolute_expiration: boolean;
  refresh_absolute_lifetime: number;
  grant_types: string[];
  audience: string;
  status: 'active' | 'deleted';
}

export interface Application extends ApplicationSettings {
  id: string;
  client_id: string;
  domain: string;
  companyId: string;
}

/** A request body: any settings, plus identity fields that are only honoured on create. */
export type ApplicationBody = Partial<ApplicationSettings> & {
  id?: string;
  client_id?: string;
  client_secret?: string;
  domain?: string;
  companyId?: string;
};

/** SPEC 9 defaults. */
export const APPLICATION_DEFAULTS: ApplicationSettings = {
  client_name: '',
  description: '',
  logo_uri: '',
  app_type: 'SPA',
  client_uri: '',
  client_logout_uri: [],
  redirect_uris: [],
  allowed_web_orgins: [],
  id_token_expiration: 36000,
  refresh_token_rotation: false,
  refresh_reuse_interval: 0,
  refresh_absolute_expiration: false,
  refresh_absolute_lifetime: 31557600,
  grant_types: ['authorization_code', 'refresh_token'],
  audience: '',
  status: 'active',
};

const SETTINGS = Object.keys(APPLICATION_DEFAULTS) as (keyof ApplicationSettings)[];
const JSONB_COLUMNS = new Set<string>(['client_logout_uri', 'redirect_uris', 'allowed_web_orgins', 'grant_types']);
const URI_LISTS = ['redirect_uris', 'client_logout_uri', 'allowed_web_orgins'] as const;

const SELECT = `t.id, t.id AS client_id, t.client_name, t.domain_id AS domain, t.company_id AS "companyId", t.description, t.logo_uri,
  t.app_type, t.client_uri, t.client_logout_uri, t.redirect_uris, t.allowed_web_orgins, t.id_token_expiration,
  t.refresh_token_rotation, t.refresh_reuse_interval, t.refresh_absolute_expiration, t.refresh_absolute_lifetime,
  t.grant_types, t.audience, t.status`;

const applicationResource: ListResource = {
  name: 'application',
  table: 'applications t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    client_id: { column: 't.id' },
    client_name: { column: 't.client_name' },
    domain: { column: 't.domain_id' },
    companyId: { column: 't.company_id' },
    description: { column: 't.description' },
    app_type: { column: 't.app_type' },
    audience: { column: 't.audience' },
    status: { column: 't.status' },
  },
  search: `(t.client_name || ' ' || t.id || ' ' || t.audience || ' ' || t.description)`,
  key: ['t.id'],
  defaultSort: 'client_name',
};

// ---- schemas ----

/** Client ids travel in paths and Basic headers: letters, digits, dash and underscore. */
/** Empty counts as absent: a cleared form field still gets a generated value. */
const clientId = { type: 'string', pattern: '^([A-Za-z0-9_-]{8,64})?$', description: '8 to 64 letters, digits, - or _' } as const;
const clientIdParam = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const uriList = { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000 } } as const;
const seconds = (minimum: number) => ({ type: 'integer', minimum, maximum: 2147483647 }) as const;

const settingsSchema = {
  client_name: requiredText(),
  description: optionalText(),
  logo_uri: optionalText(),
  app_type: { type: 'string', enum: APP_TYPES },
  client_uri: optionalText(),
  client_logout_uri: uriList,
  redirect_uris: uriList,
  allowed_web_orgins: uriList,
  id_token_expiration: seconds(1),
  refresh_token_rotation: { type: 'boolean' },
  refresh_reuse_interval: seconds(0),
  refresh_absolute_expiration: { type: 'boolean' },
  refresh_absolute_lifetime: seconds(1),
  grant_types: { type: 'array', maxItems: GRANT_TYPES.length, items: { type: 'string', enum: GRANT_TYPES } },
  audience: optionalText(200),
  status,
} as const;

const identityProperties = {
  id: { ...clientId, description: 'same as client_id' },
  client_id: { ...clientId, description: 'generated (32 letters and digits) when absent; cannot be changed' },
  client_secret: {
    type: 'string',
    pattern: '^([\\x21-\\x7E]{16,128})?$',
    description: 'create only: generated (32 letters and digits) when absent, shown once, stored hashed; ignored by PUT',
  },
  domain: { ...id, description: 'domain id; cannot be changed' },
  companyId: { ...id, description: 'cannot be changed' },
} as const;

const createProperties = Object.fromEntries(
  Object.entries(settingsSchema).map(([name, schema]) =>
    // grant_types has no schema default: it depends on app_type (see defaultGrantTypes)
    name === 'client_name' || name === 'grant_types' ? [name, schema] : [name, { ...schema, default: APPLICATION_DEFAULTS[name as keyof ApplicationSettings] }],
  ),
);

const createBody = (required: string[]) => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: { ...identityProperties, ...createProperties },
});

/** PUT: a full record or only the fields to change; absent fields keep their stored value. */
const updateBody = { type: 'object', additionalProperties: false, properties: { ...identityProperties, ...settingsSchema } } as const;
const updateListBody = { type: 'array', minItems: 1, maxItems: 1000, items: { ...updateBody, required: ['id'] } } as const;
const clientIdList = { type: 'array', items: clientIdParam, minItems: 1, maxItems: 1000 } as const;

const text = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const boolean = { type: 'boolean' } as const;
const strings = { type: 'array', items: text } as const;
const applicationJson = {
  type: 'object',
  properties: {
    id: text,
    client_id: text,
    client_name: text,
    domain: text,
    companyId: text,
    description: text,
    logo_uri: text,
    app_type: text,
    client_uri: text,
    client_logout_uri: strings,
    redirect_uris: strings,
    allowed_web_orgins: strings,
    id_token_expiration: integer,
    refresh_token_rotation: boolean,
    refresh_reuse_interval: integer,
    refresh_absolute_expiration: boolean,
    refresh_absolute_lifetime: integer,
    grant_types: strings,
    audience: text,
    status: text,
  },
} as const;
const createdApplicationJson = {
  type: 'object',
  properties: { ...applicationJson.properties, client_secret: { type: 'string', description: 'shown once, never again' } },
} as const;
const applicationList = { type: 'array', items: applicationJson } as const;

// ---- URI rules ----

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/** Why a redirect/logout URI or a web origin is unacceptable, or undefined when it is fine. */
function uriProblem(raw: string, kind: 'uri' | 'origin', appType: AppType): string | undefined {
  if (/\s/.test(raw)) return 'must not contain spaces';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URI';
  }
  if (raw.includes('#')) return 'must not contain a fragment (#)';
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username || url.password) return 'must not contain user credentials';
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      return 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])';
    }
    if (kind === 'origin' && (url.pathname !== '/' || raw.includes('?'))) {
      return 'must be a bare origin: scheme://host[:port], without path or query';
    }
    return undefined;
  }
  if (kind === 'origin') return 'must be an http or https origin';
  if (UNSAFE_SCHEMES.has(url.protocol)) return `cannot use the ${url.protocol} scheme`;
  // RFC 8252: private-use schemes are how native apps receive their redirect; browsers' apps must not use them
  if (appType !== 'native') return `uses the custom scheme ${url.protocol}, which only native applications may use`;
  return undefined;
}

function checkWebUri(field: string, value: string) {
  if (!value) return;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw badRequest(`${field}: "${value}" must be an absolute http or https URL`);
}

/**
 * Trims the URI lists (the console splits text areas on line breaks, so blank lines are dropped),
 * checks every entry that is new (entries already stored were accepted before and are re-checked
 * only when app_type changes) and stores origins in their canonical form.
 */
function normalizeSettings(next: ApplicationSettings, stored?: ApplicationSettings): ApplicationSettings {
  const result = { ...next, grant_types: [...new Set(next.grant_types)] };
  const recheckAll = !stored || stored.app_type !== next.app_type;
  for (const field of URI_LISTS) {
    const entries = [...new Set(next[field].map((entry) => entry.trim()).filter(Boolean))];
    for (const entry of entries) {
      if (!recheckAll && stored![field].includes(entry)) continue;
      const problem = uriProblem(entry, field === 'allowed_web_orgins' ? 'origin' : 'uri', next.app_type);
      if (problem) throw badRequest(`${field}: "${entry}" ${problem}`);
    }
    result[field] = field === 'allowed_web_orgins' ? entries.map((entry) => new URL(entry).origin) : entries;
  }
  checkWebUri('client_uri', next.client_uri.trim());
  checkWebUri('logo_uri', next.logo_uri.trim());
  result.client_uri = next.client_uri.trim();
  result.logo_uri = next.logo_uri.trim();
  return result;
}

// ---- writes ----

/** Who writes: every write is confined to the caller's subtree, and the console's own application is protected. */
export interface ApplicationWriter {
  principal: Principal;
  consoleClientId: string;
}

function definedSettings(body: ApplicationBody): Partial<ApplicationSettings> {
  const settings: Partial<ApplicationSettings> = {};
  for (const name of SETTINGS) if (body[name] !== undefined) (settings as Record<string, unknown>)[name] = body[name];
  return settings;
}

const settingValues = (app: ApplicationSettings) =>
  SETTINGS.map((name) => (JSONB_COLUMNS.has(name) ? JSON.stringify(app[name]) : app[name]));

async function findInScope(db: Queryable, callerCompanyId: string, clientIds: string[], lock = false): Promise<Application[]> {
  const { rows } = await db.query<Application>(
    `SELECT ${SELECT} FROM applications t WHERE t.id = ANY ($1) AND ${inScope('t.company_id', '$2')}${lock ? ' FOR UPDATE' : ''}`,
    [clientIds, callerCompanyId],
  );
  const missing = clientIds.find((clientId) => !rows.some((row) => row.id === clientId));
  // an empty id is missing too, and '' is falsy: compare with undefined
  if (missing !== undefined) throw notFound(`application ${missing}`);
  return clientIds.map((clientId) => rows.find((row) => row.id === clientId)!);
}

/** Tokens already handed out through an application die with it (the guard checks grants on every call). */
async function revokeGrants(db: Queryable, clientIds: string[]) {
  await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE client_id = ANY ($1) AND revoked_at IS NULL`, [clientIds]);
}

/** A machine-to-machine application can only ever use client_credentials; the others sign users in. */
function defaultGrantTypes(appType: ApplicationSettings['app_type'] | undefined): string[] {
  return appType === 'machine' ? ['client_credentials'] : [...APPLICATION_DEFAULTS.grant_types];
}

/** Every write of an application goes through here. */
export const applications = {
  /** The caller has already been checked against companyId/domainId (guard or checkAccess). */
  async create(db: Queryable, companyId: string, domainId: string, body: ApplicationBody): Promise<Application & { client_secret: string }> {
    if (body.id && body.client_id && body.id !== body.client_id) throw badRequest('id must equal client_id');
    const clientId = body.client_id || body.id || randomAlphanumeric(32);
    const secret = body.client_secret || randomAlphanumeric(32);
    const given = definedSettings(body);
    const settings = normalizeSettings({ ...APPLICATION_DEFAULTS, grant_types: defaultGrantTypes(given.app_type), ...given });
    const values = settingValues(settings);
    const placeholders = SETTINGS.map((name, i) => `$${i + 5}${JSONB_COLUMNS.has(name) ? '::jsonb' : ''}`);
    const created = await uniqueByConstraint({ applications_pkey: idNotAvailable('application', clientId), applications_name: settings.client_name }, async () => {
      const { rows } = await db.query<Application>(
        `INSERT INTO applications AS t (id, company_id, domain_id, client_secret_hash, ${SETTINGS.join(', ')})
         VALUES ($1, $2, $3, $4, ${placeholders.join(', ')}) RETURNING ${SELECT}`,
        [clientId, companyId, domainId, sha256(secret), ...values],
      );
      return rows[0];
    });
    return { ...created, client_secret: secret };
  },

  /** Changes settings; client_id, company, domain and secret never change here. status deleted/active = soft delete/recover. */
  async update(db: Queryable, writer: ApplicationWriter, clientId: string, body: ApplicationBody): Promise<Application> {
    const [current] = await findInScope(db, writer.principal.companyId, [clientId], true);
    if ((body.id || clientId) !== clientId || (body.client_id || clientId) !== clientId) throw badRequest('client_id cannot be changed');
    if ((body.domain ?? current.domain) !== current.domain || (body.companyId ?? current.companyId) !== current.companyId) {
      throw badRequest('domain: an application cannot move to another company or domain');
    }
    const next = normalizeSettings({ ...current, ...definedSettings(body) }, current);
    if (clientId === writer.consoleClientId && next.status === 'deleted') {
      throw badRequest(`${clientId} is this console's own application: it cannot be deleted`);
    }
    const assignments = SETTINGS.map((name, i) => `${name} = $${i + 2}${JSONB_COLUMNS.has(name) ? '::jsonb' : ''}`);
    const updated = await uniqueByConstraint({ applications_name: next.client_name }, async () => {
      const { rows } = await db.query<Application>(
        `UPDATE applications t SET ${assignments.join(', ')}, updated_at = now() WHERE t.id = $1 RETURNING ${SELECT}`,
        [clientId, ...settingValues(next)],
      );
      return rows[0];
    });
    if (current.status !== 'deleted' && updated.status === 'deleted') await revokeGrants(db, [clientId]);
    return updated;
  },

  /** Purges applications that are already soft-deleted; all or nothing. */
  async remove(db: Queryable, writer: ApplicationWriter, clientIds: string[]): Promise<Application[]> {
    const found = await findInScope(db, writer.principal.companyId, clientIds, true);
    for (const app of found) {
      if (app.id === writer.consoleClientId) throw badRequest(`${app.id} is this console's own application: it cannot be purged`);
      if (app.status !== 'deleted') {
        throw new HttpError(409, `application ${app.client_name} is active: delete it (status deleted) before purging it`);
      }
    }
    await db.query(`DELETE FROM applications WHERE id = ANY ($1)`, [clientIds]);
    await revokeGrants(db, clientIds);
    return found;
  },
};

// ---- routes ----

export async function applicationRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const tags = ['applications'];
  const writer = (principal: Principal): ApplicationWriter => ({ principal, consoleClientId: config.consoleClientId });
  const listSchema = (names: string[]) => ({
    tags,
    ...(names.length ? { params: params(...names) } : {}),
    querystring: listQuerySchema,
    response: { 200: applicationList, ...errorResponses },
  });

  app.get<{ Params: { companyId: string; domainId: string }; Querystring: ListQuery }>(
    '/:companyId/:domainId/application',
    { config: { accessWithList: true }, schema: listSchema(['companyId', 'domainId']) },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const parsed = parseListQuery(applicationResource, request.query, [companyId, domainId]);
      return sendList(reply, 'application', await runList(db, applicationResource, parsed, ['t.company_id = $1', 't.domain_id = $2'], listAccess(request)));
    },
  );

  app.get<{ Params: { companyId: string }; Querystring: ListQuery }>(
    '/:companyId/application',
    { config: { accessWithList: true }, schema: listSchema(['companyId']) },
    async (request, reply) => {
      const parsed = parseListQuery(applicationResource, request.query, [request.params.companyId]);
      return sendList(reply, 'application', await runList(db, applicationResource, parsed, ['t.company_id = $1'], listAccess(request)));
    },
  );

  app.get<{ Querystring: ListQuery }>('/application', { config: { accessWithList: true }, schema: listSchema([]) }, async (request, reply) => {
    const parsed = parseListQuery(applicationResource, request.query, [request.principal.companyId]);
    return sendList(reply, 'application', await runList(db, applicationResource, parsed, [inScope('t.company_id', '$1')], listAccess(request)));
  });

  app.get<{ Params: { id: string } }>(
    '/application/:id',
    { schema: { tags, params: { type: 'object', required: ['id'], properties: { id: clientIdParam } }, response: { 200: applicationJson, ...errorResponses } } },
    async (request) => (await findInScope(db, request.principal.companyId, [request.params.id]))[0],
  );

  app.post<{ Body: ApplicationBody & { companyId: string; domain: string } }>(
    '/application',
    { schema: { tags, body: createBody(['client_name', 'domain', 'companyId']), response: { 201: createdApplicationJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domain } = request.body;
      await checkAccess(db, request.principal, companyId, domain);
      const created = await db.transaction((tx) => applications.create(tx, companyId, domain, request.body));
      return reply.status(201).send(created);
    },
  );

  // the path names the company and domain (checked by the guard); they win over any in the body
  app.post<{ Params: { companyId: string; domainId: string }; Body: ApplicationBody }>(
    '/:companyId/:domainId/application',
    { schema: { tags, params: params('companyId', 'domainId'), body: createBody(['client_name']), response: { 201: createdApplicationJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const created = await db.transaction((tx) => applications.create(tx, companyId, domainId, request.body));
      return reply.status(201).send(created);
    },
  );

  app.put<{ Params: { id: string }; Body: ApplicationBody }>(
    '/application/:id',
    { schema: { tags, params: { type: 'object', required: ['id'], properties: { id: clientIdParam } }, body: updateBody, response: { 200: applicationJson, ...errorResponses } } },
    async (request) => db.transaction((tx) => applications.update(tx, writer(request.principal), request.params.id, request.body)),
  );

  app.put<{ Body: (ApplicationBody & { id: string })[] }>(
    '/application',
    { schema: { tags, body: updateListBody, response: { 200: applicationList, ...errorResponses } } },
    async (request) =>
      db.transaction(async (tx) => {
        const updated: Application[] = [];
        for (const item of request.body) updated.push(await applications.update(tx, writer(request.principal), item.id, item));
        return updated;
      }),
  );

  app.delete<{ Params: { id: string } }>(
    '/application/:id',
    { schema: { tags, params: { type: 'object', required: ['id'], properties: { id: clientIdParam } }, response: { 200: applicationJson, ...errorResponses } } },
    async (request) => (await db.transaction((tx) => applications.remove(tx, writer(request.principal), [request.params.id])))[0],
  );

  app.delete<{ Body: string[] }>(
    '/application',
    { schema: { tags, body: clientIdList, response: { 200: applicationList, ...errorResponses } } },
    async (request) => db.transaction((tx) => applications.remove(tx, writer(request.principal), [...new Set(request.body)])),
  );
}
