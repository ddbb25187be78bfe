/**
 * The signed-in session kept in sessionStorage under these keys (docs/CONSOLE.md, "Callback")
 * (user, company, rootCompany, domain, client, accessToken, header). Values are JSON.
 * Listeners let React re-render when the current company or domain changes (Switch, Set Primary).
 */

export interface SessionUser {
  id?: string;
  username?: string;
  displayName: string;
  email: string;
}

export interface Company {
  id: string;
  name: string;
  displayName?: string;
  description?: string;
  type?: 'customer' | 'reseller' | 'root' | string;
  parent?: string | null;
}

export interface Domain {
  id: string;
  name: string;
  description?: string;
  primary?: boolean;
}

export interface SessionClient {
  client_id: string;
  companyId: string;
  domain: string;
}

export interface SessionState {
  user?: SessionUser;
  company?: Company;
  rootCompany?: Company;
  domain?: Domain;
  client?: SessionClient;
  accessToken?: string;
  header?: Record<string, string>;
  /** The ID token of the sign-in: sign-out hands it to the provider, which ends the sign-in there. */
  idToken?: string;
}

export const SESSION_KEYS = ['user', 'company', 'rootCompany', 'domain', 'client', 'accessToken', 'header', 'idToken'] as const;
type SessionKey = (typeof SESSION_KEYS)[number];

const listeners = new Set<() => void>();
let snapshot: SessionState | undefined;

function read<K extends SessionKey>(key: K): SessionState[K] | undefined {
  const raw = sessionStorage.getItem(key);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as SessionState[K];
  } catch {
    return undefined;
  }
}

export function getSession(): SessionState {
  if (!snapshot) {
    snapshot = {};
    for (const key of SESSION_KEYS) {
      const value = read(key);
      if (value !== undefined) (snapshot as Record<string, unknown>)[key] = value;
    }
  }
  return snapshot;
}

export function updateSession(changes: Partial<SessionState>): void {
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  }
  snapshot = undefined;
  listeners.forEach((listener) => listener());
}

export function clearSession(): void {
  for (const key of SESSION_KEYS) sessionStorage.removeItem(key);
  snapshot = undefined;
  listeners.forEach((listener) => listener());
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The ids that nested provider paths are computed from. */
export interface PathContext {
  companyId: string;
  domainId: string;
  /** The parent record's id, for an embedded resource (an API's scopes, a group's members). */
  parentId?: string;
}

export function currentPathContext(): PathContext {
  const { company, domain } = getSession();
  return { companyId: company?.id ?? '', domainId: domain?.id ?? '' };
}
