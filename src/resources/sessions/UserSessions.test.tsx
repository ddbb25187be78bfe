/**
 * A user's sessions (docs/CONSOLE.md, "A user's sessions"): the live sessions, Revoke per row,
 * Revoke of the selection and Sign out everywhere, each after a confirmation; the list reads again
 * after each and a refusal shows in words. fetch is mocked at the network edge and answers like
 * server/api/sessions.ts.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { clearSession, updateSession } from '../../session/session';
import { signedInAs } from '../../test/session';
import UserSessions from './UserSessions';

const USER = '/api/companys/acme/domainNames/main/users/u1';
const SESSIONS = `${USER}/sessions`;
const LONG_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

let rows: Record<string, unknown>[];
/** What the next write answers instead of success. */
let refusal: { status: number; message: string } | undefined;

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://console');
  if (refusal && request.method !== 'GET') return { status: refusal.status, json: { statusCode: refusal.status, error: 'Not Found', message: refusal.message } };
  if (request.method === 'GET' && url.pathname === SESSIONS) {
    return { json: rows, headers: { 'Content-Range': rows.length ? `sessions 0-${rows.length - 1}/${rows.length}` : 'sessions */0' } };
  }
  if (request.method === 'DELETE' && url.pathname.startsWith(`${SESSIONS}/`)) {
    const id = decodeURIComponent(url.pathname.slice(SESSIONS.length + 1));
    const found = rows.find((row) => row.id === id);
    rows = rows.filter((row) => row.id !== id);
    return { json: found };
  }
  if (request.method === 'DELETE' && url.pathname === SESSIONS) {
    const ids = JSON.parse(request.body!) as string[];
    const found = rows.filter((row) => ids.includes(String(row.id)));
    rows = rows.filter((row) => !ids.includes(String(row.id)));
    return { json: found };
  }
  if (request.method === 'POST' && url.pathname === `${USER}/signOutEverywhere`) {
    const revoked = rows.length;
    rows = [];
    return { json: { revoked } };
  }
  return { status: 404, json: { message: 'not found' } };
}

const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const sessionReads = (requests: RecordedRequest[]) =>
  requests.filter((request) => request.method === 'GET' && new URL(request.url, 'http://x').pathname === SESSIONS);
const rowOf = (text: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(text))!;

