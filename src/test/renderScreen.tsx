import type { ComponentType } from 'react';
import { render } from '@testing-library/react';
import { AdminContext, memoryStore, Notification, TestMemoryRouter, type AuthProvider } from 'react-admin';
import type { InitialEntry } from 'react-router-dom';
import { createDataProvider } from '../dataProvider';
import { i18nProvider, loadScreenWords } from '../i18n/i18nProvider';
import { DeclaredRoute } from '../resources/DeclaredRoute';
import { registry } from '../resources/registry';
import type { ResourceDeclaration } from '../resources/types';

// Screens show once the screens' words are loaded (DeclaredRoute); here they are from the start.
await loadScreenWords();

/**
 * Renders one declared screen inside react-admin with the real data provider (tests mock fetch),
 * after a previous entry so that "back one screen" is observable; with `notifications`, react-admin's
 * snackbar too, so that what the screen notifies can be read (and its actions clicked); with
 * `authProvider`, what it offers follows its canAccess (the console's own reads the permissions
 * fetch answers), else everything is allowed.
 */
export function renderScreen(
  declaration: ResourceDeclaration,
  screen: ComponentType,
  entry: InitialEntry,
  { notifications = false, authProvider }: { notifications?: boolean; authProvider?: AuthProvider } = {},
): { locations: string[]; addresses: string[] } {
  const locations: string[] = [];
  // the whole address, query included (a list's filters live there)
  const addresses: string[] = [];
  render(
    <TestMemoryRouter
      initialEntries={['/previous', entry]}
      initialIndex={1}
      locationCallback={(location) => {
        locations.push(location.pathname);
        addresses.push(`${location.pathname}${location.search}`);
      }}
    >
      <AdminContext
        dataProvider={createDataProvider({ resources: registry })}
        authProvider={authProvider}
        i18nProvider={i18nProvider}
        store={memoryStore()}
      >
        <DeclaredRoute declaration={declaration} screen={screen} />
        {notifications && <Notification />}
      </AdminContext>
    </TestMemoryRouter>,
  );
  return { locations, addresses };
}
