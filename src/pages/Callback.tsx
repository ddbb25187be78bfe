import { useEffect, useState } from 'react';
import { browser } from '../authProvider/browser';
import { handleCallback } from '../authProvider/callback';
import { translate } from '../i18n/translate';

type View = { kind: 'logging' } | { kind: 'loggedIn' } | { kind: 'denied'; error: string } | { kind: 'idle' };

/** SPEC 2.3: 'Logging.....', then 'Logged In.' and the dashboard; an ?error shows its message. */
export default function Callback() {
  const [view, setView] = useState<View>({ kind: 'logging' });

  useEffect(() => {
    let active = true;
    handleCallback(window.location.search).then(
      (result) => {
        if (!active) return;
        if (result.kind === 'signedIn') {
          setView({ kind: 'loggedIn' });
          browser.replace(result.next);
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
