import { translate } from '../i18n/translate';

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
export const ResetPassword = () => <NotOffered page="resetPassword" />;
