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
  /** The secret replaced by the last rotation, while its grace period lasts; else null. */
  previousSecretHash: string | null;
  redirectUris: string[];
  logoutUris: string[];
  webOrigins: string[];
  grantTypes: string[];
  idTokenExpiration: number;
  refreshTokenRotation: boolean;
  refreshReuseInterval: number;
  refreshAbsoluteExpiration: boolean;
  refreshAbsoluteLifetime: number;
  /** Default audience: the API identifier used when a request names none. */
  audience: string;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** Active applications only: a deleted application signs nobody in and gets no token. */
export async function findActiveClient(db: Queryable, clientId: string | undefined): Promise<OAuthClient | undefined> {
  if (!clientId) return undefined;
  const { rows } = await db.query<OAuthClient>(
    `SELECT id, company_id AS "companyId", domain_id AS "domainId", client_name AS name, app_type AS "appType",
            client_secret_hash AS "secretHash",
            CASE WHEN previous_secret_expires_at > now() THEN previous_secret_hash END AS "previousSecretHash",
            redirect_uris AS "redirectUris", client_logout_uri AS "logoutUris", allowed_web_orgins AS "webOrigins",
            grant_types AS "grantTypes", id_token_expiration AS "idTokenExpiration",
            refresh_token_rotation AS "refreshTokenRotation", refresh_reuse_interval AS "refreshReuseInterval",
            refresh_absolute_expiration AS "refreshAbsoluteExpiration", refresh_absolute_lifetime AS "refreshAbsoluteLifetime",
            audience
     FROM applications WHERE id = $1 AND status = 'active'`,
    [clientId],
  );
  const client = rows[0];
  if (!client) return undefined;
  client.redirectUris = strings(client.redirectUris);
  client.logoutUris = strings(client.logoutUris);
  client.webOrigins = strings(client.webOrigins);
  client.grantTypes = strings(client.grantTypes);
  client.audience = (client.audience ?? '').trim();
  return client;
}

/** SPA and native apps cannot keep a secret: they prove possession with PKCE instead. */
export function isPublicClient(client: OAuthClient): boolean {
  return client.appType === 'SPA' || client.appType === 'native' || !client.secretHash;
}

/**
 * The grant types the application may use: what the administrator enabled, and for a
 * machine-to-machine application only client_credentials (it has no user to sign in).
 */
export function allowedGrantTypes(client: OAuthClient): string[] {
  return client.appType === 'machine' ? client.grantTypes.filter((type) => type === 'client_credentials') : client.grantTypes;
}

/** RFC 6749 3.1.2.3 / RFC 9700 2.1: simple string comparison, no normalisation of any kind. */
export function isRegisteredRedirect(client: OAuthClient, redirectUri: string | undefined): redirectUri is string {
  return !!redirectUri && client.redirectUris.some((registered) => registered === redirectUri);
}

/** The current secret, or the previous one during the grace period its rotation granted. */
export function secretMatches(client: OAuthClient, secret: string): boolean {
  const hash = sha256(secret);
  return (!!client.secretHash && safeEqual(hash, client.secretHash)) || (!!client.previousSecretHash && safeEqual(hash, client.previousSecretHash));
}

/**
 * Reads `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1).
 * Undefined when there is no Basic header; null when there is one but it cannot be read, which
 * includes a control character (NUL, say) in the id or the secret: neither ever holds one.
 */
export function parseBasicAuth(header: string | undefined): { clientId: string; secret: string } | null | undefined {
  if (!header || !/^basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return null;
  try {
    const unescape = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    const credentials = { clientId: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
    return /[\u0000-\u001F\u007F]/.test(credentials.clientId + credentials.secret) ? null : credentials;
  } catch {
    return null;
  }
}
