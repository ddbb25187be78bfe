import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { AdminContext, memoryStore, Notification, TestMemoryRouter, type AuthProvider } from 'react-admin';
import { createDataProvider } from '../dataProvider';
import { i18nProvider, loadScreenWords } from '../i18n/i18nProvider';
import { registry } from '../resources/registry';

// A panel is a tab of a record screen, which shows once the screens' words are loaded (DeclaredRoute).
await loadScreenWords();

/**
 * Renders a panel meant for a tab of a record screen (a user's sign-ins or sessions) inside
 * react-admin with the real data provider (tests mock fetch) and react-admin's notifications; with
 * `authProvider`, what it offers follows its canAccess.
 */
export function renderPanel(panel: ReactElement, path = '/users-new', authProvider?: AuthProvider) {
  const locations: string[] = [];
  render(
    <TestMemoryRouter initialEntries={[path]} locationCallback={(location) => locations.push(location.pathname)}>
      <AdminContext dataProvider={createDataProvider({ resources: registry })} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        {panel}
        <Notification />
      </AdminContext>
    </TestMemoryRouter>,
  );
  return { locations };
}
