import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import { formAction, injectBrowser, pkce, setPassword } from './oauthHelpers.js';

/**
 * Auth0's names of the standard endpoints (server/oauth/auth0Aliases.ts; docs/PROTECT-YOUR-APP.md,
 * "Moving from Auth0"): /authorize and /v2/logout answer exactly as /oauth/authorize and
 * /oauth/logout do (same refusals, same CORS, never a 5xx), returnTo is checked as
 * post_logout_redirect_uri is, and the web message response mode of Auth0's silent sign-in posts
 * the answer to the application's own origin only.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const PASSWORD = 'worker password 1';
const ORIGIN = 'https://app.acme.example';
const REDIRECT = `${ORIGIN}/callback`;
const LOGOUT = `${ORIGIN}/signed-out`;
const API = 'https://api.acme.example';
/** What the SDK sends along on every front-channel request: its name and version. */
const AUTH0_CLIENT = Buffer.from(JSON.stringify({ name: 'auth0-spa-js', version: '2.28.3' })).toString('base64');

interface App {
  client_id: string;
}
let spa: App;
/** An application of acme whose allowed web origins do not include its redirect URI's. */
let noOrigins: App;
/** Another tenant's application, registered with the same addresses. */
let outsider: App;

async function application(tenant: Tenant, name: string, settings: Record<string, unknown>): Promise<App> {
  const response = await call(server, server.adminToken, 'POST', `/api/${tenant.companyId}/${tenant.domainId}/application`, {
    client_name: name,
    app_type: 'SPA',
    redirect_uris: [REDIRECT],
    client_logout_uri: [LOGOUT],
    ...settings,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as App;
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
  spa = await application(acme, 'Acme SPA', { allowed_web_orgins: [ORIGIN] });
  noOrigins = await application(acme, 'Acme SPA without origins', {});
  outsider = await application(other, 'Other SPA', { allowed_web_orgins: [ORIGIN] });
  const api = await call(server, acme.adminToken, 'POST', '/api/api', { companyId: 'acme', domain: 'acme-domain', name: 'Acme API', identifier: API, allowOfflineAccess: true });
  expect(api.status, JSON.stringify(api.body)).toBe(201);
}, 120_000);
afterAll(() => server?.close());

/** The query Auth0's SDK sends to /authorize (getAuthorizeParams), with `extra` over it. */
function authorizeQuery(app: App, challenge: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    client_id: app.client_id,
    scope: 'openid profile email offline_access',
    audience: API,
    redirect_uri: REDIRECT,
    response_type: 'code',
    response_mode: 'query',
    state: 'c3RhdGU=',
    nonce: 'bm9uY2U=',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    auth0Client: AUTH0_CLIENT,
    ...extra,
  });
}

/** An answer as a client sees it, with what differs by request (an interaction's id, its cookies) left out. */
function comparable(response: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const uid = (text: string) => text.replace(/\/oauth\/interaction\/[\w-]+/g, '/oauth/interaction/UID').replace(/value="[\w-]{20,}"/g, 'value="XSRF"');
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => /^(access-control-|content-type$|vary$|cache-control$|x-frame-options$|content-security-policy$)/.test(name)),
  );
  return { status: response.statusCode, headers, location: uid(String(response.headers.location ?? '')), body: uid(response.body) };
}

/** The same request at the standard endpoint and at Auth0's name of it: the answers are the same, and never a 5xx. */
async function sameAnswer(standard: string, alias: string, options: { method?: 'GET' | 'POST' | 'OPTIONS'; headers?: Record<string, string>; payload?: string; cookie?: string } = {}) {
  const send = (url: string) =>
    server.app.inject({ method: options.method ?? 'GET', url, headers: { ...options.headers, ...(options.cookie ? { cookie: options.cookie } : {}) }, payload: options.payload });
  const [expected, actual] = [comparable(await send(standard)), comparable(await send(alias))];
  // a refusal names the parameter as the caller sent it
  actual.body = actual.body.replace('querystring/returnTo', 'querystring/post_logout_redirect_uri');
  expect(actual, `${alias} answers as ${standard}`).toEqual(expected);
  expect(actual.status, alias).toBeLessThan(500);
  return actual;
}

