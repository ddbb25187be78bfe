/**
 * Entry point. The sign-in pages are small plain React pages; every other path loads the
 * react-admin app on demand, so the first screen ships without react-admin or MUI.
 */
import { lazy, StrictMode, Suspense, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import Callback from './pages/Callback';
import ErrorPage from './pages/ErrorPage';
import Login from './pages/Login';
import Logout from './pages/Logout';
import { ResetPassword, SignUp } from './pages/NotOffered';
import { translate } from './i18n/translate';
import './pages/plain.css';

const AdminApp = lazy(() => import('./App'));

const PLAIN_PAGES: Record<string, ComponentType> = {
  '/': Login,
  '/login': Login,
  '/callback': Callback,
  '/logout': Logout,
  '/error': ErrorPage,
  '/signup': SignUp,
  '/reset-password': ResetPassword,
};

function pageFor(pathname: string): ComponentType {
  const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PLAIN_PAGES[normalized] ?? AdminApp;
}

const Page = pageFor(window.location.pathname);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Suspense
      fallback={
        <main className="plain-page" aria-busy="true">
          <p>{translate('iam.loading')}</p>
        </main>
      }
    >
      <Page />
    </Suspense>
  </StrictMode>,
);
