import { Resolver } from 'node:dns/promises';
import { domainToASCII } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../context.js';
import type { Database, Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { randomAlphanumeric, sha256 } from '../ids.js';
import { encryptSecret, totpAvailable } from '../accounts/factors.js';
import { recordAudit } from '../accounts/audit.js';
import { upstreamPaths, type Preset, type Protocol } from '../accounts/upstream.js';
import { parseIdpMetadata } from '../accounts/samlMetadata.js';
import { uniqueByConstraint } from './unique.js';
import { bodyProperties, type CrudRules, crudRoutes, findRecords, listBodySchema, type RecordOf, type ResourceDefinition, selectList } from './resource.js';
import { errorResponses, id, optionalText, params, requiredText, status } from './schemas.js';

/**
 * Connections to upstream identity providers, declared per domain (docs/CONSOLE.md, "Connections"):
 * plain CRUD from a definition (resource.ts), the e-mail domains a connection claims, and the ticket
 * of a test sign-in. Settings that are not secret live in the row's `settings` (migration 38); the
 * client secret or private key is sealed with the authenticator secrets' key and never leaves the
 * server (`hasSecret` says whether there is one). The table has no audit trigger: every write here
 * records itself (recordAudit), naming fields as the API does.
 */

export const PROTOCOLS = ['oidc', 'oauth2', 'saml'] as const satisfies readonly Protocol[];
export const PRESETS = ['custom', 'google', 'entra', 'github', 'apple', 'okta'] as const satisfies readonly Preset[];

/** The protocol a preset speaks, and the issuer it stands for (Okta's is the customer's own org, so it has none). */
const PRESET_PROTOCOL: Record<Exclude<Preset, 'custom'>, Protocol> = { google: 'oidc', entra: 'oidc', apple: 'oidc', okta: 'oidc', github: 'oauth2' };
const presetIssuer = (preset: Preset, entraTenant: string): string | undefined => {
  const issuers: Partial<Record<Preset, string>> = {
    google: 'https://accounts.google.com',
    entra: `https://login.microsoftonline.com/${entraTenant || 'common'}/v2.0`,
    apple: 'https://appleid.apple.com',
    github: 'https://github.com',
  };
  return issuers[preset];
};
const DEFAULT_SCOPES: Partial<Record<Preset | Protocol, string>> = { oidc: 'openid profile email', github: 'read:user user:email', apple: 'openid name email' };

/** Settings kept in the row's settings column, by their API name. */
const SETTINGS_KEYS = ['issuer', 'clientId', 'scopes', 'claimMapping', 'samlMetadataXml', 'samlMetadataUrl', 'entraTenant', 'appleTeamId', 'appleKeyId'] as const;
const setting = (name: string) => `coalesce(t.settings ->> '${name}', '')`;
const flag = { type: 'boolean' } as const;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An SQL text literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** Ids as encodeURIComponent writes them: of the id pattern's characters only @ changes. */
const encodedId = (column: string) => `replace(${column}, '@', '%40')`;
/**
 * An address of the connection under PUBLIC_URL, in SQL (lists and exports read it too): upstreamPaths'
 * shape, read from the row; tests/server/connections.test.ts holds the two equal.
 */
function addressSql(publicUrl: string, ending: string): string {
  return `${literal(`${publicUrl}/oauth/upstream/`)} || ${encodedId('t.company_id')} || '/' || ${encodedId('t.domain_id')} || '/' || ${encodedId('t.id')} || ${literal(ending)}`;
}

const appleId = { type: 'string', maxLength: 20, pattern: '^[A-Za-z0-9]*$' } as const;
const claimName = { type: 'string', maxLength: 200, pattern: '^\\S*$' } as const;

/** The definition: its two addresses are made from PUBLIC_URL, so it is built once at start-up. */
export function connectionDefinition(publicUrl: string) {
  return {
    name: 'connections',
    permission: 'connections',
    label: 'connection',
    table: 'connections t',
    fields: {
      id: { column: 't.id', input: { ...id, description: 'generated (32 letters and digits) when absent; cannot be changed' } },
      displayName: { column: 't.display_name', input: requiredText() },
      protocol: { column: 't.protocol', input: { type: 'string', enum: PROTOCOLS, description: 'cannot be changed; follows the preset when absent' } },
      preset: { column: 't.preset', input: { type: 'string', enum: PRESETS } },
      enabled: { column: 't.enabled', type: 'boolean', input: flag },
      status: { column: 't.status', input: status },
      issuer: { column: setting('issuer'), input: { ...optionalText(2000), description: 'OpenID Connect issuer or discovery URL (https); for google, entra (from entraTenant), apple and github the preset sets it' }, listed: false },
      clientId: { column: setting('clientId'), input: optionalText(500), listed: false },
      scopes: { column: setting('scopes'), input: { type: 'string', maxLength: 1000, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E\\s]*$', description: 'space-separated' }, listed: false },
      claimMapping: {
        column: `coalesce(t.settings -> 'claimMapping', '{}'::jsonb)`,
        type: 'object',
        input: { type: 'object', additionalProperties: false, properties: { email: claimName, name: claimName, groups: claimName, emailVerified: claimName }, description: 'claim names to read, where they differ' },
        listed: false,
      },
      samlMetadataXml: { column: setting('samlMetadataXml'), input: { ...optionalText(512_000), description: "the IdP's SAML metadata" }, listed: false },
      samlMetadataUrl: { column: setting('samlMetadataUrl'), input: { ...optionalText(2000), description: "where the IdP's SAML metadata is (https)" }, listed: false },
      entraTenant: { column: setting('entraTenant'), input: { type: 'string', maxLength: 100, pattern: '^[A-Za-z0-9.-]*$', description: "entra preset: 'common', 'organizations' or a tenant id" }, listed: false },
      appleTeamId: { column: setting('appleTeamId'), input: { ...appleId, description: 'apple preset: the team id (with appleKeyId and the PEM key as clientSecret, the client secret is made)' }, listed: false },
      appleKeyId: { column: setting('appleKeyId'), input: { ...appleId, description: "apple preset: the private key's id" }, listed: false },
      trustEmail: { column: 't.trust_email', type: 'boolean', input: flag },
      mfaFromIdp: { column: 't.mfa_from_idp', type: 'boolean', input: flag },
      sharedWithSubtree: { column: 't.shared_with_subtree', type: 'boolean', input: flag },
      hasSecret: { column: '(t.secret IS NOT NULL)', type: 'boolean' },
      callbackUrl: { column: addressSql(publicUrl, '/callback'), listed: false },
      samlMetadataServedAt: { column: addressSql(publicUrl, '/saml/metadata'), listed: false },
      createdAt: { column: 't.created_at', time: true },
      updatedAt: { column: 't.updated_at', time: true },
    },
    writeOnly: {
      clientSecret: {
        type: 'string',
        maxLength: 20_000,
        description: 'the client secret, or a PEM private key (private_key_jwt, Apple); stored sealed, never returned; absent or empty keeps the stored one',
      },
    },
    search: `(t.display_name || ' ' || t.id)`,
    key: ['t.company_id', 't.domain_id', 't.id'],
    defaultSort: 'displayName',
  } satisfies ResourceDefinition;
}

type Definition = ReturnType<typeof connectionDefinition>;
export type Connection = RecordOf<Definition>;
type Settings = Pick<Connection, (typeof SETTINGS_KEYS)[number]>;
/** What an administrator edits. */
type Editable = Omit<Connection, 'id' | 'hasSecret' | 'callbackUrl' | 'samlMetadataServedAt' | 'createdAt' | 'updatedAt'>;
export type ConnectionBody = Partial<Editable> & { id?: string; clientSecret?: string };

const EDITABLE = ['displayName', 'protocol', 'preset', 'enabled', 'status', ...SETTINGS_KEYS, 'trustEmail', 'mfaFromIdp', 'sharedWithSubtree'] as const satisfies readonly (keyof Editable)[];
const DEFAULTS: Omit<Editable, 'displayName' | 'protocol'> = {
  preset: 'custom',
  enabled: true,
  status: 'active',
  issuer: '',
  clientId: '',
  scopes: '',
  claimMapping: {},
  samlMetadataXml: '',
  samlMetadataUrl: '',
  entraTenant: '',
  appleTeamId: '',
  appleKeyId: '',
  trustEmail: false,
  mfaFromIdp: false,
  sharedWithSubtree: false,
};

// ---- rules ----

/** Why an address the provider will call (issuer, metadata) is refused, with the refusal's code (connection.url.*), or undefined. */
function upstreamUrlProblem(raw: string, allowPrivate: boolean): { text: string; code: string } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { text: 'is not an absolute URL', code: 'notAbsolute' };
  }
  if (url.username || url.password) return { text: 'must not contain user credentials', code: 'credentials' };
  if (url.hash) return { text: 'must not contain a fragment (#)', code: 'fragment' };
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && allowPrivate && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return allowPrivate ? { text: 'must be an https URL (http only for localhost, 127.0.0.1 and [::1])', code: 'notHttpsLoopback' } : { text: 'must be an https URL', code: 'notHttps' };
}

