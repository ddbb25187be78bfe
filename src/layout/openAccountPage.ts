/**
 * The user menu's My account (docs/CONSOLE.md, "Multi-factor authentication and the account page"):
 * the provider's account page, opened with the console's sign-in rather than a second password
 * (docs/DECISIONS.md 44). The console's access token goes to POST /account/console as it goes to
 * the API, in the Authorization header (never in a URL); the provider answers with the account page
 * (or its first required action) to go to and sets that page's own cookie. When it cannot (the
 * sign-in ended, another origin), the plain link: the account page's password form.
 */
import { browser } from '../authProvider/browser';
import { config } from '../config';
import { getSession } from '../session/session';

/** Where the provider serves its account page: beside its /oauth endpoints. */
export const accountPageBase = () => config.authServer.replace(/\/oauth\/?$/, '');

/** The plain link of the account page, for the organization signed in to. */
export const accountPageLink = () => {
  const { client } = getSession();
  return `${accountPageBase()}/account?${new URLSearchParams({ company: client?.companyId ?? '', domain: client?.domain ?? '' })}`;
};

/**
 * `given`: a sign-in not (yet) in the session, as on the Not an administrator page (its token
 * response), and the plain link to fall back to there.
 */
export async function openAccountPage(given: { accessToken?: string; fallback?: string } = {}): Promise<void> {
  const fallback = given.fallback ?? accountPageLink();
  const accessToken = given.accessToken ?? getSession().accessToken;
  if (!accessToken) return browser.assign(fallback);
  try {
    const response = await fetch(`${accountPageBase()}/account/console`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}` },
      credentials: 'same-origin',
      cache: 'no-store',
    });
    const answer = (await response.json().catch(() => ({}))) as { location?: unknown };
    // only a page of the account page itself: the answer names a path, never another site
    if (response.ok && typeof answer.location === 'string' && /^\/account(\/[a-z-]+)?$/.test(answer.location)) {
      return browser.assign(`${accountPageBase()}${answer.location}`);
    }
  } catch {
    // the network or another origin: the plain link below
  }
  browser.assign(fallback);
}
