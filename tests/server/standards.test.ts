import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import * as jose from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerOf } from '../../server/oauth/provider.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, call, createTenant, listeningServer, type Tenant, type TestServer } from './helpers.js';
import { setPassword, subjectOf } from './oauthHelpers.js';

/**
 * One test per standard the provider implements, each with openid-client (a certified relying
 * party) on one side and the real server on a real port on the other. The user's browser is plain
 * fetch with a cookie jar: it follows redirects and submits the provider's HTML forms (the hosted
 * sign-in, device confirmation, logout confirmation), filling in email and password.
 */
let server: TestServer;
let issuer: string;
let acme: Tenant;
/** The subject (sub) of acme's user worker. */
let worker: string;
const REDIRECT = 'http://localhost:3000/callback';
const LOGOUT = 'http://localhost:3000/signed-out';
const EMAIL = 'worker@acme.example';
const PASSWORD = 'worker password 1';
const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';



beforeAll(async () => {
  // the applications' back-channel logout receiver listens on 127.0.0.1
  ({ server, issuer } = await listeningServer({ allowPrivateCallbacks: true }));
  acme = await createTenant(server, 'acme', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
  worker = await subjectOf(server, 'acme', 'acme-domain', 'worker');
}, 60_000);
afterAll(() => server?.close());

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token = acme.adminToken) => call(server, token, method, url, body);

interface CreatedApplication {
  client_id: string;
  client_secret?: string;
}

async function createApplication(settings: Record<string, unknown>): Promise<CreatedApplication> {
  const response = await api('POST', '/api/application', {
    companyId: 'acme',
    domain: 'acme-domain',
    redirect_uris: [REDIRECT],
    client_logout_uri: [LOGOUT],
    ...settings,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as CreatedApplication;
}

/** openid-client's configuration for an application: Basic secret for confidential ones, none (PKCE) for public ones. */
function rp(app: CreatedApplication, confidential: boolean, at = issuer): Promise<client.Configuration> {
  return client.discovery(new URL(at), app.client_id, undefined, confidential ? client.ClientSecretBasic(app.client_secret!) : client.None(), {
    execute: [client.allowInsecureRequests],
  });
}

const jwks = () => jose.createRemoteJWKSet(new URL(`${issuer}/oauth/jwks`));

/** What openid-client threw, for assertions on OAuth errors (error, status). */
async function failure(attempt: Promise<unknown>): Promise<{ error?: string; status?: number; message?: string }> {
  return attempt.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (thrown: { error?: string; status?: number; message?: string }) => thrown,
  );
}

// ---- the user's browser ----

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", '#x27': "'", '#34': '"', '#x2F': '/', '#47': '/' };
const decodeEntities = (value: string) =>
  value.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (ENTITIES[name] !== undefined) return ENTITIES[name];
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return whole;
  });