/** The 400 of a refused address, naming the field and the value. */
const urlRefused = (field: string, value: string, problem: { text: string; code: string }) =>
  badRequest(`${field}: "${value}" ${problem.text}`).as(`connection.url.${problem.code}`, { field, value: value.slice(0, 100) });

/** The settings as stored: defaults of the preset filled in, and checked against the protocol (400 naming the field). */
/**
 * SAML metadata given as XML is read as the sign-in will read it (server/accounts/samlMetadata.ts):
 * an administrator hears now, naming the field, that it has no redirect SSO address or signing
 * certificate, not at the first sign-in. A metadata URL is read at sign-in (its IdP may be down now).
 */
async function readableMetadata(next: Editable, given: Partial<Editable>): Promise<void> {
  if (next.protocol !== 'saml' || given.samlMetadataXml === undefined || !next.samlMetadataXml.trim()) return;
  try {
    await parseIdpMetadata(next.samlMetadataXml);
  } catch (error) {
    // the metadata's own refusal (saml.*), else its words
    const refusal = error instanceof HttpError && error.code ? error : undefined;
    throw badRequest(`samlMetadataXml: ${(error as Error).message}`).as(refusal?.code ?? 'connection.samlMetadataInvalid', refusal ? refusal.params : { reason: String((error as Error).message).slice(0, 200) });
  }
}

