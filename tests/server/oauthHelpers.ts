import crypto from 'node:crypto';
import { expect } from 'vitest';
import bcrypt from 'bcryptjs';
import { sha256 } from '../../server/ids.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL, type TestServer } from './helpers.js';

export const CONSOLE_REDIRECT = `${PUBLIC_URL}/callback`;

export function pkce() {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: sha256(verifier) };
}

/** The console's native form post, by default the seeded administrator with a fresh PKCE pair. */
export async function postLogin(server: TestServer, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, value);
  return server.app.inject({
    method: 'POST',
    url: '/oauth/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form.toString(),
  });
}

export function consoleLoginFields(challenge: string, extra: Record<string, string | undefined> = {}) {
  return {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
    client_id: 'iam-console',
    redirect_uri: CONSOLE_REDIRECT,
    scope: 'openid username email user:admin',
    state: 'state-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    nonce: 'nonce-456',
    ...extra,
  };
}

/** The query of the 303's Location, or undefined when the answer is not a redirect. */
export function redirectParams(response: { statusCode: number; headers: Record<string, unknown> }) {
  const location = response.headers.location;
  if (typeof location !== 'string') return undefined;
  const url = new URL(location);
  // an error for a response type that uses the fragment (RFC 6749 4.2.2.1) comes back in it
  return { url, params: { ...Object.fromEntries(new URLSearchParams(url.hash.slice(1))), ...Object.fromEntries(url.searchParams) } };
}

export async function postToken(server: TestServer, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, value);
  const response = await server.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form.toString(),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

export const basicAuth = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Signs the administrator in through the console and returns the code with its verifier. */
export async function consoleCode(server: TestServer, extra: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, extra));
  const code = redirectParams(response)?.params.code;
  if (response.statusCode !== 303 || !code) throw new Error(`login failed: ${response.statusCode} ${response.headers.location}`);
  return { code, verifier, response };
}

/**
 * The administrator's agreement, as given on the provider's consent page (tenancy.test.ts walks
 * the page), that `clientId` (an application other than the console) may use the management API
 * for her: without it, the one-form sign-in answers consent_required.
 */
export async function agreeToAdministration(server: TestServer, companyId: string, domainId: string, userId: string, clientId: string) {
  await server.db.query(
    `INSERT INTO oauth_consents (company_id, domain_id, user_id, client_id, resource, scope) VALUES ($1, $2, $3, $4, $5, 'user:admin') ON CONFLICT DO NOTHING`,
    [companyId, domainId, userId, clientId, `${server.ctx.config.publicUrl}/api`],
  );
}

/** The user's subject: the sub of her tokens, unique in the whole provider. */
export async function subjectOf(server: TestServer, companyId: string, domainId: string, userId: string): Promise<string> {
  const { rows } = await server.db.query<{ subject: string }>(`SELECT subject FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, userId]);
  if (!rows[0]) throw new Error(`no user ${companyId}/${domainId}/${userId}`);
  return rows[0].subject;
}

export async function setPassword(server: TestServer, companyId: string, domainId: string, userId: string, password: string) {
  await server.db.query(`UPDATE users SET password_hash = $4 WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [
    companyId,
    domainId,
    userId,
    await bcrypt.hash(password, 10),
  ]);
}

export async function addApplication(
  server: TestServer,
  app: { id: string; companyId: string; domainId: string; appType?: string; secret?: string; redirectUris: string[] },
) {
  await server.db.query(
    `INSERT INTO applications (id, company_id, domain_id, client_name, app_type, client_secret_hash, redirect_uris)
     VALUES ($1, $2, $3, $1, $4, $5, $6)`,
    [app.id, app.companyId, app.domainId, app.appType ?? 'SPA', app.secret ? sha256(app.secret) : null, JSON.stringify(app.redirectUris)],
  );
}

/**
 * A browser's cookie jar in front of a way to send requests (app.inject or fetch): the hosted
 * sign-in is oidc-provider's interaction, bound to the browser by cookies.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  keep(setCookie: string | string[] | undefined) {
    for (const cookie of [setCookie ?? []].flat()) {
      const [pair] = cookie.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

export interface BrowserAnswer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
  /** Where the provider sent the browser last, when that is outside the provider (the application). */
  location?: URL;
  /** The path of the last page shown. */
  path: string;
}

