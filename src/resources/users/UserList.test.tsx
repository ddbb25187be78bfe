import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { users } from './index';
import UserList from './UserList';

const USERS_URL = '/api/companys/acme/domainNames/main/users';
const people = [
  { id: 'u1', username: 'ada', displayName: 'Ada', notes: '', email: 'ada@example.com', status: 'active' },
  { id: 'u2', username: 'grace', displayName: 'Grace', notes: '', email: 'grace@example.com', status: 'active' },
  { id: 'u3', username: 'linus', displayName: 'Linus', notes: '', email: 'linus@example.com', status: 'active' },
];

/** Answers list pages from `total` generated users (the first three are `people`), echoes writes. */
function provider(total = 7) {
  return (request: RecordedRequest) => {
    if (request.method === 'GET') {
      const [start, end] = JSON.parse(new URL(request.url, 'http://x').searchParams.get('range') ?? '[0,2]');
      const rows = [];
      for (let index = start; index <= Math.min(end, total - 1); index++) {
        rows.push(people[index] ?? { id: `u${index + 1}`, username: `user${index + 1}`, displayName: `User ${index + 1}`, email: `user${index + 1}@example.com`, status: 'active' });
      }
      return { json: rows, headers: { 'Content-Range': `users ${start}-${start + rows.length - 1}/${total}` } };
    }
    return { json: JSON.parse(request.body ?? '[]') };
  };
}

const open = (pathname: string) => renderScreen(users, UserList, pathname);
const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;
const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('active users list', () => {
  it('pages active users from the server, 3 a page with a window of 4 page numbers, columns Name and Email', async () => {
    const { requests } = mockFetch(provider(20));
    open(users.routes.list);
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    // headers are labels, never field names
    expect(screen.getByRole('columnheader', { name: /^Name/ })).toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: /displayName/ })).not.toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: /Email/ })).toBeInTheDocument();
    const url = readable(requests[0].url);
    expect(url).toContain(`${USERS_URL}?`);
    expect(url).toContain('range=[0,2]');
    expect(url).toContain('condition=status,!=,deleted');
    // 20 users, 7 pages: only four page numbers at once.
    expect(screen.getAllByRole('button', { name: /^Page \d+$/ })).toHaveLength(4);
    expect(screen.getByRole('button', { name: 'New' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Recover' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Purge' })).not.toBeInTheDocument();
  });

  it('searches with filter q', async () => {
    const { requests } = mockFetch(provider());
    open(users.routes.list);
    await screen.findByText('Ada');
    await userEvent.type(screen.getByPlaceholderText('Search'), 'gra');
    await waitFor(() => expect(readable(requests.at(-1)!.url)).toContain('filter={"q":"gra"}'));
  });

  it('Delete confirms first, then soft-deletes the whole selection with one PUT of status deleted', async () => {
    const { requests } = mockFetch(provider());
    open(users.routes.list);
    await screen.findByText('Ada');
    const deleteButton = screen.getByRole('button', { name: 'Delete' });
    expect(deleteButton).toBeDisabled();
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('Grace')).getByRole('checkbox'));
    await userEvent.click(deleteButton);
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Delete 2 item(s)?');
    expect(writes(requests)).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    const [put] = writes(requests);
    expect(`${put.method} ${put.url}`).toBe(`PUT ${USERS_URL}`);
    expect(JSON.parse(put.body!)).toEqual([
      { id: 'u1', status: 'deleted' },
      { id: 'u2', status: 'deleted' },
    ]);
  });

  it('says what to do next when there are no users', async () => {
    mockFetch(provider(0));
    open(users.routes.list);
    expect(await screen.findByText('No users yet. Choose New to create the first user of this domain.')).toBeInTheDocument();
  });

  it('the status filter moves to the deleted list; a row opens the user form', async () => {
    mockFetch(provider());
    const { locations } = open(users.routes.list);
    // the row's first column is a link to the user's address (docs/CONSOLE.md, "Routes")
    await userEvent.click(await screen.findByRole('link', { name: 'Ada' }));
    await waitFor(() => expect(locations.at(-1)).toMatch(/^\/users\/[^/]+$/));
    cleanup();
    const second = open(users.routes.list);
    await screen.findByText('Ada');
    await userEvent.click(within(screen.getByRole('group', { name: 'Status' })).getByRole('button', { name: 'Deleted' }));
    await waitFor(() => expect(second.locations.at(-1)).toBe(users.routes.deleted));
  });

  it("exports the whole search through the provider's streamed export, the id and the columns shown under their headers", async () => {
    const { requests } = mockFetch((request) =>
      request.url.includes('/export.csv') ? { json: 'ID,Name,Email\r\nu1,Ada,ada@example.com\r\n' } : provider(1001)(request),
    );
    let csv: Blob | undefined;
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (blob: Blob) => ((csv = blob), 'blob:csv') }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    open(users.routes.list);
    await screen.findByText('Ada');
    await userEvent.type(screen.getByPlaceholderText('Search'), 'example');
    await waitFor(() => expect(readable(requests.at(-1)!.url)).toContain('"q":"example"'));
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(click).toHaveBeenCalled());

    const exports = requests.filter((request) => request.url.includes('/export.csv'));
    expect(exports).toHaveLength(1);
    const url = readable(exports[0].url);
    expect(url).toContain(`${USERS_URL}/export.csv?`);
    expect(url).toContain('filter={"q":"example"}');
    expect(url).toContain('condition=status,!=,deleted');
    expect(url).toContain('sort=["displayName","ASC"]');
    expect(url).toContain('columns=id,displayName,email');
    expect(url).toContain('labels=["ID","Name","Email"]');
    expect(url).not.toContain('range=');
    expect(exports[0].headers.get('Authorization')).toBe('Bearer t');
    expect(await csv!.text()).toContain('u1,Ada,ada@example.com');
  });
});

