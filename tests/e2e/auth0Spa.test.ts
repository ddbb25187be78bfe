/**
 * Issue 37, "Applications move over unchanged": an application written with Auth0's browser SDK
 * (@auth0/auth0-spa-js, its browser build from node_modules, unchanged) signs in against our
 * provider by its settings alone (docs/PROTECT-YOUR-APP.md, "Moving from Auth0"): domain, client
 * id, the API's audience, and `issuer` (ours has no trailing slash). Both ways the SDK gets tokens
 * silently: refresh tokens (useRefreshTokens) and, without them, a hidden iframe at /authorize with
 * response_mode=web_message and prompt=none. The access token passes the API's check (our JWKS,
 * issuer, its audience); logout at /v2/logout lands on returnTo after the confirmation.
 *
 * The provider and the application run here over HTTPS on two ports of localhost (one site, as an
 * application and its provider on one registrable domain are): the SDK speaks https to a bare
 * domain, and the provider's cookies are then Secure, as in production.
 */
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import * as jose from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type TestServer } from '../server/helpers.js';
import { setPassword } from '../server/oauthHelpers.js';
import { selfSignedCertificate } from '../upstream/samlIdp.js';
import { launchBrowser, screenshot } from './browser.js';

const APP_DIR = path.resolve('tests/e2e/auth0App');
const SDK = path.resolve('node_modules/@auth0/auth0-spa-js/dist/auth0-spa-js.production.js');
const PASSWORD = 'worker password 1';
const API = 'https://orders.acme.example';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 200 });

let server: TestServer;
let provider: https.Server;
let application: https.Server;
let browser: Browser;
let issuer: string;
let appOrigin: string;
let clientId: string;
/** What the application's page is configured with (its config.js). */
const settings = { useRefreshTokens: false, useFormData: true };

beforeAll(async () => {
  const tls = selfSignedCertificate('localhost');
  const options = { key: tls.privateKeyPem, cert: tls.certificatePem };
  const [providerPort, appPort] = [await freePort(), await freePort()];
  issuer = `https://localhost:${providerPort}`;
  appOrigin = `https://localhost:${appPort}`;
  server = await startServer({ publicUrl: issuer });
  provider = https.createServer(options, (request, response) => server.app.routing(request, response));
  await new Promise<void>((resolve) => provider.listen(providerPort, '127.0.0.1', resolve));

  const acme = await createTenant(server, 'acme', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
  const spa = await call(server, acme.adminToken, 'POST', '/api/application', {
    companyId: 'acme',
    domain: 'acme-domain',
    client_name: 'Orders',
    app_type: 'SPA',
    redirect_uris: [`${appOrigin}/callback`],
    client_logout_uri: [`${appOrigin}/signed-out`],
    allowed_web_orgins: [appOrigin],
  });
  expect(spa.status, JSON.stringify(spa.body)).toBe(201);
  clientId = spa.body.client_id;
  const api = await call(server, acme.adminToken, 'POST', '/api/api', { companyId: 'acme', domain: 'acme-domain', name: 'Orders API', identifier: API, allowOfflineAccess: true });
  expect(api.status, JSON.stringify(api.body)).toBe(201);

  // the application: its page, its script, the SDK's browser build, and its settings
  application = https.createServer(options, (request, response) => {
    const { pathname } = new URL(request.url ?? '/', appOrigin);
    const send = (type: string, body: string | Buffer) => response.writeHead(200, { 'content-type': type }).end(body);
    if (pathname === '/auth0-spa-js.production.js') return send('text/javascript', fs.readFileSync(SDK));
    if (pathname === '/app.js') return send('text/javascript', fs.readFileSync(path.join(APP_DIR, 'app.js')));
    if (pathname === '/config.js') {
      const config = { domain: new URL(issuer).host, clientId, issuer, audience: API, useRefreshTokens: settings.useRefreshTokens, useFormData: settings.useFormData };
      return send('text/javascript', `window.APP_SETTINGS = ${JSON.stringify(config)};`);
    }
    if (['/', '/callback', '/signed-out'].includes(pathname)) return send('text/html; charset=utf-8', fs.readFileSync(path.join(APP_DIR, 'index.html')));
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => application.listen(appPort, '127.0.0.1', resolve));
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => application?.close(resolve));
  await new Promise((resolve) => provider?.close(resolve));
  await server?.close();
});

/** Runs `code` on the application's page against its Auth0 client (window.auth0Client). */
const withClient = <T>(page: Page, code: string): Promise<T> => page.evaluate(`window.auth0Client.then(async (client) => { ${code} })`) as Promise<T>;

/** The API's check of an access token: our keys (JWKS), our issuer, its audience, an access token's type. */
async function apiAccepts(token: string) {
  const jwks = jose.createLocalJWKSet((await server.app.inject({ method: 'GET', url: '/oauth/jwks' })).json());
  const { payload } = await jose.jwtVerify(token, jwks, { issuer, audience: API, typ: 'at+jwt' });
  return payload;
}

/** What the SDK asked of the provider: the token grants it posted and the /authorize requests it made. */
function watch(context: BrowserContext) {
  const seen = { grants: [] as string[], authorize: [] as URL[], logout: [] as URL[], refreshTokens: [] as string[] };
  context.on('response', async (response) => {
    if (!response.url().startsWith(`${issuer}/oauth/token`) || response.status() !== 200) return;
    const refreshToken = (await response.json().catch(() => ({}))).refresh_token;
    if (refreshToken) seen.refreshTokens.push(refreshToken);
  });
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== issuer) return;
    if (url.pathname === '/oauth/token' && request.method() === 'POST') {
      const body = request.postData() ?? '';
      expect(body.startsWith('{'), 'the token request is JSON exactly when useFormData is false').toBe(!settings.useFormData);
      seen.grants.push(body.startsWith('{') ? JSON.parse(body).grant_type : new URLSearchParams(body).get('grant_type'));
    }
    if (url.pathname === '/authorize') seen.authorize.push(url);
    if (url.pathname === '/v2/logout') seen.logout.push(url);
  });
  return seen;
}

