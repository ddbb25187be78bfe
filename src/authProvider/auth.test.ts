import { createHash } from 'node:crypto';
import Cookies from 'js-cookie';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { getSession, clearSession, updateSession } from '../session/session';
import { authProvider } from './authProvider';
import { browser } from './browser';
import { handleCallback, StateMismatchError } from './callback';
import { codeChallenge, OAUTH_KEYS, prepareAuthorizationRequest } from './pkce';
import { signOut } from './signOut';
import { COOKIE_NAMES, readValidTokenCookie, writeRememberCookies } from './tokenCookie';

const token = {
  access_token: 'header.eyJleHAiOjk5OTk5OTk5OTl9.sig',
  token_type: 'Bearer',
  expires_in: 3600,
  scope: 'openid',
  id_token: 'id',
  user: { id: 'u1', username: 'admin', displayName: 'Ada Admin', email: 'admin@example.com' },
  client: { client_id: 'iam-console', companyId: 'root', domain: 'default' },
};

function providerAnswers() {
  return mockFetch((request) => {
    if (request.url === '/oauth/token') return { json: token };
    if (request.url === '/api/companys/root') return { json: { id: 'root', name: 'root', type: 'root' } };
    if (request.url === '/api/companys/root/domainNames/default') return { json: { id: 'default', name: 'default', primary: true } };
    return { status: 404, json: { statusCode: 404, error: 'Not Found', message: 'not found' } };
  });
}

function clearCookies() {
  for (const name of Object.keys(Cookies.get())) Cookies.remove(name);
}

