import { APP_TYPES, type AppType, type UriProblem, uriProblemOf } from '../clientUris.js';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest, forbidden, HttpError } from '../errors.js';
import { randomAlphanumeric, sha256 } from '../ids.js';
import { idNotAvailable, uniqueByConstraint } from './unique.js';
import { checkAccess, inScope, locateRecords } from './guard.js';
import { OWNER } from './roles.js';
import { addListRoute, bodyProperties, type CrudRules, crudRoutes, findRecords, listBodySchema, type RecordOf, type ResourceDefinition, recordSchema, selectList } from './resource.js';
import { applicationFilters, deletedFields } from './listFields.js';
import { errorResponses, id, optionalText, params, requiredText, status } from './schemas.js';

export { APP_TYPES, type AppType };
export const GRANT_TYPES = ['implicit', 'authorization_code', 'refresh_token', 'client_credentials', 'password', 'MFA', 'passwordless_otp', 'device_code'] as const;

/** The settings an administrator edits; API field names are the column names. */
export type ApplicationSettings = Omit<Application, 'id' | 'client_id' | 'domain' | 'companyId' | 'deletedAt' | 'deletedBy'>;
export type Application = RecordOf<typeof applicationDefinition>;

/** A request body: any settings, plus identity fields that are only honoured on create. */
export type ApplicationBody = Partial<ApplicationSettings> & {
  id?: string;
  client_id?: string;
  client_secret?: string;
  domain?: string;
  companyId?: string;
};

/** Defaults: docs/CONSOLE.md, "Constants". */
export const APPLICATION_DEFAULTS: ApplicationSettings = {
  client_name: '',
  description: '',
  logo_uri: '',
  app_type: 'SPA',
  client_uri: '',
  backchannel_logout_uri: '',
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

// ---- schemas ----

/** Client ids travel in paths and Basic headers: letters, digits, dash and underscore. */
/** Empty counts as absent: a cleared form field still gets a generated value. */
const clientId = { type: 'string', pattern: '^([A-Za-z0-9_-]{8,64})?$', description: '8 to 64 letters, digits, - or _' } as const;
const clientIdParam = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const uriList = { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000 } } as const;
const seconds = (minimum: number) => ({ type: 'integer', minimum, maximum: 2147483647 }) as const;
const flag = { type: 'boolean' } as const;

/**
 * Applications (OAuth clients). Their client ids are global (one namespace across tenants), so a
 * record is at `/application/{id}` within the caller's subtree; the plain routes on `/application`
 * are produced from this definition (resource.ts), the company's and the domain's lists and the
 * domain's create are added beside them; secret rotation is applicationSecrets.ts. The settings'
 * API names are their column names.
 */
