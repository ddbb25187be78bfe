/**
 * How lists open (docs/CONSOLE.md, "Lists"): a side-bar link opens its list afresh, whatever search
 * it had last time, and the rows per page a person chose for a list stay her choice.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../App';
import { clearSession } from '../session/session';
import { mockFetch, readable, type RecordedRequest } from '../test/fetchMock';
import { signedInAs } from '../test/session';

const domains = ['default', 'extra', 'more', 'other', 'spare'].map((id) => ({ id, name: id, description: `${id} domain`, primary: id === 'default' }));

function provider(request: RecordedRequest) {
  const url = new URL(readable(request.url), 'http://x');
  if (url.pathname.endsWith('/domainNames/primary')) return { json: domains[0] };
  if (url.pathname.endsWith('/domainNames')) {
    const q = (JSON.parse(url.searchParams.get('filter') ?? '{}') as { q?: string }).q ?? '';
    const rows = domains.filter((domain) => domain.id !== 'default' && domain.name.includes(q));
    return { json: rows, headers: { 'Content-Range': rows.length ? `domainNames 0-${rows.length - 1}/${rows.length}` : 'domainNames */0' } };
  }
  if (url.pathname.endsWith('/childCompanys')) return { json: [], headers: { 'Content-Range': 'childCompanys */0' } };
  return { status: 404, json: { message: 'not found' } };
}

/** The domain lists asked, as filter and range. */
const domainLists = (requests: RecordedRequest[]) =>
  requests
    .map((request) => new URL(readable(request.url), 'http://x'))
    .filter((url) => url.pathname === '/api/companys/root/domainNames' && url.searchParams.has('condition'))
    .map((url) => `${url.searchParams.get('filter')} ${url.searchParams.get('range')}`);

beforeEach(() => {
  localStorage.clear();
  signedInAs();
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('opening a list', () => {
  it('from the side bar: unfiltered, with the rows per page the person chose for it', async () => {
    const { requests } = mockFetch(provider);
    window.history.replaceState(null, '', '/onboarding-domains');
    render(<App />);
    const search = await screen.findByPlaceholderText('Search', {}, { timeout: 5000 });
    await waitFor(() => expect(domainLists(requests).at(-1)).toBe('{} [0,2]'));

    await userEvent.click(screen.getByRole('combobox', { name: 'Rows per page' }));
    await userEvent.click(await screen.findByRole('option', { name: '25' }));
    await waitFor(() => expect(domainLists(requests).at(-1)).toBe('{} [0,24]'));
    await userEvent.type(search, 'ext');
    await waitFor(() => expect(domainLists(requests).at(-1)).toBe('{"q":"ext"} [0,24]'));

    // elsewhere, then back through the side bar
    await userEvent.click(screen.getByRole('menuitem', { name: 'Companies' }));
    await screen.findByText('No child companies yet. Choose New to create one under this company.', {}, { timeout: 3000 });
    const link = screen.getByRole('menuitem', { name: 'Domains' });
    expect(link).toHaveAttribute('href', '/onboarding-domains?page=1');
    await userEvent.click(link);
    await waitFor(() => expect(domainLists(requests).at(-1)).toBe('{} [0,24]'));
    expect(await screen.findByPlaceholderText('Search')).toHaveValue('');
    expect(screen.getByRole('combobox', { name: 'Rows per page' })).toHaveTextContent('25');
    // the entry is marked as the current screen, its query aside
    expect(link).toHaveClass('RaMenuItemLink-active');
  });

  it('by its address without a query: the list as it was left (react-admin keeps it), the menu link aside', async () => {
    const { requests } = mockFetch(provider);
    window.history.replaceState(null, '', '/onboarding-domains');
    const { unmount } = render(<App />);
    const search = await screen.findByPlaceholderText('Search', {}, { timeout: 5000 });
    await userEvent.type(search, 'ext');
    await waitFor(() => expect(domainLists(requests).at(-1)).toBe('{"q":"ext"} [0,2]'));
    unmount();

    window.history.replaceState(null, '', '/onboarding-domains');
    render(<App />);
    await waitFor(() => expect(domainLists(requests).at(-1)).toBe('{"q":"ext"} [0,2]'));
  });
});