beforeEach(() => {
  sessionStorage.clear();
  clearSession();
  clearCookies();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('PKCE and state', () => {
  it('derives the challenge as base64url(sha256(verifier))', async () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    // RFC 7636 appendix B
    expect(await codeChallenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const prepared = await prepareAuthorizationRequest();
    const saved = sessionStorage.getItem(OAUTH_KEYS.verifier)!;
    const expected = createHash('sha256').update(saved).digest('base64url');
    expect(prepared.codeChallenge).toBe(expected);
    expect(prepared.state).toBe(sessionStorage.getItem(OAUTH_KEYS.state));
    expect(saved).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('rejects a callback whose state does not match, without calling the token endpoint', async () => {
    const { requests } = providerAnswers();
    await prepareAuthorizationRequest();
    await expect(handleCallback('?code=abc&state=forged')).rejects.toBeInstanceOf(StateMismatchError);
    expect(requests).toHaveLength(0);
    expect(getSession().accessToken).toBeUndefined();
  });
});

describe('callback', () => {
  it('exchanges the code once, then stores user, token, client, company and domain', async () => {
    const { requests } = providerAnswers();
    const { state } = await prepareAuthorizationRequest();
    const verifier = sessionStorage.getItem(OAUTH_KEYS.verifier)!;
    const search = `?code=c1&state=${state}&iss=x`;
    const [first, second] = await Promise.all([handleCallback(search), handleCallback(search)]);

    expect(first).toEqual({ kind: 'signedIn', next: '/dashboard' });
    expect(second).toBe(first);
    const tokenCalls = requests.filter((request) => request.url === '/oauth/token');
    expect(tokenCalls).toHaveLength(1);
    expect(tokenCalls[0].headers.get('Content-Type')).toBe('application/x-www-form-urlencoded');
    expect(tokenCalls[0].headers.get('Authorization')).toBeNull();
    expect(Object.fromEntries(new URLSearchParams(tokenCalls[0].body))).toEqual({
      grant_type: 'authorization_code',
      code: 'c1',
      redirect_uri: `${window.location.origin}/callback`,
      client_id: 'iam-console',
      code_verifier: verifier,
    });
    expect(requests.find((request) => request.url === '/api/companys/root')!.headers.get('Authorization')).toBe(
      `Bearer ${token.access_token}`,
    );
    const session = getSession();
    expect(session.user?.displayName).toBe('Ada Admin');
    expect(session.company?.id).toBe('root');
    expect(session.rootCompany?.id).toBe('root');
    expect(session.domain?.id).toBe('default');
    expect(session.client?.companyId).toBe('root');
    expect(session.accessToken).toBe(token.access_token);
    expect(sessionStorage.getItem(OAUTH_KEYS.verifier)).toBeNull();
    // Remember me was not ticked: no cookie.
    expect(Cookies.get(COOKIE_NAMES.token)).toBeUndefined();
  });

  it('writes the remember-me cookies for 1 hour, Secure, SameSite=Strict when the box was ticked', async () => {
    providerAnswers();
    const set = vi.spyOn(Cookies, 'set');
    const { state } = await prepareAuthorizationRequest();
    sessionStorage.setItem(OAUTH_KEYS.remember, 'true');
    sessionStorage.setItem(OAUTH_KEYS.email, 'admin@example.com');
    await handleCallback(`?code=c2&state=${state}`);

    const options = { expires: 1 / 24, secure: true, sameSite: 'Strict' };
    expect(set).toHaveBeenCalledWith(COOKIE_NAMES.token, expect.any(String), options);
    expect(set).toHaveBeenCalledWith(COOKIE_NAMES.remember, 'true', options);
    expect(set).toHaveBeenCalledWith(COOKIE_NAMES.email, 'admin@example.com', options);
    const stored = JSON.parse(set.mock.calls.find(([name]) => name === COOKIE_NAMES.token)![1] as string);
    expect(stored.access_token).toBe(token.access_token);
    expect(stored.expires_at).toBeGreaterThan(Date.now() + 3500 * 1000);
  });

  it('shows the error of a denied sign-in', async () => {
    const result = await handleCallback('?error=access_denied&error_description=Wrong+password&state=s');
    expect(result).toEqual({ kind: 'denied', error: 'Wrong password' });
  });

  it('restores the session from an unexpired remembered token when there is no code', async () => {
    const { requests } = providerAnswers();
    vi.spyOn(Cookies, 'get').mockReturnValue(JSON.stringify({ ...token, expires_at: Date.now() + 60_000 }) as never);
    expect(await handleCallback('')).toEqual({ kind: 'signedIn', next: '/dashboard' });
    expect(requests.map((request) => request.url)).toEqual(['/api/companys/root', '/api/companys/root/domainNames/default']);
    expect(getSession().accessToken).toBe(token.access_token);
  });

  it('does nothing without a code and without a stored token', async () => {
    const { requests } = providerAnswers();
    expect(await handleCallback('')).toEqual({ kind: 'idle' });
    expect(requests).toHaveLength(0);
  });
});

describe('sign-ins that cannot go on (docs/CONSOLE.md "Callback")', () => {
  const remembered = () =>
    vi.spyOn(Cookies, 'get').mockReturnValue(JSON.stringify({ ...token, expires_at: Date.now() + 60_000 }) as never);
  const removedCookies = (remove: { mock: { calls: unknown[][] } }) => remove.mock.calls.map(([name]) => String(name)).sort();

  it('removes all three remember cookies when the API refuses the remembered token (401) and says so', async () => {
    const { requests } = mockFetch(() => ({ status: 401, json: { statusCode: 401, error: 'Unauthorized', message: 'token revoked' } }));
    remembered();
    const remove = vi.spyOn(Cookies, 'remove');
    expect(await handleCallback('')).toEqual({ kind: 'expired' });
    expect(requests.map((request) => request.url)).toEqual(['/api/companys/root']);
    expect(removedCookies(remove)).toEqual([COOKIE_NAMES.email, COOKIE_NAMES.remember, COOKIE_NAMES.token].sort());
    expect(getSession()).toEqual({});
  });

  it('also removes a remembered sign-in that fails otherwise, so that /login does not try it again', async () => {
    mockFetch(() => ({ status: 500, json: { statusCode: 500, error: 'Internal Server Error', message: 'boom' } }));
    remembered();
    const remove = vi.spyOn(Cookies, 'remove');
    await expect(handleCallback('')).rejects.toMatchObject({ status: 500 });
    expect(removedCookies(remove)).toEqual([COOKIE_NAMES.email, COOKIE_NAMES.remember, COOKIE_NAMES.token].sort());
  });

  it('tells a person without administrator rights (403) which company, keeps nothing and no cookie', async () => {
    mockFetch((request) => {
      if (request.url === '/oauth/token') return { json: { ...token, scope: 'openid username email' } };
      return { status: 403, json: { statusCode: 403, error: 'Forbidden', message: 'the user:admin scope is required' } };
    });
    const set = vi.spyOn(Cookies, 'set');
    const { state } = await prepareAuthorizationRequest();
    sessionStorage.setItem(OAUTH_KEYS.remember, 'true');
    // her access token stays in the page only, for its link to her account page (openAccountPage.ts)
    expect(await handleCallback(`?code=c-na&state=${state}`)).toEqual({ kind: 'notAdministrator', company: 'root', idToken: 'id', accessToken: token.access_token });
    expect(getSession()).toEqual({});
    expect(set).not.toHaveBeenCalled();
    expect(sessionStorage.getItem(OAUTH_KEYS.verifier)).toBeNull();
  });

  it('signs out with the ID token it is given when the session has none', async () => {
    const { requests } = mockFetch(() => ({ status: 200 }));
    await signOut('given.id.token');
    expect(requests).toHaveLength(1);
    expect(new URLSearchParams(requests[0].body).get('id_token_hint')).toBe('given.id.token');
  });
});

describe('token cookie', () => {
  it('keeps an unexpired token and removes an expired one', () => {
    const now = 1_000_000;
    // jsdom drops Secure cookies on http:, so observe what js-cookie is asked to do.
    const get = vi.spyOn(Cookies, 'get') as unknown as ReturnType<typeof vi.fn>;
    const remove = vi.spyOn(Cookies, 'remove');
    get.mockReturnValue(JSON.stringify({ ...token, expires_at: now + 1000 }));
    expect(readValidTokenCookie(now)?.access_token).toBe(token.access_token);
    expect(remove).not.toHaveBeenCalled();

    get.mockReturnValue(JSON.stringify({ ...token, expires_at: now - 1 }));
    expect(readValidTokenCookie(now)).toBeUndefined();
    expect(remove).toHaveBeenCalledWith(COOKIE_NAMES.token, expect.objectContaining({ sameSite: 'Strict' }));
  });

  it('stores the token response with its expiry time', () => {
    const set = vi.spyOn(Cookies, 'set');
    writeRememberCookies(token, 'a@b.c', 5000);
    const stored = JSON.parse(set.mock.calls[0][1] as string);
    expect(stored).toMatchObject({ access_token: token.access_token, expires_in: 3600, expires_at: 5000 + 3600 * 1000 });
  });
});

describe('authProvider', () => {
  it('accepts a session with an unexpired token and sends others to /login', async () => {
    updateSession({ accessToken: token.access_token });
    await expect(authProvider.checkAuth({})).resolves.toBeUndefined();
    const expired = `h.${btoa(JSON.stringify({ exp: 1 }))}.s`;
    updateSession({ accessToken: expired });
    await expect(authProvider.checkAuth({})).rejects.toMatchObject({ redirectTo: '/login' });
  });

  it('signs out only on 401', async () => {
    await expect(authProvider.checkError({ status: 401 })).rejects.toBeDefined();
    await expect(authProvider.checkError({ status: 403 })).resolves.toBeUndefined();
    await expect(authProvider.checkError({ status: 409 })).resolves.toBeUndefined();
  });

  it('logs out by clearing the session and the cookies, then going to /login itself', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const remove = vi.spyOn(Cookies, 'remove');
    updateSession({ accessToken: 't', user: token.user });
    await expect(authProvider.logout({})).resolves.toBe(false);
    expect(getSession()).toEqual({});
    expect(sessionStorage.getItem('accessToken')).toBeNull();
    expect(remove).toHaveBeenCalledWith(COOKIE_NAMES.token, expect.anything());
    expect(assign).toHaveBeenCalledWith('/login');
  });

  it('says why on /login when the provider refused a token that had not expired (a session ended on its side)', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    updateSession({ accessToken: token.access_token, user: token.user });
    await expect(authProvider.checkError({ status: 401 })).rejects.toBeDefined();
    await authProvider.logout({});
    expect(assign).toHaveBeenLastCalledWith('/login?reason=ended');
    // an expired token refused: the plain form, as before (and the reason is not carried over)
    updateSession({ accessToken: `h.${btoa(JSON.stringify({ exp: 1 }))}.s` });
    await expect(authProvider.checkError({ status: 401 })).rejects.toBeDefined();
    await authProvider.logout({});
    expect(assign).toHaveBeenLastCalledWith('/login');
  });

  it('gives the identity from the session', async () => {
    updateSession({ user: token.user });
    await expect(authProvider.getIdentity!()).resolves.toEqual({
      id: 'u1',
      fullName: 'Ada Admin',
      email: 'admin@example.com',
    });
  });
});
