import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import ApiForm from './ApiForm';
import ApiView from './ApiView';
import { apis } from './index';

const company = { id: 'acme', name: 'acme', type: 'customer' };
const domain = { id: 'main', name: 'main', description: 'Main domain', primary: true };
const api = {
  id: 'api00000000000000000000000000001',
  name: 'Orders',
  identifier: 'https://orders.example',
  domain: 'main',
  companyId: 'acme',
  tokenExpiration: 86400,
  tokenExpirationBrowser: 7200,
  signingAlgorithm: 'RS256',
  RBAC: false,
  addPermissionAccessToken: false,
  allowSkippingUserConsent: true,
  allowOfflineAccess: false,
  status: 'active',
};
const fill = (element: HTMLElement, value: string) => fireEvent.change(element, { target: { value } });
const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  clearSession();
  vi.unstubAllGlobals();
});

describe('API wizard', () => {
  it('walks General Settings, Token Setting, RBAC Settings and Access Settings, then creates with a generated id', async () => {
    const { requests } = mockFetch((request) => {
      if (request.method === 'GET') return { json: [domain], headers: { 'Content-Range': 'domainNames 0-0/1' } };
      return { status: 201, json: { ...JSON.parse(request.body!), signingSecret: 'shown-once-secret' } };
    });
    const { locations } = renderScreen(apis, ApiForm, { pathname: apis.routes.form, state: { company, domain, mode: 'new' } });
    await screen.findByRole('group', { name: 'General Settings' });
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await within(screen.getByRole('group', { name: 'General Settings' })).findAllByText('Required')).toHaveLength(2);

    fill(screen.getByLabelText(/^Name/), 'Orders');
    fill(screen.getByLabelText(/^Identifier/), 'https://orders.example');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const token = await screen.findByRole('group', { name: 'Token Setting' });
    expect(within(token).getByLabelText(/^Token Expiration \(seconds\)/)).toHaveValue(86400);
    expect(within(token).getByLabelText(/Browser Flows/)).toHaveValue(7200);
    expect(within(token).getByRole('combobox', { name: /Signing Algorithm/ })).toHaveTextContent('RS256');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByRole('group', { name: 'RBAC Settings' });
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByRole('group', { name: 'Access Settings' });
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));

    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByLabelText('Signing secret')).toHaveValue('shown-once-secret');
    const [create] = writes(requests);
    expect(`${create.method} ${create.url}`).toBe('POST /api/api');
    const body = JSON.parse(create.body!);
    expect(body.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(body).toMatchObject({
      name: 'Orders',
      identifier: 'https://orders.example',
      domain: 'main',
      companyId: 'acme',
      tokenExpiration: 86400,
      tokenExpirationBrowser: 7200,
      signingAlgorithm: 'RS256',
    });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
  }, 60_000);
});

describe('API view: Permission tab', () => {
  it('offers Add and Purge at once to those who may, adds and deletes scopes, and pages 15 at a time', async () => {
    let scopes = Array.from({ length: 20 }, (_, index) => ({
      id: `scope:${String(index).padStart(2, '0')}`,
      permission: `scope:${String(index).padStart(2, '0')}`,
      description: `Scope ${index}`,
    }));
    const { requests } = mockFetch((request) => {
      const url = readable(request.url);
      if (url.startsWith('/.well-known')) return { json: {} };
      if (request.method === 'GET') {
        const [start, end] = JSON.parse(new URL(url, 'http://x').searchParams.get('range')!);
        const page = scopes.slice(start, end + 1);
        return { json: page, headers: { 'Content-Range': `PermissionScopes ${start}-${start + page.length - 1}/${scopes.length}` } };
      }
      if (request.method === 'POST') {
        const created = JSON.parse(request.body!);
        scopes = [...scopes, created].sort((a, b) => a.permission.localeCompare(b.permission));
        return { status: 201, json: created };
      }
      const id = decodeURIComponent(request.url.split('/').pop()!);
      const removed = scopes.find((scope) => scope.id === id);
      scopes = scopes.filter((scope) => scope.id !== id);
      return { json: removed };
    });
    renderScreen(apis, ApiView, { pathname: apis.routes.view!, state: { company, domain, api, mode: 'view' } });
    expect(await screen.findByRole('tab', { name: 'Quick Start' })).toHaveAttribute('aria-selected', 'true');
    for (const name of ['Settings', 'Permission', 'Domain']) expect(screen.getByRole('tab', { name })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('tab', { name: 'Permission' }));
    expect(await screen.findByText('scope:00')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /^Purge scope:/ })).toHaveLength(15);
    // editable at once: no switch to find first
    expect(screen.queryByRole('switch')).toBeNull();
    expect(screen.getByRole('textbox', { name: /^Permission/ })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Purge scope:00' })).toBeEnabled();
    const add = screen.getByRole('button', { name: 'Add' });
    expect(add).toBeEnabled();
    await userEvent.click(add);
    expect(await screen.findByText('Required')).toBeInTheDocument();
    expect(writes(requests)).toHaveLength(0);

    fill(screen.getByRole('textbox', { name: /^Permission/ }), 'orders:read');
    fill(screen.getByRole('textbox', { name: /^Description/ }), 'Read orders');
    await userEvent.click(add);
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`POST /api/api/${api.id}/PermissionScopes`);
    expect(JSON.parse(writes(requests)[0].body!)).toEqual({ permission: 'orders:read', description: 'Read orders', id: 'orders:read' });
    await waitFor(() => expect(screen.getByRole('textbox', { name: /^Permission/ })).toHaveValue(''));

    await userEvent.click(screen.getByRole('button', { name: 'Purge scope:01' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(2));
    expect(`${writes(requests)[1].method} ${writes(requests)[1].url}`).toBe(
      `DELETE /api/api/${api.id}/PermissionScopes/scope%3A01`,
    );
    await waitFor(() => expect(screen.queryByText('scope:01')).toBeNull());

    expect(screen.getByText('1-15 of 20')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Page 2' }));
    expect(await screen.findByText('scope:19')).toBeInTheDocument();
    expect(screen.getByText('16-20 of 20')).toBeInTheDocument();
  }, 60_000);

  it('shows the API domain with a close button', async () => {
    mockFetch((request) =>
      request.url.startsWith('/.well-known') ? { json: {} } : { json: domain },
    );
    const { locations } = renderScreen(apis, ApiView, { pathname: apis.routes.view!, state: { company, domain, api, mode: 'view' } });
    await userEvent.click(await screen.findByRole('tab', { name: 'Domain' }));
    expect(await screen.findByText('Main domain')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
  }, 60_000);
});
