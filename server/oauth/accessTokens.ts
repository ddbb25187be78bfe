import * as jose from 'jose';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { tenantOf } from './clients.js';
import { managementAudience } from '../accounts/tokens.js';

/**
 * Revocation (RFC 7009) and introspection (RFC 7662) of our access tokens. They are JWTs (resource
 * servers verify them offline), which oidc-provider neither revokes nor introspects; here they are:
 * - a revoked token's id (jti) is kept until the token would have expired, and revoking a token of
 *   a sign-in ends the sign-in, as oidc-provider does for its opaque tokens (the management API,
 *   userinfo and refresh all stop at a revoked sign-in);
 * - introspection says `active: true` with the token's claims only while its signature, issuer,
 *   expiry, application, sign-in and user all still hold, and only to an application of the
 *   token's own company and domain (anyone else learns `active: false`, as for garbage).
 */

interface Caller {
  clientId: string;
}

/**
 * The token's claims once its signature (ours, or its API's HS256 secret), issuer and type are
 * verified, and its audience is the management API or an API of the token's own company and domain
 * (an HS256 secret is in its tenant's hands: a token signed with it vouches for nothing beyond that
 * tenant); undefined otherwise.
 */
async function verified(ctx: AppContext, db: Queryable, token: string): Promise<jose.JWTPayload | undefined> {
  try {
    const { alg } = jose.decodeProtectedHeader(token);
    const { aud } = jose.decodeJwt(token);
    if (typeof aud !== 'string' || (alg !== 'RS256' && alg !== 'HS256')) return undefined;
    const options = { issuer: ctx.config.publicUrl, typ: 'at+jwt', audience: aud, requiredClaims: ['exp', 'jti', 'client_id', 'company', 'domain'] };
    if (aud === managementAudience(ctx)) return alg === 'RS256' ? (await jose.jwtVerify(token, ctx.keys.publicKey, { ...options, algorithms: ['RS256'] })).payload : undefined;
    // the API its audience names (one in the whole provider)
    const { rows } = await db.query<{ companyId: string; domainId: string; algorithm: string; secret: string | null }>(
      `SELECT company_id AS "companyId", domain_id AS "domainId", signing_algorithm AS algorithm, signing_secret AS secret FROM apis WHERE identifier = $1`,
      [aud],
    );
    const api = rows[0];
    if (!api || api.algorithm !== alg) return undefined;
    const key = alg === 'RS256' ? ctx.keys.publicKey : api.secret ? Buffer.from(api.secret) : undefined;
    if (!key) return undefined;
    const { payload } = await jose.jwtVerify(token, key, { ...options, algorithms: [alg] });
    return payload.company === api.companyId && payload.domain === api.domainId ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** Is a verified token still good: not revoked, its application active, its sign-in live, its user active (same tenant throughout)? */
async function stillGood(db: Queryable, claims: jose.JWTPayload): Promise<boolean> {
  const str = (value: unknown) => (typeof value === 'string' ? value : null);
  const { rows } = await db.query<{ good: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'RevokedAccessToken' AND id = $1)
        AND EXISTS (SELECT 1 FROM applications a WHERE a.id = $2 AND a.company_id = $3 AND a.domain_id = $4 AND a.status = 'active')
        AND ($5::text IS NULL OR EXISTS (
          SELECT 1 FROM oauth_grants g WHERE g.id = $5 AND g.client_id = $2 AND g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > now())))
        AND ($6::text IS NULL OR EXISTS (
          SELECT 1 FROM users u WHERE u.company_id = $3 AND u.domain_id = $4 AND u.id = $6 AND u.subject = $7 AND u.status = 'active' AND u.blocked_at IS NULL))
        AS good`,
    [str(claims.jti), str(claims.client_id), str(claims.company), str(claims.domain), str(claims.gid), str(claims.user_id), str(claims.sub)],
  );
  return rows[0]?.good === true;
}

/** RFC 7662: the answer about `token` to the authenticated client `caller`. */
export async function introspectAccessToken(ctx: AppContext, caller: Caller, token: string): Promise<Record<string, unknown>> {
  const { db } = ctx;
  const claims = await verified(ctx, db, token);
  if (!claims) return { active: false };
  const asker = tenantOf(caller);
  if (claims.company !== asker.companyId || claims.domain !== asker.domainId) return { active: false };
  if (!(await stillGood(db, claims))) return { active: false };
  return { ...claims, active: true, token_type: claims.cnf ? 'DPoP' : 'Bearer' };
}

/** RFC 7009: `token` revoked, when it is ours and was issued to the client asking; anything else is ignored (2.2: 200 all the same). */
export async function revokeAccessToken(ctx: AppContext, caller: Caller, token: string): Promise<void> {
  const { db } = ctx;
  const claims = await verified(ctx, db, token);
  if (!claims || claims.client_id !== caller.clientId) return;
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO oidc_payloads (model, id, payload, expires_at) VALUES ('RevokedAccessToken', $1, $2, to_timestamp($3))
       ON CONFLICT (model, id) DO NOTHING`,
      [claims.jti, JSON.stringify({ clientId: claims.client_id, exp: claims.exp }), claims.exp],
    );
    if (typeof claims.gid === 'string') await tx.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND client_id = $2 AND revoked_at IS NULL`, [claims.gid, claims.client_id]);
  });
}
