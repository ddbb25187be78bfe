import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, getSession, updateSession, type Company } from '../../session/session';
import CompanyList from './CompanyList';
import { companies } from './index';

const root: Company = { id: 'root', name: 'root', displayName: 'Root', type: 'root', parent: null };
const acme: Company = { id: 'acme', name: 'acme', description: 'Acme Inc', type: 'reseller', parent: 'root' };
const children = [
  { id: 'beta', name: 'beta', displayName: 'Beta', description: 'Beta Ltd', type: 'customer', parent: 'acme' },
  { id: 'gamma', name: 'gamma', description: 'Gamma Ltd', type: 'customer', parent: 'acme' },
];

function provider(request: RecordedRequest) {
  if (request.url.includes('/childCompanys')) {
    return { json: children, headers: { 'Content-Range': 'childCompanys 0-1/5' } };
  }
  if (request.method === 'DELETE') return { json: [children[0]] };
  if (request.url === '/api/companys/beta') return { json: children[0] };
  if (request.url === '/api/companys/root') return { json: root };
  if (request.url.endsWith('/domainNames/primary')) return { json: { id: 'beta.example', name: 'beta.example', primary: true } };
  return { status: 404, json: { message: 'not found' } };
}

const open = () => renderScreen(companies, CompanyList, companies.routes.list, { notifications: true });

/** The tooltip a disabled button's wrapper shows on hover; the wrapper takes keyboard focus. */
async function reasonOf(button: HTMLElement): Promise<string> {
  const wrapper = button.parentElement!;
  expect(wrapper).toHaveAttribute('tabindex', '0');
  await userEvent.hover(wrapper);
  const tooltip = await screen.findByRole('tooltip');
  const text = tooltip.textContent ?? '';
  await userEvent.unhover(wrapper);
  await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());
  return text;
}

