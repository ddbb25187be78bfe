import type { FastifyInstance } from 'fastify';
import { type Queryable, transactionSettings } from '../db/index.js';

/**
 * The audit trail's write side (docs/CONSOLE.md, "History and audit log"). Every management API
 * request runs in an async context whose transactions begin by naming the caller (iam.actor); the
 * triggers of migration 15 then record each change of a company, domain, user, group, application
 * or API in the transaction that makes it. A route adds a record of its own only for a change
 * outside those tables (recordAudit: a session revoked).
 */

/** Who is acting, as the triggers read it. */
export interface AuditActor {
  userId: string;
  companyId: string;
  domainId: string;
  clientId: string;
  ip: string;
}

/**
 * The caller as a transaction setting: written out only if the request begins a transaction (a read
 * begins none), with the roles the guard found once it has checked.
 */
class ActorSetting {
  roles?: string;
  constructor(private readonly actor: AuditActor) {}
  toString() {
    return JSON.stringify(this.roles === undefined ? this.actor : { ...this.actor, roles: this.roles });
  }
}

/** Opens each /api request's context once the guard has read the caller from the access token. */
export function registerAuditActor(api: FastifyInstance) {
  api.addHook('onRequest', (request, _reply, done) => {
    const principal = request.principal;
    if (!principal) return done();
    const actor = new ActorSetting({ userId: principal.userId, companyId: principal.companyId, domainId: principal.domainId, clientId: principal.clientId, ip: request.ip });
    // the rest of the request (hooks, handler, its transactions) runs inside this context
    transactionSettings.run(new Map([['iam.actor', actor]]), done);
  });
}

/**
 * The roles the caller acts under for this request, as the guard found them where it names: each
 * audit record of the request says so (who did what under which role).
 */
export function noteActorRoles(held: readonly string[]): void {
  const actor = transactionSettings.getStore()?.get('iam.actor');
  if (!(actor instanceof ActorSetting)) return;
  actor.roles = [...new Set(held.map((role) => role.replace(/@$/, '')))].sort().join(' ');
}

/** One change, as a record of the audit trail. */
export interface AuditEntry {
  companyId: string;
  domainId: string | null;
  resourceType: string;
  resourceId: string;
  action: string;
  /** field -> { before, after } */
  changes: Record<string, unknown>;
}

/** Records a change the triggers do not see, in the caller's transaction (nothing outside a request of the API). */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await tx.query('SELECT audit_record($1, $2, $3, $4, $5, $6::jsonb)', [
    entry.companyId,
    entry.domainId,
    entry.resourceType,
    entry.resourceId,
    entry.action,
    JSON.stringify(entry.changes),
  ]);
}

/**
 * Records what a person did to her own account outside the management API (a reset or an invitation
 * link followed, an address verified, a password changed at sign-in) as her own action: the actor is
 * herself, through `via` (no application of hers: a name for the page), from `ip`. Call it after the
 * write, whose users trigger saw no actor (these pages run outside any /api request): this is then
 * the one record, named. Never put a secret in `changes` (a hash only says { hidden: true }).
 */
export async function recordOwnAction(tx: Queryable, person: { companyId: string; domainId: string; userId: string }, via: { clientId: string; ip: string }, action: string, changes: Record<string, unknown>): Promise<void> {
  const actor: AuditActor = { userId: person.userId, companyId: person.companyId, domainId: person.domainId, clientId: via.clientId, ip: via.ip };
  // transaction-local, as the management API's own (db/index.ts): it ends with the caller's transaction
  await tx.query(`SELECT set_config('iam.actor', $1, true)`, [JSON.stringify(actor)]);
  await recordAudit(tx, { companyId: person.companyId, domainId: person.domainId, resourceType: 'users', resourceId: person.userId, action, changes });
}
