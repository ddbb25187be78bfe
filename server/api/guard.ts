import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { ADMIN_SCOPE, verifyAccessToken } from '../oauth/tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers without a token: the guard checks nothing. Declared on the route itself,
     * never inferred from its path; the OpenAPI document shows it (`security: []`).
     */
    public?: boolean;
  }
}

/** Whether the route that answers this request is declared public (an unknown route is not). */
const isPublic = (request: FastifyRequest) => request.routeOptions.config?.public === true;

/**
 * Every /api call: a valid bearer token with `user:admin` (401/403), a live grant and an active user
 * (401), and, when the path names a company (and domain), that company inside the caller's subtree
 * (404 otherwise: no existence leaks). Grant, user, company and domain are checked in one statement.
 * What the guard checks never depends on how the URL looks: a route without a token is one declared
 * `config: { public: true }` (none under /api today; the OpenAPI document and its UI at /api/docs are
 * routes of the root instance, outside these hooks).
 */
export function registerGuard(app: FastifyInstance) {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('accessChecked', false);

  // A public route says so in the OpenAPI document; a route that says so there must be declared public.
  app.addHook('onRoute', (route) => {
    const documented = (route.schema as { security?: unknown[] } | undefined)?.security;
    if (route.config?.public === true) route.schema = { ...route.schema, security: [] };
    else if (Array.isArray(documented) && documented.length === 0) {
      throw new Error(`${route.method} ${route.url}: security [] in its schema but not declared config: { public: true }`);
    }
  });

  app.addHook('onRequest', async (request) => {
    if (isPublic(request)) return;
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
    if (isPublic(request)) return;
    // a list checks access in its own count statement, before it reads the page, and a GET of one
    // record in the statement that reads it (statementAccess)
    if (request.routeOptions.config.accessInStatement) return;
    const params = (request.params ?? {}) as { companyId?: string; domainId?: string };
    await checkAccess(app.ctx.db.stable, request.principal, params.companyId, params.domainId);
    request.accessChecked = true;
  });

  // Fails closed: a route that answers without its access having been checked is a bug, never data.
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (isPublic(request) || reply.statusCode >= 400 || request.accessChecked) return payload;
    throw new Error(`${request.routeOptions.method} ${request.routeOptions.url} answered without an access check`);
  });
}

/**
 * The guard's check as one select-list column, `access` (the api_access function of migration 7:
 * grant live, user active, company inside the caller's subtree, domain of that company), with
 * parameters numbered from `from`.
 */
export function accessColumns(principal: Principal, companyId: string | undefined, domainId: string | undefined, from: number) {
  const p = (i: number) => `$${from + i}`;
  return {
    sql: `api_access(${[0, 1, 2, 3, 4, 5].map((i) => `${p(i)}::text`).join(', ')}) AS access`,
    params: [principal.grantId, principal.companyId, principal.domainId, principal.userId, companyId ?? null, domainId ?? null],
    /** Throws the guard's 401 or 404 unless the row passes. */
    assert(row: { access?: string }) {
      if (row.access === 'ok') return;
      if (row.access === 'company') throw notFound(`company ${companyId}`);
      if (row.access === 'domain') throw notFound(`domain ${domainId}`);
      throw unauthorized('The access token has been revoked');
    },
  };
}

export type AccessCheck = ReturnType<typeof accessColumns> & { done(): void };

/** The one statement behind the guard; also used by routes whose company comes from the body. */
export async function checkAccess(db: Queryable, principal: Principal, companyId?: string, domainId?: string) {
  const access = accessColumns(principal, companyId, domainId, 1);
  const { rows } = await db.query<{ access: string }>(`SELECT ${access.sql}`, access.params);
  access.assert(rows[0]);
}

/**
 * For a route marked `config: { accessInStatement: true }`: the guard's check, to run inside the
 * route's statement (a list's count, which runList runs before the page; a GET's read of its
 * record). Undefined when the guard has already checked.
 */
export function statementAccess(request: FastifyRequest): ((from: number) => AccessCheck) | undefined {
  if (request.accessChecked) return undefined;
  const params = (request.params ?? {}) as { companyId?: string; domainId?: string };
  return (from) => ({ ...accessColumns(request.principal, params.companyId, params.domainId, from), done: () => (request.accessChecked = true) });
}

/** SQL predicate: the company column is inside the caller's subtree. */
export function inScope(companyColumn: string, param: string) {
  return `EXISTS (SELECT 1 FROM companies sc WHERE sc.id = ${companyColumn} AND ${param} = ANY (sc.ancestors))`;
}
