/**
 * The admin app: loaded lazily by main.tsx for every path that is not a sign-in page.
 * Screens are CustomRoutes so the paths are exactly SPEC 2.1's; each resource's screens come from
 * its declaration and load on first use.
 */
import { lazy } from 'react';
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
import { i18nProvider } from './i18n/i18nProvider';
import { Layout } from './layout/Layout';
import { Notifications } from './layout/Notifications';
import { iamStore } from './layout/store';
import { darkTheme, lightTheme } from './layout/theme';
import NotFound from './pages/NotFound';
import { DeclaredRoute } from './resources/DeclaredRoute';
import { registry } from './resources/registry';

const Dashboard = lazy(() => import('./pages/Dashboard'));
const store = iamStore();

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
 * What react-admin's <Admin> renders (AdminContext, then AdminUI's CssBaseline, CoreAdminUI and
 * Notification, here loaded with the first notification), without its default login page: the
 * sign-in is the plain /login page of main.tsx (authProvider.logout goes there itself), and that
 * default pulled react-hook-form and the login form into the first screen. <Admin> also bundled its
 * unused default i18n provider and store.
 */
export default function App() {
  return (
    <BrowserRouter>
      <AdminContext
        dataProvider={dataProvider}
        authProvider={authProvider}
        i18nProvider={i18nProvider}
        store={store}
        lightTheme={lightTheme}
        darkTheme={darkTheme}
      >
        <CssBaseline enableColorScheme>
          <CoreAdminUI
            accessDenied={AccessDenied}
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
              {registry.filter((declaration) => !declaration.embeddedIn).flatMap((declaration) => [
                <Route
                  key={declaration.routes.list}
                  path={declaration.routes.list}
                  element={<DeclaredRoute declaration={declaration} screen={declaration.screens.list} />}
                />,
                <Route
                  key={declaration.routes.form}
                  path={declaration.routes.form}
                  element={<DeclaredRoute declaration={declaration} screen={declaration.screens.form} />}
                />,
                ...(declaration.routes.deleted
                  ? [
                      <Route
                        key={declaration.routes.deleted}
                        path={declaration.routes.deleted}
                        element={<DeclaredRoute declaration={declaration} screen={declaration.screens.list} />}
                      />,
                    ]
                  : []),
                ...(declaration.routes.view && declaration.screens.view
                  ? [
                      <Route
                        key={declaration.routes.view}
                        path={declaration.routes.view}
                        element={<DeclaredRoute declaration={declaration} screen={declaration.screens.view} />}
                      />,
                    ]
                  : []),
              ])}
            </CustomRoutes>
          </CoreAdminUI>
          <Notifications />
        </CssBaseline>
      </AdminContext>
    </BrowserRouter>
  );
}