function attributes(tag: string): Record<string, string> {
  const result: Record<string, string> = {};
  const inner = tag.replace(/^<\w+/, '').replace(/\/?>$/, '');
  for (const match of inner.matchAll(/([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    result[match[1].toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return result;
}

interface Form {
  id?: string;
  method: string;
  action: URL;
  /** Named inputs (hidden ones with their values, text and password fields). */
  inputs: { name: string; type: string; value: string }[];
  /** Submit buttons of the form, inside it or pointing at it with form="id". */
  buttons: { name?: string; value: string; text: string }[];
}

function parseForms(html: string, base: URL): Form[] {
  const forms: Form[] = [];
  for (const match of html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/gi)) {
    const attrs = attributes(match[0].slice(0, match[0].indexOf('>') + 1));
    const body = match[1];
    const inputs = [...body.matchAll(/<input\b[^>]*>/gi)]
      .map((tag) => attributes(tag[0]))
      .filter((a) => a.name && !['submit', 'button', 'image', 'reset'].includes(a.type ?? '') && (!['checkbox', 'radio'].includes(a.type ?? '') || 'checked' in a))
      .map((a) => ({ name: a.name, type: (a.type ?? 'text').toLowerCase(), value: a.value ?? '' }));
    const buttonTags = [...body.matchAll(/<button\b[^>]*>([\s\S]*?)<\/button>/gi), ...body.matchAll(/<input\b[^>]*type=["']?submit[^>]*>()/gi)];
    if (attrs.id) {
      for (const outside of html.matchAll(/<button\b[^>]*>([\s\S]*?)<\/button>/gi)) {
        if (attributes(outside[0].slice(0, outside[0].indexOf('>') + 1)).form === attrs.id && !body.includes(outside[0])) buttonTags.push(outside);
      }
    }
    const buttons = buttonTags
      .map((tag) => ({ attrs: attributes(tag[0].slice(0, tag[0].indexOf('>') + 1)), text: (tag[1] ?? '').replace(/<[^>]*>/g, '').trim() }))
      .filter(({ attrs: a }) => (a.type ?? 'submit').toLowerCase() === 'submit')
      .map(({ attrs: a, text }) => ({ name: a.name, value: a.value ?? '', text: text || a.value || '' }));
    forms.push({
      id: attrs.id,
      method: (attrs.method ?? 'get').toUpperCase(),
      action: new URL(attrs.action ?? '', base),
      inputs,
      buttons,
    });
  }
  return forms;
}

const NEGATIVE = /abort|cancel|deny|refuse|reject|\bno\b|stay signed in|not you|switch/i;

/** The form a user who agrees to everything would submit, and the button they would press. */
function chooseForm(forms: Form[]): { form: Form; button?: Form['buttons'][number] } | undefined {
  const withPassword = forms.find((form) => form.inputs.some((input) => input.type === 'password'));
  const form = withPassword ?? forms.find((f) => !NEGATIVE.test(`${f.id ?? ''} ${f.action.pathname}`)) ?? forms[0];
  if (!form) return undefined;
  const positive = form.buttons.filter((b) => !NEGATIVE.test(`${b.name ?? ''} ${b.value} ${b.text}`));
  return { form, button: positive[0] ?? form.buttons.find((b) => !b.name) };
}

interface Page {
  url: URL;
  status: number;
  headers: Headers;
  body: string;
}

/** fetch with a cookie jar and manual redirects: what a browser does, minus JavaScript and rendering. */
class Browser {
  private jar = new Map<string, string>();
  /** Every page and redirect seen, for failure messages. */
  readonly trail: string[] = [];

  async request(url: URL, init: { method?: string; form?: URLSearchParams } = {}): Promise<Page> {
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.form, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...options] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      const expired = options.some((option) => {
        const [key, val] = option.trim().split('=');
        return (key.toLowerCase() === 'max-age' && Number(val) <= 0) || (key.toLowerCase() === 'expires' && Date.parse(val) < Date.now());
      });
      if (expired || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const body = await response.text();
    this.trail.push(`${init.method ?? 'GET'} ${url.href} -> ${response.status}${response.headers.get('location') ? ` ${response.headers.get('location')}` : ''}`);
    return { url, status: response.status, headers: response.headers, body };
  }

  /**
   * Opens `start` and goes on as an agreeing user would: follows redirects, submits forms (email
   * and password filled in), until a redirect to a URL `stop` accepts (not followed: that is the
   * relying party) or a page without a form; with `submit` false, at the first page with a form.
   */
  async drive(start: URL, stop: (url: URL) => boolean, { submit = true, email = EMAIL, password = PASSWORD } = {}): Promise<{ stoppedAt?: URL; page: Page }> {
    let page = await this.request(start);
    for (let step = 0; step < 25; step++) {
      const location = page.headers.get('location');
      if (page.status >= 300 && page.status < 400 && location) {
        const next = new URL(location, page.url);
        if (stop(next)) return { stoppedAt: next, page };
        page = await this.request(next);
        continue;
      }
      if (page.status !== 200) return { page };
      const choice = chooseForm(parseForms(page.body, page.url));
      if (!choice || !submit) return { page };
      const fields = new URLSearchParams();
      for (const input of choice.form.inputs) {
        if (input.type === 'password') fields.append(input.name, password);
        else if (/^(email|username|login)$/i.test(input.name) && input.type !== 'hidden') fields.append(input.name, email);
        else fields.append(input.name, input.value);
      }
      if (choice.button?.name) fields.append(choice.button.name, choice.button.value);
      page =
        choice.form.method === 'POST'
          ? await this.request(choice.form.action, { method: 'POST', form: fields })
          : await this.request(new URL(`${choice.form.action.origin}${choice.form.action.pathname}?${fields}`));
    }
    throw new Error(`too many steps:\n${this.trail.join('\n')}`);
  }
}

/** OpenID Connect Core 11: a request for offline_access carries prompt=consent. */
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' };

const atRedirect = (url: URL) => url.href.startsWith(REDIRECT);

interface SignIn {
  callback: URL;
  verifier: string;
  nonce: string;
  state: string;
  browser: Browser;
}

/** The authorization code flow in `browser` up to the redirect back with the code (not followed). */
async function signIn(
  config: client.Configuration,
  params: Record<string, string>,
  { browser = new Browser(), email = EMAIL, password = PASSWORD } = {},
): Promise<SignIn> {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const request = {
    redirect_uri: REDIRECT,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...params,
  };
  const { stoppedAt, page } = await browser.drive(client.buildAuthorizationUrl(config, request), atRedirect, { email, password });
  if (!stoppedAt) throw new Error(`no redirect back (${page.status}):\n${browser.trail.join('\n')}\n${page.body.slice(0, 2000)}`);
  return { callback: stoppedAt, verifier, nonce, state, browser };
}

const exchange = (config: client.Configuration, flow: SignIn, options?: { DPoP?: client.DPoPHandle }) =>
  client.authorizationCodeGrant(config, flow.callback, { pkceCodeVerifier: flow.verifier, expectedNonce: flow.nonce, expectedState: flow.state, idTokenExpected: true }, undefined, options);

/** Logs out through the end-session endpoint in the browser that signed in, confirming when asked. */
async function logout(config: client.Configuration, browser: Browser, params: Record<string, string>) {
  return browser.drive(client.buildEndSessionUrl(config, params), (url) => url.href.startsWith(LOGOUT));
}

// ---- the standards ----

describe('standards, with openid-client as the relying party', () => {
  it('RFC 7009 and RFC 7662: a refresh token is active when introspected, inactive once revoked, and refused by the refresh grant', async () => {
    const app = await createApplication({ client_name: 'Revoking web', app_type: 'web', grant_types: ['authorization_code', 'refresh_token'] });
    const config = await rp(app, true);
    const tokens = await exchange(config, await signIn(config, OFFLINE));
    const refreshToken = tokens.refresh_token!;
    expect(refreshToken, JSON.stringify(tokens)).toBeTruthy();

    const before = await client.tokenIntrospection(config, refreshToken);
    expect(before).toMatchObject({ active: true, client_id: app.client_id, sub: worker });
    expect(before.scope?.split(' ')).toContain('offline_access');

    // introspection needs the client's own authentication
    const anonymous = await fetch(`${issuer}/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token: refreshToken }),
    });
    expect(anonymous.ok).toBe(false);
    expect(JSON.stringify(await anonymous.json().catch(() => ({})))).not.toContain('"active":true');

    await client.tokenRevocation(config, refreshToken, { token_type_hint: 'refresh_token' });
    expect(await client.tokenIntrospection(config, refreshToken)).toEqual({ active: false });
    expect(await failure(client.refreshTokenGrant(config, refreshToken))).toMatchObject({ error: 'invalid_grant' });
    // revoking again (or an unknown token) is still a 200 (RFC 7009 section 2.2)
    await client.tokenRevocation(config, refreshToken);
    await client.tokenRevocation(config, 'not-a-token');
  });

  it('RFC 8628: device authorization, the user confirms the code in a browser and signs in, the device polls and gets tokens', async () => {
    // the console's name for urn:ietf:params:oauth:grant-type:device_code
    const app = await createApplication({ client_name: 'Living-room TV', app_type: 'native', grant_types: ['device_code', 'refresh_token'] });
    const config = await rp(app, false);
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${issuer}/oauth/device/auth`);
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
    expect(device.verification_uri).toBe(`${issuer}/oauth/device`);
    expect(device.user_code).toBeTruthy();
    expect(new URL(device.verification_uri_complete!).searchParams.get('user_code')).toBe(device.user_code);

    /** One poll of the token endpoint, as the device makes it. */
    const poll = () =>
      fetch(config.serverMetadata().token_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code, client_id: app.client_id }),
      });
    // before the user acts, the device is told to wait
    const early = await poll();
    expect(early.status).toBe(400);
    expect((await early.json()).error).toBe('authorization_pending');

    const browser = new Browser();
    const { page, stoppedAt } = await browser.drive(new URL(device.verification_uri_complete!), () => false);
    expect(stoppedAt).toBeUndefined();
    expect(page.status, `${browser.trail.join('\n')}\n${page.body.slice(0, 2000)}`).toBe(200);
    // the user went through the hosted sign-in (an interaction) on the way
    expect(browser.trail.some((line) => line.startsWith('POST') && line.includes('/oauth/interaction/')), browser.trail.join('\n')).toBe(true);

    const tokens = await client.pollDeviceAuthorizationGrant(config, device, undefined, { signal: AbortSignal.timeout(30_000) });
    expect(tokens.access_token).toBeTruthy();
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: issuer, aud: app.client_id, sub: worker });
    const { payload } = await jose.jwtVerify(tokens.id_token!, jwks(), { issuer, audience: app.client_id });
    expect(payload.sub).toBe(worker);
    expect((await client.fetchUserInfo(config, tokens.access_token, worker)).email).toBe(EMAIL);

    // the device code is spent
    const again = await poll();
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
  });

  it('RFC 9126: a pushed authorization request, the hosted sign-in, the code exchanged; the request_uri serves once', async () => {
    const app = await createApplication({ client_name: 'Pushing web', app_type: 'web', grant_types: ['authorization_code'] });
    const config = await rp(app, true);
    expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(`${issuer}/oauth/par`);

    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
    });
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/oauth/authorize`);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);

    const browser = new Browser();
    const { stoppedAt, page } = await browser.drive(url, atRedirect);
    expect(stoppedAt, `${browser.trail.join('\n')}\n${page.body.slice(0, 2000)}`).toBeDefined();
    expect(stoppedAt!.searchParams.get('code')).toBeTruthy();
    const tokens = await exchange(config, { callback: stoppedAt!, verifier, nonce, state, browser });
    expect(tokens.claims()).toMatchObject({ iss: issuer, sub: worker, aud: app.client_id, nonce });
    expect((await client.fetchUserInfo(config, tokens.access_token, worker)).email).toBe(EMAIL);

    // the pushed request was used up: a second visit gets no code
    const replay = await new Browser().drive(url, atRedirect);
    expect(replay.stoppedAt?.searchParams.get('code') ?? null).toBeNull();

    // PAR needs the client's authentication
    const anonymous = await fetch(`${issuer}/oauth/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('RFC 9449: DPoP-bound tokens for a public client; its refresh token needs the same key', async () => {
    const app = await createApplication({ client_name: 'DPoP SPA', app_type: 'SPA', grant_types: ['authorization_code', 'refresh_token'] });
    const config = await rp(app, false);
    expect(config.serverMetadata().dpop_signing_alg_values_supported).toContain('ES256');
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const DPoP = client.getDPoPHandle(config, keyPair);
    const thumbprint = await jose.calculateJwkThumbprint(await jose.exportJWK(keyPair.publicKey));

    const tokens = await exchange(config, await signIn(config, OFFLINE), { DPoP });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(tokens.refresh_token).toBeTruthy();
    expect(jose.decodeJwt(tokens.access_token).cnf).toEqual({ jkt: thumbprint });
    // a DPoP-bound access token is no bearer token
    const asBearer = await fetch(`${issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(asBearer.status).toBe(401);
    // with its proof (Authorization: DPoP, RFC 9449 7.1) the userinfo endpoint takes it
    expect(await client.fetchUserInfo(config, tokens.access_token, worker, { DPoP })).toMatchObject({ sub: worker });

    // without the proof the refresh token is refused; with it, new DPoP tokens
    expect(await failure(client.refreshTokenGrant(config, tokens.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    const otherKey = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    expect(await failure(client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: otherKey }))).toMatchObject({ error: 'invalid_grant' });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
    expect(jose.decodeJwt(refreshed.access_token).cnf).toEqual({ jkt: thumbprint });
    // another key's proof does not make the token its own
    await expect(client.fetchUserInfo(config, refreshed.access_token, worker, { DPoP: otherKey })).rejects.toBeTruthy();
    expect((await client.fetchUserInfo(config, refreshed.access_token, worker, { DPoP })).sub).toBe(worker);
  });

  it('OpenID Connect RP-Initiated Logout: back to a registered URI with state after confirmation, never to another; the refresh token dies', async () => {
    const app = await createApplication({ client_name: 'Logout SPA', app_type: 'SPA', grant_types: ['authorization_code', 'refresh_token'] });
    const config = await rp(app, false);
    expect(config.serverMetadata().end_session_endpoint).toBe(`${issuer}/oauth/logout`);
    const flow = await signIn(config, OFFLINE);
    const tokens = await exchange(config, flow);
    expect(tokens.refresh_token).toBeTruthy();

    // an unregistered post-logout URI: an error page, no redirect there
    const refused = await flow.browser.drive(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${LOGOUT}/elsewhere`, state: 'bye' }), (url) =>
      url.href.startsWith(LOGOUT),
    );
    expect(refused.stoppedAt, flow.browser.trail.join('\n')).toBeUndefined();
    expect(refused.page.status).toBe(400);
    expect(refused.page.headers.get('location')).toBeNull();
    // nothing was revoked by the refused request
    const stillAlive = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const refreshToken = stillAlive.refresh_token ?? tokens.refresh_token!;

    const { stoppedAt, page } = await logout(config, flow.browser, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: LOGOUT, state: 'bye' });
    expect(stoppedAt?.href, `${flow.browser.trail.join('\n')}\n${page.body.slice(0, 1000)}`).toBe(`${LOGOUT}?state=bye`);

    // the browser's session is gone: a new authorization request shows the sign-in form again
    const again = await flow.browser.drive(
      client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256' }),
      atRedirect,
      { submit: false },
    );
    expect(again.stoppedAt, flow.browser.trail.join('\n')).toBeUndefined();
    expect(again.page.body).toMatch(/<input[^>]*type="password"/);

    // and the sign-in's refresh token (offline_access) ended with it
    const refreshed = await client.refreshTokenGrant(config, refreshToken).then(
      () => 'the refresh grant still succeeds after the logout',
      (error: { error?: string }) => error.error,
    );
    expect(refreshed).toBe('invalid_grant');
  });

  it('OpenID Connect Back-Channel Logout: a signed logout token is POSTed to the application when the user logs out', async () => {
    const received: { contentType?: string; body: string }[] = [];
    let notify: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (notify = resolve));
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (request.method === 'POST' && request.url === '/backchannel') {
          received.push({ contentType: request.headers['content-type'], body });
          notify();
        }
        response.writeHead(200, { 'cache-control': 'no-store' }).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/backchannel`;
    const failures: string[] = [];
    const provider = providerOf(server.ctx);
    const onError = (_ctx: unknown, error: Error & { cause?: Error }) => failures.push(`${error.message}${error.cause ? ` (${error.cause.message})` : ''}`);
    (provider as unknown as NodeJS.EventEmitter).on('backchannel.error', onError);
    try {
      expect((await rp({ client_id: 'anything' }, false)).serverMetadata().backchannel_logout_supported).toBe(true);
      const app = await createApplication({ client_name: 'Back-channel web', app_type: 'web', backchannel_logout_uri: receiverUrl });
      const config = await rp(app, true);
      const flow = await signIn(config, { scope: 'openid' });
      const tokens = await exchange(config, flow);
      const sid = tokens.claims()!.sid as string | undefined;

      const { stoppedAt } = await logout(config, flow.browser, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: LOGOUT });
      expect(stoppedAt && `${stoppedAt.origin}${stoppedAt.pathname}`, flow.browser.trail.join('\n')).toBe(LOGOUT);
      await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error(`no back-channel logout request within 10 s; the provider reported: ${failures.join('; ') || 'nothing'}`)), 10_000))]);

      expect(received).toHaveLength(1);
      expect(received[0].contentType).toMatch(/^application\/x-www-form-urlencoded/);
      const logoutToken = new URLSearchParams(received[0].body).get('logout_token')!;
      expect(logoutToken).toBeTruthy();
      const { payload, protectedHeader } = await jose.jwtVerify(logoutToken, jwks(), { issuer, audience: app.client_id, maxTokenAge: '2 minutes' });
      expect(protectedHeader.typ).toBe('logout+jwt');
      expect(payload.events).toEqual({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
      expect(payload.sub).toBe(worker);
      expect(payload.jti).toBeTruthy();
      expect(payload.nonce).toBeUndefined();
      expect(sid, 'the id_token has a sid to match logout tokens with').toBeTruthy();
      expect(payload.sid).toBe(sid);
    } finally {
      (provider as unknown as NodeJS.EventEmitter).off('backchannel.error', onError);
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('RFC 7591: dynamic client registration is off by default', async () => {
    const metadata = (await rp({ client_id: 'anything' }, false)).serverMetadata();
    expect(metadata.registration_endpoint).toBeUndefined();
    const response = await fetch(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Uninvited' }),
    });
    expect(response.status).toBe(404);
  });

  it('RFC 7591: with an initial access token configured (registrationAccessToken), a client registers itself and signs a user in', async () => {
    const initialAccessToken = `initial-${crypto.randomBytes(16).toString('hex')}`;
    // (the operator names the domain registered clients join: config.ts)
    const second = await listeningServer({ registrationAccessToken: initialAccessToken, registrationDomain: { companyId: 'root', domainId: 'default' } });
    try {
      const discovered = await client.discovery(new URL(second.issuer), 'anything', undefined, client.None(), { execute: [client.allowInsecureRequests] });
      const endpoint = discovered.serverMetadata().registration_endpoint;
      expect(endpoint).toBe(`${second.issuer}/oauth/register`);
      const metadata = { client_name: 'Self-registered', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' };
      // without the initial access token, or with another one: refused, nothing registered
      for (const authorization of [undefined, `Bearer ${initialAccessToken}x`]) {
        const refused = await fetch(endpoint!, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify(metadata),
        });
        // RFC 6750 3.1: 401 for a wrong token; a missing one may be a 400 invalid_request
        expect(authorization ? [401] : [400, 401], `${authorization ?? 'no token'}: ${refused.status} ${await refused.text()}`).toContain(refused.status);
      }

      const registered = await client.dynamicClientRegistration(new URL(second.issuer), metadata, undefined, {
        initialAccessToken,
        execute: [client.allowInsecureRequests],
      });
      const { client_id, client_secret } = registered.clientMetadata();
      expect(client_id).toBeTruthy();
      expect(client_secret).toBeTruthy();
      // reading the registration back (its registration access token) shows the metadata, never the secret again
      const { registration_client_uri: readUri, registration_access_token: readToken } = registered.clientMetadata() as Record<string, string>;
      const read = await fetch(readUri, { headers: { authorization: `Bearer ${readToken}` } });
      expect(read.status).toBe(200);
      const readBody = await read.json();
      expect(readBody.client_id).toBe(client_id);
      expect(readBody.client_secret).toBeUndefined();
      const stored = await call(second.server, second.server.adminToken, 'GET', `/api/application/${client_id}`);
      expect(stored.body).toMatchObject({ companyId: 'root', domain: 'default', client_name: 'Self-registered', app_type: 'web', redirect_uris: [REDIRECT], status: 'active' });

      // the new client is an application of the registration domain (here root/default): its users sign in
      const config = await rp({ client_id, client_secret: client_secret as string }, true, second.issuer);
      const flow = await signIn(config, { scope: 'openid email' }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      const tokens = await exchange(config, flow);
      expect(tokens.claims()).toMatchObject({ iss: second.issuer, aud: client_id, sub: await subjectOf(second.server, 'root', 'default', 'admin') });
    } finally {
      await second.server.close();
    }
  });
});
