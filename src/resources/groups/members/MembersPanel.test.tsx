import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type RecordedRequest } from '../../../test/fetchMock';
import { renderScreen } from '../../../test/renderScreen';
import { clearSession, updateSession } from '../../../session/session';
import GroupForm from '../GroupForm';
import { groups } from '../index';

const company = { id: 'acme', name: 'acme' };
const domain = { id: 'main', name: 'main' };
const administratorsGroup = { id: 'administrators', name: 'administrators', displayName: 'Administrators', email: 'a@example.com', status: 'active' };
const BASE = '/api/companys/acme/domainNames/main';

/** The administrators group holds Ada (an administrator), Bob (a deleted user) and maybe a nested group. */
function provider(members: { id: string; displayName: string; type: string }[], administrators = [{ id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com' }]) {
  return (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://x');
    if (url.pathname === `${BASE}/administrators`) return { json: administrators };
    if (request.method === 'GET' && url.pathname.endsWith('/members')) {
      return { json: members, headers: { 'Content-Range': `members 0-${members.length - 1}/${members.length}` } };
    }
    return { json: [] };
  };
}

async function openMembers(group: object) {
  const rendered = renderScreen(groups, GroupForm, { pathname: groups.routes.form, state: { company, domain, group, mode: 'view' } });
  await userEvent.click(await screen.findByRole('tab', { name: 'Members' }));
  return rendered;
}

const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('group Members tab', () => {
  it('names the group and leads back to the groups list', async () => {
    mockFetch(provider([{ id: 'u1', displayName: 'Ada', type: 'user' }]));
    const { locations } = await openMembers({ id: 'ops', name: 'ops', displayName: 'Operations', email: 'o@example.com' });
    expect(await screen.findByRole('heading', { name: 'Members of Operations' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Back to groups' }));
    await waitFor(() => expect(locations.at(-1)).toBe(groups.routes.list));
  });

  it('does not offer removing the last administrator from administrators, naming them', async () => {
    const { requests } = mockFetch(
      provider([
        { id: 'u1', displayName: 'Ada', type: 'user' },
        { id: 'u2', displayName: 'Bob', type: 'user' },
      ]),
    );
    await openMembers(administratorsGroup);
    await screen.findByText('Bob');
    const remove = screen.getByRole('button', { name: 'Delete' });
    await userEvent.click(within(rowOf('Bob')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await waitFor(() => expect(remove).toBeDisabled());
    await userEvent.hover(remove.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Ada is the last administrator of this domain');
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it("greys Add member and Delete out, with the provider's reason, when the group gives a role the person may not give", async () => {
    const reason = 'Group administrators gives a role to its members: changing its members is giving or taking a role, which needs roles:write (the Owner or Administrator role).';
    const members = provider([{ id: 'u1', displayName: 'Ada', type: 'user' }]);
    const { requests } = mockFetch((request) =>
      new URL(request.url, 'http://x').pathname === `${BASE}/groups/administrators/rights`
        ? { json: { mayActOn: false, reason: 'no', membership: { givesRoles: true, allowed: false, reason } } }
        : members(request),
    );
    await openMembers(administratorsGroup);
    await screen.findByText('Ada');
    const add = screen.getByRole('button', { name: 'Add' });
    await waitFor(() => expect(add).toBeDisabled());
    await userEvent.hover(add.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('needs roles:write (the Owner or Administrator role)');
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    expect(screen.getByRole('button', { name: 'Delete' })).toBeDisabled();
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('leaves it to the provider when a nested group stays in administrators', async () => {
    mockFetch(
      provider([
        { id: 'u1', displayName: 'Ada', type: 'user' },
        { id: 'ops', displayName: 'Operations', type: 'group' },
      ]),
    );
    await openMembers(administratorsGroup);
    await screen.findByText('Operations');
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    // Ada may also be an administrator through Operations: only the provider knows.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.getByRole('button', { name: 'Delete' })).toBeEnabled();
  });

  it("a refused removal's message goes once a later Add succeeds", async () => {
    mockFetch((request) => {
      const url = new URL(request.url, 'http://x');
      if (request.method === 'DELETE') return { status: 409, json: { statusCode: 409, error: 'Conflict', message: 'domain main would have no active administrator left' } };
      if (url.pathname.endsWith('/candidates')) return { json: [{ id: 'u3', displayName: 'Grace', type: 'user' }], headers: { 'Content-Range': 'candidates 0-0/1' } };
      if (request.method === 'POST') return { json: [{ id: 'u3', displayName: 'Grace', type: 'user' }] };
      return provider([
        { id: 'u1', displayName: 'Ada', type: 'user' },
        { id: 'ops', displayName: 'Operations', type: 'group' },
      ])(request);
    });
    await openMembers(administratorsGroup);
    await screen.findByText('Operations');
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('would have no active administrator left');

    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(await within(dialog).findByRole('checkbox', { name: 'Select Grace' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.queryByText(/would have no active administrator left/)).not.toBeInTheDocument());
  });
});

describe('group Members tab: filters, links and export', () => {
  const people = [
    { id: 'u1', displayName: 'Ada', type: 'user', email: 'ada@globex.com' },
    { id: 'u2', displayName: 'Bob', type: 'user', email: 'bob@initech.com' },
    { id: 'ops', displayName: 'Operations', type: 'group', email: 'ops@globex.com' },
  ];
  const filterOf = (request: RecordedRequest) => new URL(request.url, 'http://x').searchParams.get('filter');
  const memberLists = (requests: RecordedRequest[]) => requests.filter((request) => /\/groups\/ops\/members\?/.test(request.url)).map(filterOf);

  /** The members as the provider filters them (type, e-mail domain, search). */
  function filtering(request: RecordedRequest) {
    const url = new URL(request.url, 'http://x');
    if (url.pathname.endsWith('/members/export.csv')) return { json: 'id,Display Name\r\n' };
    if (url.pathname.endsWith('/members')) {
      const filter = JSON.parse(url.searchParams.get('filter') ?? '{}') as { type?: string; emailDomain?: string; q?: string };
      const rows = people.filter(
        (member) =>
          (!filter.type || member.type === filter.type) &&
          (!filter.emailDomain || member.email.endsWith(`@${filter.emailDomain}`)) &&
          (!filter.q || `${member.displayName} ${member.email}`.toLowerCase().includes(filter.q.toLowerCase())),
      );
      return { json: rows, headers: { 'Content-Range': rows.length ? `members 0-${rows.length - 1}/${rows.length}` : 'members */0' } };
    }
    return { json: [] };
  }

  const ops = { id: 'ops', name: 'ops', displayName: 'Ops', email: 'o@example.com' };

  it('shows e-mails, filters by type, e-mail domain and search on the provider, and says when nothing matches', async () => {
    const { requests } = mockFetch(filtering);
    await openMembers(ops);
    expect(await screen.findByText('ada@globex.com')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Email' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('combobox', { name: 'Type' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Groups' }));
    await waitFor(() => expect(memberLists(requests).at(-1)).toBe('{"type":"group"}'));
    await waitFor(() => expect(screen.queryByText('Ada')).toBeNull());
    expect(screen.getByText('Operations')).toBeInTheDocument();

    await userEvent.type(screen.getByRole('searchbox', { name: 'E-mail domain' }), 'initech.com');
    await waitFor(() => expect(memberLists(requests).at(-1)).toBe('{"type":"group","emailDomain":"initech.com"}'));
    expect(await screen.findByText('No members match the search or filters. Change or clear them to see more.')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('combobox', { name: 'Type' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Users and groups' }));
    await userEvent.clear(screen.getByRole('searchbox', { name: 'E-mail domain' }));
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search' }), ' bob ');
    await waitFor(() => expect(memberLists(requests).at(-1)).toBe('{"q":"bob"}'));
    expect(await screen.findByText('bob@initech.com')).toBeInTheDocument();
    expect(screen.queryByText('Ada')).toBeNull();
  }, 60_000);

  it("links each member to its own record: a user's or a nested group's address", async () => {
    mockFetch(filtering);
    const { locations } = await openMembers(ops);
    const ada = await screen.findByRole('link', { name: 'Ada' });
    expect(ada).toHaveAttribute('href', '/users/u1?company=acme&domain=main');
    expect(screen.getByRole('link', { name: 'Operations' })).toHaveAttribute('href', '/groups/ops?company=acme&domain=main');
    // following it opens the member, never selects the row
    await userEvent.click(ada);
    await waitFor(() => expect(locations.at(-1)).toBe('/users/u1'));
  }, 60_000);

  it('exports the members as filtered, with their e-mail, under their headers', async () => {
    const { requests } = mockFetch(filtering);
    const createObjectURL = vi.fn(() => 'blob:x');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    await openMembers(ops);
    await screen.findByText('Ada');
    await userEvent.type(screen.getByRole('searchbox', { name: 'E-mail domain' }), 'globex.com');
    await waitFor(() => expect(memberLists(requests).at(-1)).toBe('{"emailDomain":"globex.com"}'));
    await waitFor(() => expect(screen.queryByText('Bob')).toBeNull());
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(requests.some((request) => request.url.includes('/members/export.csv'))).toBe(true));
    const exported = new URL(requests.find((request) => request.url.includes('/members/export.csv'))!.url, 'http://x');
    expect(exported.pathname).toBe(`${BASE}/groups/ops/members/export.csv`);
    expect(exported.searchParams.get('filter')).toBe('{"emailDomain":"globex.com"}');
    expect(exported.searchParams.get('columns')).toBe('id,displayName,email,type');
    expect(JSON.parse(exported.searchParams.get('labels')!)).toEqual(['ID', 'Display Name', 'Email', 'Type']);
  }, 60_000);

  it('a filter set is written to the address (&members=...), and an address carrying one opens the tab filtered', async () => {
    const { requests } = mockFetch(filtering);
    const { addresses } = await openMembers(ops);
    await screen.findByText('Ada');
    await userEvent.type(screen.getByRole('searchbox', { name: 'E-mail domain' }), 'globex.com');
    await waitFor(() => expect(decodeURIComponent(addresses.at(-1)!)).toContain('members={"emailDomain":"globex.com"}'));
    cleanup();

    const fresh = mockFetch(filtering);
    const group = { id: 'ops', name: 'ops', displayName: 'Operations', email: 'o@example.com' };
    renderScreen(groups, GroupForm, {
      pathname: '/groups/ops',
      search: `?company=acme&domain=main&tab=members&members=${encodeURIComponent('{"type":"group","nonsense":1}')}`,
      state: { company, domain, group, mode: 'view' },
    });
    expect(await screen.findByText('Operations', { selector: 'a' })).toBeInTheDocument();
    expect(memberLists(fresh.requests)[0]).toBe('{"type":"group"}');
    expect(screen.getByRole('combobox', { name: 'Type' })).toHaveTextContent('Groups');
    expect(requests.length).toBeGreaterThan(0);
  }, 60_000);

  it('reads only what it knows from the address', async () => {
    const { membersFromAddress } = await import('./MembersPanel');
    expect(membersFromAddress('{"q":"bo","type":"admin","emailDomain":3}')).toEqual({ q: 'bo', type: '', emailDomain: '' });
    expect(membersFromAddress('not json')).toEqual({ q: '', type: '', emailDomain: '' });
    expect(membersFromAddress('[1]')).toEqual({ q: '', type: '', emailDomain: '' });
    expect(membersFromAddress(null)).toEqual({ q: '', type: '', emailDomain: '' });
  });
});

describe("a group's address naming its Members tab", () => {
  it('opens the group on its Members tab (?tab=members); an unknown tab opens General', async () => {
    mockFetch(provider([{ id: 'u1', displayName: 'Ada', type: 'user' }]));
    const group = { id: 'ops', name: 'ops', displayName: 'Operations', email: 'o@example.com' };
    renderScreen(groups, GroupForm, { pathname: '/groups/ops', search: '?company=acme&domain=main&tab=members', state: { company, domain, group, mode: 'view' } });
    expect(await screen.findByRole('tab', { name: 'Members' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByRole('heading', { name: 'Members of Operations' })).toBeInTheDocument();
    cleanup();
    renderScreen(groups, GroupForm, { pathname: '/groups/ops', search: '?company=acme&domain=main&tab=nope', state: { company, domain, group, mode: 'view' } });
    expect(await screen.findByRole('tab', { name: 'General' })).toHaveAttribute('aria-selected', 'true');
  }, 60_000);
});
