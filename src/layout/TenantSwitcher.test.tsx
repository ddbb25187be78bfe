import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, Notification, TestMemoryRouter } from 'react-admin';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../dataProvider';
import { i18nProvider } from '../i18n/i18nProvider';
import { registry } from '../resources/registry';
import { readRecentTenants, recentTenantsKey } from '../session/recentTenants';
import { clearSession, getSession, updateSession } from '../session/session';
import { mockFetch, readable, type RecordedRequest } from '../test/fetchMock';
import { TenantSwitcher } from './TenantSwitcher';

const globex = { id: 'globex', name: 'globex', displayName: 'Globex', description: 'Reseller', type: 'reseller', parent: 'root' };
const acme = { id: 'acme', name: 'acme', displayName: 'Acme Shop', description: 'A shop', type: 'customer', parent: 'globex' };
const beta = { id: 'beta', name: 'beta', displayName: 'Beta', description: 'New', type: 'customer', parent: 'globex' };
const prod = { id: 'prod', name: 'prod', description: 'Production', primary: true };
const domainsOf: Record<string, { id: string; name: string; description: string; primary: boolean }[]> = {
  globex: [prod],
  // by name, as the provider sorts them: the primary one is second
  acme: [
    { id: 'shop', name: 'shop', description: 'The shop', primary: false },
    { id: 'store', name: 'store', description: 'The store', primary: true },
  ],
  beta: [],
};
const companies = [acme, beta, globex];

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://x');
  const path = url.pathname;
  const q = ((JSON.parse(url.searchParams.get('filter') ?? '{}') as { q?: string }).q ?? '').toLowerCase();
  const page = <T extends { id: string }>(name: string, rows: T[]) => ({
    json: rows,
    headers: { 'Content-Range': rows.length ? `${name} 0-${rows.length - 1}/${rows.length}` : `${name} */0` },
  });
  if (path === '/api/companys/globex/subtreeCompanys') {
    return page('companys', companies.filter((company) => `${company.name} ${company.displayName}`.toLowerCase().includes(q)));
  }
  const domainList = /^\/api\/companys\/([^/]+)\/domainNames$/.exec(path);
  if (domainList) return page('domainNames', (domainsOf[domainList[1]] ?? []).filter((domain) => domain.name.includes(q)));
  const domain = /^\/api\/companys\/([^/]+)\/domainNames\/([^/]+)$/.exec(path);
  if (domain) {
    const found = (domainsOf[domain[1]] ?? []).find((candidate) => (domain[2] === 'primary' ? candidate.primary : candidate.id === domain[2]));
    return found ? { json: found } : { status: 404, json: { message: 'domain not found' } };
  }
  const company = companies.find((candidate) => path === `/api/companys/${candidate.id}`);
  return company ? { json: company } : { status: 404, json: { message: 'not found' } };
}

function renderSwitcher(addresses: string[] = []) {
  render(
    <TestMemoryRouter initialEntries={['/dashboard']} locationCallback={(location) => addresses.push(`${location.pathname}${location.search}`)}>
      <AdminContext dataProvider={createDataProvider({ resources: registry })} i18nProvider={i18nProvider} store={memoryStore()}>
        <TenantSwitcher />
        <Notification />
      </AdminContext>
    </TestMemoryRouter>,
  );
}

const switcher = () => screen.getByRole('button', { name: /^Company and domain: / });

async function openSwitcher() {
  await userEvent.click(switcher());
  return screen.findByRole('combobox', { name: 'Search companies' });
}

const lists = (requests: RecordedRequest[], path: string) =>
  requests.filter((request) => request.method === 'GET' && new URL(request.url, 'http://x').pathname === path).map((request) => readable(request.url));

