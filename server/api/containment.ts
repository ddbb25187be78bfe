import type { FastifyRequest } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { forbidden } from '../errors.js';
import { heldGrants, permissionsOf, ROLES, rolesSentence } from './roles.js';

/**
 * The containment rule (docs/CONSOLE.md, "Roles"): a caller acts on a principal (sets its password,
 * address, factors, required actions, status, sessions; adds it to or removes it from a group;
 * gives it or takes from it a role) only where she holds, over every company and domain the
 * principal holds a role over, every permission that role gives. A membership of a group that gives
 * a role (the administrators group, a group holding an assignment, or one inside either) is itself a
 * role assignment: it needs `roles:write` there too. Written once, here; routes declare what they
 * act on (`config.acts`) and the guard calls it, and the role assignments' rules call it directly.
 */

export type PrincipalType = 'user' | 'group';

/** The principals of one domain a request acts on. */
export interface ActsOn {
  companyId: string;
  domainId: string;
  /** Users and groups by id; a bare id (type undefined) is checked as both. */
  principals: { type?: PrincipalType; id: string }[];
  /** The group whose members change: when it gives roles, the change is a role assignment. */
  membershipOf?: string;
}

/** Roles given outright (a role assignment): the caller must hold all of each one where it is given. */
export interface Gives {
  role: string;
  companyId: string;
  domainId: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A write that reaches users or groups: which ones (checked by the guard, containment.ts), or
     * `nobody` (a create: a new principal holds nothing). Every non-GET route of a domain's users or
     * groups declares it; the guard refuses to start otherwise.
     */
    acts?: ((request: FastifyRequest) => ActsOn) | 'nobody';
  }
}

/** What each role gives, computed once. */
const ROLE_PERMISSIONS = new Map(ROLES.map((role) => [role.id, permissionsOf([role.id])]));
const roleName = (roleId: string) => ROLES.find((role) => role.id === roleId)?.name ?? roleId;
const where = (companyId: string, domainId: string | null) => (domainId ? `domain ${companyId}/${domainId}` : `company ${companyId} and the companies below it`);

/** Does what the caller holds at a place (held_roles' answer there) give everything the role gives? */
const covers = (held: readonly string[], roleId: string) => (ROLE_PERMISSIONS.get(roleId) ?? ['*']).every((permission) => heldGrants(held, permission));

/**
 * One statement: every role each principal holds (directly, through its groups and nested groups,
 * deleted groups included since recovering one gives them back; principal_roles, migration 31) and
 * the roles the caller holds at each of those places (held_roles, the guard's own walk), with the
 * roles given outright and the roles the membership's group gives.
 */
const CONTAINMENT = `
  WITH targets AS (
    SELECT t.type, t.id, r.role, r.scope_company, r.scope_domain
    FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) AS t(company_id, domain_id, type, id)
    CROSS JOIN LATERAL principal_roles(t.company_id, t.domain_id, t.type, t.id) r
    UNION ALL
    SELECT 'give', '', g.role, g.scope_company, g.scope_domain FROM unnest($8::text[], $9::text[], $10::text[]) AS g(role, scope_company, scope_domain)
  ),
  places AS (SELECT DISTINCT scope_company, scope_domain FROM targets)
  SELECT t.type, t.id, t.role, t.scope_company AS "scopeCompany", t.scope_domain AS "scopeDomain", p.held
  FROM targets t
  JOIN (SELECT scope_company, scope_domain, held_roles($1, $2, $3, scope_company, scope_domain) AS held FROM places) p
    ON p.scope_company = t.scope_company AND p.scope_domain IS NOT DISTINCT FROM t.scope_domain`;

/** What the membership's group gives, and whether the caller holds roles:write where the group is. */
const MEMBERSHIP = `SELECT EXISTS (SELECT 1 FROM principal_roles($4, $5, 'group', $6)) AS "givesRoles", held_roles($1, $2, $3, $4, $5) AS held`;

