/**
 * A domain's security policy in the console (docs/CONSOLE.md, "Domain security policy"): read and
 * written through GET and PUT …/domainNames/{d}/securityPolicy, and the password check of the forms
 * whose passwords are hashed here (a new user, Set password), which the provider cannot check since
 * it only ever sees the hash. The same rules and words as the provider's hosted pages (server/policies.ts).
 */
import { useQuery } from '@tanstack/react-query';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';

export type MfaPolicy = 'off' | 'optional' | 'required' | 'required-admins';
export const MFA_POLICIES: readonly MfaPolicy[] = ['off', 'optional', 'required', 'required-admins'];

export interface PasswordPolicy {
  minPasswordLength: number;
  refuseCommonPasswords: boolean;
}

export interface DomainPolicy extends PasswordPolicy {
  mfa: MfaPolicy;
  /** null: the server's setting */
  failuresPerAccount: number | null;
  failureWindowSeconds: number | null;
  selfSignUp: boolean;
}

/** What a domain that never set a policy has (the provider's DEFAULT_POLICY). */
export const DEFAULT_POLICY: DomainPolicy = {
  minPasswordLength: 12,
  refuseCommonPasswords: true,
  mfa: 'optional',
  failuresPerAccount: null,
  failureWindowSeconds: null,
  selfSignUp: false,
};

/** The bounds the provider accepts (server/policies.ts POLICY_BOUNDS). */
export const POLICY_BOUNDS = {
  minPasswordLength: { min: 8, max: 128 },
  failuresPerAccount: { min: 3, max: 10_000 },
  failureWindowSeconds: { min: 60, max: 7 * 24 * 3600 },
} as const;

export const policyUrl = ({ companyId, domainId }: PathContext) =>
  `${config.apiBase}/companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/securityPolicy`;

/** The cache key: under `domains`, so that whatever reads the domains again reads it too. */
export const policyKey = (context: PathContext) => ['domains', 'securityPolicy', context.companyId, context.domainId];

export async function fetchPolicy(context: PathContext): Promise<DomainPolicy> {
  return (await httpClient(policyUrl(context))).json as DomainPolicy;
}

export async function savePolicy(context: PathContext, policy: DomainPolicy): Promise<DomainPolicy> {
  return (await httpClient(policyUrl(context), { method: 'PUT', body: JSON.stringify(policy) })).json as DomainPolicy;
}

/** The domain's policy; undefined while it loads. */
export function useDomainPolicy(context: PathContext, enabled = true) {
  return useQuery({ queryKey: policyKey(context), queryFn: () => fetchPolicy(context), enabled: enabled && !!context.companyId && !!context.domainId });
}

let common: Promise<Set<string>> | undefined;

/**
 * The 10,000 most common passwords, shipped with the provider (server/lists/common-passwords.txt):
 * loaded the first time a password is checked, as a chunk of its own, never with the first screen.
 */
function commonPasswords(): Promise<Set<string>> {
  common ??= import('../../../server/lists/common-passwords.txt?raw')
    .then(({ default: text }) => new Set(text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.toLowerCase())))
    .catch((error) => {
      common = undefined; // try again next time (a deployment replaced the chunk)
      throw error;
    });
  return common;
}

/** Starts loading the list (a password field got focus), so that checking it later waits for nothing. */
export function preloadCommonPasswords(): void {
  void commonPasswords().catch(() => undefined);
}

/**
 * Why the policy refuses this password, as a sentence (the provider's words), or undefined. Without
 * a policy (it could not be read) the defaults apply.
 */
export async function checkPassword(policy: PasswordPolicy | undefined, password: string): Promise<string | undefined> {
  const { minPasswordLength, refuseCommonPasswords } = policy ?? DEFAULT_POLICY;
  if ([...password].length < minPasswordLength) return `Use at least ${minPasswordLength} characters.`;
  if (refuseCommonPasswords && (await commonPasswords()).has(password.toLowerCase())) return 'This password is among the most common ones: choose another.';
  return undefined;
}
