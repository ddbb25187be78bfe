import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../../test/fetchMock';
import { renderScreen } from '../../../test/renderScreen';
import { clearSession, updateSession } from '../../../session/session';
import GroupForm from '../GroupForm';
import { groups } from '../index';

const company = { id: 'acme', name: 'acme' };
const domain = { id: 'main', name: 'main' };
const ops = { id: 'ops', name: 'ops', displayName: 'Operations', notes: '', email: 'ops@example.com', status: 'active' };
const GROUP_URL = '/api/companys/acme/domainNames/main/groups/ops';

const granted = [
  { apiId: 'a1', apiName: 'Billing', permission: 'read:invoices', description: 'Read invoices' },
  { apiId: 'a2', apiName: 'Orders', permission: 'write:orders', description: 'Place orders' },
];
const domainApis = [
  { id: 'a1', name: 'Billing', identifier: 'https://billing.example.com' },
  { id: 'a2', name: 'Orders', identifier: 'https://orders.example.com' },
];
const scopes: Record<string, unknown[]> = {
  a1: [
    { id: 'read:invoices', permission: 'read:invoices', description: 'Read invoices' },
    { id: 'write:invoices', permission: 'write:invoices', description: 'Issue invoices' },
    { id: 'void:invoices', permission: 'void:invoices', description: '' },
  ],
  a2: [{ id: 'write:orders', permission: 'write:orders', description: 'Place orders' }],
};

const many = Array.from({ length: 40 }, (_, index) => ({
  apiId: 'a1',
  apiName: 'Billing',
  permission: `scope:${String(index).padStart(2, '0')}`,
  description: '',
}));

function provider(rows: unknown[] = granted) {
  return (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://x');
    const page = (all: unknown[], name: string) => {
      const [start, end] = JSON.parse(url.searchParams.get('range') ?? '[0,999]') as [number, number];
      const slice = all.slice(start, end + 1);
      return { json: slice, headers: { 'Content-Range': `${name} ${start}-${start + slice.length - 1}/${all.length}` } };
    };
    if (request.method === 'GET' && url.pathname === `${GROUP_URL}/permissions`) return page(rows, 'permissions');
    if (request.method === 'GET' && url.pathname === '/api/acme/main/api') return page(domainApis, 'api');
    const scopeMatch = url.pathname.match(/^\/api\/api\/([^/]+)\/PermissionScopes$/);
    if (request.method === 'GET' && scopeMatch) return page(scopes[scopeMatch[1]] ?? [], 'PermissionScopes');
    return { json: JSON.parse(request.body ?? '[]') };
  };
}

