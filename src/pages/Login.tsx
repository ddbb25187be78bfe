import { useEffect, useState, type FormEvent } from 'react';
import { config, redirectUri } from '../config';
import { LanguageSelect } from '../i18n/LanguageSelect';
import { translate } from '../i18n/translate';
import { browser } from '../authProvider/browser';
import { OAUTH_KEYS, prepareAuthorizationRequest, type AuthorizationRequest } from '../authProvider/pkce';
import { readValidTokenCookie } from '../authProvider/tokenCookie';
import { isTokenExpired } from '../authProvider/tokenExpiry';
import { getSession } from '../session/session';

/**
 * Why the form is shown again (/login?reason=<code>): only these fixed codes are shown, each as its
 * own sentence, so a link cannot put words on this page (docs/CONSOLE.md "Sign-in form").
 */
const REASONS: Record<string, string> = {
  expired: 'iam.login.reason.expired',
  ended: 'iam.login.reason.ended',
  // the provider refused the sign-in just typed (Callback): the form comes back with its address
  wrong: 'iam.login.reason.wrong',
  blocked: 'iam.login.reason.blocked',
  // the throttle refused it (the same for an address nobody has): with the wait when the link has it
  throttled: 'iam.login.reason.throttled',
};
const RETYPED = new Set(['wrong', 'blocked', 'throttled']);

const reasonCode = () => new URLSearchParams(window.location.search).get('reason') ?? '';

/** "5 minutes", "40 seconds": a number of seconds only (&retry=), so a link still puts no words here. */
function waitOf(retry: string | null): string | undefined {
  if (!retry || !/^\d{1,5}$/.test(retry) || Number(retry) < 1) return undefined;
  const seconds = Number(retry);
  if (seconds < 60) return seconds === 1 ? translate('iam.login.wait.second') : translate('iam.login.wait.seconds', { n: seconds });
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? translate('iam.login.wait.minute') : translate('iam.login.wait.minutes', { n: minutes });
}

function reasonMessage(): string | undefined {
  const code = reasonCode();
  if (!Object.hasOwn(REASONS, code)) return undefined;
  const wait = code === 'throttled' ? waitOf(new URLSearchParams(window.location.search).get('retry')) : undefined;
  return wait ? translate('iam.login.reason.throttledFor', { wait }) : translate(REASONS[code]);
}

/** The address typed before a refused sign-in, to type the password again beside it. */
const retypedEmail = () => (RETYPED.has(reasonCode()) ? (sessionStorage.getItem(OAUTH_KEYS.email) ?? '') : '');

/** The organization typed last on this device (docs/CONSOLE.md "Sign-in links"): not a secret, a convenience. */
export const ORGANIZATION_KEY = 'iam.organization';

export interface Organization {
  company: string;
  domain: string;
}

/**
 * The organization the form starts with: a sign-in link's (/login?company=…&domain=…), else that of
 * the shared link that sent her to sign in, else the one typed last on this device, else none (the
 * console application's own).
 */
export function initialOrganization(): Organization {
  const query = new URLSearchParams(window.location.search);
  const company = query.get('company')?.trim();
  if (company) return { company, domain: query.get('domain')?.trim() ?? '' };
  // a shared link to a record (/users/…?company=acme) that sent her here to sign in first: its
  // company only, as the record's domain need not be the one her account is in
  const returnTo = new URLSearchParams((sessionStorage.getItem(OAUTH_KEYS.returnTo) ?? '').split('?')[1] ?? '');
  const linked = returnTo.get('company')?.trim();
  if (linked) return { company: linked, domain: '' };
  try {
    const saved = JSON.parse(localStorage.getItem(ORGANIZATION_KEY) ?? 'null') as Partial<Organization> | null;
    if (saved && typeof saved.company === 'string') return { company: saved.company, domain: typeof saved.domain === 'string' ? saved.domain : '' };
  } catch {
    // a damaged entry is forgotten below
  }
  localStorage.removeItem(ORGANIZATION_KEY);
  return { company: '', domain: '' };
}

/** A connection (upstream identity provider) the organization's sign-in offers: GET /oauth/upstream/connections. */
export interface OfferedConnection {
  id: string;
  displayName: string;
}

/**
 * The organization's connections, asked for once typing pauses (public, no token): none without an
 * organization, or when the provider cannot say (docs/CONSOLE.md, "Connections").
 */
