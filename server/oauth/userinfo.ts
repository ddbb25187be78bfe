import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../context.js';
import { corsFor, setCorsClient } from './cors.js';
import { checkDpopProof } from './dpop.js';
import { verifyUserinfoToken } from '../accounts/tokens.js';

const PROFILE_SCOPES = ['profile', 'username'];

/** RFC 6750 3: the error goes in WWW-Authenticate; the body repeats it for humans. */
function bearerError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .status(status)
    .header('WWW-Authenticate', `Bearer error="${error}", error_description="${description}"`)
    .header('Cache-Control', 'no-store')
    .send({ error, error_description: description });
}

/** GET|POST /oauth/userinfo (OpenID Connect Core 5.3): claims of the signed-in user, by granted scope. */
export async function userinfoRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  corsFor(app, '/oauth/userinfo', ['GET', 'POST']);

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const match = /^(Bearer|DPoP)\s+([A-Za-z0-9\-_.]+)$/i.exec(request.headers.authorization ?? '');
    if (!match) return bearerError(reply, 401, 'invalid_token', 'send a bearer access token');
    const dpop = match[1].toLowerCase() === 'dpop';
    let principal: Principal & { jkt?: string };
    try {
      principal = await verifyUserinfoToken(app.ctx, match[2]);
    } catch {
      return bearerError(reply, 401, 'invalid_token', 'the access token is invalid or expired');
    }
    // RFC 9449 7.1: a DPoP-bound token comes with the DPoP scheme and a proof; a plain one with Bearer
    if (dpop !== !!principal.jkt) return bearerError(reply, 401, 'invalid_token', dpop ? 'the access token is not DPoP-bound' : 'the access token is DPoP-bound: send it with its proof');
    if (principal.jkt) {
      try {
        const proof = request.headers.dpop;
        await checkDpopProof(db, { proof: typeof proof === 'string' ? proof : undefined, jkt: principal.jkt, accessToken: match[2], method: request.method, url: `${app.ctx.config.publicUrl}/oauth/userinfo` });
      } catch (error) {
        return reply
          .status(401)
          .header('WWW-Authenticate', `DPoP error="invalid_dpop_proof", error_description="${(error as Error).message}", algs="ES256 PS256 RS256 EdDSA"`)
          .header('Cache-Control', 'no-store')
          .send({ error: 'invalid_dpop_proof', error_description: (error as Error).message });
      }
    }
    if (!principal.scopes.includes('openid')) return bearerError(reply, 403, 'insufficient_scope', 'the openid scope is required');
    // the application must still be active too; its web origins decide who may read the answer
    const { rows } = await db.query<{ username: string; displayName: string; email: string; emailVerified: boolean; webOrigins: unknown }>(
      `SELECT u.username, u.display_name AS "displayName", u.email, u.email_verified AS "emailVerified", a.allowed_web_orgins AS "webOrigins"
       FROM oauth_grants g
       JOIN users u ON u.company_id = g.company_id AND u.domain_id = g.domain_id AND u.id = g.user_id
       JOIN applications a ON a.id = g.client_id AND a.status = 'active'
       WHERE g.id = $1 AND g.revoked_at IS NULL AND u.status = 'active' AND u.blocked_at IS NULL
         AND g.company_id = $2 AND g.domain_id = $3 AND g.user_id = $4 AND u.subject = $5`,
      [principal.grantId, principal.companyId, principal.domainId, principal.userId, principal.subject],
    );
    const user = rows[0];
    if (!user) return bearerError(reply, 401, 'invalid_token', 'the access token has been revoked');
    setCorsClient(request, Array.isArray(user.webOrigins) ? user.webOrigins.filter((origin) => typeof origin === 'string') : []);
    const claims: Record<string, unknown> = { sub: principal.subject };
    if (principal.scopes.some((scope) => PROFILE_SCOPES.includes(scope))) {
      claims.name = user.displayName;
      claims.preferred_username = user.username;
    }
    if (principal.scopes.includes('email')) {
      claims.email = user.email;
      claims.email_verified = user.emailVerified;
    }
    return reply.header('Cache-Control', 'no-store').send(claims);
  };

  const schema = {
    tags: ['oauth'],
    summary: 'Claims of the user behind a bearer access token',
    response: {
      200: {
        type: 'object',
        properties: {
          sub: { type: 'string' },
          name: { type: 'string' },
          preferred_username: { type: 'string' },
          email: { type: 'string' },
          email_verified: { type: 'boolean' },
        },
      },
    },
  };
  app.get('/oauth/userinfo', { schema }, handler);
  app.post('/oauth/userinfo', { schema }, handler);
}