describe('deleted users list', () => {
  it('lists deleted users and offers Recover and Purge instead of New and Delete', async () => {
    const { requests } = mockFetch(provider());
    open(users.routes.deleted!);
    await screen.findByText('Ada');
    expect(readable(requests[0].url)).toContain('condition=status,=,deleted');
    expect(screen.getByRole('button', { name: 'Recover' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Purge' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
  });

  it('Recover sets the selection active in one PUT', async () => {
    const { requests } = mockFetch(provider());
    open(users.routes.deleted!);
    await screen.findByText('Ada');
    await userEvent.click(within(rowOf('Linus')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Recover' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`PUT ${USERS_URL}`);
    expect(JSON.parse(writes(requests)[0].body!)).toEqual([{ id: 'u3', status: 'active' }]);
  });

  it('Purge of one user is confirmed by typing its user name, then deletes it for good', async () => {
    const { requests } = mockFetch(provider());
    open(users.routes.deleted!);
    await screen.findByText('Ada');
    await userEvent.click(within(rowOf('Grace')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Purge' }));
    const dialog = await screen.findByRole('dialog');
    const purge = within(dialog).getByRole('button', { name: 'Purge' });
    expect(purge).toBeDisabled();
    await userEvent.type(within(dialog).getByLabelText('Type grace to confirm'), 'grac');
    expect(purge).toBeDisabled();
    await userEvent.type(within(dialog).getByLabelText('Type grace to confirm'), 'e');
    await userEvent.click(purge);
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`DELETE ${USERS_URL}`);
    expect(JSON.parse(writes(requests)[0].body!)).toEqual(['u2']);
  });

  it('Purge of several users is confirmed by typing their count', async () => {
    const { requests } = mockFetch(provider());
    open(users.routes.deleted!);
    await screen.findByText('Ada');
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('Linus')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Purge' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText(/Type the number of selected items \(2\)/), '2{Enter}');
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(JSON.parse(writes(requests)[0].body!)).toEqual(['u1', 'u3']);
  });

  it('says where deleted users come from when there are none', async () => {
    mockFetch(provider(0));
    open(users.routes.deleted!);
    expect(await screen.findByText(/No deleted users\./)).toBeInTheDocument();
  });
});
