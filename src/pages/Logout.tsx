import { browser } from '../authProvider/browser';
import { signOut } from '../authProvider/signOut';
import { translate } from '../i18n/translate';

/** SPEC 2.3: asks, then removes the token cookie (and the session) and goes to /. */
export default function Logout() {
  const logOut = () => {
    signOut();
    browser.assign('/');
  };
  return (
    <main className="plain-page">
      <h1>{translate('iam.logout.question')}</h1>
      <button className="plain-button" type="button" onClick={logOut}>
        {translate('iam.logout.button')}
      </button>
    </main>
  );
}
