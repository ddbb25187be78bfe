import type { Queryable } from '../db/index.js';
import { safeEqual, sha256 } from '../ids.js';

/** A registered application as the authorization server sees it. */
export interface OAuthClient {
  id: string;
  companyId: string;
  domainId: string;
  name: string;
  appType: 'SPA' | 'web' | 'native' | 'machine';
  secretHash: string | null;
  redirectUris: string[];
  grantTypes: string[];
  idTokenExpiration: number;
}

/** Active applications only: a deleted application signs nobody in. */
export async function findActiveClient(db: Queryable, clientId: string | undefined): Promise<OAuthClient | undefined> {
  if (!clientId) return undefined;
  const { rows } = await db.query<OAuthClient>(
    `SELECT id, company_id AS "companyId", domain_id AS "domainId", client_name AS name, app_type AS "appType",
            client_secret_hash AS "secretHash", redirect_uris AS "redirectUris", grant_types AS "grantTypes",
            id_token_expiration AS "idTokenExpiration"
     FROM applications WHERE id = $1 AND status = 'active'`,
    [clientId],
  );
  const client = rows[0];
  if (!client) return undefined;
  client.redirectUris = Array.isArray(client.redirectUris) ? client.redirectUris.filter((uri) => typeof uri === 'string') : [];
  client.grantTypes = Array.isArray(client.grantTypes) ? client.grantTypes : [];
  return client;
}

/** SPA and native apps cannot keep a secret: they prove possession with PKCE instead. */
export function isPublicClient(client: OAuthClient): boolean {
  return client.appType === 'SPA' || client.appType === 'native' || !client.secretHash;
}

/** RFC 6749 3.1.2.3 / RFC 9700 2.1: simple string comparison, no normalisation of any kind. */
export function isRegisteredRedirect(client: OAuthClient, redirectUri: string | undefined): redirectUri is string {
  return !!redirectUri && client.redirectUris.some((registered) => registered === redirectUri);
}

export function secretMatches(client: OAuthClient, secret: string): boolean {
  return !!client.secretHash && safeEqual(sha256(secret), client.secretHash);
}

/**
 * Reads `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1).
 * Undefined when there is no Basic header; null when there is one but it cannot be read.
 */
export function parseBasicAuth(header: string | undefined): { clientId: string; secret: string } | null | undefined {
  if (!header || !/^basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return null;
  try {
    const unescape = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}
