import { useQuery } from '@tanstack/react-query';
import { config } from '../../../config';
import { httpClient } from '../../../http/httpClient';
import type { PathContext } from '../../../session/session';

/** The provider's answer (GET …/groups/{id}/rights): may the signed-in person change this group's members, and why not. */
interface Rights {
  mayActOn: boolean;
  reason: string | null;
  membership?: { givesRoles: boolean; allowed: boolean; reason: string | null };
}

/**
 * Why the signed-in person may not add or remove members here (docs/CONSOLE.md, "Roles"): a group
 * that gives a role (administrators, or one holding a role) takes members only from someone who may
 * give that role, and every member changed must hold no more than she does. Undefined when she may,
 * or until the provider has answered (the provider refuses the same writes anyway).
 */
export function useMembershipReason(context: PathContext, groupId: string): string | undefined {
  const { companyId, domainId } = context;
  const rights = useQuery({
    queryKey: ['groupRights', companyId, domainId, groupId],
    queryFn: async () =>
      (await httpClient(`${config.apiBase}/companys/${encodeURIComponent(companyId!)}/domainNames/${encodeURIComponent(domainId!)}/groups/${encodeURIComponent(groupId)}/rights`)).json as Rights,
    enabled: Boolean(companyId && domainId && groupId),
  });
  const membership = rights.data?.membership;
  return membership && !membership.allowed ? (membership.reason ?? undefined) : undefined;
}
