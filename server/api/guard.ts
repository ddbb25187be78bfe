import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { ADMIN_SCOPE, verifyAccessToken } from '../accounts/tokens.js';
import { noteActorRoles } from '../accounts/audit.js';
import { checkDeclaredContainment } from './containment.js';
import { heldGrants, ROLES, rolesGranting, rolesSentence } from './roles.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers without a token: the guard checks nothing. Declared on the route itself,
     * never inferred from its path; the OpenAPI document shows it (`security: []`).
     */
    public?: boolean;
    /**
     * What the caller's roles must give over the company and domain the request names
     * (`users:write`, roles.ts), or `any`: some console role, wherever. Every non-public route
     * declares one (the guard refuses to start otherwise); the OpenAPI document shows it as
     * `x-permission`.
     */
    permission?: string;
    /**
     * For a route that names records by id alone (no company in its path): the companies and
     * domains of those records inside the caller's subtree, whose roles the guard then checks
     * (locateRecords). None found: the roles she holds anywhere, and the route answers its 404.
     */
    locate?: Locate;
  }
}

/** Where the records a request names are: rows of `table` by id, the caller's own company (a list of her whole subtree), or anywhere (a create, which checks its body's company itself). */
export type Located = { table: 'applications' | 'apis'; ids: string[] } | 'own company' | 'anywhere';
export type Locate = (request: FastifyRequest) => Located;

/** The sentence of a 403: the permission that is missing and which roles give it. */
const missing = (permission: string) =>
  forbidden(`Your role does not allow ${permission} here: it needs ${rolesSentence(permission)}.`).as('permission.missing', {
    permission,
    roles: rolesGranting(permission).map((id) => ROLES.find((role) => role.id === id)!.name).join(', '),
  });

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
  // Every other route declares its permission, shown in the document too.
  app.addHook('onRoute', (route) => {
    const documented = (route.schema as { security?: unknown[] } | undefined)?.security;
    if (route.config?.public === true) route.schema = { ...route.schema, security: [] };
    else if (Array.isArray(documented) && documented.length === 0) {
      throw new Error(`${route.method} ${route.url}: security [] in its schema but not declared config: { public: true }`);
    } else if (route.method !== 'HEAD') {
      const permission = route.config?.permission;
      if (!permission) throw new Error(`${route.method} ${route.url}: no permission declared (config: { permission })`);
      route.schema = { ...route.schema, 'x-permission': permission } as typeof route.schema;
    }
    // a write that reaches a domain's users or groups says which ones (containment.ts), or that it reaches none
    if (!['GET', 'HEAD', 'QUERY'].includes(String(route.method)) && /\/domainNames\/:domainId\/(users|groups)\b/.test(route.url) && !route.config?.acts) {
      throw new Error(`${route.method} ${route.url}: a write to users or groups declares what it acts on (config: { acts })`);
    }
    if (route.config?.acts) route.schema = { ...route.schema, 'x-acts-on-principals': route.config.acts !== 'nobody' } as typeof route.schema;
    // after validation (the body names the principals of a bulk write): nobody acts on more than they
    // hold. On the routes that declare it only: a read pays nothing for it.
    if (typeof route.config?.acts === 'function') {
      const existing = route.preHandler ? [route.preHandler].flat() : [];
      route.preHandler = [async (request) => checkDeclaredContainment(app.ctx.db, request), ...existing];
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
    if (!request.principal.scopes.includes(ADMIN_SCOPE)) throw forbidden().as('auth.adminScope', { scope: ADMIN_SCOPE });
  });

  // preValidation, not preHandler: another tenant's path answers 404 before its body is even validated
  app.addHook('preValidation', async (request) => {
    if (isPublic(request)) return;
    // a list checks access in its own count statement, before it reads the page, and a GET of one
    // record in the statement that reads it (statementAccess)
    const { accessInStatement, locate } = request.routeOptions.config;
    // a list (its count) or a GET of one record checks in its own statement, unless it names records by id alone
    if (accessInStatement && (!locate || locate(request) === 'own company')) return;
    const params = (request.params ?? {}) as { companyId?: string; domainId?: string };
    const { principal } = request;
    const db = app.ctx.db.stable;
    const located = !params.companyId && locate ? locate(request) : undefined;
    const permission = routePermission(request);
    let held = typeof located === 'object' ? await checkRecords(db, principal, located, permission) : undefined;
    if (!held) held = await checkAccess(db, principal, located === 'own company' ? principal.companyId : params.companyId, located === 'own company' ? undefined : params.domainId, permission);
    noteActorRoles(held);
    request.accessChecked = true;
  });

  // Fails closed: a route that answers without its access having been checked is a bug, never data.
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (isPublic(request) || reply.statusCode >= 400 || request.accessChecked) return payload;
    throw new Error(`${request.routeOptions.method} ${request.routeOptions.url} answered without an access check`);
  });
}

