import crypto from 'node:crypto';
import { setPassword } from './passwords.js';
import { recordOwnAction } from './audit.js';
import type { Database, Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import type { Language } from '../mail/language.js';
import type { Mailer } from '../mail/mailer.js';
import { type Purpose, renderCompanyMessage } from '../mail/templates.js';

/**
 * Links sent by e-mail (docs/CONSOLE.md, "E-mail, reset links and invitations"): a reset link, an
 * invitation, a verification, and the proof of an account before an upstream identity is linked
 * to it (docs/CONSOLE.md, "Connections": 'link-identity', opened by server/upstream/routes.ts).
 * The token is 32 random bytes that only the message holds; the database keeps its sha256
 * (account_tokens, migration 22) with the account's company, domain and user, the address it went
 * to, its purpose and expiry. A token is used once, atomically. A new link of a purpose makes the
 * user's older ones of that purpose unusable.
 */
export const LIFETIME_SECONDS: Record<Purpose, number> = { reset: 30 * 60, invite: 7 * 24 * 3600, verify: 24 * 3600, 'link-identity': 15 * 60 };

/** Where each link opens (server/oauth/accountPages.ts). */
export const LINK_PATHS: Record<Purpose, string> = { reset: '/account/reset', invite: '/account/invite', verify: '/account/verify', 'link-identity': '/oauth/upstream/link/confirm' };

/** A token as sent: 43 base64url characters (32 bytes). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface AccountToken {
  companyId: string;
  domainId: string;
  userId: string;
  purpose: Purpose;
  email: string;
  clientId: string | null;
}

const TOKEN_COLUMNS = `t.company_id AS "companyId", t.domain_id AS "domainId", t.user_id AS "userId", t.purpose, t.email, t.client_id AS "clientId"`;

/**
 * The unused, unexpired token `token` of one of these purposes, whose account is still active, not
 * blocked and still has the address it was sent to; undefined for anything else (one answer for
 * unknown, used, expired). Reads only: the form it opens spends it.
 */
export async function findToken(db: Queryable, token: string, purposes: Purpose[]): Promise<AccountToken | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const { rows } = await db.query<AccountToken>(
    `SELECT ${TOKEN_COLUMNS} FROM account_tokens t
     JOIN users u ON u.company_id = t.company_id AND u.domain_id = t.domain_id AND u.id = t.user_id
     WHERE t.id = $1 AND t.purpose = ANY ($2::text[]) AND t.used_at IS NULL AND t.expires_at > now()
       AND u.status = 'active' AND u.blocked_at IS NULL AND lower(u.email) = lower(t.email)`,
    [sha256(token), purposes],
  );
  return rows[0];
}

/** Spends the token (once: of two concurrent calls one gets it); the same conditions as findToken. */
export async function useToken(tx: Queryable, token: string, purposes: Purpose[]): Promise<AccountToken | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const { rows } = await tx.query<AccountToken>(
    `UPDATE account_tokens t SET used_at = now()
     FROM users u
     WHERE t.id = $1 AND t.purpose = ANY ($2::text[]) AND t.used_at IS NULL AND t.expires_at > now()
       AND u.company_id = t.company_id AND u.domain_id = t.domain_id AND u.id = t.user_id
       AND u.status = 'active' AND u.blocked_at IS NULL AND lower(u.email) = lower(t.email)
     RETURNING ${TOKEN_COLUMNS}`,
    [sha256(token), purposes],
  );
  return rows[0];
}

export interface LinkRequest {
  companyId: string;
  domainId: string;
  userId: string;
  purpose: Purpose;
  language: Language;
  /** The application the person asked from (forgotten password), to send her back there. */
  clientId?: string;
  /** 'link-identity': the connection whose identity asks to be linked, named in the message. */
  connectionName?: string;
}

export type LinkOutcome =
  /** tokenId: the link's row (the sha256 of its token), for a caller that binds the link to something of its own */
  | { kind: 'queued'; messageId: string; recipient: string; tokenId: string; send: () => void }
  /** No active, unblocked account with an address: nothing is sent. */
  | { kind: 'no-account' };

/**
 * Makes a link for the user and writes its message to the outbox, in the caller's transaction.
 * After the commit, call `send()` of the outcome (the mail server, if any, is never waited for).
 */
