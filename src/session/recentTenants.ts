import type { SessionState } from './session';

/** A handful: the places one goes back and forth between. */
export const RECENT_TENANTS_MAX = 5;

/** A company and domain the administrator switched to or from, with the names they had then. */
export interface RecentTenant {
  companyId: string;
  companyName: string;
  domainId?: string;
  domainName?: string;
}

/**
 * The device remembers each signed-in administrator's places apart (localStorage, kept across
 * sign-outs like the theme): the key names the tenant they signed in to and who they are.
 */
export function recentTenantsKey({ user, client }: SessionState): string | undefined {
  const who = user?.id || user?.email;
  if (!who) return undefined;
  return `recent-tenants:${client?.companyId ?? ''}/${client?.domain ?? ''}/${who}`;
}

const sameTenant = (a: RecentTenant, b: RecentTenant) => a.companyId === b.companyId && (a.domainId ?? '') === (b.domainId ?? '');

/** Puts `tenants` first, in that order, each once, at most RECENT_TENANTS_MAX. */
export function withRecentTenants(recent: readonly RecentTenant[], ...tenants: RecentTenant[]): RecentTenant[] {
  const merged: RecentTenant[] = [];
  for (const tenant of [...tenants, ...recent]) if (!merged.some((kept) => sameTenant(kept, tenant))) merged.push(tenant);
  return merged.slice(0, RECENT_TENANTS_MAX);
}

const isRecentTenant = (value: unknown): value is RecentTenant => {
  const item = value as RecentTenant;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.companyId === 'string' &&
    typeof item.companyName === 'string' &&
    (item.domainId === undefined || typeof item.domainId === 'string') &&
    (item.domainName === undefined || typeof item.domainName === 'string')
  );
};

export function readRecentTenants(session: SessionState): RecentTenant[] {
  const key = recentTenantsKey(session);
  if (!key) return [];
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(key) ?? '[]');
    // Whatever the storage holds (edited by hand, an older console), keep well-formed entries only.
    return Array.isArray(stored) ? stored.filter(isRecentTenant).slice(0, RECENT_TENANTS_MAX) : [];
  } catch {
    return [];
  }
}

export function rememberTenants(session: SessionState, ...tenants: RecentTenant[]): void {
  const key = recentTenantsKey(session);
  if (!key) return;
  try {
    localStorage.setItem(key, JSON.stringify(withRecentTenants(readRecentTenants(session), ...tenants)));
  } catch {
    // storage full or refused (private mode): the switch itself does not depend on it
  }
}