beforeEach(() => {
  localStorage.clear();
  updateSession({
    user: { id: 'u1', displayName: 'Ada', email: 'ada@globex.example' },
    client: { client_id: 'iam-console', companyId: 'globex', domain: 'prod' },
    company: globex,
    rootCompany: globex,
    domain: prod,
    accessToken: 't',
  });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('company and domain switcher', () => {
  it('names the current company and domain by display name, and calls nothing until opened', async () => {
    const { requests } = mockFetch(provider);
    renderSwitcher();
    expect(switcher()).toHaveAccessibleName('Company and domain: Globex › prod');
    expect(switcher()).toHaveTextContent('Globex › prod');
    expect(switcher()).toHaveAttribute('aria-haspopup', 'dialog');
    expect(requests).toEqual([]);
  });

  it("offers the current domain's settings, one click away, and closes on the way there", async () => {
    const { requests } = mockFetch(provider);
    const addresses: string[] = [];
    renderSwitcher(addresses);
    await openSwitcher();
    const settings = screen.getByRole('link', { name: 'Settings of domain prod' });
    expect(settings).toHaveAttribute('href', '/domains/prod?company=globex');
    await userEvent.click(settings);
    await waitFor(() => expect(addresses.at(-1)).toBe('/domains/prod?company=globex'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // nothing switched
    expect(getSession().domain).toEqual(prod);
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('lists the subtree of the administrator’s own company, searches it, and marks the current company', async () => {
    const { requests } = mockFetch(provider);
    renderSwitcher();
    const field = await openSwitcher();
    expect(field).toHaveFocus();
    const listbox = await screen.findByRole('listbox', { name: 'Companies' });
    expect(within(listbox).getAllByRole('option').map((option) => option.textContent)).toEqual(['Acme Shopacme', 'Betabeta', 'GlobexglobexCurrent']);
    const [first] = lists(requests, '/api/companys/globex/subtreeCompanys');
    expect(first).toContain('sort=["displayName","ASC"]');
    expect(first).toContain('range=[0,9]');

    await userEvent.type(field, 'shop');
    await waitFor(() => expect(within(screen.getByRole('listbox')).getAllByRole('option')).toHaveLength(1));
    expect(screen.getByRole('option', { name: /Acme Shop/ })).toBeInTheDocument();
    // a word typed quickly is one request
    const searches = lists(requests, '/api/companys/globex/subtreeCompanys').filter((url) => url.includes('"q"'));
    expect(searches).toEqual([expect.stringContaining('filter={"q":"shop"}')]);

    await userEvent.clear(field);
    await userEvent.type(field, 'nothing like it');
    expect(await screen.findByText('No company matches "nothing like it"')).toBeInTheDocument();
  });

  it('from the keyboard: a company, then its domains with the primary one first and selected; Enter switches and says where', async () => {
    const { requests } = mockFetch(provider);
    renderSwitcher();
    const field = await openSwitcher();
    await screen.findByRole('option', { name: /Acme Shop/ });
    await userEvent.keyboard('{ArrowDown}');
    expect(field).toHaveAttribute('aria-activedescendant', screen.getByRole('option', { name: /Acme Shop/ }).id);
    await userEvent.keyboard('{Enter}');

    const domainField = await screen.findByRole('combobox', { name: 'Search domains of Acme Shop' });
    expect(domainField).toHaveFocus();
    const listbox = await screen.findByRole('listbox', { name: 'Domains of Acme Shop' });
    const options = within(listbox).getAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['storeThe storePrimary', 'shopThe shop']);
    expect(options[0]).toHaveAttribute('aria-selected', 'true');
    expect(domainField).toHaveAttribute('aria-activedescendant', options[0].id);
    await userEvent.keyboard('{Enter}');

    await waitFor(() => expect(getSession().company?.id).toBe('acme'));
    expect(getSession().domain?.id).toBe('store');
    expect(lists(requests, '/api/companys/acme')).toHaveLength(1);
    expect(lists(requests, '/api/companys/acme/domainNames/store')).toHaveLength(1);
    expect(await screen.findByText('Now in Acme Shop › store')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(switcher()).toHaveAccessibleName('Company and domain: Acme Shop › store');
    expect(switcher()).toHaveFocus();
  });

  it('remembers the recent choices on this device for this administrator, and switches back in one step', async () => {
    mockFetch(provider);
    renderSwitcher();
    await openSwitcher();
    // nothing recent yet
    await screen.findByRole('listbox', { name: 'Companies' });
    expect(screen.queryByRole('group', { name: 'Recent' })).not.toBeInTheDocument();
    await userEvent.click(await screen.findByRole('option', { name: /Acme Shop/ }));
    await userEvent.click(await screen.findByRole('option', { name: /^shop/ }));
    await waitFor(() => expect(getSession().domain?.id).toBe('shop'));

    // where they went and where they came from, the current place left out of the list
    expect(readRecentTenants(getSession()).map((tenant) => `${tenant.companyId}/${tenant.domainId}`)).toEqual(['acme/shop', 'globex/prod']);
    expect(localStorage.getItem(recentTenantsKey(getSession())!)).toContain('Acme Shop');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await openSwitcher();
    const recent = await screen.findByRole('group', { name: 'Recent' });
    expect(within(recent).getAllByRole('option').map((option) => option.textContent)).toEqual(['Globex › prod']);
    await userEvent.keyboard('{ArrowDown}{Enter}');
    await waitFor(() => expect(getSession().company?.id).toBe('globex'));
    expect(getSession().domain?.id).toBe('prod');
    expect(await screen.findByText('Now in Globex › prod')).toBeInTheDocument();

    // another administrator on the same device has recent choices of their own
    updateSession({ user: { id: 'u2', displayName: 'Bob', email: 'bob@globex.example' } });
    expect(readRecentTenants(getSession())).toEqual([]);
  });

  it('switches to a company with no domain yet, and goes back to the companies', async () => {
    mockFetch(provider);
    renderSwitcher();
    await openSwitcher();
    await userEvent.click(await screen.findByRole('option', { name: /Beta/ }));
    expect(await screen.findByText('Company Beta has no domain yet')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Back to companies' }));
    expect(await screen.findByRole('combobox', { name: 'Search companies' })).toHaveFocus();
    await userEvent.click(await screen.findByRole('option', { name: /Beta/ }));
    await userEvent.click(await screen.findByRole('button', { name: 'Switch to Beta' }));
    await waitFor(() => expect(getSession().company?.id).toBe('beta'));
    expect(getSession().domain).toBeUndefined();
    expect(await screen.findByText('Now in Beta (no domain yet)')).toBeInTheDocument();
  });

  it('Escape closes without switching and gives the focus back to the button', async () => {
    const { requests } = mockFetch(provider);
    renderSwitcher();
    await openSwitcher();
    await screen.findByRole('listbox', { name: 'Companies' });
    await userEvent.keyboard('{ArrowDown}{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(switcher()).toHaveFocus();
    expect(getSession().company?.id).toBe('globex');
    expect(requests.every((request) => request.method === 'GET' && request.url.includes('/subtreeCompanys'))).toBe(true);
  });
});
