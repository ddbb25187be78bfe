import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { EVERY_PERMISSION, mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, getSession, updateSession } from '../../session/session';
import DomainList from './DomainList';
import { domains } from './index';

const main = { id: 'main', name: 'main', description: 'Main domain', primary: true };
const others = [
  { id: 'second', name: 'second', description: 'Second domain', primary: false },
  { id: 'third', name: 'third', description: 'Third domain', primary: false },
];
const all = [main, ...others];

function provider(request: RecordedRequest) {
  if (request.method === 'GET' && request.url.endsWith('/domainNames/primary')) return { json: main };
  if (request.method === 'GET') {
    const excluded = /condition=id,!=,([^&]+)/.exec(readable(request.url))?.[1];
    const rows = all.filter((domain) => domain.id !== excluded);
    return { json: rows, headers: { 'Content-Range': `domainNames 0-${rows.length - 1}/${rows.length}` } };
  }
  return { json: JSON.parse(request.body!) };
}

const rowOf = (name: string) => screen.getAllByRole('row').find((candidate) => within(candidate).queryByText(name))!;

/** The tooltip a disabled button's wrapper shows on hover; the wrapper takes keyboard focus. */
async function reasonOf(button: HTMLElement): Promise<string> {
  const wrapper = button.parentElement!;
  expect(wrapper).toHaveAttribute('tabindex', '0');
  await userEvent.hover(wrapper);
  const text = (await screen.findByRole('tooltip')).textContent ?? '';
  await userEvent.unhover(wrapper);
  await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());
  return text;
}

