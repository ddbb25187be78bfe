import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, TestMemoryRouter, type AuthProvider } from 'react-admin';
import type { Location } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../dataProvider';
import { i18nProvider } from '../i18n/i18nProvider';
import { domains } from '../resources/domains';
import { registry } from '../resources/registry';
import { clearSession, updateSession } from '../session/session';
import { mockFetch, readable, type RecordedRequest } from '../test/fetchMock';
import { SearchButton } from './SearchButton';

const company = { id: 'acme', name: 'acme' };
const domain = { id: 'main', name: 'main' };

const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.com', status: 'active' };
const byron = { id: 'u2', username: 'byron', displayName: 'Ada Byron', email: 'byron@example.com', status: 'active' };
const fans = { id: 'ada-fans', name: 'ada-fans', displayName: 'Ada fans', email: 'fans@example.com', status: 'active' };

/** The resource a list request is for (users, groups, applications, apis) and its q filter. */
function listRequest(request: RecordedRequest) {
  const url = new URL(request.url, 'http://x');
  const resource = url.pathname.split('/').at(-1)!;
  const q = (JSON.parse(url.searchParams.get('filter') ?? '{}') as { q?: string }).q;
  return { resource, q, url };
}

/** Users and groups named after the query's first letters; no applications or APIs. */
function provider(rows: Record<string, Record<string, (typeof ada | typeof fans)[]>> = { ada: { users: [ada, byron], groups: [fans] } }) {
  return (request: RecordedRequest) => {
    const { resource, q } = listRequest(request);
    const found = rows[q ?? '']?.[resource] ?? [];
    return { json: found, headers: { 'Content-Range': `${resource} 0-${Math.max(found.length - 1, 0)}/${found.length}` } };
  };
}

function renderSearch(authProvider?: AuthProvider) {
  const locations: Location[] = [];
  render(
    <TestMemoryRouter initialEntries={['/dashboard']} locationCallback={(location) => locations.push(location)}>
      <AdminContext
        dataProvider={createDataProvider({ resources: registry })}
        authProvider={authProvider}
        i18nProvider={i18nProvider}
        store={memoryStore()}
      >
        <SearchButton />
      </AdminContext>
    </TestMemoryRouter>,
  );
  return { locations };
}

async function openDialog() {
  await userEvent.click(screen.getByRole('button', { name: 'Search' }));
  return screen.findByRole('combobox', { name: 'Search' });
}

const searches = (requests: RecordedRequest[]) => requests.filter((request) => request.method === 'GET').map(listRequest);

