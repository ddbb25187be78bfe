/**
 * The Permission tab's search and a permission scope's own address (docs/CONSOLE.md, "APIs and
 * permission scopes" and "Routes").
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { permissionsOf, rolesAnswer } from '../../test/roles';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import ApiView from './ApiView';
import { apis } from './index';

const company = { id: 'acme', name: 'acme', type: 'customer' };
const domain = { id: 'main', name: 'main', description: 'Main domain', primary: true };
const api = { id: 'api1', name: 'Orders', identifier: 'https://orders.example', domain: 'main', companyId: 'acme' };
const state = { company, domain, api, mode: 'view' };
const scopes = ['read:orders', 'write:orders', 'read:users'].map((permission) => ({ id: permission, permission, description: `may ${permission}` }));

/** The scopes as the provider answers them: filtered by id or by search. */
function provider(request: RecordedRequest) {
  const url = new URL(readable(request.url), 'http://x');
  if (url.pathname.startsWith('/.well-known')) return { json: {} };
  const filter = JSON.parse(url.searchParams.get('filter') ?? '{}') as { id?: string[]; q?: string };
  const rows = scopes.filter((scope) => (!filter.id || filter.id.includes(scope.id)) && (!filter.q || scope.permission.includes(filter.q)));
  return { json: rows, headers: { 'Content-Range': rows.length ? `PermissionScopes 0-${rows.length - 1}/${rows.length}` : 'PermissionScopes */0' } };
}

const scopeLists = (requests: RecordedRequest[]) =>
  requests.filter((request) => request.url.startsWith('/api/api/api1/PermissionScopes?')).map((request) => new URL(readable(request.url), 'http://x').searchParams.get('filter'));

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('API Permission tab', () => {
  it('searches the scopes on the provider, and each scope links to its own address', async () => {
    const { requests } = mockFetch(provider);
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { addresses } = renderScreen(apis, ApiView, { pathname: '/apis/api1', search: '?company=acme&domain=main', state }, { notifications: true });
    await userEvent.click(await screen.findByRole('tab', { name: 'Permission' }));
    const link = await screen.findByRole('link', { name: 'write:orders' });
    expect(link).toHaveAttribute('href', '/apis/api1?company=acme&domain=main&tab=permission&scope=write%3Aorders');

    await userEvent.type(screen.getByRole('searchbox', { name: 'Search permission scopes' }), 'users');
    await waitFor(() => expect(scopeLists(requests).at(-1)).toBe('{"q":"users"}'));
    // the search is in the address: a searched tab is a link
    await waitFor(() => expect(addresses.at(-1)).toContain('scopes=users'));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'write:orders' })).toBeNull());
    expect(screen.getByRole('link', { name: 'read:users' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Copy the link to read:users' }));
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/apis/api1?company=acme&domain=main&tab=permission&scope=read%3Ausers`);
    expect(await screen.findByText('Link copied')).toBeInTheDocument();

    // followed in place: the same screen, that scope found
    await userEvent.click(screen.getByRole('link', { name: 'read:users' }));
    await waitFor(() => expect(addresses.at(-1)).toBe('/apis/api1?company=acme&domain=main&tab=permission&scope=read%3Ausers'));
    expect(await screen.findByText('Showing permission scope read:users only.')).toBeInTheDocument();
    expect(scopeLists(requests).at(-1)).toBe('{"id":["read:users"]}');
  }, 60_000);

  it("opens at a scope's address on the Permission tab with that scope alone, and Show all lists the others", async () => {
    const { requests } = mockFetch(provider);
    const { addresses } = renderScreen(apis, ApiView, { pathname: '/apis/api1', search: '?company=acme&domain=main&tab=permission&scope=write%3Aorders', state });
    expect(await screen.findByRole('tab', { name: 'Permission' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByText('Showing permission scope write:orders only.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'write:orders' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'read:orders' })).toBeNull();
    expect(scopeLists(requests)).toEqual(['{"id":["write:orders"]}']);

    await userEvent.click(screen.getByRole('button', { name: 'Show all' }));
    await waitFor(() => expect(addresses.at(-1)).toBe('/apis/api1?company=acme&domain=main&tab=permission'));
    expect(await screen.findByRole('link', { name: 'read:orders' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Permission' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.queryByText(/Showing permission scope/)).toBeNull();
  }, 60_000);

  it('says so when the linked scope is not there', async () => {
    mockFetch(provider);
    renderScreen(apis, ApiView, { pathname: '/apis/api1', search: '?company=acme&domain=main&tab=permission&scope=gone', state });
    const notice = await screen.findByText('This API has no permission scope gone: it may have been purged.');
    expect(within(notice.closest('[role="status"]')!).getByRole('button', { name: 'Show all' })).toBeInTheDocument();
  }, 60_000);

  it('is read-only, saying why, for a role that may read the API but not change it', async () => {
    const { requests } = mockFetch((request) => (request.url.endsWith('/api/roles') ? rolesAnswer() : provider(request)), {
      permissions: permissionsOf('auditor'),
    });
    renderScreen(apis, ApiView, { pathname: '/apis/api1', search: '?company=acme&domain=main&tab=permission', state }, { authProvider });
    expect(await screen.findByRole('link', { name: 'write:orders' })).toBeInTheDocument();
    expect(await screen.findByText('Read-only. Needs the Owner, Administrator or Application manager role.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Permission/ })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Add' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Purge write:orders' })).toBeDisabled();
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('is editable at once, without a note, for a role that may change it', async () => {
    mockFetch((request) => (request.url.endsWith('/api/roles') ? rolesAnswer() : provider(request)), { permissions: permissionsOf('application-manager') });
    renderScreen(apis, ApiView, { pathname: '/apis/api1', search: '?company=acme&domain=main&tab=permission', state }, { authProvider });
    await waitFor(() => expect(screen.getByRole('textbox', { name: /^Permission/ })).toBeEnabled());
    expect(screen.getByRole('button', { name: 'Add' })).toBeEnabled();
    expect(screen.queryByText(/^Read-only/)).toBeNull();
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('opens searched at an address carrying the search (&scopes=)', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(apis, ApiView, { pathname: '/apis/api1', search: '?company=acme&domain=main&tab=permission&scopes=write', state });
    expect(await screen.findByRole('link', { name: 'write:orders' })).toBeInTheDocument();
    expect(scopeLists(requests)[0]).toBe('{"q":"write"}');
    expect(screen.getByRole('searchbox', { name: 'Search permission scopes' })).toHaveValue('write');
    expect(screen.queryByRole('link', { name: 'read:users' })).toBeNull();
  });
});