export const applicationDefinition = {
  name: 'application',
  permission: 'applications',
  label: 'application',
  table: 'applications t',
  fields: {
    id: { column: 't.id', input: { ...clientId, description: 'same as client_id' } },
    client_id: { column: 't.id', input: { ...clientId, description: 'generated (32 letters and digits) when absent; cannot be changed' } },
    client_name: { column: 't.client_name', input: requiredText() },
    domain: { column: 't.domain_id', input: { ...id, description: 'domain id; cannot be changed' } },
    companyId: { column: 't.company_id', input: { ...id, description: 'cannot be changed' } },
    description: { column: 't.description', input: optionalText() },
    logo_uri: { column: 't.logo_uri', input: optionalText(), listed: false },
    app_type: { column: 't.app_type', input: { type: 'string', enum: APP_TYPES } },
    client_uri: { column: 't.client_uri', input: optionalText(), listed: false },
    backchannel_logout_uri: {
      column: 't.backchannel_logout_uri',
      input: {
        ...optionalText(),
        description:
          'OpenID Connect Back-Channel Logout: where the provider POSTs a signed logout token when a sign-in of this application ends; ' +
          "https (http only for localhost, 127.0.0.1 and [::1]), no fragment or credentials; '' for none",
      },
      listed: false,
    },
    client_logout_uri: { column: 't.client_logout_uri', type: 'texts', input: uriList, listed: false },
    redirect_uris: { column: 't.redirect_uris', type: 'texts', input: uriList, listed: false },
    allowed_web_orgins: { column: 't.allowed_web_orgins', type: 'texts', input: uriList, listed: false },
    id_token_expiration: { column: 't.id_token_expiration', type: 'integer', input: seconds(1), listed: false },
    refresh_token_rotation: { column: 't.refresh_token_rotation', type: 'boolean', input: flag, listed: false },
    refresh_reuse_interval: { column: 't.refresh_reuse_interval', type: 'integer', input: seconds(0), listed: false },
    refresh_absolute_expiration: { column: 't.refresh_absolute_expiration', type: 'boolean', input: flag, listed: false },
    refresh_absolute_lifetime: { column: 't.refresh_absolute_lifetime', type: 'integer', input: seconds(1), listed: false },
    grant_types: { column: 't.grant_types', type: 'texts', input: { type: 'array', maxItems: GRANT_TYPES.length, items: { type: 'string', enum: GRANT_TYPES } }, listed: false },
    audience: { column: 't.audience', input: optionalText(200) },
    status: { column: 't.status', input: status },
    ...deletedFields('applications'),
  },
  // grantType (listFields.ts)
  filters: applicationFilters,
  writeOnly: {
    client_secret: {
      type: 'string',
      pattern: '^([\\x21-\\x7E]{16,128})?$',
      description: 'create only: generated (32 letters and digits) when absent, shown once, stored hashed; ignored by PUT',
    },
  },
  search: `(t.client_name || ' ' || t.id || ' ' || t.audience || ' ' || t.description)`,
  key: ['t.id'],
  defaultSort: 'client_name',
} satisfies ResourceDefinition;

const SELECT = selectList(applicationDefinition);

const createProperties = Object.fromEntries(
  Object.entries(bodyProperties(applicationDefinition)).map(([name, schema]) =>
    // grant_types has no schema default: it depends on app_type (see defaultGrantTypes)
    name in APPLICATION_DEFAULTS && name !== 'client_name' && name !== 'grant_types'
      ? [name, { ...schema, default: APPLICATION_DEFAULTS[name as keyof ApplicationSettings] }]
      : [name, schema],
  ),
);

const createBody = (required: string[]) => ({ type: 'object', required, additionalProperties: false, properties: createProperties });

/** PUT: a full record or only the fields to change; absent fields keep their stored value. */
const updateBody = { type: 'object', additionalProperties: false, properties: bodyProperties(applicationDefinition) };
const clientIdList = { type: 'array', items: clientIdParam, minItems: 1, maxItems: 1000 } as const;

const createdApplicationJson = recordSchema(applicationDefinition, { client_secret: { type: 'string', description: 'shown once, never again' } });


function checkWebUri(field: string, value: string) {
  if (!value) return;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw badRequest(`${field}: "${value}" must be an absolute http or https URL`).as('application.webUri', { field, value: value.slice(0, 100) });
}

/** The 400 of a refused address: its code is the refusal's (application.uri.*), naming the field and the value. */
const uriRefused = (field: string, value: string, problem: UriProblem) =>
  badRequest(`${field}: "${value}" ${problem.text}`).as(`application.uri.${problem.code}`, {
    field,
    value: value.slice(0, 100),
    ...(problem.scheme ? { scheme: problem.scheme.slice(0, 100) } : {}),
  });

/**
 * Trims the URI lists (the console splits text areas on line breaks, so blank lines are dropped),
 * checks every entry that is new (entries already stored were accepted before and are re-checked
 * only when app_type changes) and stores origins in their canonical form. The back-channel logout
 * URI is checked the same way when it changes.
 */
