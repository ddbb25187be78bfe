/**
 * A record's shareable address (docs/CONSOLE.md, "Routes"): opened without navigation state (a new
 * tab, a bookmark, a ticket) it reads the record where the address says, makes that company and
 * domain current when they are not, and shows the screen the list row opens; a record that cannot be
 * read there says "Not found, or not yours" and switches nothing. fetch is mocked at the network edge.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, Notification, TestMemoryRouter } from 'react-admin';
import { Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import { i18nProvider, loadScreenWords } from '../../i18n/i18nProvider';
import { clearSession, getSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { signedInAs } from '../../test/session';
import { auditEvents } from '../auditEvents';
import { DeclaredRoute } from '../DeclaredRoute';
import { registry } from '../registry';
import { users } from '../users';

await loadScreenWords();

const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.com', notes: '', status: 'active' };
const tess = { id: 'u3', username: 'tess', displayName: 'Tess Tester', email: 'tess@example.com', notes: '', status: 'active' };
const acme = { id: 'acme', name: 'acme', displayName: 'Acme', type: 'customer', parent: 'root' };
const change = { id: '7', occurredAt: '2026-03-01T10:00:00.000Z', resourceType: 'users', resourceId: 'u1', action: 'update', domainId: 'main', changes: {} };

const USERS = '/api/companys/acme/domainNames';

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://console');
  const path = decodeURIComponent(url.pathname);
  if (path === `${USERS}/main/users/u1`) return { json: ada };
  if (path === `${USERS}/test/users/u3`) return { json: tess };
  if (path === '/api/companys/acme') return { json: acme };
  if (path === `${USERS}/test`) return { json: { id: 'test', name: 'test', description: 'Test domain' } };
  if (path === '/api/companys/acme/auditEvents') {
    const ids = (JSON.parse(url.searchParams.get('filter') ?? '{}') as { id?: string[] }).id ?? [];
    const found = ids.includes('7') ? [change] : [];
    return { json: found, headers: { 'Content-Range': `auditEvents 0-${found.length}/${found.length}` } };
  }
  if (/\/(users|signInEvents|sessions|roleAssignments|factors)(\?|$)/.test(path) || path.endsWith('s')) {
    return { json: [], headers: { 'Content-Range': 'x */0' } };
  }
  // another tenant's records, and anything else, are not there
  return { status: 404, json: { statusCode: 404, error: 'Not Found', message: 'not found' } };
}

function open(entry: string) {
  const locations: string[] = [];
  render(
    <TestMemoryRouter initialEntries={[entry]} locationCallback={(location) => locations.push(`${location.pathname}${location.search}`)}>
      <AdminContext dataProvider={createDataProvider({ resources: registry })} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route path={users.routes.record} element={<DeclaredRoute declaration={users} kind="record" />} />
          <Route path={auditEvents.routes.record} element={<DeclaredRoute declaration={auditEvents} kind="record" />} />
          <Route path="/users" element={<p>The users list</p>} />
        </Routes>
        <Notification />
      </AdminContext>
    </TestMemoryRouter>,
  );
  return { locations };
}

const switchCalls = (requests: RecordedRequest[]) => requests.filter((request) => new URL(request.url, 'http://x').pathname === '/api/companys/acme');

beforeEach(() => signedInAs('acme', 'main'));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('record addresses', () => {
  it('open a user in a fresh tab: read where the address says, in view mode, nothing switched', async () => {
    const { requests } = mockFetch(provider);
    open('/users/u1?company=acme&domain=main');
    expect(await screen.findByDisplayValue('Ada Lovelace', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(switchCalls(requests)).toEqual([]);
    expect(getSession().domain?.id).toBe('main');
  }, 30_000);

  it('switch to another domain of the company, say so, and show its user', async () => {
    mockFetch(provider);
    const { locations } = open('/users/u3?company=acme&domain=test');
    expect(await screen.findByDisplayValue('Tess Tester', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(getSession().company?.id).toBe('acme');
    expect(getSession().domain?.id).toBe('test');
    expect(await screen.findByText('Now in Acme › test')).toBeInTheDocument();
    // the address stays the shareable one
    expect(locations.at(-1)).toBe('/users/u3?company=acme&domain=test');
  }, 30_000);

  it("say 'Not found, or not yours' for another tenant's record, switch nothing, and lead back", async () => {
    const { requests } = mockFetch(provider);
    const { locations } = open('/users/u1?company=globex&domain=main');
    expect(await screen.findByRole('heading', { name: 'Not found, or not yours' }, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByText(/There is no user "u1" that you can see here/)).toBeInTheDocument();
    expect(getSession().company?.id).toBe('acme');
    expect(switchCalls(requests)).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Back to All users' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/users'));
  }, 30_000);

  it('open an audit record, read from its log by id', async () => {
    const { requests } = mockFetch(provider);
    open('/audit-log/7?company=acme');
    expect(await screen.findByDisplayValue('u1', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(requests.some((request) => decodeURIComponent(request.url).includes('/api/companys/acme/auditEvents?filter={"id":["7"]}'))).toBe(true);
  }, 30_000);
});
