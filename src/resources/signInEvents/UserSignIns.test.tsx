/**
 * A user's sign-ins (docs/CONSOLE.md, "A user's sign-ins"): the Sign-in logs list kept to one user
 * by a filter the panel fixes, with the outcome and time filters and the CSV export of that user's
 * events only. fetch is mocked at the network edge.
 */
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { permissionsOf } from '../../test/roles';
import { renderPanel } from '../../test/renderPanel';
import { clearSession } from '../../session/session';
import { signedInAs } from '../../test/session';
import UserSignIns from './UserSignIns';

const EVENTS = '/api/companys/acme/domainNames/main/signInEvents';
const events = [
  { id: '2', occurredAt: '2026-03-02T10:00:00.000Z', outcome: 'throttled', clientId: 'portal', userId: 'u1', login: 'ada', ip: '203.0.113.7', userAgent: 'curl/8' },
  { id: '1', occurredAt: '2026-03-01T10:00:00.000Z', outcome: 'success', clientId: 'portal', userId: 'u1', login: 'ada', ip: '203.0.113.7', userAgent: 'curl/8' },
];

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://console');
  if (url.pathname === EVENTS) return { json: events, headers: { 'Content-Range': 'signInEvents 0-1/2' } };
  return { json: [], headers: { 'Content-Range': 'x */0' } };
}

const eventLists = (requests: RecordedRequest[]) =>
  requests.filter((request) => new URL(request.url, 'http://x').pathname === EVENTS).map((request) => readable(request.url));

beforeEach(() => signedInAs('acme', 'main'));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe("a user's sign-ins", () => {
  it("asks only for the user's events, filters them by outcome and days, and exports them", async () => {
    const { requests } = mockFetch(provider);
    const { locations } = renderPanel(<UserSignIns userId="u1" />);
    expect(await screen.findByText('Too many attempts', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(eventLists(requests)[0]).toContain('filter={"userId":"u1"}');
    expect(eventLists(requests)[0]).toContain('sort=["occurredAt","DESC"]');
    // the user is fixed: no User filter; the address stays the user screen's
    expect(screen.queryByRole('combobox', { name: 'User' })).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Application' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('combobox', { name: 'Outcome' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Signed in' }));
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('"outcome":"success"'), { timeout: 5000 });
    expect(eventLists(requests).at(-1)).toContain('"userId":"u1"');
    await userEvent.type(screen.getByLabelText('Time from'), '2026-03-01');
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('condition=occurredAt,>=,2026-03-01'), { timeout: 5000 });
    expect(new Set(locations)).toEqual(new Set(['/users-new']));

    let csv: Blob | undefined;
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (blob: Blob) => ((csv = blob), 'blob:csv') }));
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(csv).toBeDefined(), { timeout: 5000 });
    // the whole of her events, streamed by the provider: her filter, no range, the columns under their headers
    const exported = requests.map((request) => readable(request.url)).filter((url) => url.startsWith(`${EVENTS}/export.csv?`));
    expect(exported).toHaveLength(1);
    expect(exported[0]).toContain('"userId":"u1"');
    expect(exported[0]).toContain('"outcome":"success"');
    expect(exported[0]).not.toContain('range=');
    expect(exported[0]).toContain('columns=id,occurredAt,outcome,login,userId,clientId,ip,userAgent,detail');
  }, 60_000);

  it("asks nothing a Support agent may not read: no applications, the application's id shown and typed", async () => {
    const { requests } = mockFetch(provider, { permissions: permissionsOf('support') });
    renderPanel(<UserSignIns userId="u1" />, '/users-new', authProvider);
    expect(await screen.findByText('Too many attempts', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getAllByText('portal')).toHaveLength(2);
    const application = await screen.findByRole('textbox', { name: 'Application' });
    await userEvent.type(application, 'portal');
    await waitFor(() => expect(eventLists(requests).at(-1)).toContain('"clientId":"portal"'), { timeout: 5000 });
    const asked = requests.map((request) => new URL(request.url, 'http://x').pathname);
    expect(asked.filter((path) => /\/application/.test(path))).toEqual([]);
  }, 60_000);

  it("an application manager's: the application by name, picked from the applications", async () => {
    const withApps = (request: RecordedRequest) =>
      new URL(request.url, 'http://x').pathname === '/api/acme/main/application'
        ? { json: [{ id: 'portal', client_id: 'portal', client_name: 'Customer Portal' }], headers: { 'Content-Range': 'application 0-0/1' } }
        : provider(request);
    const { requests } = mockFetch(withApps, { permissions: [...permissionsOf('support'), 'applications:read'] });
    renderPanel(<UserSignIns userId="u1" />, '/users-new', authProvider);
    expect((await screen.findAllByText('Customer Portal', {}, { timeout: 5000 })).length).toBeGreaterThan(0);
    expect(await screen.findByRole('combobox', { name: 'Application' })).toBeInTheDocument();
    expect(requests.some((request) => request.url.startsWith('/api/acme/main/application'))).toBe(true);
  }, 60_000);

  it('a row opens the event at its address', async () => {
    mockFetch(provider);
    const { locations } = renderPanel(<UserSignIns userId="u1" />);
    const time = await screen.findByRole('link', { name: new Date(events[0].occurredAt).toLocaleString() }, { timeout: 5000 });
    expect(time).toHaveAttribute('href', '/sign-in-logs/2?company=acme&domain=main');
    await userEvent.click(time);
    await waitFor(() => expect(locations.at(-1)).toBe('/sign-in-logs/2'));
  }, 60_000);
});
