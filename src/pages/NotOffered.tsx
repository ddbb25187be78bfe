import { useEffect, useState } from 'react';
import { browser } from '../authProvider/browser';
import { config } from '../config';
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

/**
 * /signup (docs/CONSOLE.md, "Self sign-up"): when the organization (a link's ?company=&domain=, else
 * the one typed last on this device, else the console's own) offers self sign-up, on to the
 * provider's hosted sign-up page; otherwise the words above. One small request, on this page only.
 */
export function SignUp() {
  const [checked, setChecked] = useState(false);
  useEffect(() => {
    const { company, domain } = initialOrganization();
    const query = new URLSearchParams(company ? { company, ...(domain ? { domain } : {}) } : {});
    const base = new URL(config.authServer, window.location.href);
    fetch(`${base.href.replace(/\/$/, '')}/signup/offered?${query}`, { headers: { Accept: 'application/json' } })
      .then((response) => (response.ok ? response.json() : undefined))
      .then((answer: { offered?: boolean; url?: unknown } | undefined) => {
        if (answer?.offered && typeof answer.url === 'string' && answer.url.startsWith('/oauth/signup?')) browser.replace(new URL(answer.url, base).href);
        else setChecked(true);
      })
      .catch(() => setChecked(true));
  }, []);
  if (!checked) {
    return (
      <main className="plain-page" aria-busy="true">
        <p>{translate('iam.loading')}</p>
      </main>
    );
  }
  return <NotOffered page="signup" />;
}
/** /reset-password: on to the provider's forgotten-password page, for the organization of the link or typed last. */
export function ResetPassword() {
  useEffect(() => browser.replace(forgotPasswordUrl(initialOrganization())), []);
  return (
    <main className="plain-page" aria-busy="true">
      <p>{translate('iam.loading')}</p>
    </main>
  );
}