/**
 * Refuses (403, naming the principal, the role and where) unless the caller contains every
 * principal acted on and holds every role given; a membership change of a role-giving group needs
 * `roles:write` over its domain. Runs only on writes to principals: a principal holding no role
 * costs one walk of its groups.
 */
export async function assertContains(db: Queryable, caller: Principal, acts: ActsOn | undefined, gives: Gives[] = []): Promise<void> {
  const principals: { type: PrincipalType; id: string }[] = acts?.principals.flatMap((p) => (p.type ? [{ type: p.type, id: p.id }] : [{ id: p.id, type: 'user' as const }, { id: p.id, type: 'group' as const }])) ?? [];
  if (acts?.membershipOf) principals.push({ type: 'group', id: acts.membershipOf });
  if (principals.length === 0 && gives.length === 0) return;
  const callerParams = [caller.companyId, caller.domainId, caller.userId];

  if (acts?.membershipOf) {
    const { rows } = await db.query<{ givesRoles: boolean; held: string[] }>(MEMBERSHIP, [...callerParams, acts.companyId, acts.domainId, acts.membershipOf]);
    if (rows[0]?.givesRoles && !heldGrants(rows[0].held, 'roles:write')) {
      throw forbidden(`Group ${acts.membershipOf} gives a role to its members: changing its members is giving or taking a role, which needs roles:write (${rolesSentence('roles:write')}).`).as(
        'containment.roleGroup',
        { group: acts.membershipOf },
      );
    }
  }

  await assertContainsAll(
    db,
    caller,
    principals.map((p) => ({ companyId: acts!.companyId, domainId: acts!.domainId, type: p.type, id: p.id })),
    gives,
  );
}

/** The check itself, over principals of any domains. */
async function assertContainsAll(db: Queryable, caller: Principal, principals: { companyId: string; domainId: string; type: PrincipalType; id: string }[], gives: Gives[] = []): Promise<void> {
  if (principals.length === 0 && gives.length === 0) return;
  const { rows } = await db.query<{ type: string; id: string; role: string; scopeCompany: string; scopeDomain: string | null; held: string[] }>(CONTAINMENT, [
    caller.companyId,
    caller.domainId,
    caller.userId,
    principals.map((p) => p.companyId),
    principals.map((p) => p.domainId),
    principals.map((p) => p.type),
    principals.map((p) => p.id),
    gives.map((g) => g.role),
    gives.map((g) => g.companyId),
    gives.map((g) => g.domainId),
  ]);
  const beyond = rows.find((row) => !covers(row.held, row.role));
  if (!beyond) return;
  const place = where(beyond.scopeCompany, beyond.scopeDomain);
  // the params of its code: the company, or company/domain
  const at = beyond.scopeDomain ? `${beyond.scopeCompany}/${beyond.scopeDomain}` : beyond.scopeCompany;
  if (beyond.type === 'give') {
    throw forbidden(`You cannot give the ${roleName(beyond.role)} role over ${place}: your roles there do not give all it gives.`).as('containment.give', { role: roleName(beyond.role), place: at });
  }
  throw forbidden(
    `You cannot act on ${beyond.type} ${beyond.id}: it holds the ${roleName(beyond.role)} role over ${place}, and your roles there do not give all of it. Nobody acts on more than they hold.`,
  ).as('containment.higher', { id: beyond.id, role: roleName(beyond.role), place: at });
}

/** Does the caller hold, where each role would be given, everything it gives? The check of a role given, asked ahead. */
export async function mayGive(db: Queryable, caller: Principal, gives: Gives[]): Promise<boolean> {
  try {
    await assertContainsAll(db, caller, [], gives);
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 403) return false;
    throw error;
  }
}

/** The check for a route that declares what it acts on (the guard's preHandler). */
export async function checkDeclaredContainment(db: Queryable, request: FastifyRequest): Promise<void> {
  const { acts } = request.routeOptions.config;
  if (typeof acts !== 'function') return;
  await assertContains(db, request.principal, acts(request));
}

