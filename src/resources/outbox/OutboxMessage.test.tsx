/**
 * An outbox message opened (docs/CONSOLE.md, "E-mail, reset links and invitations"): Support sees to
 * whom, what and whether it was sent, never the text (the provider does not send it), and resends;
 * an Administrator reads the text as before; Resend is greyed for a person the caller holds less than.
 */
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RecordContextProvider } from 'react-admin';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { permissionNeeded } from '../permissions';
import OutboxMessage from './OutboxMessage';

const MESSAGE = '/api/companys/acme/domainNames/main/outbox/m1';
const row = { id: 'm1', recipient: 'ada@example.com', subject: 'Reset your Acme password', purpose: 'reset', userId: 'u1', sentAt: null, error: null, createdAt: '2026-01-01T10:00:00Z', language: 'en' };
let withText = false;
let mayActOn = true;
let purpose = 'reset';

function provider(request: RecordedRequest) {
  const { pathname } = new URL(request.url, 'http://console');
  if (request.method === 'GET' && pathname === MESSAGE) return { json: withText ? { ...row, purpose, text: 'Follow http://localhost/account/reset?token=abc', html: '<p>x</p>' } : { ...row, purpose } };
  if (pathname === '/api/companys/acme/domainNames/main/users/u1/rights') return { json: mayActOn ? { mayActOn: true, reason: null } : { mayActOn: false, reason: 'You cannot act on user u1: it holds the Administrator role' } };
  if (request.method === 'POST' && pathname === `${MESSAGE}/resend`) return { json: { messageId: 'm2', recipient: 'ada@example.com', mailConfigured: false } };
  return { status: 404, json: { message: 'not found' } };
}

const show = () =>
  renderPanel(
    <RecordContextProvider value={{ ...row, purpose }}>
      <OutboxMessage />
    </RecordContextProvider>,
    '/outbox',
  );

beforeEach(() => {
  withText = false;
  mayActOn = true;
  purpose = 'reset';
  updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't', user: { id: 'me', displayName: 'Me', email: 'me@example.com' } });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('an outbox message', () => {
  it('the outbox is for whoever may send links (users:recover), Support included', () => {
    expect(permissionNeeded('outbox', 'list')).toEqual({ permission: 'users:recover', inDomain: true });
  });

  it('for Support: to whom and whether sent, no text, and Resend sends a fresh link', async () => {
    const { requests } = mockFetch(provider);
    show();
    expect(await screen.findByText('To: ada@example.com')).toBeInTheDocument();
    expect(screen.getByText('Not sent: it waits here')).toBeInTheDocument();
    expect(screen.getByText(/Its text holds the link/)).toBeInTheDocument();
    expect(document.body.textContent).not.toContain('token=');
    await userEvent.click(screen.getByRole('button', { name: 'Resend' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Resend to ada@example.com?');
    expect(dialog).toHaveTextContent('A new reset link goes to her current address');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Written to the outbox for ada@example.com: mail is not configured')).toBeInTheDocument();
    expect(requests.filter((request) => request.method === 'POST').map((request) => [new URL(request.url, 'http://console').pathname, request.body])).toEqual([[`${MESSAGE}/resend`, '{}']]);
  });

  it('for an Administrator: the text, as before', async () => {
    withText = true;
    mockFetch(provider);
    show();
    expect(await screen.findByText(/account\/reset\?token=abc/)).toBeInTheDocument();
    expect(screen.queryByText(/Its text holds the link/)).toBeNull();
  });

  it('Resend is greyed, with the reason, for a person the caller holds less than', async () => {
    mayActOn = false;
    const { requests } = mockFetch(provider);
    show();
    const resend = await screen.findByRole('button', { name: 'Resend' });
    await waitFor(() => expect(resend).toBeDisabled());
    await userEvent.hover(resend.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('You cannot act on user u1');
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
  });

  it("Resend is greyed for a link proving an account for an upstream identity: it works only in the browser that asked for it", async () => {
    purpose = 'link-identity';
    const { requests } = mockFetch(provider);
    show();
    const resend = await screen.findByRole('button', { name: 'Resend' });
    await waitFor(() => expect(resend).toBeDisabled());
    await userEvent.hover(resend.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Not resent: the person asks for a new one where she signs in');
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
  });
});
