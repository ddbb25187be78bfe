import { useQuery } from '@tanstack/react-query';
import { useAuthProvider, useResourceContext, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { permissionNeeded } from '../permissions';

/** A role as the provider defines it (GET /api/roles): the console reads names and permissions from there. */
export interface Role {
  id: string;
  name: string;
  description: string;
  permissions: string[];
}

/** The provider's roles, read once, when something first needs them (a refusal to explain, the Roles screens). */
export function useRoles(enabled = true) {
  return useQuery({
    queryKey: ['roles'],
    queryFn: async () => ((await httpClient(`${config.apiBase}/roles`)).json as { roles: Role[] }).roles,
    staleTime: Infinity,
    enabled,
  });
}

type Translate = ReturnType<typeof useTranslate>;

/** "Needs the Owner, Administrator or User manager role": the roles that give every one of the permissions. */
export function neededRoles(translate: Translate, roles: readonly Role[] | undefined, permissions: readonly string[]): string {
  const names = (roles ?? []).filter((role) => permissions.every((permission) => role.permissions.includes(permission))).map((role) => role.name);
  if (names.length === 0) return translate('iam.permissions.notAllowed');
  if (names.length === 1) return translate('iam.permissions.needsRole', { role: names[0] });
  return translate('iam.permissions.needsRoles', { roles: names.slice(0, -1).join(', '), last: names[names.length - 1] });
}

export interface Need {
  action: string;
  /** The screen's resource by default. */
  resource?: string;
}

export interface Allowed {
  /** False too while the answer is awaited. */
  allowed: boolean;
  /** When not allowed: which roles would allow it, for the disabled button's tooltip. */
  reason?: string;
}

/**
 * May the signed-in person do all of these here (react-admin's canAccess, docs/CONSOLE.md, "Roles")?
 * When not, the reason names the roles that would allow it. Without a canAccess in the auth provider
 * everything is allowed; so is it when the answer failed (the provider still decides, and says why).
 */
export function useAllowedAll(needs: readonly Need[]): Allowed {
  const authProvider = useAuthProvider();
  const translate = useTranslate();
  const screenResource = useResourceContext();
  const asked = needs.map(({ action, resource }) => ({ action, resource: resource ?? screenResource ?? '' }));
  const checks = Boolean(authProvider?.canAccess);
  const answer = useQuery({
    queryKey: ['auth', 'canAccess', 'all', asked],
    queryFn: async () => (await Promise.all(asked.map((need) => authProvider!.canAccess!(need)))).every(Boolean),
    enabled: checks,
  });
  const refused = checks && answer.data === false;
  const roles = useRoles(refused);
  if (!checks || answer.isError || answer.data) return { allowed: true };
  if (!refused) return { allowed: false };
  const permissions = asked.map(({ resource, action }) => permissionNeeded(resource, action).permission);
  return { allowed: false, reason: neededRoles(translate, roles.data, permissions) };
}

/** May the signed-in person do `action` on `resource` (the screen's by default) here? */
export function useAllowed(action: string, resource?: string): Allowed {
  return useAllowedAll([{ action, resource }]);
}
