/**
 * The user screen's E-mail panel (docs/CONSOLE.md, "E-mail, reset links and invitations"): each
 * message is confirmed, sent with POST …/sendResetLink | sendInvitation | sendVerification and
 * followed by a notification; without users:recover the buttons say which roles would allow them.
 */
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { permissionsOf, rolesAnswer } from '../../test/roles';
import EmailActions from './EmailActions';

const USER = '/api/companys/acme/domainNames/main/users/u1';
const ada = { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active' };
const context = { companyId: 'acme', domainId: 'main' };
let configured = false;
let hasPassword = false;

function provider(request: RecordedRequest) {
  const { pathname } = new URL(request.url, 'http://console');
  if (pathname === '/api/roles') return rolesAnswer();
  if (pathname === `${USER}/signInState`) return { json: { failedSignIns: 0, lockedUntil: null, lockedBecause: null, blockedAt: null, requiredActions: [], emailVerified: true, hasPassword } };
  if (request.method === 'POST' && pathname === `${USER}/sendInvitation`) return { status: 409, json: { message: 'user u1 has a password already: send a reset link instead' } };
  if (request.method === 'POST' && pathname.startsWith(`${USER}/send`)) return { json: { messageId: 'm1', recipient: 'ada@example.com', mailConfigured: configured } };
  return { status: 404, json: { message: 'not found' } };
}

const show = (user: Record<string, unknown> & { id: string } = ada) => renderPanel(<EmailActions user={user} context={context} />, '/users-new', authProvider);

beforeEach(() => {
  configured = false;
  hasPassword = false;
  updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't', user: { id: 'me', displayName: 'Me', email: 'me@example.com' } });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the E-mail panel', () => {
  it('confirms, sends and says the message waits in the outbox when mail is not configured', async () => {
    const { requests } = mockFetch(provider, { permissions: permissionsOf('support') });
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Send reset link' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Send a reset link to Ada?');
    expect(dialog).toHaveTextContent('ada@example.com will receive a link to choose a new password, valid for 30 minutes.');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Written to the outbox for ada@example.com: mail is not configured')).toBeInTheDocument();
    expect(requests.filter((request) => request.method === 'POST').map((request) => [new URL(request.url, 'http://console').pathname, request.body])).toEqual([[`${USER}/sendResetLink`, '{}']]);
  });

  it("says Sent with a mail server, and the provider's refusal otherwise", async () => {
    configured = true;
    mockFetch(provider);
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Send verification e-mail' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Sent to ada@example.com')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await userEvent.click(screen.getByRole('button', { name: 'Resend invitation' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Not sent: user u1 has a password already: send a reset link instead')).toBeInTheDocument();
  });

  it('without users:recover, each button names the roles that would allow it', async () => {
    const { requests } = mockFetch(provider, { permissions: permissionsOf('auditor') });
    show();
    const reset = await screen.findByRole('button', { name: 'Send reset link' });
    await waitFor(() => expect(reset).toBeDisabled());
    await userEvent.hover(reset.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Needs the Owner, Administrator, User manager or Support role');
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
  });

  it('offers Resend invitation only while she has no password (the provider refuses it after)', async () => {
    mockFetch(provider, { permissions: permissionsOf('support') });
    show();
    expect(await screen.findByRole('button', { name: 'Resend invitation' })).toBeInTheDocument();
    cleanup();
    hasPassword = true;
    mockFetch(provider, { permissions: permissionsOf('support') });
    show();
    expect(await screen.findByRole('button', { name: 'Send reset link' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole('button').map((button) => button.textContent)).toEqual(['Send reset link', 'Send verification e-mail']));
    expect(screen.queryByRole('button', { name: 'Resend invitation' })).toBeNull();
  });

  it('is not shown for a deleted user', () => {
    mockFetch(provider);
    show({ ...ada, status: 'deleted' });
    expect(screen.queryByRole('region', { name: 'E-mail' })).toBeNull();
  });
});
