/**
 * The user screen's Second factors panel (docs/CONSOLE.md, "Multi-factor authentication and the
 * account page"): the factors in words, Reset one or all after a confirmation, disabled naming the
 * roles that would allow it. fetch is mocked at the network edge and answers like server/api/factors.ts.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { permissionsOf, rolesAnswer } from '../../test/roles';
import Factors from './Factors';

const FACTORS = '/api/companys/acme/domainNames/main/users/u1/factors';
const ada = { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active' };
const context = { companyId: 'acme', domainId: 'main' };
const TOTP = { id: 'f1', type: 'totp', label: 'My phone', createdAt: '2026-11-01T10:00:00.000Z', lastUsedAt: null };
const CODES = { id: 'f2', type: 'recovery', label: 'Recovery codes', createdAt: '2026-11-01T10:05:00.000Z', lastUsedAt: null, remaining: 9 };

let factors: object[];

function provider(request: RecordedRequest) {
  const { pathname } = new URL(request.url, 'http://console');
  if (pathname === '/api/roles') return rolesAnswer();
  if (request.method === 'GET' && pathname === FACTORS) return { json: factors };
  if (request.method === 'DELETE' && pathname === FACTORS) factors = [];
  else if (request.method === 'DELETE' && pathname.startsWith(`${FACTORS}/`)) factors = factors.filter((f) => (f as { id: string }).id !== pathname.split('/').pop());
  else return { status: 404, json: { message: 'not found' } };
  return { json: factors };
}

const show = () => renderPanel(<Factors user={ada} context={context} />, '/users-new', authProvider);

beforeEach(() => {
  factors = [TOTP, CODES];
  updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't', user: { id: 'me', displayName: 'Me', email: 'me@example.com' } });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the Second factors panel', () => {
  it('lists the factors in words and resets one after asking', async () => {
    const { requests } = mockFetch(provider);
    show();
    const panel = await screen.findByRole('region', { name: 'Second factors' });
    expect(await within(panel).findByText('Authenticator app: My phone')).toBeInTheDocument();
    expect(panel).toHaveTextContent('9 unused');
    await userEvent.click(within(panel).getByRole('button', { name: 'Reset Authenticator app: My phone' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Authenticator app: My phone of Ada will be removed');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Reset' }));
    await waitFor(() => expect(within(panel).queryByText('Authenticator app: My phone')).toBeNull());
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => new URL(r.url, 'http://console').pathname)).toEqual([`${FACTORS}/f1`]);
  });

  it('Reset all empties the list; none left says the password alone signs her in', async () => {
    mockFetch(provider);
    show();
    const panel = await screen.findByRole('region', { name: 'Second factors' });
    await userEvent.click(await within(panel).findByRole('button', { name: 'Reset all factors' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Reset' }));
    expect(await within(panel).findByText(/the password alone signs this person in/)).toBeInTheDocument();
  });

  it('Support sees the factors; Reset is disabled', async () => {
    mockFetch(provider, { permissions: permissionsOf('support') });
    show();
    const panel = await screen.findByRole('region', { name: 'Second factors' });
    expect(await within(panel).findByText('Authenticator app: My phone')).toBeInTheDocument();
    await waitFor(() => expect(within(panel).getByRole('button', { name: 'Reset all factors' })).toBeDisabled());
  });
});
