import { useState } from 'react';
import { browser } from '../authProvider/browser';
import { signOut } from '../authProvider/signOut';
import { translate } from '../i18n/translate';

/**
 * Where a failed sign-in ends (docs/CONSOLE.md, "Callback"). The product specification does not show its content; we offer a way back that
 * always reaches the form: whatever session or remembered token led here is signed out first,
 * otherwise /login would resume it and come back (docs/CONSOLE.md "Callback").
 */
export default function ErrorPage() {
  const [leaving, setLeaving] = useState(false);
  const backToSignIn = async () => {
    setLeaving(true);
    await signOut();
    browser.assign('/login');
  };
  return (
    <main className="plain-page">
      <h1>{translate('iam.error.title')}</h1>
      <p>{translate('iam.error.text')}</p>
      <button className="plain-button" type="button" onClick={backToSignIn} disabled={leaving} aria-busy={leaving}>
        {translate('iam.error.login')}
      </button>
    </main>
  );
}