/** The permission the route that answers this request declared. */
export const routePermission = (request: FastifyRequest) => request.routeOptions.config.permission ?? '';

/**
 * The guard's check as one select-list column, `access` (the api_check function of migration 20:
 * grant live, user active, company inside the caller's subtree, domain of that company, and the
 * roles she holds there), with parameters numbered from `from`. Without a company (a route that
 * names no company and no record) the roles are those she holds anywhere; a route that names
 * records by id alone is checked where they are (config.locate, checkRecords).
 */
/** The column's SQL by where its parameters start (and the target's columns): built once, the same string every call. */
const accessSql = new Map<string, string>();
function accessColumnSql(from: number, targetColumns?: [string, string]): string {
  const cacheKey = `${from} ${targetColumns?.join(' ') ?? ''}`;
  let sql = accessSql.get(cacheKey);
  if (sql === undefined) {
    const p = (i: number) => `$${from + i}`;
    const caller = [0, 1, 2, 3].map((i) => `${p(i)}::text`);
    // a place named by the request: the roles found there before ride along with their version (migration 34)
    sql = targetColumns
      ? `api_check(${[...caller, ...targetColumns].join(', ')}) AS access`
      : `api_check_known(${[...caller, `${p(4)}::text`, `${p(5)}::text`, `${p(6)}::bigint`].join(', ')}) AS access`;
    accessSql.set(cacheKey, sql);
  }
  return sql;
}

/**
 * The roles a sign-in was found to hold at a place, with the rights version they were found at
 * (migration 34): sent back with the next check there, which answers '=' while no role, membership,
 * group or company has changed since. Only what was found is remembered, never a refusal; bounded.
 */
const heldAt = new Map<string, { version: string; held: string[] }>();
const HELD_ENTRIES = 10_000;

export function accessColumns(principal: Principal, companyId: string | undefined, domainId: string | undefined, from: number, permission: string, targetColumns?: [string, string]) {
  const placeKey = targetColumns ? undefined : `${principal.grantId} ${principal.companyId} ${principal.domainId} ${principal.userId} ${companyId ?? ''} ${domainId ?? ''}`;
  const known = placeKey === undefined ? undefined : heldAt.get(placeKey);
  return {
    sql: accessColumnSql(from, targetColumns),
    params: [principal.grantId, principal.companyId, principal.domainId, principal.userId, ...(targetColumns ? [] : [companyId ?? null, domainId ?? null, known?.version ?? '-1'])],
    /** Throws the guard's 401, 404 or 403 unless the row passes; the roles held there. */
    assert(row: { access?: string[] }): string[] {
      const [status, ...answer] = row.access ?? [];
      if (status === 'company') throw notFound(`company ${companyId}`);
      if (status === 'domain') throw notFound(`domain ${domainId}`);
      if (status !== 'ok') throw unauthorized('The access token has been revoked');
      let held = answer;
      if (answer[0] === '=' && known) held = known.held;
      else if (answer[0]?.startsWith('v:')) {
        held = answer.slice(1);
        if (placeKey !== undefined && held.length > 0) {
          if (heldAt.size >= HELD_ENTRIES) heldAt.clear();
          heldAt.set(placeKey, { version: answer[0].slice(2), held });
        }
      }
      if (permission !== 'any' && !heldGrants(held, permission)) throw missing(permission);
      return held;
    },
  };
}

