import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, TestMemoryRouter, type AuthProvider } from 'react-admin';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import { i18nProvider } from '../../i18n/i18nProvider';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { DeclaredRoute } from '../DeclaredRoute';
import { registry } from '../registry';
import GroupForm from './GroupForm';
import { groups } from './index';

const company = { id: 'acme', name: 'acme' };
const domain = { id: 'main', name: 'main' };
const ops = { id: 'ops', name: 'ops', displayName: 'Operations', notes: '', email: 'ops@example.com', status: 'active' };
const GROUP_URL = '/api/companys/acme/domainNames/main/groups/ops';

const members = [
  { id: 'u1', displayName: 'Ada', type: 'user' },
  { id: 'devs', displayName: 'Developers', type: 'group' },
];
const candidates = {
  user: [
    { id: 'u2', displayName: 'Grace', email: 'grace@example.com', type: 'user' },
    { id: 'u3', displayName: 'Linus', email: 'linus@example.com', type: 'user' },
  ],
  group: [{ id: 'qa', displayName: 'Quality', email: 'qa@example.com', type: 'group' }],
};

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://x');
  const page = (rows: unknown[], name: string) => ({ json: rows, headers: { 'Content-Range': `${name} 0-${rows.length - 1}/${rows.length}` } });
  if (request.method === 'GET' && url.pathname.endsWith('/members')) return page(members, 'members');
  if (request.method === 'GET' && url.pathname.endsWith('/candidates')) {
    return page(candidates[url.searchParams.get('type') as 'user' | 'group'], 'candidates');
  }
  return { json: JSON.parse(request.body ?? '{}') };
}

const open = (state?: object) => renderScreen(groups, GroupForm, { pathname: groups.routes.form, state });
const openMembers = async (state: object = { company, domain, group: ops, mode: 'view' }) => {
  open(state);
  await userEvent.click(await screen.findByRole('tab', { name: 'Members' }));
  await screen.findByText('Developers');
};

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('group form, General tab', () => {
  it('requires group name, display name and email; notes is optional; nothing is sent', async () => {
    const { requests } = mockFetch();
    open({ company, domain, mode: 'new' });
    await userEvent.click(await screen.findByRole('button', { name: 'Create' }));
    expect(await screen.findAllByText('Required')).toHaveLength(3);
    expect(requests).toHaveLength(0);
    // Members belong to an existing group only.
    expect(screen.getByRole('tab', { name: 'Members' })).toBeDisabled();
  });

  it('creates the group with id = name and goes back; a 409 names the group', async () => {
    const { requests } = mockFetch((request) => ({ status: 201, json: JSON.parse(request.body!) }));
    const { locations } = open({ company, domain, mode: 'new' });
    await userEvent.type(await screen.findByLabelText(/Group Name/), 'qa');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Quality');
    await userEvent.type(screen.getByLabelText(/Email/), 'qa@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(`${requests[0].method} ${requests[0].url}`).toBe('POST /api/companys/acme/domainNames/main/groups');
    expect(JSON.parse(requests[0].body!)).toEqual({ name: 'qa', displayName: 'Quality', email: 'qa@example.com', id: 'qa' });

    cleanup();
    mockFetch(() => ({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'duplicated error: qa already exist!' } }));
    open({ company, domain, mode: 'new' });
    await userEvent.type(await screen.findByLabelText(/Group Name/), 'qa');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Quality');
    await userEvent.type(screen.getByLabelText(/Email/), 'qa@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('duplicated error: qa already exist!');
  });

  it('view mode is read-only; Edit keeps the name (the id) read-only and saves the group', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    open({ company, domain, group: ops, mode: 'view' });
    expect(await screen.findByLabelText(/Display Name/)).toHaveAttribute('readonly');
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    expect(await screen.findByLabelText(/Group Name/)).toHaveAttribute('readonly');
    await userEvent.type(screen.getByLabelText(/Notes/), 'on call');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(`${requests[0].method} ${requests[0].url}`).toBe(`PUT ${GROUP_URL}`);
    expect(JSON.parse(requests[0].body!)).toEqual({ ...ops, notes: 'on call' });
  });
});

