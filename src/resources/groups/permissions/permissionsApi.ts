/**
 * A group's granted permissions (RBAC, issue 6): scopes of the domain's APIs given to the group.
 * Like members, they live below one group and are not a resource of their own; the Add dialog
 * reads the domain's active APIs and one API's permission scopes.
 */
import { config } from '../../../config';
import { httpClient } from '../../../http/httpClient';
import type { PathContext } from '../../../session/session';
import { apis } from '../../apis/index';
import { groupUrl, type PageRequest, type PageResult } from '../members/membersApi';

export interface GroupPermission {
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

export type PermissionRef = Pick<GroupPermission, 'apiId' | 'permission'>;

/** The provider answers at most this many rows a request: enough for a picker. */
const PICKER_LIMIT = 1000;

export const permissionKey = (permission: PermissionRef) => `${permission.apiId}\n${permission.permission}`;

async function getRows<T>(url: string, start: number, end: number, sort: [string, 'ASC' | 'DESC'], filter: object = {}) {
  const query = new URLSearchParams({
    filter: JSON.stringify(filter),
    range: JSON.stringify([start, end]),
    sort: JSON.stringify(sort),
  });
  const { json, headers } = await httpClient(`${url}?${query}`);
  const rows = Array.isArray(json) ? (json as T[]) : [];
  const total = Number(headers.get('Content-Range')?.split('/').pop());
  return { rows, total: Number.isFinite(total) ? total : start + rows.length };
}

const refs = (permissions: readonly PermissionRef[]) =>
  JSON.stringify(permissions.map(({ apiId, permission }) => ({ apiId, permission })));

export const permissionsApi = {
  list: (context: PathContext, groupId: string, { page, perPage, q }: PageRequest): Promise<PageResult<GroupPermission>> => {
    const start = (page - 1) * perPage;
    return getRows<GroupPermission>(`${groupUrl(context, groupId)}/permissions`, start, start + perPage - 1, ['apiName', 'ASC'], q ? { q } : {});
  },

  /** The active APIs of the group's domain: only their scopes can be granted. */
  apis: async (context: PathContext): Promise<DomainApi[]> =>
    (await getRows<DomainApi>(`${config.apiBase}/${apis.paths.collection(context)}`, 0, PICKER_LIMIT - 1, ['name', 'ASC'], { status: 'active' })).rows,

  scopes: async (apiId: string): Promise<Scope[]> =>
    (await getRows<Scope>(`${config.apiBase}/api/${encodeURIComponent(apiId)}/PermissionScopes`, 0, PICKER_LIMIT - 1, ['permission', 'ASC'])).rows,

  /** All or nothing: the provider refuses the lot (400) if one is not a scope of an active API of the domain. */
  add: async (context: PathContext, groupId: string, permissions: readonly PermissionRef[]) => {
    await httpClient(`${groupUrl(context, groupId)}/permissions`, { method: 'POST', body: refs(permissions) });
  },

  remove: async (context: PathContext, groupId: string, permissions: readonly PermissionRef[]) => {
    await httpClient(`${groupUrl(context, groupId)}/permissions`, { method: 'DELETE', body: refs(permissions) });
  },
};
