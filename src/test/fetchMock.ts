/**
 * A fetch stand-in at the network edge: records every request and answers from a route table.
 */
import { vi } from 'vitest';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
}

export type Responder = (request: RecordedRequest) => { status?: number; json?: unknown; headers?: Record<string, string> };

/** Every permission the provider checks (GET /api/roles' `permissions`): what an Owner holds. */
export const EVERY_PERMISSION = ['companies', 'domains', 'users', 'groups', 'sessions', 'signInEvents', 'audit', 'applications', 'apis', 'roles', 'connections']
  .flatMap((resource) => ['read', 'write', 'purge'].map((verb) => `${resource}:${verb}`))
  .concat('sessions:revoke', 'applications:secrets', 'users:unlock', 'users:block', 'users:recover', 'roles:owner');

/** The caller's permissions at a company, or at one of its domains. */
export type PermissionsAt = (place: { companyId: string; domainId: string | null }) => readonly string[];

/**
 * `permissions`: what GET /api/me/permissions answers (the console's authProvider.canAccess reads it),
 * the same at every company and domain or per place; every permission unless told. The responder is
 * not asked.
 */
export function mockFetch(
  responder: Responder = () => ({ json: {} }),
  { permissions = EVERY_PERMISSION }: { permissions?: readonly string[] | PermissionsAt } = {},
) {
  const requests: RecordedRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request: RecordedRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      url: String(input),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    requests.push(request);
    const asked = new URL(request.url, 'http://localhost');
    const { status = 200, json, headers = {} } = asked.pathname.endsWith('/me/permissions')
      ? permissionsAnswer(asked.searchParams, permissions)
      : responder(request);
    return new Response(json === undefined ? '' : JSON.stringify(json), {
      status,
      headers: { 'Content-Type': 'application/json', ...headers },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { requests, fetchMock };
}

function permissionsAnswer(query: URLSearchParams, permissions: readonly string[] | PermissionsAt): ReturnType<Responder> {
  const place = { companyId: query.get('companyId') ?? '', domainId: query.get('domainId') };
  return { json: { ...place, roles: [], permissions: typeof permissions === 'function' ? permissions(place) : permissions } };
}

/** Decodes a URL's path and query for readable assertions. */
export function readable(url: string): string {
  return decodeURIComponent(url);
}
