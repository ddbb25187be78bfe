/**
 * The admin app: loaded lazily by main.tsx for every path that is not a sign-in page.
 * Screens are CustomRoutes so the paths are exactly those of docs/CONSOLE.md, "Routes"; each
 * resource's screens come from its declaration (its own or the generic ones) and load on first use.
 */
import { useMemo } from 'react';
import { CssBaseline } from '@mui/material';
import {
  AccessDenied,
  AdminContext,
  AuthCallback,
  AuthenticationError,
  CoreAdminUI,
  CustomRoutes,
  Error as ErrorPage,
  LoadingPage,
  Title,
} from 'react-admin';
import { BrowserRouter, Route } from 'react-router-dom';
import { authProvider } from './authProvider/authProvider';
import { dataProvider } from './dataProvider';
import { Direction } from './i18n/Direction';
import { declareLabels, i18nProvider } from './i18n/i18nProvider';
import { CreatedNotice } from './layout/CreatedNotice';
import { Layout } from './layout/Layout';
import { Notifications } from './layout/Notifications';
import { iamStore } from './layout/store';
import { darkTheme, lightTheme } from './layout/theme';
import { brandedTheme, useConsoleBranding } from './resources/branding/consoleBranding';
// where every sign-in lands: in the app's own chunks, not a second lazy wave (src/adminApp.ts)
import Dashboard from './pages/Dashboard';
import NotFound from './pages/NotFound';
import { DeclaredRoute } from './resources/DeclaredRoute';
import { registry } from './resources/registry';
import type { ScreenKind } from './resources/generic/screens';
import type { ResourceDeclaration } from './resources/types';

/** A declaration's routes and the screen kind each shows (the deleted list is the list screen). */
function routesOf({ routes }: ResourceDeclaration): [string, ScreenKind][] {
  const all: [string | undefined, ScreenKind][] = [
    [routes.list, 'list'],
    [routes.form, 'form'],
    [routes.deleted, 'list'],
    [routes.view, 'view'],
    [routes.record, 'record'],
  ];
  return all.filter((route): route is [string, ScreenKind] => Boolean(route[0]));
}
const store = iamStore();
// the labels declarations give in each language (docs/ADDING-A-RESOURCE.md, "Adding a language")
declareLabels(registry);

/** The 404 page inside the layout, with its title in the app bar like every screen. */
function NotFoundInLayout() {
  return (
    <>
      <Title title="iam.layout.notFoundTitle" />
      <NotFound />
    </>
  );
}

/**
 * react-admin's Access denied page (a screen the person's roles do not let her read, reached by its
 * address), with its title in the app bar like every screen, and its words at full contrast (its
 * own style fades them to half).
 */
function AccessDeniedInLayout() {
  return (
    <>
      <Title title="ra.page.access_denied" />
      <AccessDenied sx={{ '& .RaAccessDenied-message': { opacity: 1 } }} />
    </>
  );
}

/**
 * What react-admin's <Admin> renders (AdminContext, then AdminUI's CssBaseline, CoreAdminUI and
 * Notification, here loaded with the first notification), without its default login page: the
 * sign-in is the plain /login page of main.tsx (authProvider.logout goes there itself), and that
 * default pulled react-hook-form and the login form into the first screen. <Admin> also bundled its
 * unused default i18n provider and store.
 */
export default function App() {
  // the signed-in company's colours (docs/CONSOLE.md, "Branding")
  const branding = useConsoleBranding();
  const light = useMemo(() => brandedTheme(lightTheme, branding?.primaryLight, branding?.backgroundLight), [branding]);
  const dark = useMemo(() => brandedTheme(darkTheme, branding?.primaryDark, branding?.backgroundDark), [branding]);
  return (
    <BrowserRouter>
      <AdminContext
        dataProvider={dataProvider}
        authProvider={authProvider}
        i18nProvider={i18nProvider}
        store={store}
        lightTheme={light}
        darkTheme={dark}
      >
        <Direction>
        <CssBaseline enableColorScheme>
          <CoreAdminUI
            accessDenied={AccessDeniedInLayout}
            authCallbackPage={AuthCallback}
            authenticationError={AuthenticationError}
            catchAll={NotFoundInLayout}
            error={ErrorPage}
            layout={Layout}
            loading={LoadingPage}
            loginPage={false}
            title="iam.appTitle"
            requireAuth
            disableTelemetry
          >
            <CustomRoutes>
              <Route path="/dashboard" element={<Dashboard />} />
              {registry
                .filter((declaration) => !declaration.embeddedIn)
                .flatMap((declaration) =>
                  routesOf(declaration).map(([path, kind]) => (
                    <Route key={path} path={path} element={<DeclaredRoute declaration={declaration} kind={kind} />} />
                  )),
                )}
            </CustomRoutes>
          </CoreAdminUI>
          <Notifications />
          <CreatedNotice />
        </CssBaseline>
        </Direction>
      </AdminContext>
    </BrowserRouter>
  );
}
