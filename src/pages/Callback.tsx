import { useEffect, useState } from 'react';
import { browser } from '../authProvider/browser';
import { handleCallback } from '../authProvider/callback';
import { signOut } from '../authProvider/signOut';
import { translate } from '../i18n/translate';
import { openAccountPage } from '../layout/openAccountPage';
import { accountPageUrl } from './Login';

type View =
  | { kind: 'logging' }
  | { kind: 'loggedIn' }
  | { kind: 'denied'; error: string }
  | { kind: 'notAdministrator'; company: string; idToken?: string; accessToken?: string }
  | { kind: 'idle' };

/** docs/CONSOLE.md, "Callback": 'Logging.....', then 'Logged In.' and the dashboard; an ?error shows its message. */
export default function Callback() {
  const [view, setView] = useState<View>({ kind: 'logging' });
  const [leaving, setLeaving] = useState(false);

  useEffect(() => {
    let active = true;
    handleCallback(window.location.search).then(
      (result) => {
        if (!active) return;
        if (result.kind === 'signedIn') {
          setView({ kind: 'loggedIn' });
          // no page load: the admin app starts in this page (main.tsx), its code and the dashboard's
          // fetched side by side then (fetching them during the exchange slowed it: docs/PERFORMANCE.md)
          browser.within(result.next);
        } else if (result.kind === 'retype') {
          // the form again, with the address she typed and why (docs/CONSOLE.md "Sign-in form")
          browser.replace(`/login?reason=${result.reason}${result.retryAfter ? `&retry=${result.retryAfter}` : ''}`);
        } else if (result.kind === 'expired') {
          // a fixed reason code, never text: /login maps it to its sentence (docs/CONSOLE.md "Sign-in form")
          browser.replace('/login?reason=expired');
        } else {
          setView(result);
        }
      },
      (error: unknown) => {
        console.error('Sign-in callback failed', error);
        if (active) browser.replace('/error');
      },
    );
    return () => {
      active = false;
    };
  }, []);

  if (view.kind === 'notAdministrator') {
    // Shown here, not on /login: the company comes from the token response, never from the address.
    const signInAsSomeoneElse = async () => {
      setLeaving(true);
      await signOut(view.idToken);
      browser.assign('/login');
    };
    return (
      <main className="plain-page">
        <h1>{translate('iam.callback.notAdministrator.title')}</h1>
        <p className="plain-page__error">{translate('iam.callback.notAdministrator.text', { company: view.company })}</p>
        <button className="plain-button" type="button" onClick={signInAsSomeoneElse} disabled={leaving} aria-busy={leaving}>
          {translate('iam.callback.notAdministrator.switchUser')}
        </button>
        {/* what a person who administers nothing can do here: her own factors and recovery codes, with this sign-in (openAccountPage.ts) */}
        <p>
          <a
            href={accountPageUrl()}
            onClick={(event) => {
              if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0) return;
              event.preventDefault();
              void openAccountPage({ accessToken: view.accessToken, fallback: accountPageUrl() });
            }}
          >
            {translate('iam.callback.notAdministrator.account')}
          </a>
        </p>
      </main>
    );
  }

  return (
    <main className="plain-page" aria-live="polite">
      <h1>{translate(view.kind === 'loggedIn' ? 'iam.callback.loggedIn' : 'iam.callback.logging')}</h1>
      {view.kind === 'denied' && <p className="plain-page__error">{translate('iam.callback.message', { error: view.error })}</p>}
      {(view.kind === 'denied' || view.kind === 'idle') && (
        <a className="plain-button" href="/login">
          {translate('iam.callback.login')}
        </a>
      )}
    </main>
  );
}