export type AccessCheck = ReturnType<typeof accessColumns> & { done(): void };

/** The one statement behind the guard; also used by routes whose company comes from the body or the record. The roles held there. */
export async function checkAccess(db: Queryable, principal: Principal, companyId: string | undefined, domainId: string | undefined, permission: string): Promise<string[]> {
  const access = accessColumns(principal, companyId, domainId, 1, permission);
  const { rows } = await db.query<{ access: string[] }>(`SELECT ${access.sql}`, access.params);
  return access.assert(rows[0]);
}

/**
 * For a route marked `config: { accessInStatement: true }`: the guard's check, to run inside the
 * route's statement (a list's count, which runList runs before the page; a GET's read of its
 * record). Undefined when the guard has already checked.
 */
export function statementAccess(request: FastifyRequest): ((from: number) => AccessCheck) | undefined {
  if (request.accessChecked) return undefined;
  const params = { ...((request.params ?? {}) as { companyId?: string; domainId?: string }) };
  // a list of the caller's whole subtree is checked at her own company
  if (!params.companyId && request.routeOptions.config.locate?.(request) === 'own company') params.companyId = request.principal.companyId;
  return (from) => ({ ...accessColumns(request.principal, params.companyId, params.domainId, from, routePermission(request)), done: () => (request.accessChecked = true) });
}


/**
 * The locate of routes over `table` whose records are named by the path's `idParam` or, for a PUT
 * or DELETE of a list, by the body's ids. A list (GET) of the whole subtree is checked at the
 * caller's own company; a create (POST) checks the company and domain its body names itself.
 */
export function locateRecords(table: 'applications' | 'apis', idParam: string): Locate {
  return (request) => {
    const { method } = request;
    const named = (request.params as Record<string, string | undefined>)[idParam];
    if (named !== undefined) return { table, ids: [named] };
    if ((method === 'PUT' || method === 'DELETE') && Array.isArray(request.body)) {
      const ids = (request.body as unknown[]).map((item) => (typeof item === 'string' ? item : (item as { id?: unknown } | null)?.id)).filter((id): id is string => typeof id === 'string');
      return { table, ids };
    }
    return method === 'POST' ? 'anywhere' : 'own company';
  };
}

/**
 * The guard's check where the named records are, in one statement: each distinct company and
 * domain of those inside the caller's subtree; the roles held there. Undefined when none is there: the caller's roles are
 * then checked anywhere and the route answers its own 404 (another tenant's record is not found,
 * never named).
 */
async function checkRecords(db: Queryable, principal: Principal, located: { table: string; ids: string[] }, permission: string): Promise<string[] | undefined> {
  const access = accessColumns(principal, undefined, undefined, 3, permission, ['w.company_id', 'w.domain_id']);
  const { rows } = await db.query<{ access: string[] }>(
    `SELECT ${access.sql} FROM (SELECT DISTINCT t.company_id, t.domain_id FROM ${located.table} t WHERE t.id = ANY ($1::text[]) AND ${inScope('t.company_id', '$2')}) w`,
    [located.ids, principal.companyId, ...access.params],
  );
  const held = rows.flatMap((row) => access.assert(row));
  return rows.length > 0 ? held : undefined;
}

/** SQL predicate: the company column is inside the caller's subtree. */
export function inScope(companyColumn: string, param: string) {
  return `EXISTS (SELECT 1 FROM companies sc WHERE sc.id = ${companyColumn} AND ${param} = ANY (sc.ancestors))`;
}
