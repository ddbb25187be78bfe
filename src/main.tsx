/**
 * Entry point. The sign-in pages are small plain React pages; every other path loads the
 * react-admin app on demand, so the first screen ships without react-admin or MUI.
 */
import { lazy, StrictMode, Suspense, useEffect, useState, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import Callback from './pages/Callback';
import { loadAdminApp } from './adminApp';
import ErrorPage from './pages/ErrorPage';
import Login from './pages/Login';
import Logout from './pages/Logout';
import { ResetPassword, SignUp } from './pages/NotOffered';
import { applyLanguage, LANGUAGE_CHANGED, translate } from './i18n/translate';
import { NAVIGATED } from './authProvider/browser';
import './pages/plain.css';

/** The admin app's code: the callback asks for it while it exchanges the code (loadAdminApp). */
const AdminApp = lazy(loadAdminApp);

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

/** The page of the current path; again when the callback moves on without a page load (browser.within). */
function Root() {
  const [pathname, setPathname] = useState(window.location.pathname);
  const [, setLanguageChanges] = useState(0);
  useEffect(() => {
    const moved = () => setPathname(window.location.pathname);
    const relabel = () => setLanguageChanges((n) => n + 1);
    window.addEventListener(NAVIGATED, moved);
    window.addEventListener(LANGUAGE_CHANGED, relabel);
    return () => {
      window.removeEventListener(NAVIGATED, moved);
      window.removeEventListener(LANGUAGE_CHANGED, relabel);
    };
  }, []);
  const Page = pageFor(pathname);
  return (
    <Suspense
      fallback={
        <main className="plain-page" aria-busy="true">
          <p>{translate('iam.loading')}</p>
        </main>
      }
    >
      <Page />
    </Suspense>
  );
}

// the chosen language's words first (docs/CONSOLE.md, "Languages"): English needs no wait
void applyLanguage().finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Root />
    </StrictMode>,
  ),
);
