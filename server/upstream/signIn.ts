import { type Database, type Queryable, transactionSettings } from '../db/index.js';
import { findUserById, type KnownUser, type Tenant } from '../accounts/accounts.js';
import { recordOwnAction } from '../accounts/audit.js';
import { useToken } from '../accounts/links.js';
import { randomAlphanumeric } from '../ids.js';
import type { UpstreamConnection, UpstreamProfile } from '../accounts/upstream.js';

/**
 * An upstream identity made an account of ours (docs/CONSOLE.md, "Connections"; DESIGN.md section
 * 6): found by its link (the connection and the IdP's subject, in the sign-in's domain), else
 * provisioned just in time into that domain. It is never linked to an existing account because an
 * address matches (nOAuth): the person proves that account first (its password, or a link e-mailed
 * to its address: an account without a password proves it so), and an address the IdP does not
 * call verified never leads to a link at all. Blocked and deleted accounts stay refused.
 */

export type AccountOutcome =
  | { kind: 'user'; user: KnownUser; provisioned: boolean }
  /** an active account of the domain already has this address: her password or an e-mailed link first, then the link */
  | { kind: 'prove'; user: KnownUser }
  | { kind: 'refused'; outcome: 'blocked' | 'upstream_not_linked' | 'upstream_failed'; message: string; userId?: string };

export const BLOCKED_UPSTREAM = 'This account is blocked. Ask your administrator to unblock it.';

const identityKey = (connection: UpstreamConnection) => [connection.companyId, connection.domainId, connection.id];

/** The `amr` of an upstream sign-in: 'fed' (federated), and 'mfa' when the connection trusts the IdP's multi-factor sign-in and it says so. */
export function upstreamAmr(connection: UpstreamConnection, profile: UpstreamProfile): string[] {
  const said = profile.amr ?? [];
  const strongAmr = said.some((value) => ['mfa', 'otp', 'hwk', 'swk', 'sc', 'fpt', 'face'].includes(value));
  const strongAcr = /mfa|multi-?factor|MultipleAuthn|phr|phrh|silver|gold/i.test(profile.acr ?? '');
  return connection.mfaFromIdp && (strongAmr || strongAcr) ? ['fed', 'mfa'] : ['fed'];
}

/** The account an upstream identity signs in to, in `tenant` (the domain whose sign-in used the connection). */
export async function accountOfProfile(db: Database, connection: UpstreamConnection, tenant: Tenant, profile: UpstreamProfile): Promise<AccountOutcome> {
  const linked = await db.query<{ userId: string }>(
    `SELECT user_id AS "userId" FROM user_identities
     WHERE company_id = $1 AND domain_id = $2 AND connection_company_id = $3 AND connection_domain_id = $4 AND connection_id = $5 AND subject = $6`,
    [tenant.companyId, tenant.domainId, ...identityKey(connection), profile.subject],
  );
  if (linked.rows[0]) return linkedAccount(db, connection, tenant, profile, linked.rows[0].userId);

  const email = profile.email;
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    return { kind: 'refused', outcome: 'upstream_failed', message: 'The identity provider gave no e-mail address: an account cannot be made for this sign-in.' };
  }
  const existing = await db.query<{ id: string; active: boolean }>(
    `SELECT id, status = 'active' AS active FROM users
     WHERE company_id = $1 AND domain_id = $2 AND (lower(email) = lower($3) OR lower(username) = lower($3))
     ORDER BY (status = 'active') DESC LIMIT 1`,
    [tenant.companyId, tenant.domainId, email],
  );
  const holder = existing.rows[0];
  if (holder) {
    const notLinked = (message: string) => ({ kind: 'refused', outcome: 'upstream_not_linked', message, userId: holder.id }) as const;
    // the IdP does not vouch for the address: whoever holds this identity may not even own it
    if (!profile.emailVerified) return notLinked(`An account with the address ${email} already exists here, and the identity provider has not verified that address: this sign-in cannot be linked to it.`);
    const user = holder.active ? await findUserById(db, tenant, holder.id) : undefined;
    if (!user) return notLinked(`An account with the address ${email} exists here but is not active. Ask your administrator.`);
    // without a password (invited, never accepted; made by another connection) she proves it by an e-mailed link
    return { kind: 'prove', user };
  }
  return provision(db, connection, tenant, profile, email);
}

async function linkedAccount(db: Database, connection: UpstreamConnection, tenant: Tenant, profile: UpstreamProfile, userId: string): Promise<AccountOutcome> {
  const user = await findUserById(db, tenant, userId);
  if (!user) return { kind: 'refused', outcome: 'upstream_failed', message: 'This account is no longer active. Ask your administrator.', userId };
  if (user.blocked) return { kind: 'refused', outcome: 'blocked', message: BLOCKED_UPSTREAM, userId };
  await touchIdentity(db, connection, tenant, user.id, profile);
  return { kind: 'user', user, provisioned: false };
}

