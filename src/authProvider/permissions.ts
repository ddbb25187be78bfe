/**
 * What the signed-in person may do where the console works (docs/CONSOLE.md, "Roles"): her
 * permissions at the current company and at its current domain, read from
 * `GET /api/me/permissions` once per place (both levels side by side: a role held over one domain
 * only gives that domain's records, not the company's), and read again after a switch or after the
 * provider refuses a call (403: a role may have been taken away). authProvider.canAccess answers from
 * them; react-admin caches its answers, which the layout drops when they change
 * (`usePermissionsFollowPlace`).
 */
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { config } from '../config';
import { httpClient } from '../http/httpClient';
import { permissionNeeded } from '../resources/permissions';
import { getSession, subscribeSession } from '../session/session';

interface Held {
  company: ReadonlySet<string>;
  /** Absent while the company has no domain. */
  domain?: ReadonlySet<string>;
}

let held: { place: string; permissions: Promise<Held> } | undefined;
/** `moved`: another place, whose answers may differ from the start; else they are checked again in the background. */
const listeners = new Set<(moved: boolean) => void>();

/** Who works where: another person, company or domain holds other permissions. */
function currentPlace(): string {
  const { user, company, domain } = getSession();
  return JSON.stringify([user?.id ?? user?.email, company?.id, domain?.id]);
}

let place = currentPlace();
subscribeSession(() => {
  if (currentPlace() === place) return;
  place = currentPlace();
  forget(true);
});

function forget(moved: boolean) {
  held = undefined;
  listeners.forEach((listener) => listener(moved));
}

/**
 * After the provider refused a call (403): the permissions are read again, and react-admin's answers
 * checked again in the background (a role may have been taken away meanwhile).
 */
export function forgetPermissions(): void {
  forget(false);
}

async function permissionsAt(companyId: string, domainId?: string): Promise<ReadonlySet<string>> {
  const query = new URLSearchParams({ companyId, ...(domainId ? { domainId } : {}) });
  const { json } = await httpClient(`${config.apiBase}/me/permissions?${query}`);
  return new Set((json as { permissions?: string[] } | undefined)?.permissions ?? []);
}

function heldHere(): Promise<Held> | undefined {
  const { company, domain } = getSession();
  if (!company) return undefined;
  if (held?.place !== place) {
    const permissions = Promise.all([permissionsAt(company.id), domain ? permissionsAt(company.id, domain.id) : undefined]).then(
      ([atCompany, atDomain]) => ({ company: atCompany, domain: atDomain }),
    );
    const entry = { place, permissions };
    held = entry;
    // a failed read is tried again by the next question, not remembered
    permissions.catch(() => {
      if (held === entry) held = undefined;
    });
  }
  return held.permissions;
}

/**
 * Asks for the permissions of the current place now, before the admin app mounts: its first
 * questions (the menu's, the dashboard's) then find them on the way (the sign-in's last step,
 * src/adminApp.ts).
 */
export function preloadPermissions(): void {
  heldHere()?.catch(() => undefined);
}

/** authProvider.canAccess: may the signed-in person do `action` on `resource` here? */
export async function canAccess({ resource, action }: { resource: string; action: string }): Promise<boolean> {
  const here = heldHere();
  if (!here) return false;
  const { company, domain } = await here;
  const { permission, inDomain } = permissionNeeded(resource, action);
  return (inDomain && domain ? domain : company).has(permission);
}

/**
 * Inside the admin app: when the permissions may have changed, react-admin's cached answers follow.
 * After a switch they are dropped, so that nothing of the new place is offered or read on the old
 * place's answers; after a refusal they are checked again in the background, keeping the screen as
 * it is meanwhile (dropping them would read the refused list again, and again).
 */
export function usePermissionsFollowPlace(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const follow = (moved: boolean) => {
      const filters = { queryKey: ['auth', 'canAccess'] };
      if (!moved) return void queryClient.invalidateQueries(filters);
      // An answer no screen shows now is dropped, not reset: reset, it would stay pending until a
      // screen asks again, and react-admin's lists and forms wait while an answer of theirs is
      // pending (useIsAuthPending reads the cache without asking), so a list left after the
      // dashboard asked would show "Please wait" for good.
      queryClient.removeQueries({ ...filters, type: 'inactive' });
      void queryClient.resetQueries({ ...filters, type: 'active' });
    };
    listeners.add(follow);
    return () => void listeners.delete(follow);
  }, [queryClient]);
}
