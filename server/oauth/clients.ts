import type { ClientMetadata } from 'oidc-provider';
import { safeEqual, sha256 } from '../ids.js';
import { DEFAULT_DOMAIN, ROOT_COMPANY } from '../seed.js';
import type { Tenant } from '../accounts/accounts.js';

/** The device authorization grant (RFC 8628) by its registered name; applications store `device_code`. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The columns of an application the authorization server reads. */
export const APPLICATION_COLUMNS = `id, company_id AS "companyId", domain_id AS "domainId", client_name AS name, app_type AS "appType",
  client_secret_hash AS "secretHash",
  CASE WHEN previous_secret_expires_at > now() THEN previous_secret_hash END AS "previousSecretHash",
  redirect_uris AS "redirectUris", client_logout_uri AS "logoutUris", allowed_web_orgins AS "webOrigins",
  grant_types AS "grantTypes", id_token_expiration AS "idTokenExpiration",
  refresh_token_rotation AS "refreshTokenRotation", refresh_absolute_expiration AS "refreshAbsoluteExpiration",
  refresh_absolute_lifetime AS "refreshAbsoluteLifetime", audience, backchannel_logout_uri AS "backchannelLogoutUri",
  self_registered AS "selfRegistered"`;

export interface ApplicationRow {
  id: string;
  companyId: string;
  domainId: string;
  name: string;
  appType: 'SPA' | 'web' | 'native' | 'machine';
  secretHash: string | null;
  /** The secret replaced by the last rotation, while its grace period lasts; else null. */
  previousSecretHash: string | null;
  redirectUris: unknown;
  logoutUris: unknown;
  webOrigins: unknown;
  grantTypes: unknown;
  idTokenExpiration: number;
  refreshTokenRotation: boolean;
  refreshAbsoluteExpiration: boolean;
  refreshAbsoluteLifetime: number;
  audience: string | null;
  backchannelLogoutUri: string;
  /** Registered itself (RFC 7591): never receives user:admin. */
  selfRegistered: boolean;
}

/** Our metadata beside the standard fields, as oidc-provider keeps it on a client. */
export const EXTRA_CLIENT_METADATA = [
  'company_id',
  'domain_id',
  'app_type',
  'web_origins',
  'id_token_ttl',
  'refresh_token_rotation',
  'refresh_absolute_lifetime',
  'default_audience',
  'previous_secret_hash',
  'public_secret_hash',
  'self_registered',
] as const;

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** SPA and native apps cannot keep a secret: they prove possession with PKCE instead. */
export const isPublicApplication = (row: Pick<ApplicationRow, 'appType' | 'secretHash'>) => row.appType === 'SPA' || row.appType === 'native' || !row.secretHash;

/**
 * The grant types an application may use: what the administrator enabled that this server
 * implements; for a machine-to-machine application only client_credentials (it has no user to sign
 * in), and never client_credentials for a public one (it has no secret to prove who it is).
 */
function grantTypes(row: ApplicationRow): string[] {
  const enabled = strings(row.grantTypes).map((type) => (type === 'device_code' ? DEVICE_CODE_GRANT : type));
  const implemented = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT];
  return enabled.filter((type) => {
    if (!implemented.includes(type)) return false;
    if (row.appType === 'machine') return type === 'client_credentials';
    return type !== 'client_credentials' || !isPublicApplication(row);
  });
}

/**
 * An application as oidc-provider's client. Confidential clients authenticate with HTTP Basic; the
 * secret is only ever stored hashed, so `client_secret` holds the hash and compareClientSecret
 * (provider.ts) compares hashes.
 */
export function clientMetadata(row: ApplicationRow): ClientMetadata {
  const publicClient = isPublicApplication(row);
  const grants = grantTypes(row);
  const code = grants.includes('authorization_code');
  return {
    client_id: row.id,
    client_name: row.name,
    application_type: row.appType === 'native' ? 'native' : 'web',
    token_endpoint_auth_method: publicClient ? 'none' : 'client_secret_basic',
    ...(publicClient ? {} : { client_secret: row.secretHash! }),
    grant_types: grants,
    response_types: code ? ['code'] : [],
    redirect_uris: strings(row.redirectUris),
    post_logout_redirect_uris: strings(row.logoutUris),
    id_token_signed_response_alg: 'RS256',
    ...(row.backchannelLogoutUri ? { backchannel_logout_uri: row.backchannelLogoutUri, backchannel_logout_session_required: true } : {}),
    company_id: row.companyId,
    domain_id: row.domainId,
    app_type: row.appType,
    web_origins: strings(row.webOrigins),
    id_token_ttl: row.idTokenExpiration,
    refresh_token_rotation: row.refreshTokenRotation,
    refresh_absolute_lifetime: row.refreshAbsoluteExpiration ? row.refreshAbsoluteLifetime : 0,
    default_audience: (row.audience ?? '').trim(),
    previous_secret_hash: row.previousSecretHash ?? '',
    // a public client may still have a secret (an SPA given one): if it sends it, it must be right
    public_secret_hash: publicClient ? (row.secretHash ?? '') : '',
    self_registered: row.selfRegistered === true,
  };
}

/** The current secret, or the previous one during the grace period its rotation granted. */
export function secretMatches(hashes: { current?: string; previous?: string }, secret: string): boolean {
  const hash = sha256(secret);
  return (!!hashes.current && safeEqual(hash, hashes.current)) || (!!hashes.previous && safeEqual(hash, hashes.previous));
}

/** What oidc-provider keeps on a client beyond the standard (clients.ts, clientMetadata). */
export interface ClientExtras {
  clientId: string;
  tokenEndpointAuthMethod?: string;
  company_id: string;
  domain_id: string;
  app_type: string;
  web_origins: string[];
  id_token_ttl: number;
  refresh_token_rotation: boolean;
  refresh_absolute_lifetime: number;
  default_audience: string;
  previous_secret_hash: string;
  public_secret_hash: string;
  self_registered: boolean;
  clientSecret?: string;
  grantTypeAllowed(type: string): boolean;
}

export const extrasOf = (client: unknown) => client as ClientExtras;
export const tenantOf = (client: unknown): Tenant => ({ companyId: extrasOf(client).company_id, domainId: extrasOf(client).domain_id });
/**
 * Is this client the console application, by its stored identity: the console's client id where
 * seed.ts puts it, the root company's default domain (docs/CONSOLE.md, "Sign-ins and rights": the
 * console alone gets user:admin without a consent page). A client id alone is no proof.
 */
export const isConsoleClient = (client: unknown, consoleClientId: string) => {
  const extras = extrasOf(client);
  return extras.clientId === consoleClientId && extras.company_id === ROOT_COMPANY && extras.domain_id === DEFAULT_DOMAIN && !extras.self_registered;
};

/** A client that authenticates with nothing: PKCE stands in for its secret. */
export const isPublicClient = (client: unknown) => extrasOf(client).tokenEndpointAuthMethod === 'none';


/** The API a request for this client is for when it names none: the application's default audience, else the management API. */
export const defaultResource = (client: unknown, managementApi: string) => extrasOf(client).default_audience || managementApi;