function normalizeSettings(next: ApplicationSettings, stored?: ApplicationSettings): ApplicationSettings {
  const result = { ...next, grant_types: [...new Set(next.grant_types)] };
  const recheckAll = !stored || stored.app_type !== next.app_type;
  for (const field of URI_LISTS) {
    const entries = [...new Set(next[field].map((entry) => entry.trim()).filter(Boolean))];
    for (const entry of entries) {
      if (!recheckAll && stored![field].includes(entry)) continue;
      const problem = uriProblemOf(entry, field === 'allowed_web_orgins' ? 'origin' : 'uri', next.app_type);
      if (problem) throw uriRefused(field, entry, problem);
    }
    result[field] = field === 'allowed_web_orgins' ? entries.map((entry) => new URL(entry).origin) : entries;
  }
  // like the lists: a stored value was accepted before; it has no custom scheme, so the type does not matter
  const backchannel = next.backchannel_logout_uri.trim();
  if (backchannel && backchannel !== stored?.backchannel_logout_uri) {
    const problem = uriProblemOf(backchannel, 'endpoint', next.app_type);
    if (problem) throw uriRefused('backchannel_logout_uri', backchannel, problem);
  }
  result.backchannel_logout_uri = backchannel;
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

/** Where the caller reaches applications: their company's subtree ($1, the caller's company). */
const inCallersSubtree = [inScope('t.company_id', '$1')];

const findInScope = (db: Queryable, callerCompanyId: string, clientIds: string[], lock = false) =>
  findRecords<Application>(db, applicationDefinition, { where: inCallersSubtree, values: [callerCompanyId] }, clientIds, lock);

/** Tokens already handed out through an application die with it (the guard checks grants on every call). */
async function revokeGrants(db: Queryable, clientIds: string[]) {
  await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE client_id = ANY ($1) AND revoked_at IS NULL`, [clientIds]);
}

/** A machine-to-machine application can only ever use client_credentials; the others sign users in. */
function defaultGrantTypes(appType: ApplicationSettings['app_type'] | undefined): string[] {
  return appType === 'machine' ? ['client_credentials'] : [...APPLICATION_DEFAULTS.grant_types];
}

/** What of the console application may be changed, by an Owner: how it is shown, nothing of how it signs in. */
const CONSOLE_DISPLAY = new Set<string>(['client_name', 'description', 'logo_uri']);
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The console application is the provider's own door: a redirect URI, origin, grant type or client
 * type added to it would hand an Owner's code and console token to whoever added it (docs/CONSOLE.md,
 * "Applications"). Its security settings follow PUBLIC_URL (seed.ts) and nobody changes them here, an
 * Owner neither; a setting sent as stored is no change (the console's form sends whole records).
 * Its name, description and logo are an Owner's to change, where the application is.
 */
async function checkConsoleChange(db: Queryable, writer: ApplicationWriter, current: Application, next: ApplicationSettings): Promise<void> {
  if (next.status === 'deleted') throw badRequest(`${current.id} is this console's own application: it cannot be deleted`).as('application.consoleDelete', { id: current.id });
  const changed = SETTINGS.filter((name) => !sameValue(next[name], current[name]));
  const locked = changed.find((name) => !CONSOLE_DISPLAY.has(name));
  if (locked) throw badRequest(`${locked}: the console application's sign-in settings follow PUBLIC_URL and cannot be changed; only its client_name, description and logo_uri can`).as('application.consoleLocked', { field: locked });
  if (changed.length === 0) return;
  const held = await checkAccess(db, writer.principal, current.companyId, current.domain, 'applications:write');
  if (!held.includes(OWNER)) throw forbidden(`Your role does not allow changing the console application's ${changed.join(', ')}: it needs the Owner role.`).as('application.consoleOwner', { fields: changed.join(', ') });
}

/** Every write of an application goes through here. */
export const applications = {
  /** The caller has already been checked against companyId/domainId (guard or checkAccess). */
  async create(db: Queryable, consoleClientId: string, companyId: string, domainId: string, body: ApplicationBody): Promise<Application & { client_secret: string }> {
    if (body.id && body.client_id && body.id !== body.client_id) throw badRequest('id must equal client_id').as('application.idMismatch');
    const clientId = body.client_id || body.id || randomAlphanumeric(32);
    // the console's id names the provider's own door, wherever it is asked for (clients.ts, isConsoleClient)
    if (clientId === consoleClientId) throw idNotAvailable('application', clientId);
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
    if ((body.id || clientId) !== clientId || (body.client_id || clientId) !== clientId) throw badRequest('client_id cannot be changed').as('application.clientIdFixed');
    if ((body.domain ?? current.domain) !== current.domain || (body.companyId ?? current.companyId) !== current.companyId) {
      throw badRequest('domain: an application cannot move to another company or domain').as('application.domainFixed');
    }
    const next = normalizeSettings({ ...current, ...definedSettings(body) }, current);
    if (clientId === writer.consoleClientId) await checkConsoleChange(db, writer, current, next);
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
      if (app.id === writer.consoleClientId) throw badRequest(`${app.id} is this console's own application: it cannot be purged`).as('application.consolePurge', { id: app.id });
      if (app.status !== 'deleted') {
        throw new HttpError(409, `application ${app.client_name} is active: delete it (status deleted) before purging it`).as('application.activePurge', { name: app.client_name.slice(0, 100) });
      }
    }
    await db.query(`DELETE FROM applications WHERE id = ANY ($1)`, [clientIds]);
    await revokeGrants(db, clientIds);
    return found;
  },
};

