import type { Queryable } from '../db/index.js';
import type { Tenant } from '../accounts/accounts.js';
import { oncePerRequest } from '../requestOrigin.js';

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

export const splitScope = (scope: string | undefined | null) => [...new Set((scope ?? '').split(/\s+/).filter(Boolean))];

/** An active API of the client's own company and domain with this identifier. */
export function findActiveApi(db: Queryable, tenant: Tenant, identifier: string): Promise<ResourceApi | undefined> {
  return oncePerRequest(`api:${tenant.companyId}/${tenant.domainId}/${identifier}`, () => readActiveApi(db, tenant, identifier));
}

async function readActiveApi(db: Queryable, tenant: Tenant, identifier: string): Promise<ResourceApi | undefined> {
  const { rows } = await db.query<ResourceApi>(
    `SELECT id, name, identifier, token_expiration AS "tokenExpiration", token_expiration_browser AS "tokenExpirationBrowser",
            signing_algorithm AS "signingAlgorithm", signing_secret AS "signingSecret", rbac,
            add_permission_access_token AS "addPermissionAccessToken", allow_skipping_user_consent AS "allowSkippingUserConsent",
            allow_offline_access AS "allowOfflineAccess"
     FROM apis WHERE company_id = $1 AND domain_id = $2 AND identifier = $3 AND status = 'active'`,
    [tenant.companyId, tenant.domainId, identifier],
  );
  const api = rows[0];
  // an HS256 API without its secret cannot sign anything: treat it as unusable rather than fail later
  if (api && api.signingAlgorithm === 'HS256' && !api.signingSecret) return undefined;
  return api;
}

export function apiScopeNames(db: Queryable, apiId: string): Promise<string[]> {
  return oncePerRequest(`scopes:${apiId}`, () => readApiScopeNames(db, apiId));
}

async function readApiScopeNames(db: Queryable, apiId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM permission_scopes WHERE api_id = $1 ORDER BY id`, [apiId]);
  return rows.map((row) => row.id);
}

/**
 * The permissions of an API a user holds through the active groups they belong to, directly or
 * nested: the database's member_groups walk (migration 13), the one the administrator check reads.
 */
export function userPermissions(db: Queryable, companyId: string, domainId: string, userId: string, apiId: string): Promise<string[]> {
  // a token request reads it twice: for the token's scope (RBAC) and for its permissions claim
  return oncePerRequest(`permissions:${companyId}/${domainId}/${userId}/${apiId}`, () => readUserPermissions(db, companyId, domainId, userId, apiId));
}

async function readUserPermissions(db: Queryable, companyId: string, domainId: string, userId: string, apiId: string): Promise<string[]> {
  const { rows } = await db.query<{ scopeId: string }>(
    `SELECT DISTINCT gp.scope_id AS "scopeId" FROM group_permissions gp
     JOIN member_groups($1, $2, 'user', $3, true) AS m(group_id) ON m.group_id = gp.group_id
     WHERE gp.company_id = $1 AND gp.domain_id = $2 AND gp.api_id = $4
     ORDER BY 1`,
    [companyId, domainId, userId, apiId],
  );
  return rows.map((row) => row.scopeId);
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

/** The API scopes of `scope` with their descriptions, for the consent page. */
export async function describeScopes(db: Queryable, apiId: string, scope: string): Promise<{ name: string; description: string }[]> {
  const { rows } = await db.query<{ name: string; description: string }>(
    `SELECT id AS name, description FROM permission_scopes WHERE api_id = $1 AND id = ANY ($2) ORDER BY id`,
    [apiId, splitScope(scope)],
  );
  return rows;
}