/** What the provider's own pages send with a form post (server/oauth/sameSiteForms.ts). */
export const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

/**
 * A browser on the provider's own pages (the account page), with one cookie jar: its posts say they
 * come from the page, and it follows redirects, unless `follow` is false (the redirect is answered).
 */
export function pageBrowser(server: TestServer, jar = new CookieJar(), options: { follow?: boolean } = {}) {
  const send = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) => {
    let response = await server.app.inject({
      method,
      url,
      headers: { ...headers, cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    let path = url;
    for (;;) {
      jar.keep(response.headers['set-cookie'] as string | string[] | undefined);
      const location = response.headers.location;
      if (options.follow === false || typeof location !== 'string' || response.statusCode < 300 || response.statusCode >= 400) break;
      const target = new URL(location, PUBLIC_URL);
      path = target.pathname + target.search;
      response = await server.app.inject({ method: 'GET', url: path, headers: { cookie: jar.header() } });
    }
    return { status: response.statusCode, body: response.body, headers: response.headers, path };
  };
  return { jar, get: (url: string) => send('GET', url), post: (url: string, form: Record<string, string> = {}, headers?: Record<string, string>) => send('POST', url, form, headers) };
}

/**
 * A browser on the test server (app.inject): follows the provider's own redirects with its cookies
 * and stops at a page, or at a redirect to the application.
 */
export function injectBrowser(server: TestServer, jar = new CookieJar(), options: { remoteAddress?: string; headers?: Record<string, string> } = {}) {
  const send = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<BrowserAnswer> => {
    let response = await server.app.inject({
      method,
      url,
      remoteAddress: options.remoteAddress,
      headers: { ...options.headers, cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    let path = url;
    for (;;) {
      jar.keep(response.headers['set-cookie'] as string | string[] | undefined);
      const location = response.headers.location;
      if (typeof location !== 'string' || response.statusCode < 300 || response.statusCode >= 400) break;
      const target = new URL(location, PUBLIC_URL);
      if (target.origin !== PUBLIC_URL || !target.pathname.startsWith('/oauth/')) {
        return { status: response.statusCode, body: response.body, headers: response.headers, location: target, path };
      }
      path = `${target.pathname}${target.search}`;
      response = await server.app.inject({ method: 'GET', url: path, remoteAddress: options.remoteAddress, headers: { ...options.headers, cookie: jar.header() } });
    }
    return { status: response.statusCode, body: response.body, headers: response.headers, path };
  };
  return { jar, get: (url: string) => send('GET', url), post: (url: string, form: Record<string, string>) => send('POST', url, form) };
}

/** The action of the first form of a page (the hosted sign-in and consent pages have one). */
export const formAction = (html: string) => /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');

/** The same browser over real HTTP (fetch), for tests where openid-client talks to a listening server. */
export function fetchBrowser(origin: string, jar = new CookieJar()) {
  const send = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<BrowserAnswer> => {
    let target = new URL(url, origin);
    let response = await fetch(target, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form) } : {}),
    });
    for (;;) {
      jar.keep(response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (!location || response.status < 300 || response.status >= 400) break;
      const next = new URL(location, target);
      if (next.origin !== origin || !next.pathname.startsWith('/oauth/')) {
        return { status: response.status, body: await response.text(), headers: Object.fromEntries(response.headers), location: next, path: target.pathname };
      }
      target = next;
      response = await fetch(target, { redirect: 'manual', headers: { cookie: jar.header() } });
    }
    return { status: response.status, body: await response.text(), headers: Object.fromEntries(response.headers), path: `${target.pathname}${target.search}` };
  };
  return { jar, get: (url: string) => send('GET', url), post: (url: string, form: Record<string, string>) => send('POST', url, form) };
}

/** A console access token of the first administrator, by the console's sign-in over HTTP at `baseUrl` (a real program, tests/server/program.ts). */
export async function consoleTokenOver(baseUrl: string): Promise<string> {
  const { verifier, challenge } = pkce();
  const login = await fetch(`${baseUrl}/oauth/login`, { method: 'POST', body: new URLSearchParams(consoleLoginFields(challenge) as Record<string, string>), redirect: 'manual' });
  expect(login.status, await login.clone().text()).toBe(303);
  const code = new URL(login.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: 'iam-console', grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CONSOLE_REDIRECT }),
  });
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}