type DomainParams = { companyId: string; domainId: string };

/** `acts` of a route that names one user or group in its path. */
export const actsOnParam =
  (type: PrincipalType, param: string) =>
  (request: FastifyRequest): ActsOn => {
    const params = request.params as DomainParams & Record<string, string>;
    return { companyId: params.companyId, domainId: params.domainId, principals: [{ type, id: params[param] }] };
  };

/** `acts` of a route whose body lists principals: ids, `{ id }` objects, or `{ ids: [...] }`. */
export const actsOnBody =
  (type: PrincipalType) =>
  (request: FastifyRequest): ActsOn => {
    const params = request.params as DomainParams;
    const body = request.body as unknown;
    const items = Array.isArray(body) ? body : Array.isArray((body as { ids?: unknown })?.ids) ? (body as { ids: unknown[] }).ids : [];
    const ids = items.map((item) => (typeof item === 'string' ? item : (item as { id?: unknown } | null)?.id)).filter((id): id is string => typeof id === 'string');
    return { companyId: params.companyId, domainId: params.domainId, principals: ids.map((id) => ({ type, id })) };
  };

/** What the console greys out, and why (GET …/users/{id}/rights, …/groups/{id}/rights): the same rule, asked ahead. */
export async function rightsOver(db: Queryable, caller: Principal, at: { companyId: string; domainId: string }, type: PrincipalType, id: string) {
  const refusal = async (acts: ActsOn) => {
    try {
      await assertContains(db, caller, acts);
      return null;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 403) return (error as Error).message;
      throw error;
    }
  };
  const actOn = await refusal({ ...at, principals: [{ type, id }] });
  const rights: { mayActOn: boolean; reason: string | null; membership?: { givesRoles: boolean; allowed: boolean; reason: string | null } } = { mayActOn: actOn === null, reason: actOn };
  if (type === 'group') {
    const { rows } = await db.query<{ givesRoles: boolean }>(`SELECT EXISTS (SELECT 1 FROM principal_roles($1, $2, 'group', $3)) AS "givesRoles"`, [at.companyId, at.domainId, id]);
    const membership = await refusal({ ...at, principals: [], membershipOf: id });
    rights.membership = { givesRoles: rows[0].givesRoles, allowed: membership === null, reason: membership };
  }
  return rights;
}

/**
 * Deleting domains (of one company) or whole companies deletes the people in them: the caller must
 * contain every principal there that holds a role (its assignments' holders, and each domain's
 * administrators group), as if she deleted each one.
 */
export async function assertContainsHoldersIn(db: Queryable, caller: Principal, place: { companyId: string; domainIds: string[] } | { companyIds: string[] }): Promise<void> {
  const domains =
    'domainIds' in place
      ? `SELECT company_id, id FROM domains WHERE company_id = $1 AND id = ANY ($2::text[])`
      : `SELECT d.company_id, d.id FROM domains d JOIN companies c ON c.id = d.company_id WHERE c.ancestors && $1::text[]`;
  const params = 'domainIds' in place ? [place.companyId, place.domainIds] : [place.companyIds];
  const { rows } = await db.query<{ companyId: string; domainId: string; type: PrincipalType; id: string }>(
    `WITH doomed(company_id, domain_id) AS (${domains})
     SELECT DISTINCT a.company_id AS "companyId", a.domain_id AS "domainId", a.holder_type AS type, a.holder_id AS id
       FROM role_assignments a JOIN doomed d ON d.company_id = a.company_id AND d.domain_id = a.domain_id
     UNION
     SELECT g.company_id, g.domain_id, 'group', g.id FROM groups g JOIN doomed d ON d.company_id = g.company_id AND d.domain_id = g.domain_id
      WHERE g.id = 'administrators'`,
    params,
  );
  await assertContainsAll(db, caller, rows);
}
