/**
 * What a screen's action needs of the caller's roles (docs/CONSOLE.md, "Roles"): react-admin's
 * resource and action named as the provider's permission, `<permission resource>:<verb>`. The
 * permission resource is the declaration's (`permission`, else its parent's for an embedded type,
 * else its name); the verb follows the action. Records of a type that lives in a domain are checked
 * against what the caller holds at the current domain, the others at the current company.
 */
import { registry } from './registry';
import type { ResourceDeclaration } from './types';

/**
 * react-admin's actions and ours, as the provider's verbs: reading, writing (create, edit, the soft
 * delete and recovery, a member's or a grant's removal) and purging. Any other action is a verb of
 * its own (`revoke` of sessions, `secrets` of applications).
 */
const VERBS: Readonly<Record<string, string>> = {
  list: 'read',
  show: 'read',
  read: 'read',
  export: 'read',
  create: 'write',
  edit: 'write',
  delete: 'write',
  recover: 'write',
  purge: 'purge',
};

const declarationNamed = (name: string | undefined) => registry.find((declaration) => declaration.name === name);

/** Whether records of this type live in a domain (an embedded type: where its parent lives). */
export function livesInDomain(declaration: ResourceDeclaration | undefined): boolean {
  if (!declaration) return false;
  if (declaration.needsDomain) return true;
  return livesInDomain(declarationNamed(declaration.embeddedIn));
}

function permissionResourceOf(declaration: ResourceDeclaration): string {
  if (declaration.permission) return declaration.permission;
  const parent = declarationNamed(declaration.embeddedIn);
  return parent ? permissionResourceOf(parent) : declaration.name;
}

export interface PermissionNeeded {
  /** `users:write`, `sessions:revoke`, ... */
  permission: string;
  /** Held at the current domain (else at the current company). */
  inDomain: boolean;
}

/** The permission an action on a react-admin resource needs; an undeclared resource is its own permission resource. */
export function permissionNeeded(resource: string, action: string): PermissionNeeded {
  const declaration = declarationNamed(resource);
  if (declaration?.readPermission && VERBS[action] === 'read') return { permission: declaration.readPermission, inDomain: livesInDomain(declaration) };
  return {
    permission: `${declaration ? permissionResourceOf(declaration) : resource}:${VERBS[action] ?? action}`,
    inDomain: livesInDomain(declaration),
  };
}