/** Signs the worker in through /authorize (the hosted page), returning the browser, the code and its verifier. */
async function signIn(extra: Record<string, string> = {}) {
  const browser = injectBrowser(server);
  const { verifier, challenge } = pkce();
  const page = await browser.get(`/authorize?${authorizeQuery(spa, challenge, extra)}`);
  expect(page.status).toBe(200);
  const answer = await browser.post(formAction(page.body)!, { email: 'worker@acme.example', password: PASSWORD });
  expect(answer.location?.origin).toBe(ORIGIN);
  const code = answer.location!.searchParams.get('code')!;
  expect(code).toBeTruthy();
  return { browser, code, verifier };
}

const jwks = async () => jose.createLocalJWKSet((await server.app.inject({ method: 'GET', url: '/oauth/jwks' })).json());

describe('/authorize is the authorization endpoint', () => {
  it('answers every request as /oauth/authorize does: sign-in page, refusals, hostile parameters, CORS', async () => {
    const { challenge } = pkce();
    const queries: Record<string, string>[] = [
      {},
      { client_id: 'no-such-client' },
      { redirect_uri: 'https://evil.example/callback' },
      { redirect_uri: `${REDIRECT}/..%2f..%2fevil` },
      { client_id: outsider.client_id, redirect_uri: 'https://evil.example/callback' },
      { response_type: 'token' },
      { response_mode: 'fragment' },
      { response_mode: 'web_message', prompt: 'none' },
      { prompt: 'none' },
      { code_challenge_method: 'plain' },
      { audience: 'https://not-an-api.example' },
      { state: 'a\u0000b' },
      { redirect_uri: 'javascript:alert(1)' },
      { scope: 'openid '.repeat(2000) },
      { auth0Client: '<script>alert(1)</script>' },
      { auth0Client: 'x'.repeat(10_000) },
      { max_age: '-1' },
      { ui_locales: '\u202e' },
    ];
    for (const extra of queries) {
      const query = authorizeQuery(spa, challenge, extra);
      for (const origin of [undefined, ORIGIN, 'https://evil.example']) {
        await sameAnswer(`/oauth/authorize?${query}`, `/authorize?${query}`, { headers: origin ? { origin } : {} });
      }
    }
    // a parameter twice, and an empty query
    await sameAnswer(`/oauth/authorize?${authorizeQuery(spa, challenge)}&client_id=x`, `/authorize?${authorizeQuery(spa, challenge)}&client_id=x`);
    await sameAnswer('/oauth/authorize', '/authorize');
    // the unknown client and the unregistered redirect URI are pages, never a redirect
    const refused = await server.app.inject({ method: 'GET', url: `/authorize?${authorizeQuery(spa, challenge, { redirect_uri: 'https://evil.example/callback' })}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers.location).toBeUndefined();
    // a form post, and a preflight from an allowed and a refused origin
    const form = authorizeQuery(spa, challenge).toString();
    await sameAnswer('/oauth/authorize', '/authorize', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
    for (const origin of [ORIGIN, 'https://evil.example']) {
      await sameAnswer('/oauth/authorize', '/authorize', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
    }
  });

  it('signs in on the hosted page; the code is redeemed at /oauth/token with a form or a JSON body (the SDK sends either), with CORS for the application\'s origin', async () => {
    for (const json of [false, true]) {
      const { code, verifier } = await signIn();
      const fields = { client_id: spa.client_id, code_verifier: verifier, grant_type: 'authorization_code', code, redirect_uri: REDIRECT };
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { origin: ORIGIN, 'auth0-client': AUTH0_CLIENT, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        payload: json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
      const tokens = response.json();
      expect(tokens.refresh_token).toBeTruthy();
      // the access token is the API's, as the API checks it: our key, our issuer, its audience
      const { payload } = await jose.jwtVerify(tokens.access_token, await jwks(), { issuer: PUBLIC_URL, audience: API, typ: 'at+jwt' });
      expect(payload.client_id).toBe(spa.client_id);
      // the ID token names the issuer discovery names, unchanged (the SDK is given it: its `issuer` option)
      const id = await jose.jwtVerify(tokens.id_token, await jwks(), { issuer: PUBLIC_URL, audience: spa.client_id });
      expect(id.payload.nonce).toBe('bm9uY2U=');
      // the refresh, as the SDK sends it (form or JSON)
      const refreshFields = { client_id: spa.client_id, grant_type: 'refresh_token', refresh_token: tokens.refresh_token, redirect_uri: REDIRECT };
      const refreshed = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { origin: ORIGIN, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        payload: json ? JSON.stringify(refreshFields) : new URLSearchParams(refreshFields).toString(),
      });
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      await jose.jwtVerify(refreshed.json().access_token, await jwks(), { issuer: PUBLIC_URL, audience: API });
      // revokeRefreshToken: /oauth/revoke, as the SDK sends it
      const current = refreshed.json().refresh_token ?? tokens.refresh_token;
      const revokeFields = { client_id: spa.client_id, token_type_hint: 'refresh_token', token: current };
      const revoked = await server.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        headers: { origin: ORIGIN, 'auth0-client': AUTH0_CLIENT, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        payload: json ? JSON.stringify(revokeFields) : new URLSearchParams(revokeFields).toString(),
      });
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(revoked.headers['access-control-allow-origin']).toBe(ORIGIN);
      const afterRevoke = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...refreshFields, refresh_token: current }).toString(),
      });
      expect(afterRevoke.json().error).toBe('invalid_grant');
    }
    const discovery = (await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
    expect(discovery.issuer).toBe(PUBLIC_URL);
    expect(discovery.authorization_endpoint).toBe(`${PUBLIC_URL}/oauth/authorize`);
    expect(discovery.end_session_endpoint).toBe(`${PUBLIC_URL}/oauth/logout`);
    // the SDK's preflight (it sends an Auth0-Client header) is answered for the application's origin only
    const preflight = (origin: string) =>
      server.app.inject({ method: 'OPTIONS', url: '/oauth/token', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'auth0-client,content-type' } });
    const allowed = await preflight(ORIGIN);
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(allowed.headers['access-control-allow-headers'])).toContain('auth0-client');
    const refused = await preflight('https://evil.example');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('/v2/logout is the end-session endpoint, returnTo its post_logout_redirect_uri', () => {
  const logout = (app: App, returnTo: string, extra = '') => `client_id=${encodeURIComponent(app.client_id)}&returnTo=${encodeURIComponent(returnTo)}&auth0Client=${AUTH0_CLIENT}${extra}`;
  const standard = (app: App, target: string, extra = '') => `client_id=${encodeURIComponent(app.client_id)}&post_logout_redirect_uri=${encodeURIComponent(target)}${extra}`;
  const HOSTILE = [
    'https://evil.example/',
    `${LOGOUT}/x`,
    `${LOGOUT}?next=https://evil.example`,
    `${LOGOUT}#x`,
    LOGOUT.toUpperCase(),
    `${LOGOUT}/`,
    '//evil.example',
    'javascript:alert(1)',
    `https://app.acme.example@evil.example/signed-out`,
    `${LOGOUT}\u0000`,
    '',
  ];

  it('signs out after the confirmation and lands on the registered returnTo; the sign-in is over', async () => {
    const { browser, code, verifier } = await signIn();
    const tokens = (
      await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ client_id: spa.client_id, code_verifier: verifier, grant_type: 'authorization_code', code, redirect_uri: REDIRECT }).toString(),
      })
    ).json();
    // with the browser's session: the same confirmation page as the standard endpoint shows
    await sameAnswer(`/oauth/logout?${standard(spa, LOGOUT)}`, `/v2/logout?${logout(spa, LOGOUT)}`, { cookie: browser.jar.header() });
    const page = await browser.get(`/v2/logout?${logout(spa, LOGOUT, '&federated')}`);
    expect(page.status).toBe(200);
    const [, action, xsrf] = /<form id="op.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"/.exec(page.body)!;
    const done = await browser.post(new URL(action).pathname, { xsrf, logout: 'yes' });
    expect(done.status).toBe(303);
    expect(done.location?.toString()).toBe(LOGOUT);
    const refresh = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: spa.client_id, grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
    });
    expect(refresh.statusCode).toBe(400);
  });

  it('never sends anyone to a returnTo the application did not register (nor without naming the application), with a session or not', async () => {
    const { browser } = await signIn();
    for (const cookie of [undefined, browser.jar.header()]) {
      for (const target of HOSTILE) {
        for (const app of [spa, outsider]) {
          const answer = await sameAnswer(`/oauth/logout?${standard(app, target)}`, `/v2/logout?${logout(app, target)}`, { cookie });
          // (an empty returnTo is none: the confirmation page, which sends nowhere either)
          expect(answer.status, target).toBe(target ? 400 : cookie ? 200 : answer.status);
          expect(answer.location, target).toBe('');
          expect(answer.body, target).not.toContain('evil.example');
        }
      }
      // no application named, two returnTo, returnTo beside post_logout_redirect_uri, an unknown client
      for (const query of [
        `returnTo=${encodeURIComponent(LOGOUT)}`,
        `${logout(spa, LOGOUT)}&returnTo=${encodeURIComponent('https://evil.example/')}`,
        `${logout(spa, LOGOUT)}&post_logout_redirect_uri=${encodeURIComponent('https://evil.example/')}`,
        `client_id=nope&returnTo=${encodeURIComponent(LOGOUT)}`,
        `client_id=${spa.client_id}&returnTo=${encodeURIComponent(LOGOUT)}&id_token_hint=garbage`,
      ]) {
        const answer = await server.app.inject({ method: 'GET', url: `/v2/logout?${query}`, headers: cookie ? { cookie } : {} });
        expect(answer.statusCode, query).toBe(400);
        expect(answer.headers.location, query).toBeUndefined();
        // and nothing it answers leads there: no form aimed anywhere but the provider
        expect(answer.body).not.toContain('evil.example');
      }
    }
    // the refused target is not kept either: confirming a later logout goes to no refused address
    const page = await browser.get(`/v2/logout?client_id=${spa.client_id}`);
    const [, action, xsrf] = /<form id="op.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"/.exec(page.body)!;
    const done = await browser.post(new URL(action).pathname, { xsrf, logout: 'yes' });
    expect(done.location).toBeUndefined();
    expect(done.status).toBeLessThan(500);
  });

  it('answers malformed queries as the standard endpoints do, never with a 5xx', async () => {
    for (const raw of ['%', '%ZZ', 'returnTo=%', 'returnTo=%ZZ', 'returnTo[]=x', 'returnTo=%F0%9F', 'client_id=%00', `client_id=${spa.client_id}&returnTo=%0d%0aLocation:%20https://evil.example`, '&&&=&=', 'returnTo']) {
      const standard = raw.replace(/returnTo/g, 'post_logout_redirect_uri');
      await sameAnswer(`/oauth/logout?${standard}`, `/v2/logout?${raw}`);
      await sameAnswer(`/oauth/authorize?${raw}`, `/authorize?${raw}`);
    }
  });

  it('has the end-session endpoint\'s CORS (none) for any origin, and its preflight answer', async () => {
    for (const origin of [ORIGIN, 'https://evil.example']) {
      await sameAnswer(`/oauth/logout?${standard(spa, LOGOUT)}`, `/v2/logout?${logout(spa, LOGOUT)}`, { headers: { origin } });
      const answer = await sameAnswer('/oauth/logout', '/v2/logout', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
      // a preflight is refused (403) or finds nothing to allow (404): no CORS header either way
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});

describe('web message response mode (Auth0\'s silent sign-in in a hidden iframe)', () => {
  const scriptOf = (html: string) => /<script>([\s\S]*)<\/script>/.exec(html)?.[1];

  it('posts the code to the application\'s origin only, in a page only that origin may frame', async () => {
    const { browser } = await signIn();
    const { challenge } = pkce();
    const answer = await browser.get(`/authorize?${authorizeQuery(spa, challenge, { response_mode: 'web_message', prompt: 'none' })}`);
    expect(answer.status).toBe(200);
    const script = scriptOf(answer.body)!;
    expect(script).toMatch(/^\(window\.opener \|\| window\.parent\)\.postMessage\(\{"type":"authorization_response","response":\{"code":"[\w-]+","state":"c3RhdGU=","iss":/);
    expect(script.endsWith(`, "${ORIGIN}");`)).toBe(true);
    const csp = String(answer.headers['content-security-policy']);
    expect(csp).toContain(`frame-ancestors ${ORIGIN}`);
    expect(csp).not.toContain("frame-ancestors 'none'");
    expect(csp).toContain(`script-src 'sha256-${crypto.createHash('sha256').update(script).digest('base64')}'`);
    expect(answer.headers['x-frame-options']).toBeUndefined();

    // the same browser at another tenant's application (same addresses): its session is not of that
    // tenant, so no code, only login_required
    const elsewhere = await browser.get(`/authorize?${authorizeQuery(outsider, challenge, { response_mode: 'web_message', prompt: 'none', audience: '' })}`);
    expect(scriptOf(elsewhere.body)).toContain('"error":"login_required"');
    expect(scriptOf(elsewhere.body)).not.toContain('"code"');
  });

  it('posts login_required when nobody is signed in; refuses an origin the application does not allow; never answers an unregistered redirect URI', async () => {
    const { challenge } = pkce();
    const nobody = await server.app.inject({ method: 'GET', url: `/authorize?${authorizeQuery(spa, challenge, { response_mode: 'web_message', prompt: 'none' })}` });
    expect(nobody.statusCode).toBe(400);
    expect(scriptOf(nobody.body)).toContain('"error":"login_required"');
    expect(scriptOf(nobody.body)).not.toContain('"code"');

    // the application does not list its origin among its allowed web origins: a page, no message, not framable
    const browser = injectBrowser(server);
    const page = await browser.get(`/authorize?${authorizeQuery(noOrigins, challenge)}`);
    await browser.post(formAction(page.body)!, { email: 'worker@acme.example', password: PASSWORD });
    const refused = await browser.get(`/authorize?${authorizeQuery(noOrigins, challenge, { response_mode: 'web_message', prompt: 'none' })}`);
    expect(refused.status).toBe(400);
    expect(refused.body).not.toContain('postMessage');
    expect(refused.body).toContain('allowed web origin');
    expect(String(refused.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(refused.headers['x-frame-options']).toBe('DENY');

    // an unregistered redirect URI or another tenant's client: the standard error page, no message
    const wrongs: Record<string, string>[] = [{ redirect_uri: 'https://evil.example/callback' }, { client_id: outsider.client_id, redirect_uri: 'https://evil.example/callback' }];
    for (const extra of wrongs) {
      const wrong = await server.app.inject({ method: 'GET', url: `/authorize?${authorizeQuery(spa, challenge, { response_mode: 'web_message', prompt: 'none', ...extra })}` });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.body).not.toContain('postMessage');
      expect(String(wrong.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
  });

  it('keeps a hostile state inside the script\'s string', async () => {
    const { browser } = await signIn();
    const { challenge } = pkce();
    const state = '</script><script>alert(1)</script>\u2028"';
    const answer = await browser.get(`/authorize?${authorizeQuery(spa, challenge, { response_mode: 'web_message', prompt: 'none', state })}`);
    expect(answer.status).toBe(200);
    expect(answer.body.match(/<script>/g)).toHaveLength(1);
    expect(answer.body.match(/<\/script>/g)).toHaveLength(1);
    const script = scriptOf(answer.body)!;
    const message = JSON.parse(/postMessage\((.*), "https/.exec(script)![1]);
    expect(message.response.state).toBe(state);
  });
});
