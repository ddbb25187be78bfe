/** A permission granted to a group: a scope of one of the domain's APIs (id: its key, groups/index.ts). */
export interface GroupPermission {
  id: string;
  apiId: string;
  apiName: string;
  permission: string;
  description?: string;
}

export interface DomainApi {
  id: string;
  name: string;
  identifier?: string;
}

export interface Scope {
  id: string;
  permission: string;
  description?: string;
}

/** What names a grant in the provider's bodies: [{apiId, permission}]. */
export const grantRef = ({ apiId, permission }: Pick<GroupPermission, 'apiId' | 'permission'>) => ({ apiId, permission });
