import { act, screen, waitFor, within } from '@testing-library/react';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, TestMemoryRouter } from 'react-admin';
import { Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import { i18nProvider } from '../../i18n/i18nProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { DeclaredRoute } from '../DeclaredRoute';
import { registry } from '../registry';
import { applications } from '../applications/index';
import { users } from '../users/index';

const people = [
  { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active' },
  { id: 'u2', username: 'grace', displayName: 'Grace', email: 'grace@example.com', status: 'active' },
];
const apps = [
  { id: 'app00001', client_name: 'Shop', audience: 'shop', status: 'active' },
  { id: 'app00002', client_name: 'Blog', audience: 'blog', status: 'active' },
];

function provider(request: RecordedRequest) {
  if (request.method !== 'GET') return { json: JSON.parse(request.body ?? '{}') };
  const url = new URL(request.url, 'http://x');
  const rows = url.pathname.endsWith('/users') ? people : url.pathname.endsWith('/application') ? apps : [];
  const name = url.pathname.split('/').pop();
  return { json: rows, headers: { 'Content-Range': `${name} 0-${Math.max(rows.length - 1, 0)}/${rows.length}` } };
}

/** The list and form routes in one router and one react-admin store, as in the app. */
function renderRoutes(path: string) {
  render(
    <TestMemoryRouter initialEntries={[path]}>
      <AdminContext dataProvider={createDataProvider({ resources: registry })} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          {[users, applications].flatMap((declaration) => [
            <Route key={declaration.routes.list} path={declaration.routes.list} element={<DeclaredRoute declaration={declaration} kind="list" />} />,
            <Route key={declaration.routes.form} path={declaration.routes.form} element={<DeclaredRoute declaration={declaration} kind="form" />} />,
          ])}
        </Routes>
      </AdminContext>
    </TestMemoryRouter>,
  );
}

// the list screens load lazily: a busy machine takes more than findAll's default second
const checkboxOf = async (name: string) =>
  within((await screen.findAllByRole('row', {}, { timeout: 5000 })).find((row) => within(row).queryByText(name))!).getByRole('checkbox');

beforeEach(() =>
  updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }),
);
afterEach(() => {
  clearSession();
  vi.unstubAllGlobals();
});

describe('a list selection does not outlive its context', () => {
  it('is cleared after opening the form for a create and coming back', async () => {
    mockFetch(provider);
    renderRoutes(users.routes.list);
    await userEvent.click(await checkboxOf('Ada'));
    await userEvent.click(await checkboxOf('Grace'));
    expect(await checkboxOf('Grace')).toBeChecked();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeEnabled();

    await userEvent.click(screen.getByRole('button', { name: 'New' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }, { timeout: 5000 }));

    expect(await checkboxOf('Ada')).not.toBeChecked();
    expect(await checkboxOf('Grace')).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeDisabled();
  });

  it('is cleared when the current domain changes (the Domains drop-down, a company switch)', async () => {
    mockFetch(provider);
    renderRoutes(applications.routes.list);
    await userEvent.click(await checkboxOf('Shop'));
    expect(await checkboxOf('Shop')).toBeChecked();

    act(() => updateSession({ domain: { id: 'shop', name: 'shop' } }));

    await waitFor(async () => expect(await checkboxOf('Shop')).not.toBeChecked());
    expect(screen.getByRole('button', { name: 'Delete' })).toBeDisabled();
  });
});
