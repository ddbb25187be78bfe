/**
 * The roles of the people who run the console (docs/CONSOLE.md, "Roles"): each a named set of
 * permissions, defined here once; the guard, the roles routes, the console (GET /api/roles) and the
 * docs read them from here. A permission is `<resource>:<verb>`: every resource of the management
 * API has `read`, `write` (create, change, soft delete, recover) and `purge` (gone for good), and a
 * few have their own verbs (`sessions:revoke`, `applications:secrets`, `users:unlock`, `users:block`, `users:recover`, `roles:owner`). A resource type added by
 * declaration names its permission resource and gets the same three verbs; the roles below are
 * patterns, so Owner, Administrator and Auditor cover it without a change here.
 */

export const VERBS = ['read', 'write', 'purge'] as const;

/** The permission resources of the management API, each with the verbs above, and the extra verbs. */
export const PERMISSION_RESOURCES = ['companies', 'domains', 'users', 'groups', 'sessions', 'signInEvents', 'audit', 'applications', 'apis', 'roles', 'scim', 'branding'] as const;
/**
 * Account actions support staff take for a person (docs/CONSOLE.md, "Account states"): `users:unlock`
 * (clear the throttle's lock), `users:block` (block and unblock), `users:recover` (send a reset link,
 * resend an invitation or a verification). Setting a password, required actions and resetting a
 * person's second factors are `users:write`: whoever does them could take the account over.
 * `users:import` and `users:export` run a domain's import and export jobs (password hashes in an
 * export need `roles:owner` too); `scim:*` is a domain's SCIM tokens and provisioning calls;
 * `branding:*` is a company's branding and e-mail templates.
 * `roles:owner` is what only the Owner role gives: by the containment rule (containment.ts) only
 * whoever holds it gives or takes the Owner role, or acts on someone who holds it.
 */
export const EXTRA_PERMISSIONS = ['sessions:revoke', 'applications:secrets', 'users:unlock', 'users:block', 'users:recover', 'users:import', 'users:export', 'roles:owner'] as const;

/** Permission resources of resource types added by declaration, as their routes are made (resource.ts). */
const declared = new Set<string>();
export function declarePermissionResource(resource: string): void {
  declared.add(resource);
}

/** Every permission the server checks: the resources' verbs (declared types' too) and the extra ones. */
export function allPermissions(): string[] {
  const resources = [...new Set<string>([...PERMISSION_RESOURCES, ...declared])];
  return [...resources.flatMap((resource) => VERBS.map((verb) => `${resource}:${verb}`)), ...EXTRA_PERMISSIONS];
}

export interface RoleDefinition {
  id: string;
  name: string;
  description: string;
  /** Patterns: `*` (everything), `*:read` (every read), `users:*` (every verb of users), or one permission. */
  grants: string[];
  /** Permissions taken back from what `grants` gives. */
  except?: string[];
}

/** Reading the company and its domains is where every console session starts. */
const NAVIGATE = ['companies:read', 'domains:read'];

export const ROLES: readonly RoleDefinition[] = [
  { id: 'owner', name: 'Owner', description: 'Everything, including who holds which role, the Owner role too', grants: ['*'] },
  {
    id: 'administrator',
    name: 'Administrator',
    description: 'Everything but the Owner role: gives and takes the other roles, within her subtree, to and from people she contains',
    grants: ['*'],
    except: ['roles:owner'],
  },
  {
    id: 'user-manager',
    name: 'User manager',
    description: 'Users, groups and their members, sessions, sign-in logs and account actions',
    grants: [...NAVIGATE, 'users:*', 'groups:*', 'sessions:*', 'signInEvents:read', 'audit:read'],
  },
  {
    id: 'support',
    name: 'Support',
    description: 'Reads users, groups, sign-in logs, sessions and history; signs people out, unlocks, blocks and unblocks them, sends reset links and invitations. No create, edit, delete or purge',
    grants: [...NAVIGATE, 'users:read', 'users:unlock', 'users:block', 'users:recover', 'groups:read', 'sessions:read', 'sessions:revoke', 'signInEvents:read', 'audit:read'],
  },
  {
    id: 'application-manager',
    name: 'Application manager',
    description: 'Applications, APIs, their permission scopes and secrets',
    grants: [...NAVIGATE, 'applications:*', 'apis:*', 'audit:read'],
  },
  { id: 'auditor', name: 'Auditor', description: 'Reads everything, the audit log included; never a secret', grants: ['*:read'] },
];

export const ROLE_IDS = ROLES.map((role) => role.id);
export const OWNER = 'owner';
/** What the members of a domain's `administrators` group hold over their company's subtree. */
export const ADMINISTRATOR = 'administrator';

const matches = (pattern: string, permission: string) => {
  if (pattern === '*' || pattern === permission) return true;
  const [resource, verb] = pattern.split(':');
  const [wantedResource, wantedVerb] = permission.split(':');
  return (resource === '*' && verb === wantedVerb) || (verb === '*' && resource === wantedResource);
};

/** Does the role give the permission? */
export function roleGrants(roleId: string, permission: string): boolean {
  const role = ROLES.find((candidate) => candidate.id === roleId);
  if (!role || role.except?.includes(permission)) return false;
  return role.grants.some((pattern) => matches(pattern, permission));
}

/** The roles that give the permission (the sentence of a 403 names them). */
export function rolesGranting(permission: string): string[] {
  return ROLE_IDS.filter((roleId) => roleGrants(roleId, permission));
}

/**
 * A role held only over one domain of a company gives nothing at the level of the whole company
 * but what lets its holder start there: reading the company and its domains.
 */
export const DOMAIN_ROLE_AT_COMPANY = NAVIGATE;

/**
 * Does what the guard found held at the target give the permission? `held` lists roles that cover
 * the target (`administrator`) and, for a target that is a whole company, roles held over one of its
 * domains only (`support@`).
 */
export function heldGrants(held: readonly string[], permission: string): boolean {
  return held.some((entry) =>
    entry.endsWith('@') ? DOMAIN_ROLE_AT_COMPANY.includes(permission) && roleGrants(entry.slice(0, -1), permission) : roleGrants(entry, permission),
  );
}

/** The permissions `held` gives (GET /api/me/permissions). */
export function permissionsOf(held: readonly string[]): string[] {
  return allPermissions().filter((permission) => heldGrants(held, permission));
}

/** "the Owner, Administrator or User manager role": who would be allowed. */
export function rolesSentence(permission: string): string {
  const names = rolesGranting(permission).map((roleId) => ROLES.find((role) => role.id === roleId)!.name);
  if (names.length <= 1) return `the ${names[0] ?? 'Owner'} role`;
  return `the ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]} role`;
}