function checkedSettings(next: Editable, allowPrivate: boolean): Editable {
  const result: Editable = { ...next, scopes: next.scopes.split(/\s+/).filter(Boolean).join(' '), issuer: next.issuer.trim(), samlMetadataUrl: next.samlMetadataUrl.trim() };
  if (result.preset !== 'custom') {
    const speaks = PRESET_PROTOCOL[result.preset];
    if (result.protocol !== speaks) throw badRequest(`protocol: the ${result.preset} preset uses ${speaks}, not ${result.protocol}`).as('connection.presetProtocol', { preset: result.preset, expected: speaks, protocol: result.protocol });
  }
  if (result.entraTenant && result.preset !== 'entra') throw badRequest('entraTenant: only the entra preset has a tenant').as('connection.entraTenantOnly');
  for (const field of ['appleTeamId', 'appleKeyId'] as const) {
    if (result.preset === 'apple' && !result[field]) throw badRequest(`${field}: the apple preset needs it (Apple's client secret is made from the team id, the key id and the key)`).as('connection.appleRequired', { field });
    if (result.preset !== 'apple' && result[field]) throw badRequest(`${field}: only the apple preset has it`).as('connection.appleOnly', { field });
  }
  if (result.protocol === 'saml') {
    if (!result.samlMetadataXml.trim() && !result.samlMetadataUrl) throw badRequest('samlMetadataXml or samlMetadataUrl: a SAML connection needs the IdP\'s metadata').as('connection.samlMetadataRequired');
    if (result.samlMetadataXml.trim() && !/<([\w-]+:)?EntityDescriptor[\s>]/.test(result.samlMetadataXml)) {
      throw badRequest('samlMetadataXml: this is not SAML metadata (no EntityDescriptor element)').as('connection.samlMetadataNotSaml');
    }
    const problem = result.samlMetadataUrl && upstreamUrlProblem(result.samlMetadataUrl, allowPrivate);
    if (problem) throw urlRefused('samlMetadataUrl', result.samlMetadataUrl, problem);
    return result;
  }
  // a preset's issuer is the preset's (Entra's from its tenant): a "google" connection is Google, whatever a form sends back
  result.issuer = presetIssuer(result.preset, result.entraTenant) ?? result.issuer;
  if (!result.scopes) result.scopes = DEFAULT_SCOPES[result.preset] ?? DEFAULT_SCOPES[result.protocol] ?? '';
  if (!result.issuer) throw badRequest(`issuer: an ${result.protocol} connection needs the issuer (or its discovery URL)`).as('connection.issuerRequired', { protocol: result.protocol });
  const problem = upstreamUrlProblem(result.issuer, allowPrivate);
  if (problem) throw urlRefused('issuer', result.issuer, problem);
  if (!result.clientId.trim()) throw badRequest(`clientId: an ${result.protocol} connection needs the client id the IdP gave`).as('connection.clientIdRequired', { protocol: result.protocol });
  return result;
}

