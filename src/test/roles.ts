/**
 * The provider's roles as GET /api/roles answers them (server/api/roles.ts), for tests of what the
 * console offers each role.
 */
import type { Role } from '../resources/generic/useAllowed';
import { EVERY_PERMISSION } from './fetchMock';

const NAVIGATE = ['companies:read', 'domains:read'];

export const ROLES: Role[] = [
  { id: 'owner', name: 'Owner', description: 'Everything, including who holds which role, the Owner role too', permissions: EVERY_PERMISSION },
  {
    id: 'administrator',
    name: 'Administrator',
    description: 'Everything but the Owner role: gives and takes the other roles, within her subtree, to and from people she contains',
    permissions: EVERY_PERMISSION.filter((permission) => permission !== 'roles:owner'),
  },
  {
    id: 'user-manager',
    name: 'User manager',
    description: 'Users, groups and their members, sessions, sign-in logs and account actions',
    permissions: [...NAVIGATE, ...EVERY_PERMISSION.filter((permission) => /^(users|groups|sessions):/.test(permission)), 'signInEvents:read', 'audit:read'],
  },
  {
    id: 'support',
    name: 'Support',
    description: 'Reads users, groups, sign-in logs, sessions and history; signs people out and unlocks them. No create, edit, delete or purge',
    permissions: [...NAVIGATE, 'users:read', 'users:unlock', 'users:block', 'users:recover', 'groups:read', 'sessions:read', 'sessions:revoke', 'signInEvents:read', 'audit:read'],
  },
  {
    id: 'application-manager',
    name: 'Application manager',
    description: 'Applications, APIs, their permission scopes and secrets',
    permissions: [...NAVIGATE, ...EVERY_PERMISSION.filter((permission) => /^(applications|apis):/.test(permission)), 'audit:read'],
  },
  {
    id: 'auditor',
    name: 'Auditor',
    description: 'Reads everything, the audit log included; never a secret',
    permissions: EVERY_PERMISSION.filter((permission) => permission.endsWith(':read')),
  },
];

/** What a holder of this role may do anywhere it is held. */
export const permissionsOf = (roleId: string): string[] => ROLES.find((role) => role.id === roleId)!.permissions;

/** GET /api/roles' answer. */
export const rolesAnswer = () => ({ json: { roles: ROLES, permissions: EVERY_PERMISSION } });
