import { isCaller, type Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest } from '../errors.js';
import { bcryptCost, MAX_BCRYPT_COST, MIN_BCRYPT_COST } from '../passwords.js';
import { userAccountKey } from './accounts.js';

/**
 * A person's password, one way for every door (docs/CONSOLE.md, "A user's sign-in state"): the
 * management API (an administrator's new password, a user's PUT), a reset or invitation link, and
 * her own change at a sign-in step all set it through setPassword, and its consequences are the
 * same: every sign-in made with the old password ends, any sign-in half way through its steps ends,
 * the throttle's lock ends.
 */

export interface AccountRef {
  companyId: string;
  domainId: string;
  userId: string;
}

/** The account's counters of the sign-in throttle (server/oauth/loginThrottle.ts): failures and sign-ins. */
export const ACCOUNT_COUNTERS = ['failed-account', 'signed-in-account'];

/** Clears the account's counters: the person may sign in again at once. */
export async function clearSignInCounters(db: Queryable, at: AccountRef): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`DELETE FROM login_attempts WHERE kind = ANY ($1::text[]) AND key = $2 RETURNING n`, [ACCOUNT_COUNTERS, userAccountKey(at, at.userId)]);
  return rows.length;
}

/**
 * What the console sends: bcrypt, cost 10 to 14. Plain text never reaches the database; a higher
 * cost would let one administrator's users hold the server's password threads (passwords.ts).
 */
export function checkPasswordHash(hash: string) {
  const cost = bcryptCost(hash) ?? 0;
  if (!(cost >= MIN_BCRYPT_COST && cost <= MAX_BCRYPT_COST)) {
    throw badRequest(`authVerification must be a bcrypt hash of cost ${MIN_BCRYPT_COST} to ${MAX_BCRYPT_COST} (the console hashes passwords before sending them)`).as('password.hashCost', {
      min: MIN_BCRYPT_COST,
      max: MAX_BCRYPT_COST,
    });
  }
}

/**
 * What a new password ends, however it was set: every sign-in made with the old one (someone else
 * may have known it), but the session she set it from herself (a console caller changing her own;
 * `keepGrant`), every sign-in half way through its steps but the one she is answering (`keepStep`),
 * and the throttle's lock (the old password's failures say nothing of the new one).
 */
export async function endSignInsAfterNewPassword(db: Queryable, at: AccountRef, keep: { caller?: Principal; keepStep?: string } = {}): Promise<void> {
  const params = [at.companyId, at.domainId, at.userId];
  const keepGrant = keep.caller && isCaller(keep.caller, at, at.userId) ? keep.caller.grantId : null;
  await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND revoked_at IS NULL AND id IS DISTINCT FROM $4`, [...params, keepGrant]);
  await db.query(`DELETE FROM sign_in_steps WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND id IS DISTINCT FROM $4`, [...params, keep.keepStep ?? null]);
  await clearSignInCounters(db, at);
}

export interface NewPassword {
  /** bcrypt hash (checked for its cost when it comes from the API). */
  hash: string;
  /** Ask her for another one at her next sign-in (an administrator's temporary password). */
  requireChange?: boolean;
  /** The link that carried it reached her address (an invitation): it is verified. */
  provesEmail?: boolean;
  /** Who set it: a console caller (her own session stays when it is her own password). */
  caller?: Principal;
  /** The sign-in whose step she set it at (it goes on). */
  keepStep?: string;
}

/** Sets the password and ends what the old one opened; the account's required actions and verification after. */
export async function setPassword(db: Queryable, at: AccountRef, password: NewPassword): Promise<{ requiredActions: string[]; emailVerified: boolean } | undefined> {
  const { rows } = await db.query<{ requiredActions: string[]; emailVerified: boolean }>(
    `UPDATE users SET password_hash = $4, updated_at = now(),
       -- (array_remove of NULL removes nothing: no action is NULL)
       required_actions = array_remove(CASE WHEN $5 THEN array_append(array_remove(required_actions, 'change-password'), 'change-password')
                                            ELSE array_remove(required_actions, 'change-password') END,
                                       CASE WHEN $6 THEN 'verify-email' END),
       email_verified = email_verified OR $6
     WHERE company_id = $1 AND domain_id = $2 AND id = $3
     RETURNING required_actions AS "requiredActions", email_verified AS "emailVerified"`,
    [at.companyId, at.domainId, at.userId, password.hash, password.requireChange === true, password.provesEmail === true],
  );
  if (!rows[0]) return undefined;
  await endSignInsAfterNewPassword(db, at, { caller: password.caller, keepStep: password.keepStep });
  return rows[0];
}
