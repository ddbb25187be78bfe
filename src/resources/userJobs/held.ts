/**
 * What the signed-in person holds at one domain, for the import, export and provisioning screens
 * (docs/CONSOLE.md, "Roles"): `GET /api/me/permissions` there (a domain's screen may be of a domain
 * other than the current one), and why a refused action is refused, naming the roles that allow it.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';
import { neededRoles, useRoles, type Allowed } from '../generic/useAllowed';

export function useHeldAt({ companyId, domainId }: PathContext) {
  return useQuery({
    queryKey: ['auth', 'heldAt', companyId, domainId],
    queryFn: async () => {
      const query = new URLSearchParams({ companyId, domainId });
      const { json } = await httpClient(`${config.apiBase}/me/permissions?${query}`);
      return new Set<string>((json as { permissions?: string[] } | undefined)?.permissions ?? []);
    },
    enabled: Boolean(companyId && domainId),
    staleTime: 60_000,
  });
}

/**
 * Whether each permission is held there (false too while the answer is awaited; true when it
 * failed: the provider still decides and says why), with the reason when not.
 */
export function useAllowedAt(context: PathContext, permissions: readonly string[]): Record<string, Allowed> {
  const translate = useTranslate();
  const held = useHeldAt(context);
  const refused = held.data ? permissions.some((permission) => !held.data.has(permission)) : false;
  const roles = useRoles(refused);
  return Object.fromEntries(
    permissions.map((permission) => {
      if (held.isError || held.data?.has(permission)) return [permission, { allowed: true }];
      if (!held.data) return [permission, { allowed: false }];
      return [permission, { allowed: false, reason: neededRoles(translate, roles.data, [permission]) }];
    }),
  );
}
