/**
 * Sign-in logs (docs/CONSOLE.md, "Sign-in logs") in the whole console: the menu entry, the
 * server-paged list of the domain's sign-in events with readable outcomes, names of users and
 * applications, filters and the empty state. fetch is mocked at the network edge and answers like
 * the provider (server/api/signInEvents.ts, users, applications).
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { clearSession } from '../../session/session';
import { signedInAs } from '../../test/session';

const { default: App } = await import('../../App');

const BASE = '/api/companys/acme/domainNames/main';
const EVENTS = `${BASE}/signInEvents`;
const LONG_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.com', status: 'active' };
interface EventRow {
  id: string;
  occurredAt: string;
  outcome: string;
  clientId: string;
  userId: string | null;
  login: string | null;
  detail: string | null;
  ip: string;
  userAgent: string;
}
const events: EventRow[] = [
  { id: '3', occurredAt: '2026-03-02T10:00:00.000Z', outcome: 'wrong_password', clientId: 'portal', userId: 'u1', login: 'ada@example.com', detail: null, ip: '203.0.113.7', userAgent: LONG_AGENT },
  { id: '2', occurredAt: '2026-03-01T09:00:00.000Z', outcome: 'unknown_user', clientId: 'gone-app', userId: null, login: 'nobody@example.com', detail: null, ip: '198.51.100.1', userAgent: 'curl/8' },
  { id: '1', occurredAt: '2026-02-28T08:00:00.000Z', outcome: 'success', clientId: 'portal', userId: 'u1', login: 'ada', detail: 'consent asked', ip: '203.0.113.7', userAgent: 'curl/8' },
  // nothing typed (a refresh): the user's id stands in, so the link has a name
  { id: '0', occurredAt: '2026-02-27T08:00:00.000Z', outcome: 'refresh_reuse', clientId: 'portal', userId: 'u1', login: null, detail: null, ip: '203.0.113.7', userAgent: 'curl/8' },
];

function provider(rows: typeof events) {
  return (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://console');
    const filter = JSON.parse(url.searchParams.get('filter') ?? '{}') as Record<string, unknown>;
    const page = (name: string, found: unknown[]) => ({ json: found, headers: { 'Content-Range': `${name} 0-${found.length - 1}/${found.length}` } });
    if (url.pathname === EVENTS) return page('signInEvents', rows.filter((row) => !filter.outcome || row.outcome === filter.outcome));
    if (url.pathname === `${BASE}/users`) return page('users', [ada]);
    // the applications of the domain: "gone-app" was purged, so only its client id remains
    if (url.pathname === '/api/acme/main/application') return page('application', [{ id: 'portal', client_id: 'portal', client_name: 'Customer Portal' }]);
    return { json: [], headers: { 'Content-Range': 'x */0' } };
  };
}

const eventLists = (requests: RecordedRequest[]) =>
  requests.filter((request) => new URL(request.url, 'http://x').pathname === EVENTS).map((request) => readable(request.url));
const rowOf = (text: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(text))!;

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

