import * as jose from 'jose';
import type { AppContext } from '../../server/context.js';
import { randomAlphanumeric } from '../../server/ids.js';
import { holdsConsoleRole } from '../../server/accounts/accounts.js';
import { managementAudience } from '../../server/accounts/tokens.js';

/**
 * A management API access token for any user, without the sign-in round trip: a sign-in (grant)
 * row and a JWT of the shape the authorization server issues (RS256 with our key, typ at+jwt,
 * sub (the user's subject), user_id, scope, company, domain, client_id, gid). `user:admin` is kept only for holders of a console role, as
 * a sign-in would. For tests and benchmarks of the API; the OAuth flows themselves are tested end
 * to end (oauth.test.ts, oidc.test.ts, standards.test.ts).
 */
export async function mintAccessToken(
  ctx: AppContext,
  who: { companyId: string; domainId: string; userId: string; clientId?: string; scope?: string; keepScope?: boolean; ttl?: number },
): Promise<string> {
  const clientId = who.clientId ?? ctx.config.consoleClientId;
  let scope = who.scope ?? 'openid username email user:admin';
  if (!who.keepScope && !(await holdsConsoleRole(ctx.db, who.companyId, who.domainId, who.userId))) {
    scope = scope.split(' ').filter((name) => name !== 'user:admin').join(' ');
  }
  const grantId = randomAlphanumeric(32);
  await ctx.db.query(`INSERT INTO oauth_grants (id, client_id, company_id, domain_id, user_id, scope) VALUES ($1, $2, $3, $4, $5, $6)`, [
    grantId,
    clientId,
    who.companyId,
    who.domainId,
    who.userId,
    scope,
  ]);
  const now = Math.floor(Date.now() / 1000);
  // sub is the user's provider-wide subject; a user not (or no longer) stored gets one of nobody's
  const { rows } = await ctx.db.query<{ subject: string }>(`SELECT subject FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [
    who.companyId,
    who.domainId,
    who.userId,
  ]);
  const subject = rows[0]?.subject ?? `nobody-${randomAlphanumeric(16)}`;
  return new jose.SignJWT({ scope, company: who.companyId, domain: who.domainId, client_id: clientId, gid: grantId, user_id: who.userId })
    .setProtectedHeader({ alg: 'RS256', kid: ctx.keys.kid, typ: 'at+jwt' })
    .setIssuer(ctx.config.publicUrl)
    .setSubject(subject)
    .setAudience(managementAudience(ctx))
    .setJti(randomAlphanumeric(24))
    .setIssuedAt(now)
    .setExpirationTime(now + (who.ttl ?? ctx.config.accessTokenTtl))
    .sign(ctx.keys.privateKey);
}