function useOfferedConnections({ company, domain }: Organization): OfferedConnection[] {
  const [offered, setOffered] = useState<OfferedConnection[]>([]);
  useEffect(() => {
    setOffered([]);
    if (!company.trim()) return;
    const query = new URLSearchParams({ company: company.trim(), domain: domain.trim() });
    let cancelled = false;
    const timer = setTimeout(async () => {
      try {
        const answer = await fetch(`${config.authServer}/upstream/connections?${query}`, { credentials: 'omit' });
        const list: unknown = answer.ok ? await answer.json() : [];
        if (!cancelled && Array.isArray(list)) setOffered(list.filter((one) => typeof one?.id === 'string' && typeof one?.displayName === 'string'));
      } catch {
        // no buttons: the form still signs in with a password, and a claimed e-mail domain still routes
      }
    }, 300);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [company, domain]);
  return offered;
}

/** The provider's account page (second factors, recovery codes), beside its /oauth endpoints. */
export const accountPageUrl = () => `${config.authServer.replace(/\/oauth\/?$/, '')}/account`;

/** The provider's forgotten-password page (beside its /oauth endpoints) for an organization. */
export const forgotPasswordUrl = ({ company, domain }: Organization) =>
  `${config.authServer.replace(/\/oauth\/?$/, '')}/account/forgot${company.trim() ? `?${new URLSearchParams({ company: company.trim(), ...(domain.trim() ? { domain: domain.trim() } : {}) })}` : ''}`;

/**
 * docs/CONSOLE.md, "Sign-in form": the sign-in form posts natively to the authorization server's login endpoint, which
 * answers with a redirect to /callback. No react-admin or MUI here: this page must stay small.
 */
export default function Login() {
  const [request, setRequest] = useState<AuthorizationRequest>();
  const [resuming, setResuming] = useState(false);
  const [reason] = useState(reasonMessage);
  const [organization, setOrganization] = useState(initialOrganization);
  const connections = useOfferedConnections(organization);

  useEffect(() => {
    const { accessToken } = getSession();
    if (accessToken && !isTokenExpired(accessToken)) {
      setResuming(true);
      browser.replace('/dashboard');
      return;
    }
    // A remembered, unexpired token signs in without the form; an expired one is removed. Not when
    // the form is shown with a reason: a remembered sign-in just failed and is not tried again.
    if (!reason && readValidTokenCookie()) {
      setResuming(true);
      browser.replace('/callback');
      return;
    }
    let cancelled = false;
    prepareAuthorizationRequest().then((prepared) => {
      if (!cancelled) setRequest(prepared);
    });
    return () => {
      cancelled = true;
    };
  }, [reason]);

  const rememberChoice = (event: FormEvent<HTMLFormElement>) => {
    const form = new FormData(event.currentTarget);
    sessionStorage.setItem(OAUTH_KEYS.remember, String(form.get('remember') === 'on'));
    sessionStorage.setItem(OAUTH_KEYS.email, String(form.get('email') ?? ''));
    const company = String(form.get('company') ?? '').trim();
    if (company) localStorage.setItem(ORGANIZATION_KEY, JSON.stringify({ company, domain: String(form.get('domain') ?? '').trim() }));
    else localStorage.removeItem(ORGANIZATION_KEY);
  };

  if (resuming) {
    return (
      <main className="plain-page" aria-busy="true">
        <p>{translate('iam.login.redirecting')}</p>
      </main>
    );
  }

  return (
    <main className="plain-page plain-page--form">
      <LanguageSelect />
      <h1>{translate('iam.login.title')}</h1>
      {reason && <p className="plain-page__error">{reason}</p>}
      <form className="login-form" method="post" action={`${config.authServer}/login`} onSubmit={rememberChoice}>
        {/* The organization signed in to: a company id, then a domain (its primary one when empty). Empty: the console's own. */}
        <label htmlFor="login-company">{translate('iam.login.organization')}</label>
        <input
          id="login-company"
          name="company"
          type="text"
          autoComplete="organization"
          spellCheck={false}
          autoCapitalize="none"
          maxLength={100}
          value={organization.company}
          onChange={(event) => setOrganization({ ...organization, company: event.target.value })}
          aria-describedby="login-company-hint"
        />
        <p id="login-company-hint" className="login-form__hint">
          {translate('iam.login.organizationHint')}
        </p>
        {organization.company.trim() !== '' && (
          <>
            <label htmlFor="login-domain">{translate('iam.login.domain')}</label>
            <input
              id="login-domain"
              name="domain"
              type="text"
              spellCheck={false}
              autoCapitalize="none"
              maxLength={100}
              value={organization.domain}
              onChange={(event) => setOrganization({ ...organization, domain: event.target.value })}
              aria-describedby="login-domain-hint"
            />
            <p id="login-domain-hint" className="login-form__hint">
              {translate('iam.login.domainHint')}
            </p>
          </>
        )}
        <label htmlFor="login-email">{translate('iam.login.email')}</label>
        {/* an email input, as the console's description says; usernames and internationalized addresses sign in on the hosted page */}
        <input id="login-email" name="email" type="email" autoComplete="username" spellCheck={false} autoCapitalize="none" required defaultValue={retypedEmail()} />
        <label htmlFor="login-password">{translate('iam.login.password')}</label>
        {/* not required: an address whose e-mail domain a connection claims is sent to that identity provider without one */}
        <input id="login-password" name="password" type="password" autoComplete="current-password" />
        <div className="login-form__row">
          <label className="login-form__check">
            <input type="checkbox" name="remember" /> {translate('iam.login.remember')}
          </label>
          {/* the provider's forgotten-password page, for the organization typed (docs/CONSOLE.md, "E-mail, reset links and invitations") */}
          <a href={forgotPasswordUrl(organization)}>{translate('iam.login.forgot')}</a>
        </div>
        <input type="hidden" name="client_id" value={config.clientId} />
        <input type="hidden" name="redirect_uri" value={redirectUri()} />
        <input type="hidden" name="scope" value={config.scope} />
        <input type="hidden" name="state" value={request?.state ?? ''} />
        <input type="hidden" name="code_challenge" value={request?.codeChallenge ?? ''} />
        <input type="hidden" name="code_challenge_method" value="S256" />
        <p className="login-form__terms">{translate('iam.login.terms')}</p>
        <button className="plain-button" type="submit" disabled={!request} aria-busy={!request}>
          {translate('iam.login.submit')}
        </button>
        {connections.length > 0 && (
          <>
            <p>{translate('iam.login.connections')}</p>
            {/* the same form post with connection=<id> (the submitter's name and value); no address or password needed */}
            {connections.map((connection) => (
              <button key={connection.id} className="plain-button" type="submit" name="connection" value={connection.id} formNoValidate disabled={!request}>
                {translate('iam.login.connection', { name: connection.displayName })}
              </button>
            ))}
          </>
        )}
        <p>
          {translate('iam.login.signupPrompt')} <a href="/signup">{translate('iam.login.signup')}</a>
        </p>
        <p>
          <a href={accountPageUrl()}>{translate('iam.login.account')}</a>
        </p>
      </form>
    </main>
  );
}
