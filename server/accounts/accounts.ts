import crypto from 'node:crypto';
import type { Account } from 'oidc-provider';
import type { Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import { hashPassword } from '../passwords.js';
import { needsRehash, verifyStoredPassword } from './importedHashes.js';
import { oncePerRequest } from '../requestOrigin.js';

/** The group whose members (direct or through nested groups) administer their domain's company. */
export const ADMIN_GROUP = 'administrators';
export const ADMIN_SCOPE = 'user:admin';

/** Where an application's users live: its company and domain. */
export interface Tenant {
  companyId: string;
  domainId: string;
}

export interface KnownUser {
  id: string;
  /** The account's own company and domain: the tenant of its sign-ins and tokens. */
  companyId: string;
  domainId: string;
  /** The subject: unique in the whole provider, never reassigned (migration 19); the sub of tokens and the accountId of sessions and grants. */
  subject: string;
  username: string;
  displayName: string;
  email: string;
  passwordHash: string | null;
  emailVerified: boolean;
  /** Blocked (docs/CONSOLE.md, "Account states"): only findUserByLogin finds such an account, so that the password step can say so to the person who knows the password. */
  blocked: boolean;
  /** What she must do at her next sign-in (signInSteps.ts). */
  requiredActions: string[];
}

export const USER_COLUMNS = `id, company_id AS "companyId", domain_id AS "domainId", subject, username, display_name AS "displayName", email, password_hash AS "passwordHash",
  email_verified AS "emailVerified", blocked_at IS NOT NULL AS blocked, required_actions AS "requiredActions"`;

/** The active user of the domain whose email or username is `login` (case-folded), if any, blocked or not. */
export async function findUserByLogin(db: Queryable, tenant: Tenant, login: string): Promise<KnownUser | undefined> {
  if (!login) return undefined;
  const { rows } = await db.query<KnownUser>(
    `SELECT ${USER_COLUMNS} FROM users
     WHERE company_id = $1 AND domain_id = $2 AND status = 'active' AND (lower(email) = lower($3) OR lower(username) = lower($3))
     ORDER BY (lower(email) = lower($3)) DESC LIMIT 1`,
    [tenant.companyId, tenant.domainId, login],
  );
  return rows[0];
}

/** The active user (blocked or not) of the tenant with this id: a sign-in's steps read her afresh at every page. */
export async function findUserById(db: Queryable, tenant: Tenant, id: string): Promise<KnownUser | undefined> {
  const { rows } = await db.query<KnownUser>(`SELECT ${USER_COLUMNS} FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND status = 'active'`, [
    tenant.companyId,
    tenant.domainId,
    id,
  ]);
  return rows[0];
}

/**
 * The active account of the tenant whose subject is `subject`: how the authorization server finds
 * the person behind a session, grant, code or token. The subject alone would find her anywhere; the
 * tenant (the asking application's company and domain) makes a session of one domain useless at
 * another domain's application.
 */
export function findActiveAccount(db: Queryable, tenant: Tenant, subject: string): Promise<KnownUser | undefined> {
  return oncePerRequest(`account:${tenant.companyId}/${tenant.domainId}/${subject}`, async () => {
    const { rows } = await db.query<KnownUser>(`SELECT ${USER_COLUMNS} FROM users WHERE company_id = $1 AND domain_id = $2 AND subject = $3 AND status = 'active' AND blocked_at IS NULL`, [
      tenant.companyId,
      tenant.domainId,
      subject,
    ]);
    return rows[0];
  });
}

/**
 * The active account with this subject, in whichever tenant it is: only for the console, whose
 * sign-ins may name any tenant (signInTenant.ts). The subject is unique in the whole provider.
 */
export function findActiveAccountBySubject(db: Queryable, subject: string): Promise<KnownUser | undefined> {
  return oncePerRequest(`account:*/${subject}`, async () => {
    const { rows } = await db.query<KnownUser>(`SELECT ${USER_COLUMNS} FROM users WHERE subject = $1 AND status = 'active' AND blocked_at IS NULL`, [subject]);
    return rows[0];
  });
}

/** The id, in the tenant's domain, of the account (active or not) with this subject: for sign-in events. */
export async function userIdOfSubject(db: Queryable, tenant: Tenant, subject: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM users WHERE company_id = $1 AND domain_id = $2 AND subject = $3`, [tenant.companyId, tenant.domainId, subject]);
  return rows[0]?.id;
}

/**
 * For the sign-in event of an unknown login only (never the answer, which stays "Wrong email or
 * password"): the soft-deleted user it names, so that support staff see why she cannot sign in.
 */
export async function deletedUserId(db: Queryable, tenant: Tenant, login: string): Promise<string | undefined> {
  if (!login) return undefined;
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM users
     WHERE company_id = $1 AND domain_id = $2 AND status = 'deleted' AND (lower(email) = lower($3) OR lower(username) = lower($3))
     ORDER BY (lower(email) = lower($3)) DESC LIMIT 1`,
    [tenant.companyId, tenant.domainId, login],
  );
  return rows[0]?.id;
}

