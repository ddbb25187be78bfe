import { useState } from 'react';
import { browser } from '../authProvider/browser';
import { signOut } from '../authProvider/signOut';
import { translate } from '../i18n/translate';

/** Asks, then ends the sign-in at the provider, removes the token cookie and the session, and goes to / (docs/CONSOLE.md). */
export default function Logout() {
  const [leaving, setLeaving] = useState(false);
  const logOut = async () => {
    setLeaving(true);
    await signOut();
    browser.assign('/');
  };
  return (
    <main className="plain-page">
      <h1>{translate('iam.logout.question')}</h1>
      <button className="plain-button" type="button" onClick={logOut} disabled={leaving} aria-busy={leaving}>
        {translate('iam.logout.button')}
      </button>
    </main>
  );
}
