import type { Queryable } from '../db/index.js';
import { decryptSecret } from '../accounts/factors.js';
import { badRequest } from '../errors.js';
import type { Tenant } from '../accounts/accounts.js';
import type { ClaimMapping, Preset, Protocol, UpstreamConnection } from '../accounts/upstream.js';

/**
 * Connections as the sign-in reads them (docs/CONSOLE.md, "Connections"): a row of `connections`
 * (migration 38), active and enabled, its secret opened only when a flow needs it. A connection is
 * offered on its own domain's sign-in, and when shared (sharedWithSubtree) on the sign-in of every
 * domain of its company's subtree, never elsewhere.
 */

interface ConnectionRow {
  companyId: string;
  domainId: string;
  id: string;
  displayName: string;
  protocol: Protocol;
  preset: Preset;
  enabled: boolean;
  settings: Record<string, unknown>;
  secret: string | null;
  trustEmail: boolean;
  mfaFromIdp: boolean;
  sharedWithSubtree: boolean;
}

const COLUMNS = `c.company_id AS "companyId", c.domain_id AS "domainId", c.id, c.display_name AS "displayName", c.protocol, c.preset, c.enabled,
  c.settings, c.secret, c.trust_email AS "trustEmail", c.mfa_from_idp AS "mfaFromIdp", c.shared_with_subtree AS "sharedWithSubtree"`;

/**
 * Where a connection is offered: its own domain, or (shared) a domain of a company whose ancestors
 * include the connection's company, or another domain of that company itself.
 */
const OFFERED_AT = `c.status = 'active' AND c.enabled AND (
  (c.company_id = $1 AND c.domain_id = $2)
  OR (c.shared_with_subtree AND (c.company_id = $1 OR c.company_id = ANY (SELECT unnest(ancestors) FROM companies WHERE id = $1))))`;

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

function claimMappingOf(value: unknown): ClaimMapping {
  const given = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return { email: text(given.email), name: text(given.name), groups: text(given.groups), emailVerified: text(given.emailVerified) };
}

/** The connection's secret, opened; a key that cannot open it (MFA_KEY changed or missing) is a sentence, not a 5xx. */
async function openSecret(db: Queryable, row: ConnectionRow): Promise<string> {
  try {
    return await decryptSecret(db, row.secret!);
  } catch {
    throw badRequest(`The secret of the connection ${row.displayName} cannot be opened with this server's key (MFA_KEY): ask an administrator to enter it again.`);
  }
}

async function toConnection(db: Queryable, row: ConnectionRow, withSecret: boolean): Promise<UpstreamConnection> {
  const settings = row.settings ?? {};
  return {
    companyId: row.companyId,
    domainId: row.domainId,
    id: row.id,
    displayName: row.displayName,
    protocol: row.protocol,
    preset: row.preset,
    enabled: row.enabled,
    issuer: text(settings.issuer),
    clientId: text(settings.clientId),
    secret: withSecret && row.secret ? await openSecret(db, row) : undefined,
    scopes: text(settings.scopes),
    claimMapping: claimMappingOf(settings.claimMapping),
    entraTenant: text(settings.entraTenant),
    appleTeamId: text(settings.appleTeamId),
    appleKeyId: text(settings.appleKeyId),
    samlMetadataXml: text(settings.samlMetadataXml),
    samlMetadataUrl: text(settings.samlMetadataUrl),
    trustEmail: row.trustEmail,
    mfaFromIdp: row.mfaFromIdp,
    sharedWithSubtree: row.sharedWithSubtree,
  };
}

export interface ConnectionRef {
  companyId: string;
  domainId: string;
  id: string;
}

/**
 * The connection named by its address, if it is offered where this sign-in is (`signInTenant`):
 * undefined otherwise (another tenant's connection is not found: 404), disabled or deleted too.
 */
