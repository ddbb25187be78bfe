import { DEFAULT_LOGIN_LIMITS, type LoginLimits } from '../config.js';
import { FACTOR_GUESSES_PER_HOUR, LOCKING_FAILED_SIGN_INS } from '../accounts/factors.js';
import type { NamedFilter } from './list.js';

/**
 * Fields and filters of the lists that people ask about (docs/CONSOLE.md, "Fields, filters and CSV
 * export of the lists"). Each filter and sort offered here is served by an index of migration 25
 * (docs/PERFORMANCE.md, "Filters and sorts of the users list"); the others are shown only
 * (`listed: false`), and a list asked to filter or sort by them answers 400 naming them.
 */

/**
 * When and by whom a soft-deleted record was deleted: the audit trail's last `delete` record of it
 * (one probe of audit_events_resource per row of the page, and only for deleted rows). Read rather
 * than stored: no column to keep on four tables, no write of the delete made any heavier, and
 * records deleted before this release are answered too. An operator of another company is named by
 * that company, as the audit log names it (server/api/auditEvents.ts).
 */
export function deletedFields(resourceType: 'users' | 'groups' | 'applications' | 'apis') {
  const last = (what: string) => `CASE WHEN t.status = 'deleted' THEN (
    SELECT ${what} FROM audit_events a
    LEFT JOIN users au ON au.company_id = a.actor_company_id AND au.domain_id = a.actor_domain_id AND au.id = a.actor_user_id
    LEFT JOIN companies ac ON ac.id = a.actor_company_id
    WHERE a.company_id = t.company_id AND a.resource_id = t.id AND a.resource_type = '${resourceType}'
      AND a.domain_id = t.domain_id AND a.action = 'delete'
    ORDER BY a.occurred_at DESC, a.id DESC LIMIT 1) END`;
  return {
    deletedAt: { column: last('a.occurred_at'), type: 'nullableText', listed: false, deletedOnly: true },
    deletedBy: {
      column: last(`CASE WHEN a.actor_company_id = t.company_id THEN coalesce(au.display_name, a.actor_user_id, a.actor_client_id)
        ELSE coalesce(ac.display_name, a.actor_company_id) END`),
      type: 'nullableText',
      listed: false,
      deletedOnly: true,
    },
  } as const;
}

/** Never signed in sorts as the oldest sign-in: the expression of the users_live_by_last_sign_in index. */
const LAST_SIGN_IN = `coalesce(t.last_sign_in_at, '-infinity'::timestamptz)`;
const DIRECT_MEMBERSHIP = `SELECT 1 FROM group_members gm WHERE gm.company_id = t.company_id AND gm.domain_id = t.domain_id AND gm.member_type = 'user' AND gm.member_id = t.id`;

export const userListFields = {
  createdAt: { column: 't.created_at', time: true },
  updatedAt: { column: 't.updated_at', listed: false },
  lastSignInAt: { column: 't.last_sign_in_at', type: 'nullableText', listColumn: LAST_SIGN_IN, time: true },
  // the groups she is a direct member of (group_members_by_member)
  groupCount: { column: `(SELECT count(*)::int FROM group_members gm WHERE gm.company_id = t.company_id AND gm.domain_id = t.domain_id AND gm.member_type = 'user' AND gm.member_id = t.id)`, type: 'integer', listed: false },
  ...deletedFields('users'),
} as const;

const flag = (yes: string, no: string): NamedFilter => ({ type: 'boolean', sql: (value: boolean) => (value ? yes : no) });

export const userFilters: Record<string, NamedFilter> = {
  // users_live_never_signed_in; the signed-in ones: a range of users_live_by_last_sign_in
  neverSignedIn: flag('t.last_sign_in_at IS NULL', `${LAST_SIGN_IN} > '-infinity'::timestamptz`),
  // group_members_by_member, one probe per user
  inNoGroup: flag(`NOT EXISTS (${DIRECT_MEMBERSHIP})`, `EXISTS (${DIRECT_MEMBERSHIP})`),
  // direct members only: the group's primary key
  memberOf: {
    type: 'text',
    sql: (groupId: string, bind) =>
      `EXISTS (SELECT 1 FROM group_members gm WHERE gm.company_id = t.company_id AND gm.domain_id = t.domain_id AND gm.group_id = ${bind(groupId)} AND gm.member_type = 'user' AND gm.member_id = t.id)`,
    // a group of 1% and one of a third want different plans (list.ts customPlans)
    planPerValue: true,
    // counted from the group's members (its primary key), each looked up among the users
    countFrom: (groupId) => ({ from: 'group_members m', where: `m.group_id = ${groupId} AND m.member_type = 'user'`, key: ['m.company_id', 'm.domain_id', 'm.member_id'] }),
    // in name order (either way): the group's members by their name (group_members_by_name,
    // migration 30), each looked up among the users by its key: a group of 1% walked 150 users
    // of the name order per member
    orderedFrom: (groupId) => ({
      from: 'group_members m',
      where: `m.group_id = ${groupId} AND m.member_type = 'user'`,
      key: ['m.company_id', 'm.domain_id', 'm.member_id'],
      sort: { column: 't.display_name', as: 'm.member_name' },
    }),
  },
  // the expression of users_live_by_email_domain: the part after the last @, lower-cased
  emailDomain: { type: 'text', sql: (domain: string, bind) => `lower(split_part(t.email, '@', -1)) = lower(${bind(domain.trim().replace(/^@/, ''))})` },
  // users_blocked (partial: few are); the others walk the list's own index
  blocked: flag('t.blocked_at IS NOT NULL', 't.blocked_at IS NULL'),
  // users_live_verified and users_live_unverified (partial, complementary: one index's size in all)
  emailVerified: flag('t.email_verified', 'NOT t.email_verified'),
  // the throttle's lock or the second-factor lock, as …/signInState tells them (accountState.ts):
  // the few locked accounts read once, each user looked up among them (lockedSql)
  locked: { type: 'boolean', sql: (value: boolean) => (value ? lockedSql() : `NOT ${lockedSql()}`) },
};

