/**
 * The Audit log (docs/CONSOLE.md, "History and audit log") in the whole console: the menu entry, the
 * server-paged company log with actions and types in words, the changed records and actors opened
 * from their rows, filters, a row's changes, the CSV export and the empty state. fetch is mocked at
 * the network edge and answers like the provider (server/api/auditEvents.ts, users, groups).
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { clearSession, updateSession } from '../../session/session';
import { signedInAs } from '../../test/session';
import type { AuditEvent } from './vocabulary';

const { default: App } = await import('../../App');

const LOG = '/api/companys/acme/auditEvents';
const DOMAIN = '/api/companys/acme/domainNames/main';
const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.com', status: 'active' };
const ops = { id: 'ops', name: 'ops', displayName: 'Operations', email: 'ops@example.com', status: 'active' };

const actor = { actorUserId: 'u1', actorCompanyId: 'acme', actorDomainId: 'main', actorClientId: 'iam-console', actorIp: '203.0.113.7' };
const events: AuditEvent[] = [
  {
    id: '4',
    occurredAt: '2026-03-02T10:00:00.000Z',
    domainId: 'main',
    resourceType: 'groups',
    resourceId: 'ops',
    action: 'addMember',
    changes: { member: { after: { type: 'user', id: 'u1' } } },
    ...actor,
  },
  {
    id: '3',
    occurredAt: '2026-03-01T09:00:00.000Z',
    domainId: 'main',
    resourceType: 'users',
    resourceId: 'u1',
    action: 'update',
    changes: { displayName: { before: 'Ada', after: 'Ada Lovelace' }, password: { hidden: true } },
    ...actor,
  },
  {
    id: '2',
    occurredAt: '2026-02-28T08:00:00.000Z',
    domainId: 'other',
    resourceType: 'users',
    resourceId: 'u9',
    action: 'purge',
    changes: { username: { before: 'gone' } },
    // an administrator of the parent company, through another application
    actorUserId: 'boss',
    actorCompanyId: 'root',
    actorDomainId: 'default',
    actorClientId: 'ops-cli',
    actorIp: '198.51.100.1',
  },
];

function provider(rows: AuditEvent[]) {
  return (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://console');
    const filter = JSON.parse(url.searchParams.get('filter') ?? '{}') as Record<string, unknown>;
    const page = (name: string, found: unknown[]) => ({
      json: found,
      headers: { 'Content-Range': found.length ? `${name} 0-${found.length - 1}/${found.length}` : `${name} */0` },
    });
    if (url.pathname === LOG) {
      const found = rows.filter((row) => Object.entries(filter).every(([key, value]) => row[key as keyof AuditEvent] === value));
      return page('auditEvents', found);
    }
    const ids = (filter.id as string[] | undefined) ?? [];
    if (url.pathname === `${DOMAIN}/users`) return page('users', [ada].filter((user) => !ids.length || ids.includes(user.id)));
    if (url.pathname === `${DOMAIN}/groups`) return page('groups', [ops].filter((group) => !ids.length || ids.includes(group.id)));
    return page('x', []);
  };
}

const logLists = (requests: RecordedRequest[]) =>
  requests.filter((request) => new URL(request.url, 'http://x').pathname === LOG).map((request) => readable(request.url));
const rowOf = (text: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(text))!;

async function openAuditLog() {
  window.history.replaceState(null, '', '/dashboard');
  render(<App />);
  await userEvent.click(await screen.findByRole('menuitem', { name: 'Audit log' }, { timeout: 5000 }));
  await screen.findByText('Member added', {}, { timeout: 5000 });
}

beforeEach(() => {
  localStorage.clear();
  signedInAs('acme', 'main');
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('Audit log', () => {
  it("lists the company's changes newest first, with actions, types, records and actors in words", async () => {
    const { requests } = mockFetch(provider(events));
    await openAuditLog();
    expect(window.location.pathname).toBe('/audit-log');
    expect(logLists(requests)[0]).toContain('sort=["occurredAt","DESC"]');
    expect(logLists(requests)[0]).toContain('range=[0,14]');
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent).filter(Boolean)).toEqual([
      'Time',
      'Action',
      'Resource type',
      'Resource',
      'Actor',
      'Domain',
    ]);
    // only the time sorts; no checkboxes on a read-only log
    expect(within(screen.getByRole('columnheader', { name: 'Action' })).queryByRole('button')).toBeNull();
    expect(screen.queryAllByRole('checkbox')).toEqual([]);
    expect(within(rowOf('Member added')).getByText('Group')).toBeInTheDocument();

    // the actor of the current domain by name; one from elsewhere by id, with where they acted from
    await waitFor(() => expect(within(rowOf('Updated')).getAllByRole('link', { name: 'Ada Lovelace' })).toHaveLength(2), { timeout: 5000 });
    expect(within(rowOf('Purged')).getByText('boss')).toBeInTheDocument();
    expect(within(rowOf('Purged')).getByText('root / ops-cli')).toBeInTheDocument();
    // a record of the current domain is named and links to its address; a purged one of another domain is its id alone
    const group = await within(rowOf('Member added')).findByRole('link', { name: 'Operations' }, { timeout: 5000 });
    expect(group).toHaveAttribute('href', '/groups/ops?company=acme&domain=main');
    expect(within(rowOf('Updated')).getAllByRole('link', { name: 'Ada Lovelace' })[0]).toHaveAttribute('href', '/users/u1?company=acme&domain=main');
    expect(within(rowOf('Purged')).queryByRole('link', { name: 'u9' })).toBeNull();
    expect(within(rowOf('Purged')).getByText('u9')).toBeInTheDocument();
    // the page's users are read together (once for the Resource column, once for the Actor column at most)
    const userReads = requests.filter((request) => request.url.startsWith(`${DOMAIN}/users?`) && readable(request.url).includes('"id":['));
    expect(userReads.length).toBeLessThanOrEqual(2);

    // the changed group opens in its screen, in view mode
    await userEvent.click(group);
    await waitFor(() => expect(window.location.pathname).toBe('/groups/ops'), { timeout: 5000 });
    expect(await screen.findByRole('tab', { name: 'History' }, { timeout: 5000 })).toBeInTheDocument();
  }, 60_000);

  it("one record's changes: the address a History tab links to fills the Resource filter", async () => {
    const { requests } = mockFetch(provider(events));
    window.history.replaceState(null, '', `/audit-log?filter=${encodeURIComponent('{"resourceType":"users","resourceId":"u1"}')}`);
    render(<App />);
    expect(await screen.findByText('Updated', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(logLists(requests).at(-1)).toContain('filter={"resourceType":"users","resourceId":"u1"}');
    expect(screen.getByRole('textbox', { name: 'Resource' })).toHaveValue('u1');
    expect(screen.queryByText('Member added')).toBeNull();
  }, 60_000);

  it('a row expands to its changes: secrets hidden, members as text', async () => {
    mockFetch(provider(events));
    await openAuditLog();
    await userEvent.click(within(rowOf('Updated')).getByText('User'));
    const changes = await screen.findByRole('table', { name: 'Changes' }, { timeout: 5000 });
    expect(within(changes).getAllByRole('row').map((row) => Array.from(row.children).map((cell) => cell.textContent))).toEqual([
      ['Field', 'Before', 'After'],
      ['Display Name', 'Ada', 'Ada Lovelace'],
      ['Password', 'changed (hidden)'],
    ]);
    expect(screen.getByText(/Made through application iam-console by a user of company acme, domain main, from 203.0.113.7/)).toBeInTheDocument();

    await userEvent.click(within(rowOf('Member added')).getByText('Group'));
    await waitFor(() => expect(screen.getAllByRole('table', { name: 'Changes' })).toHaveLength(2), { timeout: 5000 });
    expect(screen.getByRole('rowheader', { name: 'Member' }).parentElement).toHaveTextContent('User u1');
  }, 60_000);

  it('filters by resource type, action, actor and time, and exports what is filtered, changes as JSON', async () => {
    const { requests } = mockFetch(provider(events));
    await openAuditLog();

    await userEvent.click(screen.getByRole('combobox', { name: 'Resource type' }));
    await userEvent.click(await screen.findByRole('option', { name: 'User' }));
    await waitFor(() => expect(logLists(requests).at(-1)).toContain('"resourceType":"users"'), { timeout: 5000 });
    await userEvent.click(screen.getByRole('combobox', { name: 'Action' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Updated' }));
    await waitFor(() => expect(logLists(requests).at(-1)).toContain('"action":"update"'), { timeout: 5000 });
    await waitFor(() => expect(screen.queryByText('Member added')).not.toBeInTheDocument(), { timeout: 5000 });
    expect(screen.getByRole('cell', { name: 'Updated' })).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Time from'), '2026-03-01');
    await waitFor(() => expect(logLists(requests).at(-1)).toContain('condition=occurredAt,>=,2026-03-01'), { timeout: 5000 });

    let csv: Blob | undefined;
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (blob: Blob) => ((csv = blob), 'blob:csv') }));
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(csv).toBeDefined(), { timeout: 5000 });
    // the provider's streamed export: the same filters, the columns shown, then the changes (as JSON)
    const exported = requests.map((request) => readable(request.url)).find((url) => url.includes(`${LOG}/export.csv?`))!;
    expect(exported).toContain('"resourceType":"users","action":"update"');
    expect(exported).toContain('condition=occurredAt,>=,2026-03-01');
    expect(exported).not.toContain('range=');
    expect(exported).toContain('columns=id,occurredAt,action,resourceType,resourceId,actorUserId,domainId,changes&');
    expect(exported.replaceAll('+', ' ')).toContain('labels=["ID","Time","Action","Resource type","Resource","Actor","Domain","Changes"]');

    // the actor: one of the domain's users, chosen by name, sent as the id
    await userEvent.click(screen.getByRole('combobox', { name: 'Actor' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Ada Lovelace' }, { timeout: 5000 }));
    await waitFor(() => expect(logLists(requests).at(-1)).toContain('"actorUserId":"u1"'), { timeout: 5000 });
  }, 60_000);

  it('says so when nothing is recorded, or nothing matches', async () => {
    mockFetch(provider([]));
    window.history.replaceState(null, '', '/audit-log');
    render(<App />);
    expect(await screen.findByText('No changes recorded yet.', {}, { timeout: 5000 })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('combobox', { name: 'Action' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Purged' }));
    expect(await screen.findByText('No changes match these filters.', {}, { timeout: 5000 })).toBeInTheDocument();
  }, 60_000);

  it('needs no domain: the actor is then typed as an id', async () => {
    const { requests } = mockFetch(provider(events));
    updateSession({ domain: undefined });
    window.history.replaceState(null, '', '/audit-log');
    render(<App />);
    expect(await screen.findByText('Member added', {}, { timeout: 5000 })).toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Actor' }), 'boss');
    await waitFor(() => expect(logLists(requests).at(-1)).toContain('"actorUserId":"boss"'), { timeout: 5000 });
    // nothing was asked of a domain
    expect(requests.every((request) => !request.url.includes('/domainNames/'))).toBe(true);
  }, 60_000);
});
