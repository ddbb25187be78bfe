/**
 * A group's members and the Add modal's candidates (SPEC 7). They live below one group, so they
 * are not resources of their own: their URLs extend the groups declaration's path with the group id.
 * Calls go through the console's one HTTP client (token, error shape).
 */
import { config } from '../../../config';
import { httpClient } from '../../../http/httpClient';
import type { PathContext } from '../../../session/session';
import { groups } from '../index';

export type MemberType = 'user' | 'group';

export interface Member {
  id: string;
  displayName: string;
  type: MemberType;
  email?: string;
}

export interface PageRequest {
  page: number;
  perPage: number;
  q?: string;
}

export interface PageResult<T> {
  rows: T[];
  total: number;
}

export function groupUrl(context: PathContext, groupId: string): string {
  return `${config.apiBase}/${groups.paths.collection(context)}/${encodeURIComponent(groupId)}`;
}

/** simple-rest's conventions: inclusive range, sort pair, JSON filter; the total from Content-Range. */
async function getPage<T>(url: string, { page, perPage, q }: PageRequest, extra: Record<string, string> = {}): Promise<PageResult<T>> {
  const start = (page - 1) * perPage;
  const query = new URLSearchParams({
    ...extra,
    filter: JSON.stringify(q ? { q } : {}),
    range: JSON.stringify([start, start + perPage - 1]),
    sort: JSON.stringify(['displayName', 'ASC']),
  });
  const { json, headers } = await httpClient(`${url}?${query}`);
  const rows = Array.isArray(json) ? (json as T[]) : [];
  const total = Number(headers.get('Content-Range')?.split('/').pop());
  return { rows, total: Number.isFinite(total) ? total : start + rows.length };
}

export const membersApi = {
  list: (context: PathContext, groupId: string, request: PageRequest) =>
    getPage<Member>(`${groupUrl(context, groupId)}/members`, request),

  candidates: (context: PathContext, groupId: string, type: MemberType, request: PageRequest) =>
    getPage<Member>(`${groupUrl(context, groupId)}/candidates`, request, { type }),

  add: async (context: PathContext, groupId: string, members: readonly Member[]) => {
    const body = members.map(({ id, displayName, type }) => ({ id, displayName, type }));
    await httpClient(`${groupUrl(context, groupId)}/members`, { method: 'POST', body: JSON.stringify(body) });
  },

  /** By id and type: a user and a group may share an id. */
  remove: async (context: PathContext, groupId: string, members: readonly Member[]) => {
    const body = members.map(({ id, type }) => ({ id, type }));
    await httpClient(`${groupUrl(context, groupId)}/members`, { method: 'DELETE', body: JSON.stringify(body) });
  },
};
