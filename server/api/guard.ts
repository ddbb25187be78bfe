import type { FastifyInstance } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { ADMIN_SCOPE, verifyAccessToken } from '../oauth/tokens.js';

/**
 * Every /api call: a valid bearer token with `user:admin` (401/403), a live grant and an active user
 * (401), and, when the path names a company (and domain), that company inside the caller's subtree
 * (404 otherwise: no existence leaks). Grant, user, company and domain are checked in one statement.
 */
export function registerGuard(app: FastifyInstance) {
  app.decorateRequest('principal', null as unknown as Principal);

  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api/docs')) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+([A-Za-z0-9\-_.]+)$/i.exec(header);
    if (!match) throw unauthorized();
    try {
      request.principal = await verifyAccessToken(app.ctx, match[1]);
    } catch {
      throw unauthorized('The access token is invalid or expired');
    }
    if (!request.principal.scopes.includes(ADMIN_SCOPE)) throw forbidden();
  });

  // preValidation, not preHandler: another tenant's path answers 404 before its body is even validated
  app.addHook('preValidation', async (request) => {
    if (request.url.startsWith('/api/docs')) return;
    const params = (request.params ?? {}) as { companyId?: string; domainId?: string };
    await checkAccess(app.ctx.db, request.principal, params.companyId, params.domainId);
  });
}

/** The one statement behind the guard; also used by routes whose company comes from the body. */
export async function checkAccess(db: Queryable, principal: Principal, companyId?: string, domainId?: string) {
  const { rows } = await db.query<{ grant_live: boolean | null; user_active: boolean | null; company_ok: boolean | null; domain_ok: boolean | null }>(
    `SELECT
       (SELECT g.revoked_at IS NULL FROM oauth_grants g WHERE g.id = $1) AS grant_live,
       (SELECT u.status = 'active' FROM users u WHERE u.company_id = $2 AND u.domain_id = $3 AND u.id = $4) AS user_active,
       (SELECT $2 = ANY (c.ancestors) FROM companies c WHERE c.id = $5) AS company_ok,
       (SELECT true FROM domains d WHERE d.company_id = $5 AND d.id = $6) AS domain_ok`,
    [principal.grantId, principal.companyId, principal.domainId, principal.userId, companyId ?? null, domainId ?? null],
  );
  const row = rows[0];
  if (!row.grant_live || !row.user_active) throw unauthorized('The access token has been revoked');
  if (companyId !== undefined && !row.company_ok) throw notFound(`company ${companyId}`);
  if (domainId !== undefined && !row.domain_ok) throw notFound(`domain ${domainId}`);
}

/** SQL predicate: the company column is inside the caller's subtree. */
export function inScope(companyColumn: string, param: string) {
  return `EXISTS (SELECT 1 FROM companies sc WHERE sc.id = ${companyColumn} AND ${param} = ANY (sc.ancestors))`;
}
