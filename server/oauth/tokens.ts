import * as jose from 'jose';
import type { AppContext, Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import { storable } from './signInEvents.js';
import type { ResourceApi } from './resources.js';

/** The group whose members (direct or through nested groups) administer their domain's company. */
export const ADMIN_GROUP = 'administrators';
export const ADMIN_SCOPE = 'user:admin';
/** Audience of access tokens for this provider's own management API. */
export const managementAudience = (ctx: AppContext) => `${ctx.config.publicUrl}/api`;

export interface TokenUser {
  id: string;
  username: string;
  displayName: string;
  email: string;
}

export interface TokenClient {
  id: string;
  companyId: string;
  domainId: string;
  idTokenExpiration: number;
}

/**
 * Is the user a member of the active `administrators` group of their domain, directly or through
 * nested active groups? The walk is the database's member_groups function (migration 13), the one
 * the API guard, RBAC and the member cycle check read too.
 */
export async function isAdministrator(db: Queryable, companyId: string, domainId: string, userId: string): Promise<boolean> {
  const result = await db.query<{ admin: boolean }>(`SELECT is_administrator($1, $2, $3) AS admin`, [companyId, domainId, userId]);
  return result.rows[0]?.admin === true;
}

/**
 * The scopes a sign-in receives: what was asked for, except `user:admin`, which only an administrator
 * signing in through an application of their own domain receives.
 */
export function grantedScopes(requested: string, options: { isAdmin: boolean; sameDomain: boolean }): string {
  const scopes = [...new Set(requested.split(/\s+/).filter(Boolean))];
  return scopes.filter((scope) => scope !== ADMIN_SCOPE || (options.isAdmin && options.sameDomain)).join(' ');
}

/**
 * Records a sign-in: the grant every token of it carries (its session, docs/CONSOLE.md, "Sign-ins
 * and rights"), with the address and user agent of the request that made it, which is also its
 * first use.
 */
export async function createGrant(
  db: Queryable,
  grant: {
    clientId: string;
    companyId: string;
    domainId: string;
    userId: string | null;
    scope: string;
    resource?: string | null;
    from?: { ip: string; userAgent?: string };
  },
): Promise<string> {
  const id = randomAlphanumeric(32);
  await db.query(
    `INSERT INTO oauth_grants (id, client_id, company_id, domain_id, user_id, scope, resource, ip, user_agent, last_ip, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8, now())`,
    [
      id,
      grant.clientId,
      grant.companyId,
      grant.domainId,
      grant.userId,
      grant.scope,
      grant.resource ?? null,
      storable(grant.from?.ip, 100),
      storable(grant.from?.userAgent, 500),
    ],
  );
  return id;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
  user?: { id: string; username: string; displayName: string; email: string };
  client: { client_id: string; companyId: string; domain: string };
}

/** Audience added to API access tokens that carry openid, so that the same token also reads /oauth/userinfo. */
export const userinfoAudience = (ctx: AppContext) => `${ctx.config.publicUrl}/oauth/userinfo`;

/**
 * Signs one access token. Without an API: the management API token of DESIGN 4 (RS256, aud
 * PUBLIC_URL/api). For an API: aud is its identifier, lifetime tokenExpiration (or
 * tokenExpirationBrowser for public clients, whose tokens live in a browser or a device), signed
 * RS256 with our key or HS256 with the API's own secret.
 */
export async function signAccessToken(
  ctx: AppContext,
  input: {
    subject: string;
    client: TokenClient;
    scope: string;
    grantId?: string;
    api?: ResourceApi;
    browser?: boolean;
    permissions?: string[];
  },
): Promise<{ token: string; expiresIn: number }> {
  const { config, keys } = ctx;
  const now = Math.floor(Date.now() / 1000);
  const api = input.api;
  const expiresIn = api ? (input.browser ? api.tokenExpirationBrowser : api.tokenExpiration) : config.accessTokenTtl;
  const claims: jose.JWTPayload = {
    scope: input.scope,
    company: input.client.companyId,
    domain: input.client.domainId,
    client_id: input.client.id,
  };
  if (input.grantId) claims.gid = input.grantId;
  if (api?.addPermissionAccessToken) claims.permissions = input.permissions ?? [];
  let audience: string | string[] = managementAudience(ctx);
  if (api) {
    const openid = input.scope.split(' ').includes('openid');
    audience = openid && api.signingAlgorithm === 'RS256' ? [api.identifier, userinfoAudience(ctx)] : api.identifier;
  }
  const jwt = new jose.SignJWT(claims)
    .setIssuer(config.publicUrl)
    .setSubject(input.subject)
    .setAudience(audience)
    .setJti(randomAlphanumeric(24))
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn);
  const token =
    api?.signingAlgorithm === 'HS256'
      ? await jwt.setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode(api.signingSecret!))
      : await jwt.setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'at+jwt' }).sign(keys.privateKey);
  return { token, expiresIn };
}