const openPermissions = async () => {
  renderScreen(groups, GroupForm, { pathname: groups.routes.form, state: { company, domain, group: ops, mode: 'view' } });
  await userEvent.click(await screen.findByRole('tab', { name: 'Permissions' }));
};

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('group form, Permissions tab', () => {
  it('is there for an existing group only', async () => {
    mockFetch(provider());
    renderScreen(groups, GroupForm, { pathname: groups.routes.form, state: { company, domain, mode: 'new' } });
    expect(await screen.findByRole('tab', { name: 'Permissions' })).toBeDisabled();
  });

  it("lists the group's permissions with API name, permission and description, 15 a page", async () => {
    const { requests } = mockFetch(provider());
    await openPermissions();
    const table = await screen.findByRole('table', { name: 'Permissions' });
    const rows = within(table).getAllByRole('row');
    expect(within(rows[0]).getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['API', 'Permission', 'Description', 'Actions']);
    // the actions header is for screen readers: a pixel wide, not the page's width (which made the page scroll sideways)
    expect(getComputedStyle(within(rows[0]).getByText('Actions')).width).toBe('1px');
    expect(within(rows[1]).getAllByRole('cell').slice(0, 3).map((cell) => cell.textContent)).toEqual(['Billing', 'read:invoices', 'Read invoices']);
    expect(within(rows[2]).getAllByRole('cell').slice(0, 3).map((cell) => cell.textContent)).toEqual(['Orders', 'write:orders', 'Place orders']);
    const list = readable(requests.find((request) => request.url.includes('/permissions'))!.url);
    expect(list).toContain(`${GROUP_URL}/permissions?`);
    expect(list).toContain('range=[0,14]');
    expect(list).toContain('sort=["apiName","ASC"]');
  });

  it('pages with a window of page numbers', async () => {
    const { requests } = mockFetch(provider(many));
    await openPermissions();
    expect(await screen.findByText('scope:14')).toBeInTheDocument();
    expect(screen.queryByText('scope:15')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Page 3' }));
    expect(await screen.findByText('scope:30')).toBeInTheDocument();
    expect(readable(requests.at(-1)!.url)).toContain('range=[30,44]');
  });

  it('says so when the group has no permissions', async () => {
    mockFetch(provider([]));
    await openPermissions();
    expect(await screen.findByRole('status')).toHaveTextContent('This group has no permissions yet');
  });

  it("Add offers the domain's active APIs and the chosen API's scopes, and posts [{apiId, permission}]", async () => {
    const { requests } = mockFetch(provider());
    await openPermissions();
    await screen.findByText('read:invoices');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add permissions to Operations' });
    const apiList = readable(requests.find((request) => request.url.startsWith('/api/acme/main/api?'))!.url);
    expect(apiList).toContain('filter={"status":"active"}');

    await userEvent.click(await within(dialog).findByRole('combobox', { name: 'API' }));
    await userEvent.click(await screen.findByRole('option', { name: /Billing/ }));
    const group = await within(dialog).findByRole('group', { name: 'Permission scopes' });
    const boxes = await within(group).findAllByRole('checkbox');
    expect(boxes).toHaveLength(3);
    expect(requests.some((request) => request.url.startsWith('/api/api/a1/PermissionScopes?'))).toBe(true);
    expect(within(dialog).getByRole('button', { name: 'Add' })).toBeDisabled();

    await userEvent.click(within(group).getByRole('checkbox', { name: /write:invoices/ }));
    await userEvent.click(within(group).getByRole('checkbox', { name: /void:invoices/ }));
    expect(within(dialog).getByText('2 selected')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const post = requests.find((request) => request.method === 'POST')!;
    expect(post.url).toBe(`${GROUP_URL}/permissions`);
    expect(JSON.parse(post.body!)).toEqual([
      { apiId: 'a1', permission: 'write:invoices' },
      { apiId: 'a1', permission: 'void:invoices' },
    ]);
    // The list is read again after adding.
    await waitFor(() => expect(requests.filter((request) => request.method === 'GET' && request.url.includes('/permissions?'))).toHaveLength(2));
  });

  it('choosing another API starts a new selection; a refused grant shows the reason and keeps the dialog', async () => {
    const base = provider();
    const { requests } = mockFetch((request) =>
      request.method === 'POST'
        ? { status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'no such permission scope of an active API in this domain' } }
        : base(request),
    );
    await openPermissions();
    await userEvent.click(await screen.findByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(await within(dialog).findByRole('combobox', { name: 'API' }));
    await userEvent.click(await screen.findByRole('option', { name: /Billing/ }));
    await userEvent.click(await within(dialog).findByRole('checkbox', { name: /write:invoices/ }));
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'API' }));
    await userEvent.click(await screen.findByRole('option', { name: /Orders/ }));
    expect(await within(dialog).findByRole('checkbox', { name: /write:orders/ })).not.toBeChecked();
    expect(within(dialog).getByText('0 selected')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /write:orders/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('no such permission scope');
    expect(JSON.parse(requests.find((request) => request.method === 'POST')!.body!)).toEqual([{ apiId: 'a2', permission: 'write:orders' }]);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('deletes one permission after confirmation, sending [{apiId, permission}]', async () => {
    const { requests } = mockFetch(provider());
    await openPermissions();
    await userEvent.click(await screen.findByRole('button', { name: 'Delete write:orders of Orders' }));
    const confirm = await screen.findByRole('dialog');
    expect(confirm).toHaveTextContent('Remove write:orders of Orders from the group?');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests.some((request) => request.method === 'DELETE')).toBe(false);

    await userEvent.click(screen.getByRole('button', { name: 'Delete write:orders of Orders' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'DELETE')).toBe(true));
    const remove = requests.find((request) => request.method === 'DELETE')!;
    expect(remove.url).toBe(`${GROUP_URL}/permissions`);
    expect(JSON.parse(remove.body!)).toEqual([{ apiId: 'a2', permission: 'write:orders' }]);
  });
});
