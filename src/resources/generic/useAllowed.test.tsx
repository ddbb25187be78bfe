/**
 * What a person's roles do not allow is offered disabled, its tooltip naming the roles that would
 * allow it (docs/CONSOLE.md, "Roles"): the lists' toolbars, forms, a user's sessions and a group's
 * members, with the console's own authProvider reading GET /api/me/permissions (mocked at the
 * network edge) and the role names from GET /api/roles, read only once something is refused.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { renderScreen } from '../../test/renderScreen';
import { permissionsOf, rolesAnswer } from '../../test/roles';
import { MembersPanel } from '../groups/members/MembersPanel';
import { groups } from '../groups';
import UserSessions from '../sessions/UserSessions';
import { users } from '../users';
import UserForm from '../users/UserForm';
import UserList from '../users/UserList';
import { DeclarationContext } from './DeclarationContext';

const people = [{ id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active' }];

function provider(request: RecordedRequest) {
  const { pathname } = new URL(request.url, 'http://console');
  if (pathname === '/api/roles') return rolesAnswer();
  if (pathname.endsWith('/users')) return { json: people, headers: { 'Content-Range': 'users 0-0/1' } };
  if (pathname.endsWith('/sessions')) {
    const session = { id: 'g1', clientId: 'portal', clientName: 'Customer Portal', createdAt: '2026-03-01T08:00:00.000Z', lastUsedAt: '2026-03-02T09:30:00.000Z' };
    return { json: [session], headers: { 'Content-Range': 'sessions 0-0/1' } };
  }
  if (pathname.endsWith('/members')) return { json: [{ id: 'u1', displayName: 'Ada', type: 'user' }], headers: { 'Content-Range': 'members 0-0/1' } };
  if (pathname.endsWith('/administrators')) return { json: [] };
  return { status: 404, json: { message: 'not found' } };
}

/** The tooltip a disabled button's wrapper shows on hover (focusable once there is a reason). */
async function reasonOf(button: HTMLElement): Promise<string> {
  await waitFor(() => expect(button.parentElement).toHaveAttribute('tabindex', '0'));
  await userEvent.hover(button.parentElement!);
  const tooltip = await screen.findByRole('tooltip');
  const text = tooltip.textContent ?? '';
  await userEvent.unhover(button.parentElement!);
  await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());
  return text;
}

const button = (name: string) => screen.getByRole('button', { name });

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't', user: { id: 'me', displayName: 'Me', email: 'me@example.com' } }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('a Support agent on the users list', () => {
  it('may not create, delete, recover or purge: each says which role would allow it; export stays', async () => {
    const { requests } = mockFetch(provider, { permissions: permissionsOf('support') });
    renderScreen(users, UserList, users.routes.list, { authProvider });
    await screen.findByText('ada@example.com');
    await waitFor(() => expect(button('New')).toBeDisabled());
    expect(await reasonOf(button('New'))).toBe('Needs the Owner, Administrator or User manager role');
    // with a selection too
    await userEvent.click(within(screen.getAllByRole('row')[1]).getByRole('checkbox'));
    expect(button('Delete')).toBeDisabled();
    expect(await reasonOf(button('Delete'))).toBe('Needs the Owner, Administrator or User manager role');
    expect(button('Export CSV')).toBeEnabled();
    // the roles were read once, for the reasons
    expect(requests.filter((request) => request.url.endsWith('/api/roles'))).toHaveLength(1);
  });

  it('the deleted list: Recover and Purge', async () => {
    mockFetch(provider, { permissions: permissionsOf('support') });
    renderScreen(users, UserList, users.routes.deleted!, { authProvider });
    await screen.findByText('ada@example.com');
    await waitFor(() => expect(button('Recover')).toBeDisabled());
    expect(await reasonOf(button('Recover'))).toBe('Needs the Owner, Administrator or User manager role');
    expect(await reasonOf(button('Purge'))).toBe('Needs the Owner, Administrator or User manager role');
  });

  it("a user's form: Edit is not offered", async () => {
    mockFetch(provider, { permissions: permissionsOf('support') });
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { mode: 'view', user: people[0] } }, { authProvider });
    await waitFor(() => expect(button('Edit')).toBeDisabled());
    expect(await reasonOf(button('Edit'))).toBe('Needs the Owner, Administrator or User manager role');
    expect(button('Close')).toBeEnabled();
  });

  it('may sign people out; an Auditor may not', async () => {
    mockFetch(provider, { permissions: permissionsOf('support') });
    renderPanel(<UserSessions userId="u1" />, '/users-new', authProvider);
    await screen.findByText('Customer Portal');
    await waitFor(() => expect(button('Sign out everywhere')).toBeEnabled());
    expect(button('Revoke the session of Customer Portal')).toBeEnabled();
    cleanup();
    clearSession();

    updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' });
    mockFetch(provider, { permissions: permissionsOf('auditor') });
    renderPanel(<UserSessions userId="u1" />, '/users-new', authProvider);
    await screen.findByText('Customer Portal');
    await waitFor(() => expect(button('Sign out everywhere')).toBeDisabled());
    expect(await reasonOf(button('Sign out everywhere'))).toBe('Needs the Owner, Administrator, User manager or Support role');
    expect(button('Revoke the session of Customer Portal')).toBeDisabled();
  });

  it("a group's members: Add and Delete", async () => {
    mockFetch(provider, { permissions: permissionsOf('support') });
    renderPanel(
      <DeclarationContext.Provider value={groups}>
        <MembersPanel context={{ companyId: 'acme', domainId: 'main' }} group={{ id: 'staff', displayName: 'Staff' }} />
      </DeclarationContext.Provider>,
      '/groups-new',
      authProvider,
    );
    await screen.findByText('Ada');
    await waitFor(() => expect(button('Add')).toBeDisabled());
    expect(await reasonOf(button('Add'))).toBe('Needs the Owner, Administrator or User manager role');
  });
});

describe('what is allowed is offered as before', () => {
  it('a User manager creates and deletes users, without reading the roles', async () => {
    const { requests } = mockFetch(provider, { permissions: permissionsOf('user-manager') });
    renderScreen(users, UserList, users.routes.list, { authProvider });
    await screen.findByText('ada@example.com');
    await waitFor(() => expect(button('New')).toBeEnabled());
    await userEvent.click(within(screen.getAllByRole('row')[1]).getByRole('checkbox'));
    await waitFor(() => expect(button('Delete')).toBeEnabled());
    expect(requests.some((request) => request.url.endsWith('/api/roles'))).toBe(false);
  });
});