export async function queueAccountLink(tx: Queryable, mailer: Mailer, publicUrl: string, request: LinkRequest): Promise<LinkOutcome> {
  const { rows } = await tx.query<{ displayName: string; username: string; email: string; companyName: string }>(
    `SELECT u.display_name AS "displayName", u.username, u.email, c.display_name AS "companyName"
     FROM users u JOIN companies c ON c.id = u.company_id
     WHERE u.company_id = $1 AND u.domain_id = $2 AND u.id = $3 AND u.status = 'active' AND u.blocked_at IS NULL AND u.email <> ''`,
    [request.companyId, request.domainId, request.userId],
  );
  const user = rows[0];
  if (!user) return { kind: 'no-account' };
  const token = crypto.randomBytes(32).toString('base64url');
  const at = [request.companyId, request.domainId, request.userId];
  // her spent and expired links are of no use to anyone: forgotten here, so the table stays small
  await tx.query(`DELETE FROM account_tokens WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND (used_at IS NOT NULL OR expires_at < now())`, at);
  await tx.query(`UPDATE account_tokens SET used_at = now() WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND purpose = $4 AND used_at IS NULL`, [...at, request.purpose]);
  await tx.query(
    `INSERT INTO account_tokens (id, company_id, domain_id, user_id, purpose, email, client_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [sha256(token), ...at, request.purpose, user.email, request.clientId ?? null, LIFETIME_SECONDS[request.purpose]],
  );
  const link = `${publicUrl}${LINK_PATHS[request.purpose]}?token=${token}`;
  // the company's own template and branding (docs/CONSOLE.md, "E-mail templates")
  const { companyName, ...message } = await renderCompanyMessage(tx, { companyId: request.companyId, purpose: request.purpose, language: request.language, publicUrl }, {
    companyName: user.companyName,
    personName: user.displayName,
    login: user.email,
    email: user.email,
    link,
    connectionName: request.connectionName,
  });
  const queued = await mailer.queue(tx, {
    ...message,
    companyId: request.companyId,
    domainId: request.domainId,
    userId: request.userId,
    purpose: request.purpose,
    language: request.language,
    recipient: user.email,
    senderName: companyName,
  });
  return { kind: 'queued', messageId: queued.id, recipient: user.email, tokenId: sha256(token), send: () => mailer.send({ companyId: request.companyId, domainId: request.domainId, ...queued }) };
}

/** queueAccountLink in its own transaction, sent once committed. */
export async function sendAccountLink(db: Database, mailer: Mailer, publicUrl: string, request: LinkRequest): Promise<LinkOutcome> {
  const outcome = await db.transaction((tx) => queueAccountLink(tx, mailer, publicUrl, request));
  if (outcome.kind === 'queued') outcome.send();
  return outcome;
}

/** Where the person followed her link from: the audit trail's actor address. */
export interface LinkVisit {
  ip: string;
}

/** The audit trail's names of what a person does with her own links (server/accounts/audit.ts). */
export const OWN_ACTIONS: Record<Purpose, string> = { reset: 'resetPassword', invite: 'acceptInvitation', verify: 'verifyEmail', 'link-identity': 'linkIdentity' };

interface AccountColumns {
  required_actions: string[];
  email_verified: boolean;
}

/** What a link changed, on her history as her own action (server/accounts/audit.ts, recordOwnAction). */
async function recordLinkAction(tx: Queryable, token: AccountToken, visit: LinkVisit, before: AccountColumns, after: AccountColumns, extra: Record<string, unknown> = {}) {
  const changes: Record<string, unknown> = { ...extra };
  for (const column of ['required_actions', 'email_verified'] as const) {
    if (JSON.stringify(before[column]) !== JSON.stringify(after[column])) changes[column] = { before: before[column], after: after[column] };
  }
  await recordOwnAction(tx, token, { clientId: 'account-link', ip: visit.ip }, OWN_ACTIONS[token.purpose], changes);
}

/** Her columns a link changes, read before the change (locked: the write follows in this transaction). */
async function accountColumns(tx: Queryable, token: AccountToken): Promise<AccountColumns> {
  const { rows } = await tx.query<AccountColumns>(`SELECT required_actions, email_verified FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3 FOR UPDATE`, [
    token.companyId,
    token.domainId,
    token.userId,
  ]);
  return rows[0] ?? { required_actions: [], email_verified: false };
}

/**
 * A new password from a link (reset or invitation): every session of the user ends, and so does the
 * sign-in throttle's lock and any sign-in half way through its steps; 'change-password' is done.
 * Either link proves her address: it reached the address it was sent to, which is still hers (findToken
 * and useToken check it), so the address is verified. Recorded on her history as her own action
 * (resetPassword, acceptInvitation), with emailVerified when it changed.
 */
export async function setPasswordFromLink(tx: Queryable, token: AccountToken, passwordHash: string, visit: LinkVisit): Promise<void> {
  const before = await accountColumns(tx, token);
  const after = await setPassword(tx, { companyId: token.companyId, domainId: token.domainId, userId: token.userId }, { hash: passwordHash, provesEmail: true });
  // a secret that changed is only said to have changed, as the audit trigger does for password_hash
  await recordLinkAction(tx, token, visit, before, after ? { required_actions: after.requiredActions, email_verified: after.emailVerified } : before, { password_hash: { hidden: true } });
}

/** A verification link followed: the address it was sent to is hers (recorded on her history: verifyEmail). */
export async function verifyEmailFromLink(tx: Queryable, token: AccountToken, visit: LinkVisit): Promise<void> {
  const before = await accountColumns(tx, token);
  const { rows } = await tx.query<AccountColumns>(
    `UPDATE users SET email_verified = true, required_actions = array_remove(required_actions, 'verify-email'), updated_at = now()
     WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND lower(email) = lower($4)
     RETURNING required_actions, email_verified`,
    [token.companyId, token.domainId, token.userId, token.email],
  );
  if (rows[0]) await recordLinkAction(tx, token, visit, before, rows[0], { email: { after: token.email } });
}