async function signInAndOut(mode: 'refresh-tokens' | 'iframe') {
  settings.useRefreshTokens = mode === 'refresh-tokens';
  // the token requests as JSON (useFormData: false) in one, as a form (the default) in the other
  settings.useFormData = mode === 'iframe';
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1000, height: 700 } });
  const seen = watch(context);
  const page = await context.newPage();
  try {
    await page.goto(`${appOrigin}/`);
    await poll(() => page.locator('#status').textContent()).toBe('Signed out');

    // loginWithRedirect: to {domain}/authorize, then our hosted page
    void withClient(page, 'await client.loginWithRedirect();').catch(() => undefined);
    const login = page.getByRole('textbox', { name: 'Email or username' });
    await poll(() => login.isVisible()).toBe(true);
    expect(seen.authorize[0]?.searchParams.get('audience')).toBe(API);
    expect(seen.authorize[0]?.searchParams.get('auth0Client')).toBeTruthy();
    await screenshot(page, `auth0-spa-${mode}-login`);
    await login.fill('worker@acme.example');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${appOrigin}/callback?`), { timeout: 30_000 });

    // handleRedirectCallback: the code at {domain}/oauth/token, the ID token checked (issuer, nonce, audience)
    const user = await withClient<{ email: string; sub: string }>(page, 'await client.handleRedirectCallback(); return client.getUser();');
    expect(user.email).toBe('worker@acme.example');
    expect(seen.grants).toEqual(['authorization_code']);

    // getTokenSilently for the API: from the cache, then from the provider
    const cached = await withClient<string>(page, 'return client.getTokenSilently();');
    expect((await apiAccepts(cached)).sub).toBe(user.sub);
    const fresh = await withClient<string>(page, "return client.getTokenSilently({ cacheMode: 'off' });");
    expect(fresh).not.toBe(cached);
    const claims = await apiAccepts(fresh);
    expect(claims.sub).toBe(user.sub);
    expect(claims.client_id).toBe(clientId);
    if (mode === 'refresh-tokens') {
      expect(seen.grants).toEqual(['authorization_code', 'refresh_token']);
      await poll(() => seen.refreshTokens.length).toBe(2);
    } else {
      // the hidden iframe: /authorize with prompt=none answered by a web message
      const silent = seen.authorize.at(-1)!;
      expect(silent.searchParams.get('response_mode')).toBe('web_message');
      expect(silent.searchParams.get('prompt')).toBe('none');
      expect(seen.grants).toEqual(['authorization_code', 'authorization_code']);
      // a reload loses the memory cache: the SDK signs in again silently (checkSession)
      await page.goto(`${appOrigin}/`);
      await poll(() => page.locator('#status').textContent()).toBe('Signed in');
      await apiAccepts(await withClient<string>(page, 'return client.getTokenSilently();'));
      // the one setting beyond the domain: without `issuer` the SDK expects "https://{domain}/"
      // (Auth0's issuer ends with a slash, ours does not) and refuses our ID token
      const refused = await page.evaluate(`(async () => {
        const bare = await auth0.createAuth0Client({ domain: APP_SETTINGS.domain, clientId: APP_SETTINGS.clientId, authorizationParams: { redirect_uri: location.origin + '/callback', audience: APP_SETTINGS.audience } });
        try { await bare.getTokenSilently({ cacheMode: 'off' }); return 'accepted'; } catch (error) { return error.message; }
      })()`);
      expect(refused).toBe(`Issuer (iss) claim mismatch in the ID token; expected "${issuer}/", found "${issuer}"`);
    }

    // logout: {domain}/v2/logout?client_id&returnTo, the confirmation, then returnTo
    void withClient(page, `await client.logout({ logoutParams: { returnTo: '${appOrigin}/signed-out' } });`).catch(() => undefined);
    const confirm = page.getByRole('button', { name: 'Yes, sign me out' });
    await poll(() => confirm.isVisible()).toBe(true);
    expect(seen.logout[0]?.searchParams.get('client_id')).toBe(clientId);
    await screenshot(page, `auth0-spa-${mode}-logout`);
    await confirm.click();
    await page.waitForURL(`${appOrigin}/signed-out`, { timeout: 30_000 });
    await poll(() => page.locator('#status').textContent()).toBe('Signed out');
    // the sign-in is over at the provider: its refresh tokens are refused
    for (const refreshToken of seen.refreshTokens) {
      const refresh = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ client_id: clientId, grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
      });
      expect(refresh.json().error).toBe('invalid_grant');
    }
    // the provider's session is over: silent sign-in now answers login_required
    const after = await withClient<string>(page, "try { await client.getTokenSilently({ cacheMode: 'off' }); return 'token'; } catch (error) { return error.error; }");
    expect(after).toBe(mode === 'iframe' ? 'login_required' : 'missing_refresh_token');
  } finally {
    await context.close();
  }
}

describe('an application written with @auth0/auth0-spa-js, unchanged but for its settings', () => {
  it('signs in with refresh tokens (token requests in JSON): loginWithRedirect, handleRedirectCallback, getTokenSilently for the API, logout', async () => {
    await signInAndOut('refresh-tokens');
  });

  it('signs in without refresh tokens: getTokenSilently through the hidden iframe (web_message)', async () => {
    await signInAndOut('iframe');
  });
});