async function touchIdentity(db: Queryable, connection: UpstreamConnection, tenant: Tenant, userId: string, profile: UpstreamProfile) {
  await db.query(
    `UPDATE user_identities SET last_used_at = now(), email = coalesce($7, email)
     WHERE company_id = $1 AND domain_id = $2 AND connection_company_id = $3 AND connection_domain_id = $4 AND connection_id = $5 AND subject = $6 AND user_id = $8`,
    [tenant.companyId, tenant.domainId, ...identityKey(connection), profile.subject, profile.email ?? null, userId],
  );
}

/** How she proved the existing account before the link: recorded on its audit record. */
export type LinkProof = { kind: 'password' } | { kind: 'e-mailed link'; token: string };

/**
 * Links the identity to an account she has just proved, and marks it used, with an audit record on
 * her history (linkIdentity, her own action, naming the proof). An e-mailed link's token is spent in
 * the same transaction: false (nothing linked) when it is no longer good for this account (used,
 * expired, blocked or deleted since, its address changed).
 */
export async function linkIdentity(db: Database, connection: UpstreamConnection, user: KnownUser, profile: UpstreamProfile, proof: LinkProof, ip: string): Promise<boolean> {
  const tenant = { companyId: user.companyId, domainId: user.domainId };
  const actor = { userId: user.id, ...tenant, clientId: `connection:${connection.id}`, ip };
  return transactionSettings.run(new Map([['iam.actor', JSON.stringify(actor)]]), () =>
    db.transaction(async (tx) => {
      if (proof.kind === 'e-mailed link') {
        const spent = await useToken(tx, proof.token, ['link-identity']);
        if (!spent || spent.companyId !== tenant.companyId || spent.domainId !== tenant.domainId || spent.userId !== user.id) {
          // a token of someone else's account is not spent by this attempt
          if (spent) throw new TokenOfAnotherAccount();
          return false;
        }
      }
      const inserted = await tx.query(
        `INSERT INTO user_identities (company_id, domain_id, user_id, connection_company_id, connection_domain_id, connection_id, subject, email, last_used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now()) ON CONFLICT DO NOTHING`,
        [tenant.companyId, tenant.domainId, user.id, ...identityKey(connection), profile.subject, profile.email ?? null],
      );
      if (inserted.rowCount > 0) {
        await recordOwnAction(tx, { ...tenant, userId: user.id }, { clientId: actor.clientId, ip }, 'linkIdentity', {
          identity: { after: { connectionId: connection.id, connectionName: connection.displayName, subject: profile.subject, provedBy: proof.kind } },
        });
      }
      return true;
    }),
  ).catch((error) => {
    if (error instanceof TokenOfAnotherAccount) return false;
    throw error;
  });
}

/** Rolls back a token spent for another account than the one being linked. */
class TokenOfAnotherAccount extends Error {}

/**
 * A new account in the sign-in's domain: the mapped name and address (verified only when the
 * connection trusts the IdP's word and the IdP gives it), no password, the identity linked, and
 * the IdP's groups joined where the domain has an active group of that display name.
 */
async function provision(db: Database, connection: UpstreamConnection, tenant: Tenant, profile: UpstreamProfile, email: string): Promise<AccountOutcome> {
  const userId = randomAlphanumeric(20);
  const actor = { userId, ...tenant, clientId: `connection:${connection.id}`, ip: '' };
  const created = await transactionSettings.run(new Map([['iam.actor', JSON.stringify(actor)]]), () =>
    db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash, status, email_verified)
         SELECT $1, $2, $3, $4, $5, $4, NULL, 'active', $6
         WHERE NOT EXISTS (SELECT 1 FROM users WHERE company_id = $1 AND domain_id = $2 AND (lower(email) = lower($4) OR lower(username) = lower($4)))
         ON CONFLICT DO NOTHING RETURNING id`,
        [tenant.companyId, tenant.domainId, userId, email, (profile.name ?? email).slice(0, 200), connection.trustEmail && profile.emailVerified],
      );
      if (!rows[0]) return false;
      await tx.query(
        `INSERT INTO user_identities (company_id, domain_id, user_id, connection_company_id, connection_domain_id, connection_id, subject, email, last_used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())`,
        [tenant.companyId, tenant.domainId, userId, ...identityKey(connection), profile.subject, email],
      );
      if (profile.groups?.length) {
        await tx.query(
          `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
           SELECT g.company_id, g.domain_id, g.id, 'user', $3 FROM groups g
           WHERE g.company_id = $1 AND g.domain_id = $2 AND g.status = 'active' AND lower(g.display_name) = ANY ($4::text[])
           ON CONFLICT DO NOTHING`,
          [tenant.companyId, tenant.domainId, userId, profile.groups.map((group) => group.toLowerCase())],
        );
      }
      return true;
    }),
  );
  // the same address taken meanwhile (two first sign-ins at once): the answer of an existing account
  if (!created) return accountOfProfile(db, connection, tenant, profile);
  const user = await findUserById(db, tenant, userId);
  if (!user) return { kind: 'refused', outcome: 'upstream_failed', message: 'The account could not be made. Please try again.' };
  return { kind: 'user', user, provisioned: true };
}
