/**
 * The /callback step of the authorization-code flow: check the state, exchange the code once,
 * then build the session (user, token, client, company and domain) and the remember-me cookies.
 */
import { config, redirectUri } from '../config';
import { HttpError, httpClient } from '../http/httpClient';
import { updateSession, type Company, type Domain } from '../session/session';
import { clearAuthorizationRequest, OAUTH_KEYS } from './pkce';
import { readValidTokenCookie, removeTokenCookies, writeRememberCookies } from './tokenCookie';
import type { TokenResponse } from './types';

/** Why the form comes back (/login?reason=…): a fixed code, never the provider's words. */
export type RetypeReason = 'wrong' | 'blocked' | 'throttled';

/** The provider's refusals of a typed sign-in (server/oauth/consoleLogin.ts), by their exact words. */
const RETYPE: Record<string, RetypeReason> = {
  'Wrong email or password': 'wrong',
  'This account is blocked. Ask your administrator to unblock it.': 'blocked',
};
/** The throttle's refusals ("Too many failed sign-in attempts. Try again in …"), whose wait comes as retry_after. */
const THROTTLED = /^Too many (failed sign-in attempts|sign-ins in a short time)\./;
/** Longest wait said: a day (the throttle's windows are shorter). */
const MAX_RETRY_SECONDS = 86_400;

function retypeOf(error: string, description: string, retryAfter: string | null): { reason: RetypeReason; retryAfter?: number } | undefined {
  if (error !== 'access_denied') return undefined;
  if (Object.hasOwn(RETYPE, description)) return { reason: RETYPE[description] };
  if (!THROTTLED.test(description)) return undefined;
  const seconds = /^\d{1,6}$/.test(retryAfter ?? '') ? Number(retryAfter) : 0;
  return { reason: 'throttled', ...(seconds > 0 && seconds <= MAX_RETRY_SECONDS ? { retryAfter: seconds } : {}) };
}

export type CallbackResult =
  | { kind: 'signedIn'; next: string }
  | { kind: 'denied'; error: string }
  /** A refusal of what was typed: back to the form, saying why by a fixed code (/login?reason=…). */
  | { kind: 'retype'; reason: RetypeReason; retryAfter?: number }
  /** The remembered token was refused (401); its cookies are gone. */
  | { kind: 'expired' }
  /** Signed in, but without administrator rights in `company`; `idToken` lets sign-out end that sign-in. */
  | { kind: 'notAdministrator'; company: string; idToken?: string; accessToken?: string }
  | { kind: 'idle' };

export class StateMismatchError extends Error {
  constructor() {
    super('The state returned by the authorization server does not match the one sent');
    this.name = 'StateMismatchError';
  }
}

/** One exchange per code: React may render the callback twice, and a code is single-use. */
const exchanges = new Map<string, Promise<CallbackResult>>();

export function handleCallback(search: string): Promise<CallbackResult> {
  const query = new URLSearchParams(search);
  const error = query.get('error');
  if (error) {
    const typed = sessionStorage.getItem(OAUTH_KEYS.email);
    clearAuthorizationRequest();
    const description = query.get('error_description') ?? '';
    const retype = retypeOf(error, description, query.get('retry_after'));
    // the form comes back with the address she typed (Login's retypedEmail)
    if (retype && typed) sessionStorage.setItem(OAUTH_KEYS.email, typed);
    return Promise.resolve(retype ? { kind: 'retype', ...retype } : { kind: 'denied', error: description || error });
  }
  const code = query.get('code');
  if (!code) {
    const stored = readValidTokenCookie();
    if (!stored) return Promise.resolve({ kind: 'idle' });
    return establishSession(stored).then(
      () => ({ kind: 'signedIn', next: takeReturnTo() }),
      (error: unknown) => {
        // A remembered sign-in that failed is never tried again: /login would send the person
        // straight back here (docs/CONSOLE.md "Callback").
        removeTokenCookies();
        if (error instanceof HttpError && error.status === 401) return { kind: 'expired' };
        return notAdministrator(error, stored);
      },
    );
  }
  let exchange = exchanges.get(code);
  if (!exchange) {
    exchange = exchangeCode(code, query.get('state'));
    exchanges.set(code, exchange);
  }
  return exchange;
}

async function exchangeCode(code: string, state: string | null): Promise<CallbackResult> {
  const expectedState = sessionStorage.getItem(OAUTH_KEYS.state);
  const verifier = sessionStorage.getItem(OAUTH_KEYS.verifier);
  if (!expectedState || state !== expectedState || !verifier) throw new StateMismatchError();

  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri(),
    client_id: config.clientId,
    code_verifier: verifier,
  });
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (config.clientSecret) headers.Authorization = `Basic ${btoa(`${config.clientId}:${config.clientSecret}`)}`;
  const { json } = await httpClient(`${config.authServer}/token`, {
    method: 'POST',
    headers,
    body: form.toString(),
    token: '',
  });
  const token = json as TokenResponse;

  const remember = sessionStorage.getItem(OAUTH_KEYS.remember) === 'true';
  const email = sessionStorage.getItem(OAUTH_KEYS.email) ?? token.user?.email ?? '';
  try {
    await establishSession(token);
  } catch (error) {
    clearAuthorizationRequest();
    return notAdministrator(error, token);
  }
  if (remember) writeRememberCookies(token, email);
  clearAuthorizationRequest();
  return { kind: 'signedIn', next: takeReturnTo() };
}

/** docs/CONSOLE.md, "Callback": the company is fetched by client.companyId, then its domain by client.domain. */
async function establishSession(token: TokenResponse): Promise<void> {
  const { companyId, domain: domainId } = token.client;
  const companyUrl = `${config.apiBase}/companys/${encodeURIComponent(companyId)}`;
  const { json: company } = await httpClient(companyUrl, { token: token.access_token });
  const { json: domain } = await httpClient(`${companyUrl}/domainNames/${encodeURIComponent(domainId)}`, {
    token: token.access_token,
  });
  updateSession({
    user: token.user,
    accessToken: token.access_token,
    client: token.client,
    company: company as Company,
    // The administrator's own company bounds what they manage: Parent stops there.
    rootCompany: company as Company,
    domain: domain as Domain,
    header: { Authorization: `Bearer ${token.access_token}` },
    // kept for sign-out: the provider's end-session endpoint takes it as id_token_hint
    idToken: token.id_token,
  });
}

/**
 * docs/CONSOLE.md "Callback": someone who is not an administrator gets no user:admin scope and
 * the API answers 403 to the session reads. Other failures go on to /error.
 */
function notAdministrator(error: unknown, token: TokenResponse): CallbackResult {
  if (error instanceof HttpError && error.status === 403) {
    // (her access token opens her account page without a second password: src/layout/openAccountPage.ts)
    return { kind: 'notAdministrator', company: token.client.companyId, idToken: token.id_token, accessToken: token.access_token };
  }
  throw error;
}

/** Where checkAuth found the user going; only same-origin paths are honoured. */
function takeReturnTo(): string {
  const saved = sessionStorage.getItem(OAUTH_KEYS.returnTo);
  sessionStorage.removeItem(OAUTH_KEYS.returnTo);
  if (saved && saved.startsWith('/') && !saved.startsWith('//') && !/^\/(login|callback|logout)?$/.test(saved)) {
    return saved;
  }
  return '/dashboard';
}
