import { useEffect } from 'react';
import { browser } from '../authProvider/browser';
import { translate } from '../i18n/translate';
import { forgotPasswordUrl, initialOrganization } from './Login';

/**
 * /signup and /reset-password (docs/CONSOLE.md "Sign-in links"): no domain offers self sign-up or a
 * reset by e-mail yet, so each page says so and who can help, with the way back to the sign-in form
 * (never the 404 page, and never a sign-in that ends on one).
 */
export function NotOffered({ page }: { page: 'signup' | 'resetPassword' }) {
  return (
    <main className="plain-page">
      <h1>{translate(`iam.notOffered.${page}.title`)}</h1>
      <p>{translate(`iam.notOffered.${page}.text`)}</p>
      <a className="plain-button" href="/login">
        {translate('iam.notOffered.back')}
      </a>
    </main>
  );
}

export const SignUp = () => <NotOffered page="signup" />;
/** /reset-password: on to the provider's forgotten-password page, for the organization of the link or typed last. */
export function ResetPassword() {
  useEffect(() => browser.replace(forgotPasswordUrl(initialOrganization())), []);
  return (
    <main className="plain-page" aria-busy="true">
      <p>{translate('iam.loading')}</p>
    </main>
  );
}
