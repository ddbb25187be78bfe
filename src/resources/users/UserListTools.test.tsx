import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { EVERY_PERMISSION, mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { users } from './index';
import UserList from './UserList';

const USERS_URL = '/api/companys/acme/domainNames/main/users';
const GROUPS_URL = '/api/companys/acme/domainNames/main/groups';
const people = [
  { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active', createdAt: '2026-11-20T10:00:00.000Z', lastSignInAt: null },
  { id: 'u2', username: 'grace', displayName: 'Grace', email: 'grace@globex.com', status: 'active', createdAt: '2026-11-21T10:00:00.000Z', lastSignInAt: null },
  { id: 'u3', username: 'linus', displayName: 'Linus', email: 'linus@example.com', status: 'active', createdAt: '2026-11-22T10:00:00.000Z', lastSignInAt: null },
];
const staff = { id: 'staff', name: 'staff', displayName: 'Staff', email: 'staff@example.com', status: 'active' };

/** Users and groups lists, the bulk routes ({ changed }: all the ids), the member routes (echo). */
function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://x');
  if (request.method === 'GET' && url.pathname === GROUPS_URL) {
    return { json: [staff], headers: { 'Content-Range': 'groups 0-0/1' } };
  }
  if (request.method === 'GET') return { json: people, headers: { 'Content-Range': 'users 0-2/3' } };
  if (url.pathname.startsWith(`${USERS_URL}/`)) return { json: { changed: JSON.parse(request.body ?? '{}').ids } };
  return { json: JSON.parse(request.body ?? '[]') };
}

const open = (pathname = users.routes.list) => renderScreen(users, UserList, pathname, { notifications: true, authProvider });
const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;
const lastList = (requests: RecordedRequest[]) => readable(requests.filter((request) => request.method === 'GET' && request.url.includes(`${USERS_URL}?`)).at(-1)!.url);

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  localStorage.clear();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('users list filters', () => {
  it('Add filter offers the declared filters; one chosen is sent and carried in the address, so the filtered list is a link', async () => {
    const { requests } = mockFetch(provider);
    const { addresses } = open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Add filter' }));
    const menu = await screen.findByRole('menu');
    const offered = within(menu).getAllByRole('menuitemcheckbox').map((item) => item.textContent);
    for (const label of ['Created', 'Last sign-in', 'Never signed in', 'In no group', 'Member of group', 'E-mail domain', 'Blocked', 'E-mail verified']) {
      expect(offered).toContain(label);
    }
    // never a field's name
    expect(offered.join(' ')).not.toMatch(/neverSignedIn|lastSignInAt|emailDomain/);
    await userEvent.click(within(menu).getByRole('menuitemcheckbox', { name: 'Never signed in' }));
    await waitFor(() => expect(lastList(requests)).toContain('filter={"neverSignedIn":true}'));
    await waitFor(() => expect(decodeURIComponent(addresses.at(-1)!)).toContain('"neverSignedIn":true'));
  });

  it('Locked finds the users locked now: the provider filters (filter.locked)', async () => {
    const { requests } = mockFetch(provider);
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Add filter' }));
    await userEvent.click(within(await screen.findByRole('menu')).getByRole('menuitemcheckbox', { name: 'Locked' }));
    await waitFor(() => expect(lastList(requests)).toContain('filter={"locked":true}'));
  });

  it('a date preset asks for the last days from the start of the first of them; an e-mail domain is typed', async () => {
    const { requests } = mockFetch(provider);
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Add filter' }));
    await userEvent.click(within(await screen.findByRole('menu')).getByRole('menuitemcheckbox', { name: 'Created' }));
    const since = new Date();
    since.setHours(0, 0, 0, 0);
    since.setDate(since.getDate() - 6);
    await waitFor(() => expect(lastList(requests)).toContain(`condition=createdAt,>=,${since.toISOString()}`));
    expect(lastList(requests)).not.toContain('createdAt_days');
    expect(screen.getByRole('combobox', { name: 'Created' })).toHaveTextContent('Last 7 days');

    await userEvent.click(screen.getByRole('button', { name: 'Add filter' }));
    await userEvent.click(within(await screen.findByRole('menu')).getByRole('menuitemcheckbox', { name: 'E-mail domain' }));
    await userEvent.type(await screen.findByLabelText('E-mail domain'), 'globex.com');
    await waitFor(() => expect(lastList(requests)).toContain('"emailDomain":"globex.com"'));
  });

  it('a filtered address opens the list filtered', async () => {
    const { requests } = mockFetch(provider);
    open(`${users.routes.list}?filter=${encodeURIComponent(JSON.stringify({ inNoGroup: true, lastSignInAt_days: 30 }))}`);
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await waitFor(() => expect(lastList(requests)).toContain('filter={"inNoGroup":true}'));
    expect(lastList(requests)).toMatch(/condition=lastSignInAt,>=,\d{4}-/);
  });
});

describe('users list saved views', () => {
  it("saves the list's filters under a name and brings them back from the plain list", async () => {
    const { requests } = mockFetch(provider);
    const { addresses } = open(`${users.routes.list}?filter=${encodeURIComponent(JSON.stringify({ neverSignedIn: true }))}`);
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Saved views' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Save current view...' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save current view as' });
    await userEvent.type(within(dialog).getByLabelText('View name'), 'Never signed in');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    // the filter taken off (its cross), then the view chosen
    await userEvent.click(screen.getByRole('button', { name: 'Saved views' }));
    expect(await screen.findByRole('menuitem', { name: 'Remove view "Never signed in"' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(within(screen.getByLabelText('Never signed in').closest('[data-source]')!).getByRole('button'));
    await waitFor(() => expect(lastList(requests)).not.toContain('neverSignedIn'));
    await userEvent.click(screen.getByRole('button', { name: 'Saved views' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Never signed in' }));
    await waitFor(() => expect(lastList(requests)).toContain('filter={"neverSignedIn":true}'));
    expect(decodeURIComponent(addresses.at(-1)!)).toContain('"neverSignedIn":true');
  });
});

describe('users list columns', () => {
  it('the column chooser offers labels, never field names; a column chosen shows and is exported', async () => {
    const { requests } = mockFetch((request) => (request.url.includes('/export.csv') ? { json: 'x' } : provider(request)));
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:csv' }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    expect(screen.queryByRole('columnheader', { name: /Created/ })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Columns' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['Name', 'Email', 'User Name', 'Created', 'Last sign-in', 'Groups', 'Updated', 'Deleted', 'Deleted by']);
    await userEvent.click(screen.getByLabelText('Created'));
    await userEvent.keyboard('{Escape}');
    expect(await screen.findByRole('columnheader', { name: /Created/ })).toBeInTheDocument();
    // the column chosen is asked of the provider from then on
    await waitFor(() => expect(lastList(requests)).toContain('fields=displayName,email,createdAt,username,status,blockedAt&'));

    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(requests.some((request) => request.url.includes('/export.csv'))).toBe(true));
    const url = readable(requests.find((request) => request.url.includes('/export.csv'))!.url);
    expect(url).toContain('columns=id,displayName,email,createdAt');
    expect(url).toContain('labels=["ID","Name","Email","Created"]');
  });

  it('offers page sizes from the specification\'s 3 up to 100', async () => {
    mockFetch(provider);
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('combobox', { name: 'Rows per page' }));
    expect((await screen.findAllByRole('option')).map((option) => option.textContent)).toEqual(['3', '25', '50', '100']);
  });
});

describe('users list bulk actions', () => {
  it('Add to group: a group picked, confirmed with the count, one all-or-none call, a notification of how many', async () => {
    const { requests } = mockFetch(provider);
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('Grace')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Add to group' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add 2 users to a group' });
    const submit = within(dialog).getByRole('button', { name: 'Add to group (2)' });
    expect(submit).toBeDisabled();
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Group' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Staff' }));
    await userEvent.click(submit);

    await waitFor(() => expect(requests.some((request) => request.method === 'POST')).toBe(true));
    const post = requests.find((request) => request.method === 'POST')!;
    expect(readable(post.url)).toBe(`${GROUPS_URL}/staff/members`);
    expect(JSON.parse(post.body!)).toEqual([
      { id: 'u1', type: 'user' },
      { id: 'u2', type: 'user' },
    ]);
    expect(await screen.findByText('2 users added to Staff')).toBeInTheDocument();
  });

  it('Remove from group sends the selection as the member routes\' list body', async () => {
    const { requests } = mockFetch(provider);
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(within(rowOf('Linus')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Remove from group' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove 1 user from a group' });
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Group' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Staff' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove from group (1)' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'DELETE')).toBe(true));
    const removal = requests.find((request) => request.method === 'DELETE')!;
    expect(readable(removal.url)).toBe(`${GROUPS_URL}/staff/members`);
    expect(JSON.parse(removal.body!)).toEqual([{ id: 'u3', type: 'user' }]);
    expect(await screen.findByText('1 user removed from Staff')).toBeInTheDocument();
  });

  it.each([
    ['Block', 'block', 'Block 2 users?', '2 users blocked'],
    ['Unblock', 'unblock', 'Unblock 2 users?', '2 users unblocked'],
    ['Sign out everywhere', 'signOutEverywhere', 'Sign out 2 users everywhere?', '2 users signed out everywhere'],
    ['Send reset link', 'sendResetLink', 'E-mail 2 users a reset link?', 'Reset link sent to 2 users'],
  ])('%s asks first, naming how many, posts the ids once, says how many changed and reads the list again', async (button, route, question, done) => {
    const { requests } = mockFetch(provider);
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('Grace')).getByRole('checkbox'));
    const listsBefore = requests.filter((request) => request.method === 'GET' && request.url.includes(`${USERS_URL}?`)).length;
    await userEvent.click(screen.getByRole('button', { name: button }));
    const dialog = await screen.findByRole('dialog', { name: question });
    expect(requests.some((request) => request.method === 'POST')).toBe(false);
    await userEvent.click(within(dialog).getByRole('button', { name: button }));
    expect(await screen.findByText(done)).toBeInTheDocument();
    const posts = requests.filter((request) => request.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(readable(posts[0].url)).toBe(`${USERS_URL}/${route}`);
    expect(JSON.parse(posts[0].body!)).toEqual({ ids: ['u1', 'u2'] });
    await waitFor(() => expect(requests.filter((request) => request.method === 'GET' && request.url.includes(`${USERS_URL}?`)).length).toBeGreaterThan(listsBefore));
  });

  it('an action the roles do not allow is disabled and says which roles would', async () => {
    const support = EVERY_PERMISSION.filter((permission) => !['users:block', 'groups:write'].includes(permission));
    mockFetch((request) => (request.url.endsWith('/api/roles') ? { json: { roles: [{ id: 'owner', name: 'Owner', description: '', permissions: EVERY_PERMISSION }] } } : provider(request)), {
      permissions: support,
    });
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Block' })).toBeDisabled());
    expect(screen.getByRole('button', { name: 'Add to group' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Send reset link' })).toBeEnabled();
    await userEvent.hover(screen.getByRole('button', { name: 'Block' }).parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Owner');
  });
});

describe('users list total, counted after the page (total=deferred)', () => {
  /** The page uncounted (`*`), the follow-up count as `count` says: a number, or a failure. */
  const uncounted = (count: number | 'fails') => (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://x');
    if (request.method === 'GET' && url.pathname === USERS_URL) {
      if (url.searchParams.get('total') === 'deferred') return { json: people, headers: { 'Content-Range': 'users 0-2/*' } };
      if (count === 'fails') return { status: 503, json: { statusCode: 503, error: 'Service Unavailable', message: 'busy' } };
      return { json: people.slice(0, 1), headers: { 'Content-Range': `users 0-0/${count}` } };
    }
    return provider(request);
  };

  it('shows the page first, then asks the same list for its total and pages by it', async () => {
    const { requests } = mockFetch(uncounted(1234));
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await screen.findByText('1-3 of 1234');
    const lists = requests.filter((request) => request.method === 'GET' && request.url.includes(`${USERS_URL}?`)).map((request) => readable(request.url));
    const page = lists.find((url) => url.includes('total=deferred'))!;
    const count = lists.find((url) => !url.includes('total=deferred'))!;
    expect(page).toContain('range=[0,2]');
    // the page asks for what the list shows and reads only (docs/CONSOLE.md, "Lists")
    expect(page).toContain('fields=displayName,email,username,status,blockedAt&');
    // the same list (filter, sort, status) for one row, counted
    expect(count).toContain('range=[0,0]');
    const withoutPaging = (url: string) => url.replace('total=deferred&', '').replace(/range=\[[^\]]*\]&?/, '').replace(/fields=[^&]*&?/, '');
    expect(withoutPaging(count)).toBe(withoutPaging(page));
    expect(screen.getByRole('button', { name: 'Page 2' })).toBeInTheDocument();
  });

  it('says "of more than" and still offers the next page while the total is unknown', async () => {
    mockFetch(uncounted('fails'));
    open();
    await screen.findByText('Ada', {}, { timeout: 5000 });
    await screen.findByText('1-3 of more than 3');
    expect(screen.getByRole('button', { name: 'Next page' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    // the export does not wait for a count: the page has rows
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
  });
});
