import * as jose from 'jose';
import type { AppContext, Principal } from '../context.js';

export { ADMIN_GROUP, ADMIN_SCOPE } from './accounts.js';

/** The management API's audience: tokens for it are the console's (the guard checks them here). */
export const managementAudience = (ctx: AppContext) => `${ctx.config.publicUrl}/api`;

/**
 * Tokens already verified, per server, until they expire: the console sends the same token with
 * every call, and checking its RS256 signature again each time costs more than a page of users.
 * The key is the token's exact text, so a changed byte is verified afresh; revocation is not
 * cached (the guard checks the grant in the database on every call).
 */
const verified = new WeakMap<AppContext, Map<string, { principal: Principal; exp: number }>>();
const VERIFIED_MAX = 5_000;

/** Verifies a management API access token: our key, RS256 only, our issuer and audience, typ at+jwt, a sign-in of a person. */
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

/**
 * Tokens /oauth/userinfo accepts: our RS256 access tokens of a sign-in (management API or an API),
 * whatever their audience; the caller checks the openid scope and that the sign-in is live.
 */
export function verifyUserinfoToken(ctx: AppContext, token: string): Promise<Principal & { jkt?: string }> {
  return verifyOurToken(ctx, token, undefined, true);
}

async function verifyOurToken(ctx: AppContext, token: string, audience: string | undefined, senderConstrained = false): Promise<Principal & { jkt?: string }> {
  const { payload } = await jose.jwtVerify(token, ctx.keys.publicKey, {
    algorithms: ['RS256'],
    issuer: ctx.config.publicUrl,
    ...(audience ? { audience } : {}),
    typ: 'at+jwt',
    requiredClaims: ['sub', 'exp', 'gid', 'company', 'domain', 'user_id'],
  });
  // a sender-constrained (DPoP) token is only good with its proof: the management API takes none
  const jkt = (payload.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (payload.cnf !== undefined && (!senderConstrained || typeof jkt !== 'string')) throw new Error('the access token is bound to a DPoP key');
  const str = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    // the user's id in her domain (company and domain complete it); sub is her provider-wide subject
    userId: str(payload.user_id),
    subject: str(payload.sub),
    companyId: str(payload.company),
    domainId: str(payload.domain),
    clientId: str(payload.client_id),
    grantId: str(payload.gid),
    scopes: str(payload.scope).split(' ').filter(Boolean),
    exp: Number(payload.exp),
    ...(typeof jkt === 'string' ? { jkt } : {}),
  };
}
