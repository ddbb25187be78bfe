import type { Queryable } from '../db/index.js';
import { findActiveAccount, findActiveAccountBySubject, type KnownUser, type Tenant, userIdOfSubject } from '../accounts/accounts.js';
import { tenantOf } from './clients.js';

/**
 * Whose people an application signs in (docs/CONSOLE.md, "Sign-ins and rights"). Every application
 * signs in the people of its own company and domain, except the console: it is the one door of every
 * company's administrators, so a sign-in to it names the tenant (company, and a domain or else the
 * company's primary one): the console's sign-in form and the authorization request carry `company`
 * and `domain`; naming none means the console application's own tenant, and, when the password is
 * not that of its account there, the one organization whose console account it proves
 * (organizationSearch.ts, docs/DECISIONS.md 43). An unknown tenant fails like a wrong password.
 */

/** The console's client id: the one application whose sign-ins may name a tenant. */
export interface TenantSetting {
  consoleClientId: string;
}

export const sameTenant = (a: Tenant, b: Tenant) => a.companyId === b.companyId && a.domainId === b.domainId;

/** Company and domain ids as a sign-in names them: short, printable, trimmed. */
const NAME = /^[\x21-\x7E]{1,100}$/;
const named = (value: unknown) => (typeof value === 'string' && NAME.test(value.trim()) ? value.trim() : undefined);

/** What a sign-in names, as given: `company` (and `domain`), or nothing. */
export interface NamedTenant {
  company?: unknown;
  domain?: unknown;
}

export type TenantChoice =
  /** The tenant whose accounts this sign-in looks in; `known` false when it names nobody's (nothing matches there). */
  | { kind: 'tenant'; tenant: Tenant; known: boolean }
  /** An application other than the console naming another tenant than its own. */
  | { kind: 'refused'; message: string };

/** The tenant a sign-in into `client` is for, from what it names. */
export async function chooseTenant(db: Queryable, setting: TenantSetting, client: unknown, given: NamedTenant): Promise<TenantChoice> {
  const own = tenantOf(client);
  const company = named(given.company);
  const domain = named(given.domain);
  if (!company) return { kind: 'tenant', tenant: own, known: true };
  if ((client as { clientId?: string }).clientId !== setting.consoleClientId) {
    if (company === own.companyId && (!domain || domain === own.domainId)) return { kind: 'tenant', tenant: own, known: true };
    return { kind: 'refused', message: 'this application signs in the people of its own organization only (company, domain)' };
  }
  const { rows } = await db.query<Tenant>(
    `SELECT company_id AS "companyId", id AS "domainId" FROM domains WHERE company_id = $1 AND ${domain ? 'id = $2' : 'is_primary'}`,
    domain ? [company, domain] : [company],
  );
  // an unknown tenant is searched like any other and finds nobody: the same answer as a wrong password
  return rows[0] ? { kind: 'tenant', tenant: rows[0], known: true } : { kind: 'tenant', tenant: { companyId: company, domainId: domain ?? '' }, known: false };
}

/**
 * The active account with this subject that `client` may sign in: in the client's own tenant, or for
 * the console in any tenant (the subject is unique in the whole provider; which tenant a browser
 * session is good for is the login check's question, provider.ts).
 */
export function accountOfClient(db: Queryable, setting: TenantSetting, client: unknown, subject: string): Promise<KnownUser | undefined> {
  return (client as { clientId?: string }).clientId === setting.consoleClientId ? findActiveAccountBySubject(db, subject) : findActiveAccount(db, tenantOf(client), subject);
}

/** The account (active or not) with this subject that `client` may sign in, by her id and tenant: for sign-in events. */
export async function userOfSubject(db: Queryable, setting: TenantSetting, client: unknown, subject: string): Promise<(Tenant & { id: string }) | undefined> {
  if ((client as { clientId?: string }).clientId !== setting.consoleClientId) {
    const tenant = tenantOf(client);
    const id = await userIdOfSubject(db, tenant, subject);
    return id ? { id, ...tenant } : undefined;
  }
  const { rows } = await db.query<Tenant & { id: string }>(`SELECT id, company_id AS "companyId", domain_id AS "domainId" FROM users WHERE subject = $1`, [subject]);
  return rows[0];
}
