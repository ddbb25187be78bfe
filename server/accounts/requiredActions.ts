import type { Queryable } from '../db/index.js';

/**
 * What may be required of a person at her next sign-in (migration 21's check; docs/CONSOLE.md,
 * "Account states"), set by an administrator and done by the person at the sign-in's steps
 * (server/oauth/signInSteps.ts): one place writes them.
 */
export const REQUIRED_ACTIONS = ['change-password', 'verify-email', 'enrol-mfa'] as const;
export type RequiredAction = (typeof REQUIRED_ACTIONS)[number];

interface AccountRef {
  companyId: string;
  domainId: string;
  userId: string;
}

/** Sets what she must do, in the order the steps ask them. */
export async function setRequiredActions(db: Queryable, at: AccountRef, actions: readonly string[]): Promise<void> {
  await db.query(`UPDATE users SET required_actions = $4::text[], updated_at = now() WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [
    at.companyId,
    at.domainId,
    at.userId,
    REQUIRED_ACTIONS.filter((name) => actions.includes(name)),
  ]);
}

/** One of them is done (she did it at a sign-in step). */
export async function requiredActionDone(db: Queryable, at: AccountRef, action: RequiredAction): Promise<void> {
  await db.query(`UPDATE users SET required_actions = array_remove(required_actions, $4) WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [at.companyId, at.domainId, at.userId, action]);
}