afterEach(() => {
  // Unmount first: a mounted list would refetch once the session is cleared.
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('companies list', () => {
  beforeEach(() => updateSession({ company: acme, rootCompany: root, domain: { id: 'main', name: 'main' }, accessToken: 't' }));

  it('shows the current company and a page of its children with a page-number window', async () => {
    const { requests } = mockFetch(provider);
    open();
    expect(await screen.findByText('Beta Ltd')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Current company' })).toHaveTextContent('Acme Inc');
    expect(readable(requests[0].url)).toContain('/api/companys/acme/childCompanys?');
    expect(readable(requests[0].url)).toContain('range=[0,2]');
    // 5 children, 3 per page: pages 1 and 2.
    expect(screen.getByRole('button', { name: 'Page 1' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('button', { name: 'Page 2' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Page 2' }));
    await waitFor(() => expect(readable(requests.at(-1)!.url)).toContain('range=[3,5]'));
  });

  it('enables Switch for exactly one selected row and switches to that company and its primary domain', async () => {
    mockFetch(provider);
    open();
    await screen.findByText('Beta Ltd');
    const switchButton = screen.getByRole('button', { name: 'Switch' });
    expect(switchButton).toBeDisabled();
    const rows = screen.getAllByRole('row');
    const betaRow = rows.find((row) => within(row).queryByText('beta'))!;
    const gammaRow = rows.find((row) => within(row).queryByText('gamma'))!;
    await userEvent.click(within(betaRow).getByRole('checkbox'));
    expect(switchButton).toBeEnabled();
    await userEvent.click(within(gammaRow).getByRole('checkbox'));
    expect(switchButton).toBeDisabled();
    await userEvent.click(within(gammaRow).getByRole('checkbox'));
    await userEvent.click(switchButton);
    await waitFor(() => expect(getSession().company?.id).toBe('beta'));
    expect(getSession().domain?.id).toBe('beta.example');
    // what is current now, by display name (docs/CONSOLE.md, "Layout")
    expect(await screen.findByText('Now in Beta › beta.example')).toBeInTheDocument();
  });

  it('switches to a company that has no domain yet', async () => {
    mockFetch((request) =>
      request.url.endsWith('/domainNames/primary') ? { status: 404, json: { message: 'not found' } } : provider(request),
    );
    open();
    await screen.findByText('Beta Ltd');
    const betaRow = screen.getAllByRole('row').find((row) => within(row).queryByText('beta'))!;
    await userEvent.click(within(betaRow).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Switch' }));
    await waitFor(() => expect(getSession().company?.id).toBe('beta'));
    expect(getSession().domain).toBeUndefined();
    expect(await screen.findByText('Now in Beta (no domain yet)')).toBeInTheDocument();
  });

  it('confirms, then deletes the selection with one list body', async () => {
    const { requests } = mockFetch(provider);
    open();
    await screen.findByText('Beta Ltd');
    const betaRow = screen.getAllByRole('row').find((row) => within(row).queryByText('beta'))!;
    await userEvent.click(within(betaRow).getByRole('checkbox'));
    // permanent: Purge on the button and in the dialog (docs/CONSOLE.md, "Resources")
    await userEvent.click(screen.getByRole('button', { name: 'Purge' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Purge 1 item(s)?');
    expect(requests.some((request) => request.method === 'DELETE')).toBe(false);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Purge' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'DELETE')).toBe(true));
    const deletion = requests.find((request) => request.method === 'DELETE')!;
    expect(deletion.url).toBe('/api/companys');
    expect(JSON.parse(deletion.body!)).toEqual(['beta']);
  });

  it('Parent switches to the parent company', async () => {
    updateSession({ rootCompany: root });
    mockFetch((request) =>
      request.url === '/api/companys/root/domainNames/primary'
        ? { json: { id: 'default', name: 'default', primary: true } }
        : provider(request),
    );
    open();
    const parent = await screen.findByRole('button', { name: 'Parent' });
    expect(parent).toBeEnabled();
    await userEvent.click(parent);
    await waitFor(() => expect(getSession().company?.id).toBe('root'));
    expect(getSession().domain?.id).toBe('default');
    expect(await screen.findByText('Now in Root › default')).toBeInTheDocument();
  });

  it('shows each child company\'s type in a Type column', async () => {
    mockFetch(provider);
    open();
    await screen.findByText('Beta Ltd');
    expect(screen.getByRole('columnheader', { name: /Type/ })).toBeInTheDocument();
    const betaRow = screen.getAllByRole('row').find((row) => within(row).queryByText('beta'))!;
    expect(betaRow).toHaveTextContent('customer');
  });

  it('says why Switch is not offered until exactly one company is selected', async () => {
    mockFetch(provider);
    open();
    await screen.findByText('Beta Ltd');
    const switchButton = screen.getByRole('button', { name: 'Switch' });
    expect(switchButton).toBeDisabled();
    expect(await reasonOf(switchButton)).toBe('Select exactly one company to switch to');
    const betaRow = screen.getAllByRole('row').find((row) => within(row).queryByText('beta'))!;
    await userEvent.click(within(betaRow).getByRole('checkbox'));
    expect(switchButton).toBeEnabled();
    // Offered: no tooltip and no extra tab stop around it.
    expect(switchButton.parentElement).not.toHaveAttribute('tabindex');
  });

  it('offers New under a reseller', async () => {
    mockFetch(provider);
    open();
    expect(await screen.findByRole('button', { name: 'New' })).toBeEnabled();
  });

  it('opens a row in view mode on the company form', async () => {
    mockFetch(provider);
    const { locations } = open();
    await userEvent.click(await screen.findByText('Gamma Ltd'));
    // at the company's address (docs/CONSOLE.md, "Routes"), with the state the form reads
    await waitFor(() => expect(locations.at(-1)).toBe('/companies/gamma'));
  });

  it('opens a row from the keyboard through its name', async () => {
    mockFetch(provider);
    const { locations } = open();
    const name = await screen.findByRole('link', { name: 'gamma' });
    expect(name).toHaveAttribute('href', '/companies/gamma');
    name.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(locations.at(-1)).toBe('/companies/gamma'));
  });
});

describe('companies list at the top', () => {
  it('disables Parent for the root company, saying why', async () => {
    updateSession({ company: root, rootCompany: { ...root, id: 'elsewhere' }, domain: { id: 'default', name: 'default' }, accessToken: 't' });
    mockFetch(provider);
    open();
    const parent = await screen.findByRole('button', { name: 'Parent' });
    expect(parent).toBeDisabled();
    expect(await reasonOf(parent)).toBe('Company root has no parent company');
  });

  it("disables Parent for the administrator's own company even when it has a parent, saying why", async () => {
    updateSession({ company: acme, rootCompany: acme, domain: { id: 'main', name: 'main' }, accessToken: 't' });
    mockFetch(provider);
    open();
    const parent = await screen.findByRole('button', { name: 'Parent' });
    expect(parent).toBeDisabled();
    expect(await reasonOf(parent)).toBe('This is your own company: you cannot manage the company above it');
  });
});

describe('companies list of a customer', () => {
  it('disables New, since a customer cannot have child companies, and says so', async () => {
    const customer: Company = { id: 'beta', name: 'beta', type: 'customer', parent: 'acme' };
    updateSession({ company: customer, rootCompany: root, domain: { id: 'b', name: 'b' }, accessToken: 't' });
    const { requests } = mockFetch((request) =>
      request.url.includes('/childCompanys') ? { json: [], headers: { 'Content-Range': 'childCompanys */0' } } : provider(request),
    );
    const { locations } = open();
    const newButton = await screen.findByRole('button', { name: 'New' });
    expect(newButton).toBeDisabled();
    expect(await reasonOf(newButton)).toBe('A customer company cannot have child companies');
    await userEvent.click(newButton.parentElement!);
    expect(locations.at(-1)).toBe(companies.routes.list);
    expect(requests.every((request) => request.method === 'GET')).toBe(true);
  });
});