const settingsJson = (next: Editable) => JSON.stringify(Object.fromEntries(SETTINGS_KEYS.map((key) => [key, next[key]])) as Settings);

/** What a write changed, field by field, as the audit trail records it: never the secret, only that it changed. */
function changesOf(before: Partial<Editable> | undefined, after: Partial<Editable> | undefined, secretChanged: boolean): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of EDITABLE) {
    const was = before?.[field];
    const is = after?.[field];
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = { ...(was === undefined ? {} : { before: was }), ...(is === undefined ? {} : { after: is }) };
  }
  if (secretChanged) changes.clientSecret = { hidden: true };
  return changes;
}

const auditAction = (before: Editable, after: Editable) =>
  before.status !== 'deleted' && after.status === 'deleted' ? 'delete' : before.status === 'deleted' && after.status !== 'deleted' ? 'recover' : 'update';

interface Place {
  companyId: string;
  domainId: string;
}

/** Every write of a connection goes through here; the caller has been checked against the place (the guard). */
export function connectionWrites(definition: Definition, database: Database, allowPrivate: boolean) {
  const SELECT = selectList(definition);
  const find = (db: Queryable, at: Place, ids: string[], lock = false) =>
    findRecords<Connection>(db, definition, { where: ['t.company_id = $1', 't.domain_id = $2'], values: [at.companyId, at.domainId] }, ids, lock);

  /** The secret sealed with the database's key (the key is the database's, not a transaction's). */
  async function seal(secret: string): Promise<string> {
    if (!totpAvailable(database)) throw new HttpError(409, 'clientSecret: secrets of connections cannot be stored until the operator sets MFA_KEY (docs/OPERATIONS.md)').as('connection.secretKeyMissing');
    return encryptSecret(database, secret);
  }

  return {
    find,
    async create(db: Queryable, at: Place, body: ConnectionBody & { displayName: string }): Promise<Connection> {
      const connectionId = body.id || randomAlphanumeric(32);
      const preset = body.preset ?? 'custom';
      const protocol = body.protocol ?? (preset === 'custom' ? undefined : PRESET_PROTOCOL[preset]);
      if (!protocol) throw badRequest('protocol: required (oidc, oauth2 or saml) unless a preset gives it').as('connection.protocolRequired');
      const given = Object.fromEntries(EDITABLE.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
      const next = checkedSettings({ ...DEFAULTS, ...given, preset, protocol } as Editable, allowPrivate);
      await readableMetadata(next, given);
      const sealed = body.clientSecret ? await seal(body.clientSecret) : null;
      const created = await uniqueByConstraint({ connections_pkey: new HttpError(409, `connection "${connectionId}" already exists in this domain: choose another id`).as('connection.idTaken', { id: connectionId }) }, async () => {
        const { rows } = await db.query<Connection>(
          `INSERT INTO connections AS t (company_id, domain_id, id, display_name, protocol, preset, status, enabled, settings, secret, trust_email, mfa_from_idp, shared_with_subtree)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13) RETURNING ${SELECT}`,
          [at.companyId, at.domainId, connectionId, next.displayName, next.protocol, next.preset, next.status, next.enabled, settingsJson(next), sealed, next.trustEmail, next.mfaFromIdp, next.sharedWithSubtree],
        );
        return rows[0];
      });
      await recordAudit(db, { ...at, resourceType: 'connections', resourceId: connectionId, action: 'create', changes: changesOf(undefined, next, sealed !== null) });
      return created;
    },

    /** Changes settings; the protocol stays (the subjects linked through it are that protocol's). status deleted/active = soft delete/recover. */
    async update(db: Queryable, at: Place, connectionId: string, body: ConnectionBody): Promise<Connection> {
      const [current] = await find(db, at, [connectionId], true);
      if ((body.id ?? connectionId) !== connectionId) throw badRequest('id cannot be changed').as('connection.idFixed');
      if ((body.protocol ?? current.protocol) !== current.protocol) throw badRequest('protocol cannot be changed: the identities linked through it are its subjects; create another connection').as('connection.protocolFixed');
      const given = Object.fromEntries(EDITABLE.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
      const before = Object.fromEntries(EDITABLE.map((field) => [field, current[field]])) as Editable;
      const next = checkedSettings({ ...before, ...given } as Editable, allowPrivate);
      await readableMetadata(next, given);
      const sealed = body.clientSecret ? await seal(body.clientSecret) : null;
      const { rows } = await db.query<Connection>(
        `UPDATE connections t SET display_name = $4, preset = $5, status = $6, enabled = $7, settings = $8::jsonb, secret = coalesce($9, t.secret),
           trust_email = $10, mfa_from_idp = $11, shared_with_subtree = $12, updated_at = now()
         WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3 RETURNING ${SELECT}`,
        [at.companyId, at.domainId, connectionId, next.displayName, next.preset, next.status, next.enabled, settingsJson(next), sealed, next.trustEmail, next.mfaFromIdp, next.sharedWithSubtree],
      );
      const changes = changesOf(before, next, sealed !== null);
      if (Object.keys(changes).length > 0) await recordAudit(db, { ...at, resourceType: 'connections', resourceId: connectionId, action: auditAction(before, next), changes });
      return rows[0];
    },

    /** Purges connections already soft-deleted (their claims and linked identities go with them); all or nothing. */
    async remove(db: Queryable, at: Place, connectionIds: string[]): Promise<Connection[]> {
      const found = await find(db, at, connectionIds, true);
      const active = found.find((connection) => connection.status !== 'deleted');
      if (active) throw new HttpError(409, `connection ${active.displayName} is active: delete it (status deleted) before purging it`).as('connection.activePurge', { name: active.displayName.slice(0, 100) });
      await db.query(`DELETE FROM connections WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3)`, [at.companyId, at.domainId, connectionIds]);
      for (const connection of found) {
        const before = Object.fromEntries(EDITABLE.map((field) => [field, connection[field]])) as Editable;
        await recordAudit(db, { ...at, resourceType: 'connections', resourceId: connection.id, action: 'purge', changes: changesOf(before, undefined, false) });
      }
      return found;
    },
  };
}

// ---- e-mail domains a connection claims ----

/** The TXT record's name and value that prove an e-mail domain (docs/CONSOLE.md, "Connections"). */
const CHALLENGE_PREFIX = '_iam-console-challenge.';
const VERIFICATION_PREFIX = 'iam-console-verification=';
const txtRecord = (emailDomain: string, token: string) => `${CHALLENGE_PREFIX}${emailDomain} TXT ${VERIFICATION_PREFIX}${token}`;

/** A host name in its ASCII form, at least two labels. */
const ASCII_DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The e-mail domain as stored: lower-case A-labels (exämple.com and EXAMPLE.com are one domain each way they are typed). */
function normalEmailDomain(raw: string): string {
  const ascii = domainToASCII(raw.trim().replace(/^@/, '').replace(/\.$/, '')).toLowerCase();
  if (!ASCII_DOMAIN.test(ascii)) throw badRequest(`emailDomain: "${raw}" is not a domain name (the part of an address after the @, e.g. example.com)`).as('connection.emailDomainInvalid', { value: raw.slice(0, 100) });
  return ascii;
}

interface EmailDomainRow {
  emailDomain: string;
  verificationToken: string;
  verifiedAt: Date | null;
  verifiedBy: string | null;
  createdAt: Date;
}

const EMAIL_DOMAIN_SELECT = `email_domain AS "emailDomain", verification_token AS "verificationToken", verified_at AS "verifiedAt", verified_by AS "verifiedBy", created_at AS "createdAt"`;
const emailDomainView = (row: EmailDomainRow) => ({ ...row, txtRecord: txtRecord(row.emailDomain, row.verificationToken) });
const emailDomainJson = {
  type: 'object',
  properties: {
    emailDomain: { type: 'string' },
    verificationToken: { type: 'string' },
    txtRecord: { type: 'string', description: 'the DNS record that proves the domain' },
    verifiedAt: { type: ['string', 'null'] },
    verifiedBy: { type: ['string', 'null'], description: "'dns' or 'confirm'" },
    createdAt: { type: 'string' },
  },
} as const;

/** The TXT records at a name, or a sentence saying why there are none, with the resolver's error when it failed (never a 5xx: DNS is the customer's). */
export async function lookUpTxt(name: string): Promise<string[] | { problem: string; failure?: string }> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'an error';
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { problem: `there is no TXT record at ${name}` };
    return { problem: `the DNS lookup of ${name} failed (${code})`, failure: code };
  }
}

