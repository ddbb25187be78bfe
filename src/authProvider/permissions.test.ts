import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { permissionNeeded } from '../resources/permissions';
import { clearSession, getSession, updateSession } from '../session/session';
import { mockFetch, readable, type RecordedRequest } from '../test/fetchMock';
import { permissionsOf } from '../test/roles';
import { signedInAs } from '../test/session';
import { authProvider } from './authProvider';

const canAccess = (resource: string, action: string) => authProvider.canAccess!({ resource, action });
const permissionReads = (requests: RecordedRequest[]) => requests.filter((request) => request.url.includes('/me/permissions')).map((request) => readable(request.url));

beforeEach(() => signedInAs('acme', 'prod'));
afterEach(() => {
  clearSession();
  vi.unstubAllGlobals();
});

describe('the permission an action on a resource needs', () => {
  it.each([
    ['users', 'list', 'users:read', true],
    ['users', 'show', 'users:read', true],
    ['users', 'create', 'users:write', true],
    ['users', 'edit', 'users:write', true],
    // a soft delete and a recovery are writes; gone for good is a purge
    ['users', 'delete', 'users:write', true],
    ['users', 'recover', 'users:write', true],
    ['users', 'purge', 'users:purge', true],
    // an embedded type is its parent's
    ['groupMembers', 'create', 'groups:write', true],
    ['groupMembers', 'delete', 'groups:write', true],
    ['groupMemberCandidates', 'list', 'groups:read', true],
    ['groupPermissions', 'delete', 'groups:write', true],
    ['permissionScopes', 'purge', 'apis:purge', true],
    ['subtreeCompanies', 'list', 'companies:read', false],
    // unless it names its own, and verbs of their own
    ['sessions', 'list', 'sessions:read', true],
    ['sessions', 'revoke', 'sessions:revoke', true],
    ['applications', 'secrets', 'applications:secrets', true],
    ['apis', 'edit', 'apis:write', true],
    ['signInEvents', 'list', 'signInEvents:read', true],
    // History and the audit log are the company's
    ['auditEvents', 'list', 'audit:read', false],
    ['companies', 'purge', 'companies:purge', false],
    ['domains', 'create', 'domains:write', false],
    ['roleAssignments', 'list', 'roles:read', false],
    ['roleAssignments', 'create', 'roles:write', false],
    ['roleAssignments', 'delete', 'roles:write', false],
  ])('%s %s needs %s (held at the domain: %s)', (resource, action, permission, inDomain) => {
    expect(permissionNeeded(resource, action)).toEqual({ permission, inDomain });
  });
});

describe('authProvider.canAccess', () => {
  it("answers from the person's permissions at the company and at its current domain, read once for the place", async () => {
    // Support over the domain prod only: at the company level it may only find its way there
    const { requests } = mockFetch(undefined, {
      permissions: ({ domainId }) => (domainId === 'prod' ? permissionsOf('support') : ['companies:read', 'domains:read']),
    });
    expect(await canAccess('users', 'list')).toBe(true);
    expect(await canAccess('users', 'create')).toBe(false);
    expect(await canAccess('sessions', 'revoke')).toBe(true);
    expect(await canAccess('auditEvents', 'list')).toBe(false);
    expect(await canAccess('companies', 'list')).toBe(true);
    expect(await canAccess('applications', 'list')).toBe(false);
    expect(permissionReads(requests)).toEqual([
      '/api/me/permissions?companyId=acme',
      '/api/me/permissions?companyId=acme&domainId=prod',
    ]);
  });

  it('reads them again for another domain or company, and after the provider refused a call', async () => {
    const { requests } = mockFetch(undefined, {
      permissions: ({ domainId }) => (domainId === 'test' ? permissionsOf('user-manager') : permissionsOf('auditor')),
    });
    expect(await canAccess('users', 'create')).toBe(false);
    expect(await canAccess('users', 'list')).toBe(true);
    expect(permissionReads(requests)).toHaveLength(2);

    updateSession({ domain: { id: 'test', name: 'test' } });
    expect(await canAccess('users', 'create')).toBe(true);
    expect(permissionReads(requests).slice(2)).toEqual([
      '/api/me/permissions?companyId=acme',
      '/api/me/permissions?companyId=acme&domainId=test',
    ]);

    // another change of the session (the domain's primary mark) is the same place
    updateSession({ domain: { ...getSession().domain!, primary: true } });
    await canAccess('users', 'create');
    expect(permissionReads(requests)).toHaveLength(4);

    await authProvider.checkError({ status: 403, message: 'Your role does not allow users:write here' });
    await canAccess('users', 'create');
    expect(permissionReads(requests)).toHaveLength(6);
  });

  it('a company with no domain yet: the company level only', async () => {
    updateSession({ domain: undefined });
    const { requests } = mockFetch(undefined, { permissions: permissionsOf('user-manager') });
    expect(await canAccess('users', 'create')).toBe(true);
    expect(await canAccess('roleAssignments', 'create')).toBe(false);
    expect(permissionReads(requests)).toEqual(['/api/me/permissions?companyId=acme']);
  });

  it('a failed read is not remembered: the next question asks again', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ message: 'Internal error' }), { status: 500 }));
    vi.stubGlobal('fetch', fetchMock);
    await expect(canAccess('users', 'list')).rejects.toThrow('Internal error');
    mockFetch(undefined, { permissions: permissionsOf('owner') });
    expect(await canAccess('users', 'list')).toBe(true);
  });

  it('nobody signed in to a company: nothing is allowed, nothing is asked', async () => {
    clearSession();
    const { requests } = mockFetch();
    expect(await canAccess('users', 'list')).toBe(false);
    expect(requests).toEqual([]);
  });
});