beforeEach(() =>
  updateSession({
    company: { id: 'acme', name: 'acme', displayName: 'Acme' },
    domain: main,
    client: { client_id: 'iam-console', companyId: 'root', domain: 'default' },
    accessToken: 't',
  }),
);
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('domains list', () => {
  it('shows the current domain, marked Primary when it is, and lists the others', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    expect(await screen.findByText('Second domain')).toBeInTheDocument();
    const card = screen.getByRole('region', { name: 'Current domain' });
    expect(card).toHaveTextContent('Main domain');
    await waitFor(() => expect(within(card).getByText('Primary')).toBeInTheDocument());
    const list = requests.find((request) => readable(request.url).includes('condition='))!;
    expect(readable(list.url)).toContain('/api/companys/acme/domainNames?');
    expect(readable(list.url)).toContain('condition=id,!=,main');
  });

  it('keeps the Primary mark on the primary domain while another domain is current', async () => {
    updateSession({ domain: others[0] });
    mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    await screen.findByText('Main domain');
    const card = screen.getByRole('region', { name: 'Current domain' });
    expect(card).toHaveTextContent('Second domain');
    expect(within(card).queryByText('Primary')).not.toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Primary' })).toBeInTheDocument();
    expect(within(rowOf('main')).getByText('Primary')).toBeInTheDocument();
    expect(within(rowOf('third')).queryByText('Primary')).not.toBeInTheDocument();
  });

  it('Switch makes the selected domain current without changing the primary one', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list, { notifications: true });
    await screen.findByText('Third domain');
    const switchButton = screen.getByRole('button', { name: 'Switch' });
    expect(await reasonOf(switchButton)).toBe('Select exactly one domain to switch to');
    await userEvent.click(within(rowOf('third')).getByRole('checkbox'));
    await userEvent.click(switchButton);
    await waitFor(() => expect(getSession().domain?.id).toBe('third'));
    expect(await screen.findByText('Now in Acme › third')).toBeInTheDocument();
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
    // The former current domain is a row now, still marked Primary; the card is not.
    await waitFor(() => expect(within(rowOf('main')).getByText('Primary')).toBeInTheDocument());
    expect(within(screen.getByRole('region', { name: 'Current domain' })).queryByText('Primary')).not.toBeInTheDocument();
  });

  it('Set Primary PUTs the whole list with primary only on the chosen domain and leaves the current domain current', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list, { notifications: true });
    await screen.findByText('Second domain');
    const setPrimary = screen.getByRole('button', { name: 'Set Primary' });
    expect(setPrimary).toBeDisabled();
    await userEvent.click(within(rowOf('third')).getByRole('checkbox'));
    await userEvent.click(setPrimary);
    const notice = await screen.findByText('third is now the primary domain');
    const put = requests.find((request) => request.method === 'PUT')!;
    expect(put.url).toBe('/api/companys/acme/domainNames');
    expect(JSON.parse(put.body!)).toEqual([
      { ...main, primary: false },
      { ...others[0], primary: false },
      { ...others[1], primary: true },
    ]);
    // Still in main; the session's copy of its primary flag follows the change.
    expect(getSession().domain).toEqual({ ...main, primary: false });
    // The lists are read again for the new Primary marks.
    await waitFor(() => expect(requests.filter((request) => request.method === 'GET' && request.url.endsWith('/domainNames/primary')).length).toBeGreaterThan(1));

    // Switching to it is one click away, in the notification.
    const snackbar = notice.closest('.MuiSnackbar-root') as HTMLElement;
    await userEvent.click(within(snackbar).getByRole('button', { name: 'Switch to it' }));
    await waitFor(() => expect(getSession().domain?.id).toBe('third'));
    expect(await screen.findByText('Now in Acme › third')).toBeInTheDocument();
    expect(requests.filter((request) => request.method === 'PUT')).toHaveLength(1);
  });

  it('Set Primary leaves the session alone when the current domain keeps its primary flag', async () => {
    updateSession({ domain: others[0] });
    const before = getSession().domain;
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    await screen.findByText('Third domain');
    await userEvent.click(within(rowOf('third')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Set Primary' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'PUT')).toBe(true));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Set Primary' })).toBeDisabled());
    expect(getSession().domain).toBe(before);
  });

  it('does not offer Set Primary or Delete on the primary domain, and says why', async () => {
    updateSession({ domain: others[0] });
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    await screen.findByText('Main domain');
    await userEvent.click(within(rowOf('main')).getByRole('checkbox'));
    const setPrimary = screen.getByRole('button', { name: 'Set Primary' });
    expect(setPrimary).toBeDisabled();
    expect(await reasonOf(setPrimary)).toBe('Domain main is already the primary domain');
    const remove = screen.getByRole('button', { name: /^(Delete|Purge)$/ });
    expect(remove).toBeDisabled();
    expect(await reasonOf(remove)).toBe('Domain main is the primary domain: make another domain primary first');
    // Another domain alone may go.
    await userEvent.click(within(rowOf('main')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('third')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    expect(setPrimary).toBeEnabled();
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('does not offer Delete on the domain the administrator is signed in to', async () => {
    updateSession({ client: { client_id: 'iam-console', companyId: 'acme', domain: 'second' } });
    mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    await screen.findByText('Second domain');
    await userEvent.click(within(rowOf('second')).getByRole('checkbox'));
    const remove = screen.getByRole('button', { name: /^(Delete|Purge)$/ });
    expect(remove).toBeDisabled();
    expect(await reasonOf(remove)).toBe('You are signed in to domain second: it cannot be deleted');
  });
});

describe('a list that cannot be read', () => {
  it('says so, not that it is empty, and reads it again on Try again', async () => {
    let failing = true;
    mockFetch((request) =>
      failing && readable(request.url).includes('condition=') ? { status: 500, json: { message: 'the database is away' } } : provider(request),
    );
    renderScreen(domains, DomainList, domains.routes.list);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The list could not be read: the database is away');
    expect(screen.queryByText('No other domain yet. Choose New to create one.')).toBeNull();
    failing = false;
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Second domain')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe("the current domain's card", () => {
  it("leads to the current domain's own screen and to its Security tab, one click each", async () => {
    mockFetch(provider);
    const { addresses } = renderScreen(domains, DomainList, domains.routes.list);
    const card = await screen.findByRole('region', { name: 'Current domain' });
    const settings = within(card).getByRole('link', { name: 'Domain settings' });
    expect(settings).toHaveAttribute('href', '/domains/main?company=acme');
    expect(within(card).getByRole('link', { name: 'Security policy' })).toHaveAttribute('href', '/domains/main?company=acme&tab=security');
    expect(within(card).getByRole('link', { name: 'Outbox' })).toHaveAttribute('href', '/outbox');
    await userEvent.click(settings);
    await waitFor(() => expect(addresses.at(-1)).toBe('/domains/main?company=acme'));
  });

  it('offers the outbox only to those who may read it', async () => {
    mockFetch(provider, { permissions: EVERY_PERMISSION.filter((permission) => !/^users:(write|recover)$/.test(permission)) });
    renderScreen(domains, DomainList, domains.routes.list, { authProvider });
    const card = await screen.findByRole('region', { name: 'Current domain' });
    expect(await within(card).findByRole('link', { name: 'Domain settings' })).toBeInTheDocument();
    await screen.findByText('Second domain');
    expect(within(card).queryByRole('link', { name: 'Outbox' })).not.toBeInTheDocument();
  });
});

describe('domains of a company with no domain yet', () => {
  it('says so and leads to the form of its first domain, never calling with an empty id', async () => {
    updateSession({ company: { id: 'fresh', name: 'fresh' }, domain: undefined });
    const { requests } = mockFetch((request) => ({ json: [], headers: { 'Content-Range': 'domainNames */0' } }));
    const { locations } = renderScreen(domains, DomainList, domains.routes.list);
    const card = await screen.findByRole('region', { name: 'Current domain' });
    expect(within(card).getByRole('heading', { name: 'Company fresh has no domain yet' })).toBeInTheDocument();
    await waitFor(() => expect(requests.length).toBeGreaterThan(0));
    for (const request of requests) expect(new URL(request.url, 'http://x').pathname).not.toMatch(/\/\/|\/$/);
    await userEvent.click(within(card).getByRole('button', { name: 'Create the first domain' }));
    await waitFor(() => expect(locations.at(-1)).toBe(domains.routes.form));
  });
});
