import type { Queryable } from '../db/index.js';
import type { OAuthClient } from './clients.js';

/** An API (resource server) registered beside the applications of a domain, as token issuance needs it. */
export interface ResourceApi {
  id: string;
  name: string;
  identifier: string;
  tokenExpiration: number;
  tokenExpirationBrowser: number;
  signingAlgorithm: 'RS256' | 'HS256';
  signingSecret: string | null;
  rbac: boolean;
  addPermissionAccessToken: boolean;
  allowSkippingUserConsent: boolean;
  allowOfflineAccess: boolean;
}

/** Scopes about the user and the session, not about an API: always allowed next to an API's permissions. */
export const IDENTITY_SCOPES = ['openid', 'profile', 'email', 'username', 'offline_access'];
export const OFFLINE_ACCESS = 'offline_access';

/** Where tokens of a request go: this provider's management API, or an API of the client's domain. */
export type Audience = { kind: 'management' } | { kind: 'api'; api: ResourceApi };

export const splitScope = (scope: string | undefined | null) => [...new Set((scope ?? '').split(/\s+/).filter(Boolean))];

/**
 * The audience a request names (`audience`, or RFC 8707 `resource`), else the application's default
 * audience. Undefined when the two parameters disagree.
 */
export function namedAudience(client: OAuthClient, params: { audience?: string; resource?: string }): string | undefined | null {
  const audience = params.audience?.trim() || undefined;
  const resource = params.resource?.trim() || undefined;
  if (audience && resource && audience !== resource) return null;
  return audience ?? resource ?? (client.audience || undefined);
}

/** An active API of the client's own company and domain with this identifier. */
export async function findActiveApi(db: Queryable, client: OAuthClient, identifier: string): Promise<ResourceApi | undefined> {
  const { rows } = await db.query<ResourceApi>(
    `SELECT id, name, identifier, token_expiration AS "tokenExpiration", token_expiration_browser AS "tokenExpirationBrowser",
            signing_algorithm AS "signingAlgorithm", signing_secret AS "signingSecret", rbac,
            add_permission_access_token AS "addPermissionAccessToken", allow_skipping_user_consent AS "allowSkippingUserConsent",
            allow_offline_access AS "allowOfflineAccess"
     FROM apis WHERE company_id = $1 AND domain_id = $2 AND identifier = $3 AND status = 'active'`,
    [client.companyId, client.domainId, identifier],
  );
  const api = rows[0];
  // an HS256 API without its secret cannot sign anything: treat it as unusable rather than fail later
  if (api && api.signingAlgorithm === 'HS256' && !api.signingSecret) return undefined;
  return api;
}

/**
 * Resolves the audience of a request. The management API (no audience, or PUBLIC_URL/api) is how the
 * console and every existing sign-in work; anything else must be an active API of the client's domain.
 */
export async function resolveAudience(db: Queryable, issuer: string, client: OAuthClient, identifier: string | undefined): Promise<Audience | undefined> {
  if (!identifier || identifier === `${issuer}/api`) return { kind: 'management' };
  const api = await findActiveApi(db, client, identifier);
  return api ? { kind: 'api', api } : undefined;
}

export async function apiScopeNames(db: Queryable, apiId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM permission_scopes WHERE api_id = $1 ORDER BY id`, [apiId]);
  return rows.map((row) => row.id);
}

/**
 * What a sign-in for an API may hold before RBAC: the identity scopes and the API's own permission
 * scopes that were asked for; offline_access only when the API allows offline access.
 */
export function scopeForApi(requested: string, api: ResourceApi, apiScopes: string[]): string {
  return splitScope(requested)
    .filter((scope) => (scope === OFFLINE_ACCESS ? api.allowOfflineAccess : IDENTITY_SCOPES.includes(scope) || apiScopes.includes(scope)))
    .join(' ');
}

/**
 * The permissions of an API a user holds through the active groups they belong to, directly or
 * nested: the database's member_groups walk (migration 13), the one the administrator check reads.
 */
export async function userPermissions(db: Queryable, companyId: string, domainId: string, userId: string, apiId: string): Promise<string[]> {
  const { rows } = await db.query<{ scopeId: string }>(
    `SELECT DISTINCT gp.scope_id AS "scopeId" FROM group_permissions gp
     JOIN member_groups($1, $2, 'user', $3, true) AS m(group_id) ON m.group_id = gp.group_id
     WHERE gp.company_id = $1 AND gp.domain_id = $2 AND gp.api_id = $4
     ORDER BY 1`,
    [companyId, domainId, userId, apiId],
  );
  return rows.map((row) => row.scopeId);
}

/**
 * The scope and `permissions` of a user's access token for an API, computed when the token is
 * issued (code exchange and every refresh), so that a permission taken away stops at the next token.
 * With RBAC on, API scopes are limited to the user's permissions and `permissions` lists all of them
 * (whether asked for or not); with RBAC off, `permissions` repeats the API scopes granted.
 */
export async function userAccessForApi(
  db: Queryable,
  api: ResourceApi,
  user: { companyId: string; domainId: string; userId: string },
  scope: string,
): Promise<{ scope: string; permissions: string[] }> {
  const apiScopes = await apiScopeNames(db, api.id);
  let scopes = splitScope(scopeForApi(scope, api, apiScopes));
  let permissions = scopes.filter((name) => apiScopes.includes(name) && !IDENTITY_SCOPES.includes(name));
  if (api.rbac) {
    const held = await userPermissions(db, user.companyId, user.domainId, user.userId, api.id);
    scopes = scopes.filter((name) => IDENTITY_SCOPES.includes(name) || held.includes(name));
    permissions = held;
  }
  return { scope: scopes.join(' '), permissions };
}

/** Has the user already agreed to give this client every API scope of `scope`? */
export async function hasConsent(
  db: Queryable,
  who: { companyId: string; domainId: string; userId: string; clientId: string; resource: string },
  scope: string,
): Promise<boolean> {
  const wanted = splitScope(scope);
  const { rows } = await db.query<{ scope: string }>(
    `SELECT scope FROM oauth_consents WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND client_id = $4 AND resource = $5`,
    [who.companyId, who.domainId, who.userId, who.clientId, who.resource],
  );
  if (wanted.length === 0) return rows.length > 0;
  return wanted.every((name) => rows.some((row) => row.scope === name));
}

export async function rememberConsent(
  db: Queryable,
  who: { companyId: string; domainId: string; userId: string; clientId: string; resource: string },
  scope: string,
): Promise<void> {
  const scopes = splitScope(scope);
  if (scopes.length === 0) scopes.push('');
  await db.query(
    `INSERT INTO oauth_consents (company_id, domain_id, user_id, client_id, resource, scope)
     SELECT $1, $2, $3, $4, $5, unnest($6::text[]) ON CONFLICT DO NOTHING`,
    [who.companyId, who.domainId, who.userId, who.clientId, who.resource, scopes],
  );
}