/** Signs the access token (and the ID token when openid was asked for) of one grant: DESIGN 4's token response. */
export async function issueTokens(
  ctx: AppContext,
  input: {
    grantId: string;
    user: TokenUser;
    client: TokenClient;
    scope: string;
    nonce?: string | null;
    authTime?: number;
    api?: ResourceApi;
    browser?: boolean;
    permissions?: string[];
    refreshToken?: string;
  },
): Promise<TokenResponse> {
  const { config, keys } = ctx;
  const now = Math.floor(Date.now() / 1000);
  const access = await signAccessToken(ctx, {
    subject: input.user.id,
    client: input.client,
    scope: input.scope,
    grantId: input.grantId,
    api: input.api,
    browser: input.browser,
    permissions: input.permissions,
  });

  const scopes = input.scope.split(' ');
  let idToken: string | undefined;
  if (scopes.some((scope) => scope.toLowerCase() === 'openid')) {
    const claims: jose.JWTPayload = {
      auth_time: input.authTime ?? now,
      preferred_username: input.user.username,
      name: input.user.displayName,
      email: input.user.email,
      email_verified: false,
      // the grant is the session: RP-initiated logout with this id_token as hint revokes it
      sid: input.grantId,
    };
    if (input.nonce) claims.nonce = input.nonce;
    idToken = await new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'JWT' })
      .setIssuer(config.publicUrl)
      .setSubject(input.user.id)
      .setAudience(input.client.id)
      .setIssuedAt(now)
      .setExpirationTime(now + input.client.idTokenExpiration)
      .sign(keys.privateKey);
  }

  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    scope: input.scope,
    ...(idToken ? { id_token: idToken } : {}),
    ...(input.refreshToken ? { refresh_token: input.refreshToken } : {}),
    user: { id: input.user.id, username: input.user.username, displayName: input.user.displayName, email: input.user.email },
    client: { client_id: input.client.id, companyId: input.client.companyId, domain: input.client.domainId },
  };
}

/**
 * Tokens already verified, per server, until they expire: the console sends the same token with
 * every call, and checking its RS256 signature again each time costs more than a page of users.
 * The key is the token's exact text, so a changed byte is verified afresh; revocation is not
 * cached (the guard checks the grant in the database on every call).
 */
const verified = new WeakMap<AppContext, Map<string, { principal: Principal; exp: number }>>();
const VERIFIED_MAX = 5_000;

/** Verifies a management API access token: our key, RS256 only, our issuer and audience, typ at+jwt. */
export async function verifyAccessToken(ctx: AppContext, token: string): Promise<Principal> {
  let cache = verified.get(ctx);
  if (!cache) verified.set(ctx, (cache = new Map()));
  const hit = cache.get(token);
  if (hit && hit.exp > Date.now() / 1000) return hit.principal;
  if (hit) cache.delete(token);
  const principal = Object.freeze(await verifyOurToken(ctx, token, managementAudience(ctx)));
  if (cache.size >= VERIFIED_MAX) cache.delete(cache.keys().next().value!);
  cache.set(token, { principal, exp: principal.exp });
  return principal;
}

/** Tokens /oauth/userinfo accepts: management API tokens and RS256 API tokens issued with openid. */
export function verifyUserinfoToken(ctx: AppContext, token: string): Promise<Principal> {
  return verifyOurToken(ctx, token, [managementAudience(ctx), userinfoAudience(ctx)]);
}

async function verifyOurToken(ctx: AppContext, token: string, audience: string | string[]): Promise<Principal> {
  const { payload } = await jose.jwtVerify(token, ctx.keys.publicKey, {
    algorithms: ['RS256'],
    issuer: ctx.config.publicUrl,
    audience,
    typ: 'at+jwt',
    requiredClaims: ['sub', 'exp', 'gid', 'company', 'domain'],
  });
  const str = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    userId: str(payload.sub),
    companyId: str(payload.company),
    domainId: str(payload.domain),
    clientId: str(payload.client_id),
    grantId: str(payload.gid),
    scopes: str(payload.scope).split(' ').filter(Boolean),
    exp: Number(payload.exp),
  };
}