beforeEach(() => {
  refusal = undefined;
  rows = [
    { id: 'g1', clientId: 'portal', clientName: 'Customer Portal', createdAt: '2026-03-01T08:00:00.000Z', lastUsedAt: '2026-03-02T09:30:00.000Z', ip: '203.0.113.7', lastIp: '203.0.113.9', userAgent: LONG_AGENT, scope: 'openid' },
    { id: 'g2', clientId: 'purged-app', clientName: null, createdAt: '2026-02-27T08:00:00.000Z', lastUsedAt: '2026-03-01T07:00:00.000Z', ip: '198.51.100.4', lastIp: null, userAgent: 'curl/8', scope: 'openid' },
    { id: 'g3', clientId: 'iam-console', clientName: 'IAM Console', createdAt: '2026-02-26T08:00:00.000Z', lastUsedAt: '2026-02-28T07:00:00.000Z', ip: '198.51.100.5', lastIp: '198.51.100.5', userAgent: 'curl/8', scope: 'openid' },
  ];
  signedInAs('acme', 'main');
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe("a user's sessions", () => {
  it('lists them most recently used first: application, first and last use, address, browser', async () => {
    const { requests } = mockFetch(provider);
    renderPanel(<UserSessions userId="u1" />);
    expect(await screen.findByText('Customer Portal', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(readable(sessionReads(requests)[0].url)).toContain('sort=["lastUsedAt","DESC"]');
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent).slice(1)).toEqual([
      'Application',
      'First used',
      'Last used',
      'IP address',
      'User agent',
      'Actions',
    ]);
    // a purged application keeps its client id; a session never refreshed shows its first address
    expect(within(rowOf('purged-app')).getByText('198.51.100.4')).toBeInTheDocument();
    expect(within(rowOf('Customer Portal')).getByText('203.0.113.9')).toBeInTheDocument();
    expect(within(rowOf('Customer Portal')).getByText(new Date('2026-03-01T08:00:00.000Z').toLocaleString())).toBeInTheDocument();
    expect(within(rowOf('Customer Portal')).getByText(LONG_AGENT)).toHaveStyle({ textOverflow: 'ellipsis' });
  }, 30_000);

  it('revokes one session after a confirmation naming its application, then reads the list again', async () => {
    const { requests } = mockFetch(provider);
    renderPanel(<UserSessions userId="u1" />);
    await screen.findByText('Customer Portal', {}, { timeout: 5000 });
    const reads = sessionReads(requests).length;

    await userEvent.click(within(rowOf('Customer Portal')).getByRole('button', { name: 'Revoke the session of Customer Portal' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Revoke the session of Customer Portal?');
    expect(dialog).toHaveTextContent('Customer Portal must sign the user in again; their other sessions go on.');
    expect(writes(requests)).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));

    await waitFor(() => expect(writes(requests)).toHaveLength(1), { timeout: 5000 });
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`DELETE ${SESSIONS}/g1`);
    expect(await screen.findByText('Session of Customer Portal revoked', {}, { timeout: 5000 })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Customer Portal')).toBeNull(), { timeout: 5000 });
    expect(sessionReads(requests).length).toBeGreaterThan(reads);
  }, 30_000);

  it('revokes the selected sessions in one call after a confirmation saying how many', async () => {
    const { requests } = mockFetch(provider);
    renderPanel(<UserSessions userId="u1" />);
    await screen.findByText('Customer Portal', {}, { timeout: 5000 });
    const revokeSelected = screen.getByRole('button', { name: 'Revoke selected' });
    expect(revokeSelected).toBeDisabled();
    await userEvent.click(within(rowOf('Customer Portal')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('purged-app')).getByRole('checkbox'));
    await userEvent.click(revokeSelected);
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Revoke 2 session(s)?');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));

    await waitFor(() => expect(writes(requests)).toHaveLength(1), { timeout: 5000 });
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`DELETE ${SESSIONS}`);
    expect(JSON.parse(writes(requests)[0].body!)).toEqual(['g1', 'g2']);
    expect(await screen.findByText('Revoked 2 session(s)', {}, { timeout: 5000 })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('purged-app')).toBeNull(), { timeout: 5000 });
    expect(screen.getByText('IAM Console')).toBeInTheDocument();
    expect(revokeSelected).toBeDisabled();
  }, 30_000);

  it('signs the user out everywhere after a confirmation stating how many sessions end', async () => {
    const { requests } = mockFetch(provider);
    renderPanel(<UserSessions userId="u1" />);
    await screen.findByText('Customer Portal', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Sign out everywhere?');
    expect(dialog).toHaveTextContent('All 3 session(s) of this user end now: every application must sign them in again.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out everywhere' }));

    await waitFor(() => expect(writes(requests)).toHaveLength(1), { timeout: 5000 });
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`POST ${USER}/signOutEverywhere`);
    expect(await screen.findByText('Signed out everywhere: 3 session(s) ended', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText('No live sessions: this user is signed in nowhere.', {}, { timeout: 5000 })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 5000 });
    expect(screen.getByRole('button', { name: 'Sign out everywhere' })).toBeDisabled();
  }, 30_000);

  it("warns the administrator that their own console session ends too", async () => {
    mockFetch(provider);
    updateSession({ user: { id: 'u1', displayName: 'Ada Admin', email: 'admin@example.com' }, client: { client_id: 'iam-console', companyId: 'acme', domain: 'main' } });
    renderPanel(<UserSessions userId="u1" />);
    await screen.findByText('Customer Portal', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
    expect(await screen.findByRole('dialog')).toHaveTextContent('including yours in this console: you will have to sign in again.');
  }, 30_000);

  it('shows a refusal in words above the table and reads the list again', async () => {
    const { requests } = mockFetch(provider);
    renderPanel(<UserSessions userId="u1" />);
    await screen.findByText('Customer Portal', {}, { timeout: 5000 });
    refusal = { status: 404, message: 'session g1 not found' };
    const reads = sessionReads(requests).length;
    await userEvent.click(within(rowOf('Customer Portal')).getByRole('button', { name: 'Revoke the session of Customer Portal' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent('The provider refused: session g1 not found');
    await waitFor(() => expect(sessionReads(requests).length).toBeGreaterThan(reads), { timeout: 5000 });

    // the next success clears it
    refusal = undefined;
    await userEvent.click(within(rowOf('IAM Console')).getByRole('button', { name: 'Revoke the session of IAM Console' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke' }));
    await screen.findByText('Session of IAM Console revoked', {}, { timeout: 5000 });
    expect(screen.queryByText(/The provider refused/)).toBeNull();
  }, 30_000);
});