describe('Sign-in logs', () => {
  it('lists the domain sign-ins newest first, with outcomes, users and applications in words', async () => {
    const { requests } = mockFetch(provider(events));
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);

    await userEvent.click(await screen.findByRole('menuitem', { name: 'Users' }, { timeout: 5000 }));
    const entries = within(document.getElementById('menu-users')!);
    expect(entries.getAllByRole('menuitem').map((item) => item.textContent).slice(0, 3)).toEqual(['All users', 'Deleted users', 'Sign-in logs']);
    await userEvent.click(entries.getByRole('menuitem', { name: 'Sign-in logs' }));

    expect(await screen.findByText('Wrong password', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/sign-in-logs');
    expect(eventLists(requests)[0]).toContain('sort=["occurredAt","DESC"]');
    expect(eventLists(requests)[0]).toContain('range=[0,14]');
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Time', 'Outcome', 'User', 'Application', 'IP address', 'User agent']);
    // only the time sorts; a read-only log has no checkboxes
    expect(within(screen.getByRole('columnheader', { name: /Time/ })).getByRole('button')).toBeInTheDocument();
    expect(within(screen.getByRole('columnheader', { name: 'Outcome' })).queryByRole('button')).toBeNull();
    expect(screen.queryAllByRole('checkbox')).toEqual([]);

    // the application's name, read once for the page; a purged one keeps its client id
    await waitFor(() => expect(within(rowOf('Wrong password')).getByText('Customer Portal')).toBeInTheDocument(), { timeout: 5000 });
    expect(within(rowOf('Unknown user')).getByText('gone-app')).toBeInTheDocument();
    // (the Application filter reads its choices apart)
    const applicationReads = requests.filter((request) => request.url.startsWith('/api/acme/main/application?') && readable(request.url).includes('"id":['));
    expect(applicationReads).toHaveLength(1);
    expect(readable(applicationReads[0].url)).toContain('"id":["portal","gone-app"]');

    // the time in the browser's locale, the instant on the element
    const time = within(rowOf('Wrong password')).getByText(new Date(events[0].occurredAt).toLocaleString());
    expect(time.closest('time')).toHaveAttribute('datetime', events[0].occurredAt);
    // the user agent cut by the style, whole in the page for screen readers
    expect(within(rowOf('Wrong password')).getByText(LONG_AGENT)).toHaveStyle({ textOverflow: 'ellipsis' });

    // a known user is a link to the user screen; an unknown login is plain text
    expect(within(rowOf('Unknown user')).queryByRole('link', { name: 'nobody@example.com' })).toBeNull();
    expect(within(rowOf('Refresh token reused')).getByRole('link', { name: 'u1' })).toHaveAttribute('href', '/users/u1?company=acme&domain=main');
    // the application opens at its address too
    expect(within(rowOf('Wrong password')).getByRole('link', { name: 'Customer Portal' })).toHaveAttribute('href', '/applications/portal?company=acme&domain=main');
    await userEvent.click(await within(rowOf('Wrong password')).findByRole('link', { name: 'ada@example.com' }, { timeout: 5000 }));
    await waitFor(() => expect(window.location.pathname).toBe('/users/u1'));
    expect(await screen.findByDisplayValue('Ada Lovelace', {}, { timeout: 5000 })).toBeInTheDocument();
  }, 60_000);

  it('filters by outcome, user, application and days, opens an event, and says when nothing matches', async () => {
    const { requests } = mockFetch(provider(events));
    window.history.replaceState(null, '', '/sign-in-logs');
    render(<App />);
    await screen.findByText('Wrong password', {}, { timeout: 5000 });

    await userEvent.click(screen.getByRole('combobox', { name: 'Outcome' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Consent denied' }));
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('"outcome":"consent_denied"'), { timeout: 5000 });
    expect(await screen.findByText('No sign-in attempts match these filters.', {}, { timeout: 5000 })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('combobox', { name: 'Outcome' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Clear value' }));
    await screen.findByText('Wrong password', {}, { timeout: 5000 });

    await userEvent.click(screen.getByRole('combobox', { name: 'User' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Ada Lovelace' }, { timeout: 5000 }));
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('"userId":"u1"'), { timeout: 5000 });

    await userEvent.click(screen.getByRole('combobox', { name: 'Application' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Customer Portal' }, { timeout: 5000 }));
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('"clientId":"portal"'), { timeout: 5000 });

    await userEvent.type(screen.getByLabelText('Time from'), '2026-03-01');
    await userEvent.type(screen.getByLabelText('Time until'), '2026-03-02');
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('condition=occurredAt,<,2026-03-03'), { timeout: 5000 });
    expect(eventLists(requests).at(-1)).toContain('condition=occurredAt,>=,2026-03-01');

    // a row opens the event, read-only, with what the list leaves out
    const opened = await screen.findByRole('link', { name: new Date(events[2].occurredAt).toLocaleString() }, { timeout: 5000 });
    expect(opened).toHaveAttribute('href', `/sign-in-logs/${events[2].id}?company=acme&domain=main`);
    await userEvent.click(opened);
    await waitFor(() => expect(window.location.pathname).toBe(`/sign-in-logs/${events[2].id}`));
    // the record screen loads on first use (with the other lazily loaded parts)
    expect(await screen.findByDisplayValue('consent asked', {}, { timeout: 20_000 })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Time' })).toHaveValue(new Date(events[2].occurredAt).toLocaleString());
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Close' })).toBeInTheDocument();
  }, 60_000);

  it('says so when the domain has no sign-in yet', async () => {
    mockFetch(provider([]));
    window.history.replaceState(null, '', '/sign-in-logs');
    render(<App />);
    expect(await screen.findByText('No sign-in attempts recorded yet.', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
  }, 30_000);
});