/**
 * The throttle's key of the account `login` names: the user, however they typed their name (email
 * or username, any case), or when nobody has that name the name itself (hashed: people type their
 * password into the name field), so that guessing at unknown names is throttled too.
 */
export function accountKey(tenant: Tenant, login: string, user: KnownUser | undefined): string {
  const domain = `${tenant.companyId}/${tenant.domainId}`;
  return user ? userAccountKey(tenant, user.id) : `name:${domain}/${sha256(login.toLowerCase())}`;
}

/** The throttle's key of a user's account: what unlocking her clears (server/api/accountState.ts). */
export const userAccountKey = (tenant: Tenant, userId: string) => `user:${tenant.companyId}/${tenant.domainId}/${userId}`;

let dummyHash: Promise<string> | undefined;

/**
 * Does `password` match the user's, in whichever stored form (bcrypt, or one imported: importedHashes.ts)?
 * Unknown users (and users without a password) cost a bcrypt comparison too, so timing does not
 * reveal who exists; so does an imported form, alongside its own check (a salted SHA takes no time).
 */
export async function passwordMatches(user: KnownUser | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  const hash = user?.passwordHash ?? (await dummyHash);
  // on the password threads, below the event loop's priority, never on the event loop (never throws)
  const [matches] = await Promise.all([verifyStoredPassword(password, hash), needsRehash(hash) && verifyStoredPassword(password, await dummyHash)]);
  return Boolean(user?.passwordHash && password && matches);
}

/**
 * Is the user a member of the active `administrators` group of their domain, directly or through
 * nested active groups? The walk is the database's member_groups function (migration 13), the one
 * the API guard, RBAC and the member cycle check read too.
 */
export async function isAdministrator(db: Queryable, companyId: string, domainId: string, userId: string): Promise<boolean> {
  const result = await db.query<{ admin: boolean }>(`SELECT is_administrator($1, $2, $3) AS admin`, [companyId, domainId, userId]);
  return result.rows[0]?.admin === true;
}

/**
 * Does the user hold any console role in her domain's view of the provider: a member of its
 * administrators group, or holding a role (server/api/roles.ts) anywhere? That is what `user:admin`
 * stands for; what she may do with it is the guard's question at every call.
 */
export async function holdsConsoleRole(db: Queryable, companyId: string, domainId: string, userId: string): Promise<boolean> {
  const result = await db.query<{ holds: boolean }>(`SELECT holds_console_role($1, $2, $3) AS holds`, [companyId, domainId, userId]);
  return result.rows[0]?.holds === true;
}

/** The user as oidc-provider's account: the claims of ID tokens and userinfo, by granted scope. */
export function toAccount(user: KnownUser): Account & { user: KnownUser } {
  return {
    accountId: user.subject,
    user,
    claims: () => ({
      sub: user.subject,
      name: user.displayName,
      preferred_username: user.username,
      email: user.email,
      email_verified: user.emailVerified,
    }),
  };
}