describe('group form, Members tab', () => {
  it('lists the members 15 a page', async () => {
    const { requests } = mockFetch(provider);
    await openMembers();
    expect(screen.getByText('Ada')).toBeInTheDocument();
    const list = readable(requests.find((request) => request.url.includes('/members'))!.url);
    expect(list).toContain(`${GROUP_URL}/members?`);
    expect(list).toContain('range=[0,14]');
  });

  it('Add offers the candidates of each tab, and posts the users and groups selected on both', async () => {
    const { requests } = mockFetch(provider);
    await openMembers();
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('Grace')).toBeInTheDocument();
    const userOffer = readable(requests.find((request) => request.url.includes('/candidates'))!.url);
    expect(userOffer).toContain(`${GROUP_URL}/candidates?type=user`);
    expect(userOffer).toContain('range=[0,14]');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'Select Grace' }));

    await userEvent.click(within(dialog).getByRole('tab', { name: 'Groups' }));
    await userEvent.click(await within(dialog).findByRole('checkbox', { name: 'Select Quality' }));
    expect(requests.some((request) => readable(request.url).includes('/candidates?type=group'))).toBe(true);
    expect(within(dialog).getByText('2 selected')).toBeInTheDocument();

    const listsBefore = requests.filter((request) => request.url.includes('/members?')).length;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const post = requests.find((request) => request.method === 'POST')!;
    expect(post.url).toBe(`${GROUP_URL}/members`);
    expect(JSON.parse(post.body!)).toEqual([
      { id: 'u2', displayName: 'Grace', type: 'user' },
      { id: 'qa', displayName: 'Quality', type: 'group' },
    ]);
    // The member list is read again.
    await waitFor(() => expect(requests.filter((request) => request.url.includes('/members?')).length).toBe(listsBefore + 1));
  });

  it('searches the candidates with filter q', async () => {
    const { requests } = mockFetch(provider);
    await openMembers();
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByRole('searchbox', { name: 'Search' }), 'lin');
    await waitFor(() => expect(readable(requests.at(-1)!.url)).toContain('filter={"q":"lin"}'));
    expect(readable(requests.at(-1)!.url)).toContain('type=user');
  });

  it('Escape and Close close the modal without adding anything', async () => {
    const { requests } = mockFetch(provider);
    await openMembers();
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    await within(await screen.findByRole('dialog')).findByText('Grace');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests.some((request) => request.method === 'POST')).toBe(false);
  });

  it('Delete removes the selected members by id and type after a confirmation', async () => {
    const { requests } = mockFetch(provider);
    await openMembers();
    const remove = screen.getByRole('button', { name: 'Delete' });
    expect(remove).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select Developers' }));
    await userEvent.click(remove);
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'DELETE')).toBe(true));
    const deletion = requests.find((request) => request.method === 'DELETE')!;
    expect(deletion.url).toBe(`${GROUP_URL}/members`);
    expect(JSON.parse(deletion.body!)).toEqual([{ id: 'devs', type: 'group' }]);
  });

  it('says what to do next when the group has no members', async () => {
    mockFetch((request) =>
      request.url.includes('/members') ? { json: [], headers: { 'Content-Range': 'members */0' } } : provider(request),
    );
    open({ company, domain, group: ops, mode: 'view' });
    await userEvent.click(await screen.findByRole('tab', { name: 'Members' }));
    expect(await screen.findByText('This group has no members yet. Choose Add to add users or groups.')).toBeInTheDocument();
  });

  it('shows an error that is not an authentication error', async () => {
    mockFetch((request) =>
      request.url.includes('/members') ? { status: 500, json: { statusCode: 500, error: 'Internal Server Error', message: 'database unavailable' } } : provider(request),
    );
    open({ company, domain, group: ops, mode: 'view' });
    await userEvent.click(await screen.findByRole('tab', { name: 'Members' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('database unavailable');
  });

  it('signs out (to /login) when a group call answers 401', async () => {
    mockFetch(() => ({ status: 401, json: { statusCode: 401, error: 'Unauthorized', message: 'authentication error' } }));
    const logout = vi.fn(() => Promise.resolve(false as const));
    const authProvider: AuthProvider = {
      login: () => Promise.resolve(),
      logout,
      checkAuth: () => Promise.resolve(),
      checkError: (error: { status?: number }) => (error?.status === 401 ? Promise.reject({ message: false }) : Promise.resolve()),
      getPermissions: () => Promise.resolve(undefined),
    };
    render(
      <TestMemoryRouter initialEntries={[{ pathname: groups.routes.form, state: { company, domain, group: ops, mode: 'view' } }]}>
        <AdminContext
          dataProvider={createDataProvider({ resources: registry })}
          authProvider={authProvider}
          i18nProvider={i18nProvider}
          store={memoryStore()}
        >
          <DeclaredRoute declaration={groups} screen={GroupForm} />
        </AdminContext>
      </TestMemoryRouter>,
    );
    await userEvent.click(await screen.findByRole('tab', { name: 'Members' }));
    await waitFor(() => expect(logout).toHaveBeenCalled());
    expect(screen.queryByText('authentication error')).not.toBeInTheDocument();
  });
});