beforeEach(() => updateSession({ company, rootCompany: company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('search dialog', () => {
  it('Ctrl+K and Cmd+K open it from anywhere; it starts with a hint and sends nothing', async () => {
    const { requests } = mockFetch(provider());
    renderSearch();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
    const field = await screen.findByRole('combobox', { name: 'Search' });
    expect(field).toHaveFocus();
    expect(screen.getByRole('dialog', { name: 'Search' })).toHaveTextContent('applications and APIs of domain main');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    fireEvent.keyDown(window, { key: 'K', metaKey: true });
    expect(await screen.findByRole('combobox', { name: 'Search' })).toBeInTheDocument();
    expect(requests).toEqual([]);
  });

  it('a word typed quickly sends one request per type, with its q filter, in the current domain, active records only', async () => {
    const { requests } = mockFetch(provider());
    renderSearch();
    await userEvent.type(await openDialog(), 'ada');
    expect(await screen.findByRole('option', { name: /Ada Lovelace/ })).toBeInTheDocument();
    // Past another debounce period: nothing more is sent.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const sent = searches(requests);
    // The provider's paths of users, groups, applications and APIs in the session's domain.
    expect(sent.map((request) => request.url.pathname).sort()).toEqual([
      '/api/acme/main/api',
      '/api/acme/main/application',
      '/api/companys/acme/domainNames/main/groups',
      '/api/companys/acme/domainNames/main/users',
    ]);
    for (const request of sent) {
      expect(request.q).toBe('ada');
      expect(readable(request.url.search)).toContain('condition=status,!=,deleted');
      expect(readable(request.url.search)).toContain('range=[0,4]');
    }
    const listbox = screen.getByRole('listbox');
    expect(within(listbox).getByRole('group', { name: 'Users' })).toHaveTextContent('Ada Lovelace');
    expect(within(listbox).getByRole('group', { name: 'Groups' })).toHaveTextContent('Ada fans');
    expect(within(listbox).queryByRole('group', { name: 'Applications' })).not.toBeInTheDocument();
  });

  it('keeps nothing once closed: keys typed later go where the focus is', async () => {
    mockFetch(provider());
    renderSearch();
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    await screen.findByRole('combobox', { name: 'Search' });
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const typed = fireEvent.keyDown(document.body, { key: 'q' });
    // not held back (preventDefault) for a search that is not coming
    expect(typed).toBe(true);
  });

  it("ignores an older query's late answer", async () => {
    const { fetchMock } = mockFetch(
      provider({ ad: { users: [{ ...ada, id: 'old', displayName: 'Adam Old' }] }, ada: { users: [ada] } }),
    );
    // The answers to "ad" wait until released, and so arrive after those to "ada".
    const answer = fetchMock.getMockImplementation()!;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let heldCount = 0;
    fetchMock.mockImplementation(async (input, init) => {
      if (listRequest({ method: 'GET', url: String(input), headers: new Headers(), body: undefined }).q === 'ad') {
        heldCount++;
        await held;
      }
      return answer(input, init);
    });
    renderSearch();
    const field = await openDialog();
    await userEvent.type(field, 'ad');
    await waitFor(() => expect(heldCount).toBe(4));
    await userEvent.type(field, 'a');
    expect(await screen.findByRole('option', { name: /Ada Lovelace/ })).toBeInTheDocument();
    release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByText('Adam Old')).not.toBeInTheDocument();
    expect(screen.getAllByRole('option')).toHaveLength(1);
  });

  it('Up and Down move through the results, Enter opens the record in view mode as its list does', async () => {
    mockFetch(provider());
    const { locations } = renderSearch();
    const field = await openDialog();
    await userEvent.type(field, 'ada');
    await screen.findByRole('option', { name: /Ada fans/ });
    expect(field).toHaveAttribute('aria-expanded', 'true');
    expect(field).toHaveAttribute('aria-controls', screen.getByRole('listbox').id);
    expect(field).not.toHaveAttribute('aria-activedescendant');
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{ArrowUp}');
    const second = screen.getByRole('option', { name: /Ada Byron/ });
    expect(second).toHaveAttribute('aria-selected', 'true');
    expect(field).toHaveAttribute('aria-activedescendant', second.id);
    expect(field).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    // the record's shareable address (docs/CONSOLE.md, "Routes"), with the state its list row gives
    await waitFor(() => expect(locations.at(-1)?.pathname).toBe(`/users/${byron.id}`));
    expect(locations.at(-1)?.search).toBe(`?company=${company.id}&domain=${domain.id}`);
    expect(locations.at(-1)?.state).toEqual({ company, domain, user: byron, mode: 'view', header: 'User' });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('a group opens in its form, view mode; Up from nothing selected wraps to the last result', async () => {
    mockFetch(provider());
    const { locations } = renderSearch();
    await userEvent.type(await openDialog(), 'ada');
    await screen.findByRole('option', { name: /Ada fans/ });
    await userEvent.keyboard('{ArrowUp}{Enter}');
    await waitFor(() => expect(locations.at(-1)?.pathname).toBe(`/groups/${fans.id}`));
    expect(locations.at(-1)?.state).toEqual({ company, domain, group: fans, mode: 'view' });
  });

  it('keeps recent searches: most recent first, once each, at most 8, offered when nothing is typed; Clear forgets them', async () => {
    const queries = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8', 'ADA', 'ada'];
    mockFetch(provider(Object.fromEntries(queries.map((query) => [query, { users: [ada] }]))));
    renderSearch();
    for (const query of queries) {
      const field = await openDialog();
      await userEvent.type(field, query);
      await screen.findByRole('option', { name: /Ada Lovelace/ });
      await userEvent.keyboard('{ArrowDown}{Enter}');
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    }
    const field = await openDialog();
    const recent = screen.getByRole('listbox', { name: 'Recent searches' });
    expect(within(recent).getAllByRole('option').map((option) => option.textContent)).toEqual(['ada', 'q8', 'q7', 'q6', 'q5', 'q4', 'q3', 'q2']);
    // Choosing one searches it again.
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    expect(field).toHaveValue('q8');
    expect(await screen.findByRole('option', { name: /Ada Lovelace/ })).toBeInTheDocument();
    await userEvent.clear(field);
    await userEvent.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });

  it('says when nothing matches, and says so in a sentence when the search fails', async () => {
    mockFetch((request) =>
      listRequest(request).q === 'broken' ? { status: 500, json: { statusCode: 500, error: 'Internal Server Error', message: 'boom' } } : provider()(request),
    );
    renderSearch();
    const field = await openDialog();
    await userEvent.type(field, 'zzz');
    expect(await screen.findByRole('status')).toHaveTextContent('No results for "zzz"');
    await userEvent.clear(field);
    await userEvent.type(field, 'broken');
    expect(await screen.findByRole('alert')).toHaveTextContent('The search could not be completed. Try again in a moment.');
  });

  it('signs out when the search answers 401, as every screen does', async () => {
    mockFetch(() => ({ status: 401, json: { statusCode: 401, error: 'Unauthorized', message: 'authentication error' } }));
    const logout = vi.fn(() => Promise.resolve(false as const));
    renderSearch({
      login: () => Promise.resolve(),
      logout,
      checkAuth: () => Promise.resolve(),
      checkError: (error: { status?: number }) => (error?.status === 401 ? Promise.reject({ message: false }) : Promise.resolve()),
      getPermissions: () => Promise.resolve(undefined),
    });
    await userEvent.type(await openDialog(), 'ada');
    await waitFor(() => expect(logout).toHaveBeenCalled());
    expect(screen.queryByText('authentication error')).not.toBeInTheDocument();
  });

  it('with no current domain it says so and calls nothing', async () => {
    clearSession();
    updateSession({ company: { id: 'fresh', name: 'fresh', displayName: 'Fresh Ltd' }, rootCompany: company, accessToken: 't' });
    const { requests } = mockFetch(provider());
    const { locations } = renderSearch();
    fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
    expect(await screen.findByRole('heading', { name: 'Company Fresh Ltd has no domain yet' })).toBeInTheDocument();
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Create the first domain' }));
    await waitFor(() => expect(locations.at(-1)?.pathname).toBe(domains.routes.form));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests).toEqual([]);
  });
});
