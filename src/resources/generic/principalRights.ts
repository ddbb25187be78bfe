import { useQuery } from '@tanstack/react-query';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';
import type { Allowed } from './useAllowed';

/** The provider's answer (GET …/users/{id}/rights, …/groups/{id}/rights). */
interface Rights {
  mayActOn: boolean;
  reason: string | null;
  membership?: { givesRoles: boolean; allowed: boolean; reason: string | null };
}

/**
 * Whether the signed-in person may act on this user or group (docs/CONSOLE.md, "Roles": nobody acts
 * on more than they hold), read once per record and cached with react-query. Nothing is known until
 * the provider answers; the provider refuses the same writes whatever the console shows.
 */
export function usePrincipalRights(context: PathContext, type: 'users' | 'groups', id: string) {
  const { companyId, domainId } = context;
  return useQuery({
    queryKey: ['principalRights', companyId, domainId, type, id],
    queryFn: async () =>
      (await httpClient(`${config.apiBase}/companys/${encodeURIComponent(companyId!)}/domainNames/${encodeURIComponent(domainId!)}/${type}/${encodeURIComponent(id)}/rights`)).json as Rights,
    enabled: Boolean(companyId && domainId && id),
  }).data;
}

/** `allowed` (the roles allow the action here) narrowed by containment: disabled, with the provider's reason, when the person holds less than this one. */
export function useAllowedOn(allowed: Allowed, context: PathContext, type: 'users' | 'groups', id: string): Allowed {
  const rights = usePrincipalRights(context, type, id);
  if (!allowed.allowed || rights?.mayActOn !== false) return allowed;
  return { allowed: false, reason: rights.reason ?? undefined };
}

/** Why the person may not add or remove members of this group (a group that gives a role is giving a role), or undefined. */
export function useMembershipReason(context: PathContext, groupId: string): string | undefined {
  const membership = usePrincipalRights(context, 'groups', groupId)?.membership;
  return membership && !membership.allowed ? (membership.reason ?? undefined) : undefined;
}
