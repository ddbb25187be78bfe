import fs from 'node:fs';
import type { Queryable } from './db/index.js';

/**
 * A domain's security policy (docs/CONSOLE.md, "Domain security policy"): how long a password must
 * be and whether common ones are refused, whether a second factor is asked for, the sign-in
 * throttle's limits per account, and whether people may create their own accounts. Kept in
 * domain_policies (migration 24); a domain without a row has DEFAULT_POLICY.
 */
export type MfaPolicy = 'off' | 'optional' | 'required' | 'required-admins';
export const MFA_POLICIES: readonly MfaPolicy[] = ['off', 'optional', 'required', 'required-admins'];

export interface DomainPolicy {
  /** Characters (Unicode code points), 8 to 128. */
  minPasswordLength: number;
  /** Refuse the 10,000 most common passwords (server/lists/common-passwords.txt), case-insensitively. */
  refuseCommonPasswords: boolean;
  /** 'required-admins': required of those who hold a role in the console (docs/CONSOLE.md). */
  mfa: MfaPolicy;
  /**
   * Failed sign-ins an account accepts per window before it is locked until the window ends; null:
   * the server's setting (LOGIN_MAX_FAILURES_PER_ACCOUNT, 100 by default).
   */
  failuresPerAccount: number | null;
  /** The window of those failures in seconds; null: the server's setting (LOGIN_FAILURE_WINDOW_SECONDS, 3600 by default). */
  failureWindowSeconds: number | null;
  /** People may create their own account on the hosted sign-up page. */
  selfSignUp: boolean;
}

export const DEFAULT_POLICY: Readonly<DomainPolicy> = Object.freeze({
  minPasswordLength: 12,
  refuseCommonPasswords: true,
  mfa: 'optional',
  failuresPerAccount: null,
  failureWindowSeconds: null,
  selfSignUp: false,
});

/** The bounds of each number (the API's schema and the table's checks say the same). */
export const POLICY_BOUNDS = {
  minPasswordLength: { minimum: 8, maximum: 128 },
  failuresPerAccount: { minimum: 3, maximum: 10_000 },
  failureWindowSeconds: { minimum: 60, maximum: 7 * 24 * 3600 },
} as const;

export const POLICY_COLUMNS = `min_password_length AS "minPasswordLength", refuse_common_passwords AS "refuseCommonPasswords", mfa,
  failures_per_account AS "failuresPerAccount", failure_window_seconds AS "failureWindowSeconds", self_sign_up AS "selfSignUp"`;

/**
 * The domain's policy. One small read by primary key; through db.stable where the caller has it
 * (the embedded database answers a repeat from memory until its next write), so a sign-in pays at
 * most one cheap query for it.
 */
export async function policyOf(db: Queryable & { stable?: Queryable }, tenant: { companyId: string; domainId: string }): Promise<DomainPolicy> {
  const { rows } = await (db.stable ?? db).query<DomainPolicy>(`SELECT ${POLICY_COLUMNS} FROM domain_policies WHERE company_id = $1 AND domain_id = $2`, [
    tenant.companyId,
    tenant.domainId,
  ]);
  return rows[0] ? { ...rows[0] } : { ...DEFAULT_POLICY };
}

let common: Set<string> | undefined;

/** The refusal list, read once from the file shipped in the repository. */
export function commonPasswords(): Set<string> {
  if (!common) {
    const text = fs.readFileSync(new URL('./lists/common-passwords.txt', import.meta.url), 'utf8');
    common = new Set(
      text
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
        .map((line) => line.toLowerCase()),
    );
  }
  return common;
}

/**
 * Why the policy refuses this password, as a sentence to show the person, or undefined when it
 * is acceptable. The console says the same words (src/resources/users/passwordPolicy.ts).
 */
export function passwordProblem(policy: Pick<DomainPolicy, 'minPasswordLength' | 'refuseCommonPasswords'>, password: string): string | undefined {
  if ([...password].length < policy.minPasswordLength) return `Use at least ${policy.minPasswordLength} characters.`;
  if (policy.refuseCommonPasswords && commonPasswords().has(password.toLowerCase())) {
    return 'This password is among the most common ones: choose another.';
  }
  return undefined;
}

/**
 * The sign-in throttle's limits of the domain's accounts: the policy's where it sets them, else the
 * server's (loginThrottle.ts; the user's sign-in state reads the same).
 */
export async function accountLimitsOf(
  db: Queryable & { stable?: Queryable },
  tenant: { companyId: string; domainId: string },
  server: { failuresPerAccount: number; failureWindowSeconds: number },
): Promise<{ failuresPerAccount: number; failureWindowSeconds: number }> {
  const policy = await policyOf(db, tenant);
  return {
    failuresPerAccount: policy.failuresPerAccount ?? server.failuresPerAccount,
    failureWindowSeconds: policy.failureWindowSeconds ?? server.failureWindowSeconds,
  };
}