/**
 * The server's own sign-in limits (LOGIN_MAX_FAILURES_PER_ACCOUNT, LOGIN_MAX_SUCCESSES_PER_ACCOUNT),
 * told by the account-state routes when the API is built (one program, one configuration; a domain's
 * security policy may set its own failure limit, read in the statement).
 */
let lockLimits: Pick<LoginLimits, 'failuresPerAccount' | 'successesPerAccount'> = DEFAULT_LOGIN_LIMITS;
export function setLockLimits(limits: Pick<LoginLimits, 'failuresPerAccount' | 'successesPerAccount'>): void {
  lockLimits = { failuresPerAccount: limits.failuresPerAccount, successesPerAccount: limits.successesPerAccount };
}

/** The throttle's key of the row's account (accounts.ts userAccountKey). */
const ACCOUNT_KEY = `'user:' || t.company_id || '/' || t.domain_id || '/' || t.id`;

/**
 * Is the row's account locked now? The same rules as signInState (accountState.ts) and the sign-in
 * itself: more failed sign-ins than the domain's (else the server's) limit, or more sign-ins than
 * the server's, in the counters' live windows (loginThrottle.ts); or her second factors locked
 * (factors.ts factorsLockedUntil): FACTOR_GUESSES_PER_HOUR wrong answers in the counter's hour, or
 * LOCKING_FAILED_SIGN_INS failed second-factor sign-ins in the last hour since her last Unlock or
 * reset of her factors. Limits are integers from the configuration, never from a request.
 *
 * Cheap because few accounts are locked: each side is a subquery that names no row of the list, read
 * once per statement into a hash (the live counters of accounts past a limit, and the accounts with
 * failed second-factor sign-ins in the last hour: signin_events_outcome), which each user of the list
 * is looked up in; not a probe of two indexes per user.
 */
function lockedSql(): string {
  const failures = Math.trunc(lockLimits.failuresPerAccount);
  const signIns = Math.trunc(lockLimits.successesPerAccount);
  const keyPart = (n: number) => `split_part(substr(a.key, 6), '/', ${n})`;
  return `(${ACCOUNT_KEY} IN (SELECT a.key FROM login_attempts a
      LEFT JOIN domain_policies p ON a.kind = 'failed-account' AND p.company_id = ${keyPart(1)} AND p.domain_id = ${keyPart(2)}
      WHERE a.kind IN ('failed-account', 'signed-in-account', 'failed-factor') AND a.key LIKE 'user:%' AND a.expires_at > now()
        AND CASE a.kind
              WHEN 'failed-account' THEN a.n > coalesce(p.failures_per_account, ${failures})
              WHEN 'signed-in-account' THEN a.n > ${signIns}
              ELSE a.n >= ${FACTOR_GUESSES_PER_HOUR} END)
    OR (t.company_id, t.domain_id, t.id) IN (SELECT e.company_id, e.domain_id, e.user_id FROM signin_events e
      WHERE e.outcome = 'second_factor_failed' AND e.occurred_at > now() - interval '1 hour'
        AND e.company_id IS NOT NULL AND e.domain_id IS NOT NULL AND e.user_id IS NOT NULL
        AND e.occurred_at > coalesce((SELECT max(u.occurred_at) FROM audit_events u
                                      WHERE u.company_id = e.company_id AND u.resource_id = e.user_id AND u.resource_type = 'users' AND u.domain_id = e.domain_id
                                        AND u.action IN ('unlock', 'resetFactors')), '-infinity')
      GROUP BY e.company_id, e.domain_id, e.user_id HAVING count(*) >= ${LOCKING_FAILED_SIGN_INS}))`;
}

export const groupListFields = {
  // direct members (users and groups), on the group's primary key
  memberCount: { column: `(SELECT count(*)::int FROM group_members gm WHERE gm.company_id = t.company_id AND gm.domain_id = t.domain_id AND gm.group_id = t.id)`, type: 'integer', listed: false },
  // groups_live_by_created (migration 29)
  createdAt: { column: 't.created_at', time: true },
  updatedAt: { column: 't.updated_at', listed: false },
  ...deletedFields('groups'),
} as const;

const GROUP_MEMBERS = `SELECT 1 FROM group_members gm WHERE gm.company_id = t.company_id AND gm.domain_id = t.domain_id AND gm.group_id = t.id`;

export const groupFilters: Record<string, NamedFilter> = {
  // groups nobody is in (a probe of the group's primary key per group); false: those with members
  noMembers: flag(`NOT EXISTS (${GROUP_MEMBERS})`, `EXISTS (${GROUP_MEMBERS})`),
};

export const applicationFilters: Record<string, NamedFilter> = {
  // applications_grant_types (GIN): applications whose grant types include this one
  grantType: { type: 'text', sql: (grantType: string, bind) => `t.grant_types @> jsonb_build_array(${bind(grantType)}::text)` },
};
