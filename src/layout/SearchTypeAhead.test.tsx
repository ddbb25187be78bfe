/**
 * Keys typed right after Ctrl+K, while the search dialog's chunk is still loading, are kept for its
 * field (docs/CONSOLE.md, "Layout"). In a file of its own: the dialog's chunk loads here for the
 * first time, as it does after sign-in.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, TestMemoryRouter } from 'react-admin';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createDataProvider } from '../dataProvider';
import { i18nProvider } from '../i18n/i18nProvider';
import { registry } from '../resources/registry';
import { clearSession, updateSession } from '../session/session';
import { mockFetch, type RecordedRequest } from '../test/fetchMock';
import { SearchButton } from './SearchButton';

const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.com', status: 'active' };

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://x');
  const q = (JSON.parse(url.searchParams.get('filter') ?? '{}') as { q?: string }).q;
  const rows = q === 'ada' && url.pathname.endsWith('/users') ? [ada] : [];
  return { json: rows, headers: { 'Content-Range': `items ${rows.length ? '0-0' : '*'}/${rows.length}` } };
}

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

it('keeps what is typed right after Ctrl+K while the dialog loads, before what follows in its field', async () => {
  const { requests } = mockFetch(provider);
  render(
    <TestMemoryRouter initialEntries={['/dashboard']}>
      <AdminContext dataProvider={createDataProvider({ resources: registry })} i18nProvider={i18nProvider} store={memoryStore()}>
        <SearchButton />
      </AdminContext>
    </TestMemoryRouter>,
  );
  fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
  // still loading: these keys reach the page, and are not let through to it
  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  const kept = ['a', 'x', 'Backspace', 'd'].map((key) => fireEvent.keyDown(document.body, { key }));
  expect(kept).toEqual([false, false, false, false]);

  const field = await screen.findByRole('combobox', { name: 'Search' }, { timeout: 5000 });
  await waitFor(() => expect(field).toHaveValue('ad'));
  // once the dialog is there, nothing is kept any more: keys go where they are typed
  expect(fireEvent.keyDown(document.body, { key: 'z' })).toBe(true);
  expect(field).toHaveValue('ad');
  await userEvent.type(field, 'a');
  expect(field).toHaveValue('ada');
  expect(await screen.findByRole('option', { name: /Ada Lovelace/ })).toBeInTheDocument();
  expect(requests.every((request) => JSON.parse(new URL(request.url, 'http://x').searchParams.get('filter') ?? '{}').q === 'ada')).toBe(true);
});
