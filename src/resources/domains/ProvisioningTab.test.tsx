/**
 * The domain screen's Provisioning tab (docs/CONSOLE.md, "Provisioning (SCIM)") against the provider
 * as the contract says: fetch is mocked at the network edge only.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearSession } from '../../session/session';
import { EVERY_PERMISSION, mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { signedInAs } from '../../test/session';
import ProvisioningTab, { type ScimToken } from './ProvisioningTab';

const BASE = '/api/companys/acme/domainNames/prod';
const SCIM = ['scim:read', 'scim:write'];
const ROLES = {
  roles: [
    { id: 'owner', name: 'Owner', description: '', permissions: [...EVERY_PERMISSION, ...SCIM] },
    { id: 'administrator', name: 'Administrator', description: '', permissions: [...EVERY_PERMISSION, ...SCIM] },
    { id: 'auditor', name: 'Auditor', description: '', permissions: ['scim:read'] },
  ],
  permissions: [...EVERY_PERMISSION, ...SCIM],
};

const TOKENS: ScimToken[] = [
  { id: 't1', name: 'Entra ID', createdAt: '2026-11-20T10:00:00.000Z', createdBy: 'u1', lastUsedAt: '2026-11-29T07:00:00.000Z', revokedAt: null },
  { id: 't0', name: 'Old Okta', createdAt: '2026-10-01T10:00:00.000Z', createdBy: 'u1', lastUsedAt: null, revokedAt: '2026-11-01T10:00:00.000Z' },
];
const CALLS = [
  { id: 'c2', at: '2026-11-29T07:00:00.000Z', method: 'PATCH', path: '/scim/v2/acme/prod/Users/u9', status: 200, tokenId: 't1', clientId: null, detail: null },
  { id: 'c1', at: '2026-11-29T06:59:00.000Z', method: 'POST', path: '/scim/v2/acme/prod/Users', status: 409, tokenId: 't1', clientId: null, detail: 'uniqueness' },
];

function provider(permissions: readonly string[] = [...EVERY_PERMISSION, ...SCIM]) {
  let tokens = [...TOKENS];
  return mockFetch(
    (request: RecordedRequest) => {
      const url = new URL(request.url, 'http://x');
      if (url.pathname === '/api/roles') return { json: ROLES };
      if (url.pathname === `${BASE}/scimTokens` && request.method === 'GET') return { json: tokens, headers: { 'Content-Range': `scimTokens 0-${tokens.length - 1}/${tokens.length}` } };
      if (url.pathname === `${BASE}/scimTokens` && request.method === 'POST') {
        const { name } = JSON.parse(request.body!) as { name: string };
        const created: ScimToken = { id: 't2', name, createdAt: '2026-11-29T08:00:00.000Z', createdBy: 'u1', lastUsedAt: null, revokedAt: null };
        tokens = [created, ...tokens];
        return { status: 201, json: { ...created, token: 'scim_s3cr3t-once' } };
      }
      if (url.pathname === `${BASE}/scimTokens/t1` && request.method === 'DELETE') {
        tokens = tokens.map((token) => (token.id === 't1' ? { ...token, revokedAt: '2026-11-29T08:05:00.000Z' } : token));
        return { json: tokens.find((token) => token.id === 't1') };
      }
      if (url.pathname === `${BASE}/scimCalls`) return { json: CALLS, headers: { 'Content-Range': 'scimCalls 0-1/2' } };
      return { status: 404, json: { message: 'not found' } };
    },
    { permissions },
  );
}

beforeEach(() => {
  localStorage.clear();
  // the current domain is another one: the tab reads the permissions at the record's domain
  signedInAs('acme', 'main');
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const context = { companyId: 'acme', domainId: 'prod' };

describe('the Provisioning tab', () => {
  it('shows the SCIM base URL with a copy button, the tokens and the last calls', async () => {
    const { requests } = provider();
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderPanel(<ProvisioningTab context={context} />, '/domains/prod');
    expect(screen.getByRole('textbox', { name: 'SCIM base URL' })).toHaveValue(`${window.location.origin}/scim/v2/acme/prod`);
    await userEvent.click(screen.getByRole('button', { name: 'Copy the SCIM base URL' }));
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/scim/v2/acme/prod`);
    expect(await screen.findByText('Copied to the clipboard.')).toBeInTheDocument();

    const tokens = await screen.findByRole('table', { name: 'Tokens' });
    const rows = within(tokens).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0].textContent)).toEqual(['Entra ID', 'Old Okta']);
    expect(within(rows[1]).getAllByRole('cell')[2]).toHaveTextContent('Never');
    // a revoked token cannot be revoked again
    expect(within(rows[1]).queryByRole('button')).not.toBeInTheDocument();
    const calls = await screen.findByRole('table', { name: 'Last calls' });
    expect(within(calls).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').slice(1).map((cell) => cell.textContent))).toEqual([
      ['PATCH', '/scim/v2/acme/prod/Users/u9', '200'],
      ['POST', '/scim/v2/acme/prod/Users', '409'],
    ]);
    // the permissions of the record's domain, not the current one's
    expect(requests.some((request) => request.url.includes('/me/permissions?companyId=acme&domainId=prod'))).toBe(true);
  });

  it('New token: a name, then the token once, with copy and a clear word that it will not show again', async () => {
    const { requests } = provider();
    renderPanel(<ProvisioningTab context={context} />, '/domains/prod');
    const newToken = await screen.findByRole('button', { name: 'New token' });
    await waitFor(() => expect(newToken).toBeEnabled());
    await userEvent.click(newToken);
    const dialog = await screen.findByRole('dialog', { name: 'New token' });
    // a name is required
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText('Required')).toBeInTheDocument();
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Okta provisioning');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));

    const shown = await screen.findByRole('dialog', { name: 'Your SCIM token' });
    expect(within(shown).getByRole('textbox', { name: 'SCIM token' })).toHaveValue('scim_s3cr3t-once');
    expect(within(shown).getByText("Copy the SCIM token now and keep it somewhere safe: it won't be shown again.")).toBeInTheDocument();
    expect(within(shown).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(JSON.parse(requests.find((request) => request.method === 'POST')!.body!)).toEqual({ name: 'Okta provisioning' });
    await userEvent.click(within(shown).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // listed, and the token is nowhere on the page any more
    expect(await within(screen.getByRole('table', { name: 'Tokens' })).findByText('Okta provisioning')).toBeInTheDocument();
    expect(document.body.innerHTML).not.toContain('scim_s3cr3t-once');
  });

  it('Revoke asks first, then revokes', async () => {
    const { requests } = provider();
    renderPanel(<ProvisioningTab context={context} />, '/domains/prod');
    const revoke = await screen.findByRole('button', { name: 'Revoke Entra ID' });
    await waitFor(() => expect(revoke).toBeEnabled());
    await userEvent.click(revoke);
    const dialog = await screen.findByRole('dialog', { name: 'Revoke token "Entra ID"?' });
    expect(requests.filter((request) => request.method === 'DELETE')).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('Token Entra ID revoked')).toBeInTheDocument();
    expect(requests.filter((request) => request.method === 'DELETE').map((request) => request.url)).toEqual([`${BASE}/scimTokens/t1`]);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Revoke Entra ID' })).not.toBeInTheDocument());
  });

  it('without scim:write: New token and Revoke are greyed, naming the roles', async () => {
    const { requests } = provider([...EVERY_PERMISSION, 'scim:read']);
    renderPanel(<ProvisioningTab context={context} />, '/domains/prod');
    await screen.findByRole('table', { name: 'Tokens' });
    const newToken = screen.getByRole('button', { name: 'New token' });
    await waitFor(() => expect(newToken.parentElement).toHaveAttribute('tabindex', '0'));
    expect(newToken).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Revoke Entra ID' })).toBeDisabled();
    await userEvent.hover(newToken.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Needs the Owner or Administrator role');
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('without scim:read: the base URL and why the rest is not shown; no token or call is read', async () => {
    const { requests } = provider(EVERY_PERMISSION);
    renderPanel(<ProvisioningTab context={context} />, '/domains/prod');
    expect(await screen.findByText('Tokens and calls are not shown: Needs the Owner, Administrator or Auditor role.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'SCIM base URL' })).toBeInTheDocument();
    expect(requests.some((request) => /scimTokens|scimCalls/.test(request.url))).toBe(false);
  });

  it('says when there is no token or call yet', async () => {
    mockFetch((request) => {
      if (request.url.endsWith('/api/roles')) return { json: ROLES };
      return { json: [], headers: { 'Content-Range': 'x */0' } };
    }, { permissions: [...EVERY_PERMISSION, ...SCIM] });
    renderPanel(<ProvisioningTab context={context} />, '/domains/prod');
    expect(await screen.findByText('No token yet. Choose New token to let an identity system provision this domain.')).toBeInTheDocument();
    expect(await screen.findByText('No SCIM call yet.')).toBeInTheDocument();
  });
});