// ---- routes ----

/** The plain routes' rules: the caller's company confines every record; a create names its company and domain in the body. */
const applicationRules = (consoleClientId: string): CrudRules<Application, ApplicationBody, unknown> => ({
  async create(db, { caller }, body) {
    const { companyId, domain } = body as ApplicationBody & { companyId: string; domain: string };
    await checkAccess(db, caller, companyId, domain, 'applications:write');
    return applications.create(db, consoleClientId, companyId, domain, body);
  },
  async update(db, { caller }, changes) {
    const updated: Application[] = [];
    for (const { id: clientId, body } of changes) updated.push(await applications.update(db, { principal: caller, consoleClientId }, clientId, body));
    return updated;
  },
  remove: (db, { caller }, clientIds) => applications.remove(db, { principal: caller, consoleClientId }, [...new Set(clientIds)]),
});

export async function applicationRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const tags = ['applications'];

  addListRoute(app, applicationDefinition, {
    path: '/:companyId/:domainId/application',
    tags,
    scope: { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] },
  });
  addListRoute(app, applicationDefinition, { path: '/:companyId/application', tags, scope: { params: ['companyId'], where: ['t.company_id = $1'] } });
  await crudRoutes(applicationDefinition, {
    tags,
    path: '/application',
    idParam: 'id',
    idSchema: clientIdParam,
    scope: { params: [], where: inCallersSubtree, values: (request) => [request.principal.companyId] },
    locate: locateRecords('applications', 'id'),
    rules: applicationRules(config.consoleClientId),
    bodies: { create: createBody(['client_name', 'domain', 'companyId']), update: updateBody, updateList: listBodySchema(updateBody), removeList: clientIdList },
    responses: { created: createdApplicationJson },
  })(app);

  // the path names the company and domain (checked by the guard); they win over any in the body
  app.post<{ Params: { companyId: string; domainId: string }; Body: ApplicationBody }>(
    '/:companyId/:domainId/application',
    { config: { permission: 'applications:write' }, schema: { tags, params: params('companyId', 'domainId'), body: createBody(['client_name']), response: { 201: createdApplicationJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const created = await db.transaction((tx) => applications.create(tx, config.consoleClientId, companyId, domainId, request.body));
      return reply.status(201).send(created);
    },
  );
}