// ---- routes ----

type DomainParams = Place;
type ConnectionParams = Place & { connectionId: string };
type EmailDomainParams = ConnectionParams & { emailDomain: string };

export async function connectionRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const definition = connectionDefinition(config.publicUrl);
  const writes = connectionWrites(definition, db, config.allowPrivateCallbacks === true);
  const tags = ['connections'];
  const path = '/companys/:companyId/domainNames/:domainId/connections';
  const place = (params: Place): Place => ({ companyId: params.companyId, domainId: params.domainId });

  const rules: CrudRules<Connection, ConnectionBody, DomainParams> = {
    create: (tx, { params }, body) => writes.create(tx, place(params), body as ConnectionBody & { displayName: string }),
    async update(tx, { params }, changes) {
      const updated: Connection[] = [];
      for (const change of changes) updated.push(await writes.update(tx, place(params), change.id, change.body));
      return updated;
    },
    remove: (tx, { params }, ids) => writes.remove(tx, place(params), [...new Set(ids)]),
  };
  const properties = bodyProperties(definition);
  const updateBody = { type: 'object', additionalProperties: false, properties };
  await crudRoutes(definition, {
    tags,
    path,
    idParam: 'connectionId',
    scope: { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] },
    rules,
    bodies: { create: { type: 'object', required: ['displayName'], additionalProperties: false, properties }, update: updateBody, updateList: listBodySchema(updateBody) },
    summaries: {
      create: 'Declares a connection to an upstream identity provider (OpenID Connect, OAuth 2, SAML 2.0); its secret is stored sealed and never returned',
      update: 'Changes a connection; status deleted/active soft-deletes and recovers it; a clientSecret replaces the stored one',
    },
  })(app);

  // ---- e-mail domains ----
  const connectionParams = params('companyId', 'domainId', 'connectionId');
  const emailDomainParam = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' };
  const emailDomainParams = { ...connectionParams, required: [...connectionParams.required, 'emailDomain'], properties: { ...connectionParams.properties, emailDomain: emailDomainParam } };

  /** The connection, if it is in this domain (404 otherwise), locked while its claims change. */
  const connectionOf = async (tx: Queryable, at: ConnectionParams) => (await writes.find(tx, place(at), [at.connectionId], true))[0];
  const claimOf = async (tx: Queryable, at: EmailDomainParams, lock = false) => {
    const { rows } = await tx.query<EmailDomainRow>(
      `SELECT ${EMAIL_DOMAIN_SELECT} FROM connection_email_domains WHERE company_id = $1 AND domain_id = $2 AND connection_id = $3 AND email_domain = $4${lock ? ' FOR UPDATE' : ''}`,
      [at.companyId, at.domainId, at.connectionId, at.emailDomain.toLowerCase()],
    );
    if (!rows[0]) throw notFound(`email domain ${at.emailDomain.toLowerCase()} of connection ${at.connectionId}`);
    return rows[0];
  };
  const audit = (tx: Queryable, at: ConnectionParams, action: string, changes: Record<string, unknown>) =>
    recordAudit(tx, { ...place(at), resourceType: 'connections', resourceId: at.connectionId, action, changes });

  app.get<{ Params: ConnectionParams }>(
    `${path}/:connectionId/emailDomains`,
    {
      config: { permission: 'connections:read' },
      schema: { tags, summary: 'The e-mail domains the connection claims; only a verified one sends sign-ins to it', params: connectionParams, response: { 200: { type: 'array', items: emailDomainJson }, ...errorResponses } },
    },
    async (request) => {
      await writes.find(db, place(request.params), [request.params.connectionId]);
      const { rows } = await db.query<EmailDomainRow>(
        `SELECT ${EMAIL_DOMAIN_SELECT} FROM connection_email_domains WHERE company_id = $1 AND domain_id = $2 AND connection_id = $3 ORDER BY email_domain`,
        [request.params.companyId, request.params.domainId, request.params.connectionId],
      );
      return rows.map(emailDomainView);
    },
  );

  app.post<{ Params: ConnectionParams; Body: { emailDomain: string } }>(
    `${path}/:connectionId/emailDomains`,
    {
      config: { permission: 'connections:write' },
      schema: {
        tags,
        summary: 'Claims an e-mail domain for the connection: answers the DNS TXT record that proves it (verify before it routes sign-ins)',
        params: connectionParams,
        body: { type: 'object', required: ['emailDomain'], additionalProperties: false, properties: { emailDomain: { type: 'string', minLength: 1, maxLength: 260 } } },
        response: { 201: emailDomainJson, ...errorResponses },
      },
    },
    async (request, reply) => {
      const emailDomain = normalEmailDomain(request.body.emailDomain);
      const at = request.params;
      const created = await db.transaction(async (tx) => {
        await connectionOf(tx, at);
        const claimed = await uniqueByConstraint(
          { connection_email_domains_pkey: new HttpError(409, `email domain ${emailDomain} is already claimed by a connection of this domain: remove that claim first`).as('connection.emailDomainClaimed', { emailDomain }) },
          async () =>
            (
              await tx.query<EmailDomainRow>(
                `INSERT INTO connection_email_domains (company_id, domain_id, email_domain, connection_id, verification_token) VALUES ($1, $2, $3, $4, $5) RETURNING ${EMAIL_DOMAIN_SELECT}`,
                [at.companyId, at.domainId, emailDomain, at.connectionId, randomAlphanumeric(32)],
              )
            ).rows[0],
        );
        await audit(tx, at, 'addEmailDomain', { emailDomain: { after: emailDomain } });
        return claimed;
      });
      return reply.status(201).send(emailDomainView(created));
    },
  );

  app.post<{ Params: EmailDomainParams; Body: { method: 'dns' | 'confirm' } }>(
    `${path}/:connectionId/emailDomains/:emailDomain/verify`,
    {
      config: { permission: 'connections:write' },
      schema: {
        tags,
        summary: "Verifies a claimed e-mail domain: 'dns' looks up its TXT record, 'confirm' is an administrator's word for it",
        params: emailDomainParams,
        body: { type: 'object', required: ['method'], additionalProperties: false, properties: { method: { type: 'string', enum: ['dns', 'confirm'] } } },
        response: { 200: emailDomainJson, ...errorResponses },
      },
    },
    async (request) => {
      const at = request.params;
      const { method } = request.body;
      // the DNS answer is read outside the transaction: no row stays locked while a resolver is slow
      const claim = await claimOf(db, at);
      if (claim.verifiedAt) return emailDomainView(claim);
      if (method === 'dns') {
        const name = `${CHALLENGE_PREFIX}${claim.emailDomain}`;
        const found = await lookUpTxt(name);
        const expected = `${VERIFICATION_PREFIX}${claim.verificationToken}`;
        const record = txtRecord(claim.emailDomain, claim.verificationToken);
        if (!Array.isArray(found)) {
          throw new HttpError(409, `${claim.emailDomain} is not verified: ${found.problem}. Add the TXT record ${record} and try again (DNS changes can take a while to appear).`).as(
            found.failure ? 'connection.emailDomainLookupFailed' : 'connection.emailDomainNoTxt',
            { emailDomain: claim.emailDomain, name, record, ...(found.failure ? { failure: found.failure.slice(0, 100) } : {}) },
          );
        }
        if (!found.some((value) => value.trim() === expected)) {
          throw new HttpError(409, `${claim.emailDomain} is not verified: the TXT records at ${name} do not include ${expected}. Add it and try again (DNS changes can take a while to appear).`).as('connection.emailDomainTxtMissing', {
            emailDomain: claim.emailDomain,
            name,
            expected,
          });
        }
      }
      return db.transaction(async (tx) => {
        const current = await claimOf(tx, at, true);
        if (current.verifiedAt) return emailDomainView(current);
        const { rows } = await tx.query<EmailDomainRow>(
          `UPDATE connection_email_domains SET verified_at = now(), verified_by = $5 WHERE company_id = $1 AND domain_id = $2 AND connection_id = $3 AND email_domain = $4 RETURNING ${EMAIL_DOMAIN_SELECT}`,
          [at.companyId, at.domainId, at.connectionId, current.emailDomain, method],
        );
        await audit(tx, at, 'verifyEmailDomain', { emailDomain: { after: current.emailDomain }, verifiedBy: { after: method } });
        return emailDomainView(rows[0]);
      });
    },
  );

  app.delete<{ Params: EmailDomainParams }>(
    `${path}/:connectionId/emailDomains/:emailDomain`,
    {
      config: { permission: 'connections:write' },
      schema: { tags, summary: 'Removes a claim: addresses of that e-mail domain are no longer sent to the connection', params: emailDomainParams, response: { 200: emailDomainJson, ...errorResponses } },
    },
    async (request) =>
      db.transaction(async (tx) => {
        const at = request.params;
        const claim = await claimOf(tx, at, true);
        await tx.query(`DELETE FROM connection_email_domains WHERE company_id = $1 AND domain_id = $2 AND connection_id = $3 AND email_domain = $4`, [at.companyId, at.domainId, at.connectionId, claim.emailDomain]);
        await audit(tx, at, 'removeEmailDomain', { emailDomain: { before: claim.emailDomain } });
        return emailDomainView(claim);
      }),
  );

  // ---- test sign-in ----
  app.post<{ Params: ConnectionParams }>(
    `${path}/:connectionId/test`,
    {
      config: { permission: 'connections:write' },
      schema: {
        tags,
        summary: 'A test sign-in through the connection: answers the address to open (in a new window) within 5 minutes, once; it shows the mapped claims and provisions nobody',
        params: connectionParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: { type: 'object', properties: { url: { type: 'string' } } }, ...errorResponses },
      },
    },
    async (request) => {
      const at = request.params;
      const caller: Principal = request.principal;
      // the ticket is single use and short: only its hash is stored, the sign-in side redeems it (upstream_flows)
      const ticket = randomAlphanumeric(43);
      await db.transaction(async (tx) => {
        const connection = await connectionOf(tx, at);
        if (connection.status === 'deleted') throw new HttpError(409, `connection ${connection.displayName} is deleted: recover it to test it`).as('connection.deletedTest', { name: connection.displayName.slice(0, 100) });
        await tx.query(
          `INSERT INTO upstream_flows (id, company_id, domain_id, connection_id, purpose, payload, expires_at) VALUES ($1, $2, $3, $4, 'test-ticket', $5::jsonb, now() + interval '5 minutes')`,
          [sha256(ticket), at.companyId, at.domainId, at.connectionId, JSON.stringify({ by: { companyId: caller.companyId, domainId: caller.domainId, userId: caller.userId } })],
        );
        await audit(tx, at, 'testSignIn', {});
      });
      return { url: `${config.publicUrl}${upstreamPaths(at.companyId, at.domainId, at.connectionId).start}?ticket=${ticket}` };
    },
  );
}