export async function connectionForSignIn(db: Queryable, ref: ConnectionRef, signInTenant: Tenant): Promise<UpstreamConnection | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM connections c WHERE c.company_id = $3 AND c.domain_id = $4 AND c.id = $5 AND ${OFFERED_AT}`,
    [signInTenant.companyId, signInTenant.domainId, ref.companyId, ref.domainId, ref.id],
  );
  return rows[0] ? toConnection(db, rows[0], true) : undefined;
}

/** The connection of a test sign-in: enabled or not (an administrator tests before she enables it). */
export async function connectionForTest(db: Queryable, ref: ConnectionRef): Promise<UpstreamConnection | undefined> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${COLUMNS} FROM connections c WHERE c.company_id = $1 AND c.domain_id = $2 AND c.id = $3 AND c.status = 'active'`, [
    ref.companyId,
    ref.domainId,
    ref.id,
  ]);
  return rows[0] ? toConnection(db, rows[0], true) : undefined;
}

export interface OfferedConnection {
  /** The connection's own company and domain (its addresses), which a shared one's differ from the sign-in's. */
  companyId: string;
  domainId: string;
  id: string;
  displayName: string;
  preset: Preset;
  protocol: Protocol;
}

/** The connections a domain's sign-in offers as buttons: its own and those shared from above. Nothing secret. */
export async function connectionsOffered(db: Queryable, signInTenant: Tenant): Promise<OfferedConnection[]> {
  const { rows } = await db.query<OfferedConnection>(
    `SELECT c.company_id AS "companyId", c.domain_id AS "domainId", c.id, c.display_name AS "displayName", c.preset, c.protocol
     FROM connections c WHERE ${OFFERED_AT} ORDER BY c.display_name, c.id LIMIT 50`,
    [signInTenant.companyId, signInTenant.domainId],
  );
  return rows;
}

/**
 * The connection an address is sent to by identifier-first sign-in: its e-mail domain claimed, and
 * verified, in this sign-in's domain by a connection offered there.
 */
export async function connectionOfEmail(db: Queryable, signInTenant: Tenant, email: string): Promise<OfferedConnection | undefined> {
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1) return undefined;
  const emailDomain = email.slice(at + 1).trim().toLowerCase();
  const { rows } = await db.query<OfferedConnection>(
    `SELECT c.company_id AS "companyId", c.domain_id AS "domainId", c.id, c.display_name AS "displayName", c.preset, c.protocol
     FROM connection_email_domains e
     JOIN connections c ON c.company_id = e.company_id AND c.domain_id = e.domain_id AND c.id = e.connection_id
     WHERE e.company_id = $1 AND e.domain_id = $2 AND e.email_domain = $3 AND e.verified_at IS NOT NULL AND ${OFFERED_AT}`,
    [signInTenant.companyId, signInTenant.domainId, emailDomain],
  );
  return rows[0];
}

/** Where an OpenID Connect connection discovers its IdP: the preset's issuer, else the one given. */
export function issuerOf(connection: UpstreamConnection): string | undefined {
  switch (connection.preset) {
    case 'google':
      return 'https://accounts.google.com';
    case 'entra':
      // 'common' (any organization's Entra ID): openid-client accepts the tenant's own `iss` ({tenantid} in the metadata)
      return `https://login.microsoftonline.com/${encodeURIComponent(connection.entraTenant || 'common')}/v2.0`;
    case 'apple':
      return 'https://appleid.apple.com';
    case 'github':
      return 'https://github.com';
    default:
      return connection.issuer;
  }
}

/** The connection of this id offered on the sign-in of `signInTenant` (the domain's own first, then one shared from above). */
export async function offeredById(db: Queryable, signInTenant: Tenant, id: string): Promise<OfferedConnection | undefined> {
  const { rows } = await db.query<OfferedConnection>(
    `SELECT c.company_id AS "companyId", c.domain_id AS "domainId", c.id, c.display_name AS "displayName", c.preset, c.protocol
     FROM connections c WHERE c.id = $3 AND ${OFFERED_AT}
     ORDER BY (c.company_id = $1 AND c.domain_id = $2) DESC, c.company_id, c.domain_id LIMIT 1`,
    [signInTenant.companyId, signInTenant.domainId, id],
  );
  return rows[0];
}

/** Whether the sign-in of `signInTenant` sends some claimed e-mail domain upstream (its form then lets the password be left empty). */
export async function hasClaimedEmailDomains(db: Queryable, signInTenant: Tenant): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM connection_email_domains WHERE company_id = $1 AND domain_id = $2 AND verified_at IS NOT NULL LIMIT 1`, [
    signInTenant.companyId,
    signInTenant.domainId,
  ]);
  return rows.length > 0;
}
