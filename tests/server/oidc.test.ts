import * as jose from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, listeningServer, type Tenant, type TestServer } from './helpers.js';
import { fetchBrowser, formAction, setPassword, subjectOf } from './oauthHelpers.js';

/**
 * openid-client (a standard relying party) against the real server on a real port. The browser is
 * simulated: GET /oauth/authorize, then POST the hosted login form and read the 303 Location.
 */
let server: TestServer;
let issuer: string;
let acme: Tenant;
let other: Tenant;
/** The subject (sub) of acme's user worker. */
let worker: string;
const REDIRECT = 'http://localhost:3000/callback';
const LOGOUT = 'http://localhost:3000/signed-out';
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'worker password 1';


beforeAll(async () => {
  ({ server, issuer } = await listeningServer());
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
  worker = await subjectOf(server, 'acme', 'acme-domain', 'worker');
}, 60_000);
afterAll(() => server?.close());

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token = acme.adminToken) => call(server, token, method, url, body);

async function createApplication(settings: Record<string, unknown>) {
  const response = await api('POST', '/api/application', {
    companyId: 'acme',
    domain: 'acme-domain',
    redirect_uris: [REDIRECT],
    client_logout_uri: [LOGOUT],
    ...settings,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { client_id: string; client_secret: string };
}

async function createApi(settings: Record<string, unknown>, scopes: string[] = []) {
  const response = await api('POST', '/api/api', { companyId: 'acme', domain: 'acme-domain', ...settings });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  for (const permission of scopes) {
    expect((await api('POST', `/api/api/${response.body.id}/PermissionScopes`, { permission, description: `may ${permission}` })).status).toBe(201);
  }
  return response.body as { id: string; identifier: string; signingSecret?: string };
}

async function rp(app: { client_id: string; client_secret?: string }, confidential: boolean) {
  return client.discovery(
    new URL(issuer),
    app.client_id,
    undefined,
    confidential ? client.ClientSecretBasic(app.client_secret!) : client.None(),
    { execute: [client.allowInsecureRequests] },
  );
}


const postForm = (path: string, fields: Record<string, string>) =>
  fetch(`${issuer}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });

interface Flow {
  verifier: string;
  nonce: string;
  state: string;
  /** The 303 Location back to the application, when no consent was asked. */
  callback?: URL;
  /** The consent page, when it was shown. */
  consent?: string;
  /** The browser that shows it. */
  browser?: ReturnType<typeof fetchBrowser>;
}

/** The browser: authorization request, hosted login page, form post as the worker. */
async function browserSignIn(config: client.Configuration, params: Record<string, string>): Promise<Flow> {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...params,
  });
  const browser = fetchBrowser(issuer);
  const page = await browser.get(url.toString());
  if (page.location) return { verifier, nonce, state, callback: page.location, browser };
  const response = await browser.post(formAction(page.body)!, { email: 'worker@acme.example', password: PASSWORD });
  if (response.location) return { verifier, nonce, state, callback: response.location, browser };
  expect(response.status).toBe(200);
  return { verifier, nonce, state, consent: response.body, browser };
}

const exchange = (config: client.Configuration, flow: Flow) =>
  client.authorizationCodeGrant(config, flow.callback!, { pkceCodeVerifier: flow.verifier, expectedNonce: flow.nonce, expectedState: flow.state, idTokenExpected: true });

/** A 401 from the token endpoint: openid-client surfaces the Basic challenge; the body is RFC 6749's invalid_client. */
async function expectInvalidClient(attempt: Promise<unknown>) {
  const error = (await attempt.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )) as { status?: number; response?: Response } | undefined;
  expect(error?.status).toBe(401);
  expect(await error!.response!.json()).toMatchObject({ error: 'invalid_client' });
}

const jwks = () => jose.createRemoteJWKSet(new URL(`${issuer}/oauth/jwks`));

describe('discovery and the code flow', () => {
  it('publishes the endpoints a relying party needs', async () => {
    const config = await rp({ client_id: 'anything' }, false);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.end_session_endpoint).toBe(`${issuer}/oauth/logout`);
    expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code']);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('signs a user in with PKCE and nonce; the id_token validates; userinfo answers; tokens verify against the JWKS', async () => {
    const app = await createApplication({ client_name: 'Code SPA', app_type: 'SPA', id_token_expiration: 600 });
    const config = await rp(app, false);
    const flow = await browserSignIn(config, { scope: 'openid profile email' });
    expect(flow.callback!.searchParams.get('iss')).toBe(issuer);
    const tokens = await exchange(config, flow);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ sub: worker, aud: app.client_id, iss: issuer, nonce: flow.nonce, email: 'worker@acme.example' });
    // id_token lifetime from the application's id_token_expiration
    expect(claims.exp - claims.iat).toBe(600);
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, worker);
    expect(userinfo).toMatchObject({ sub: worker, email: 'worker@acme.example', name: 'worker' });

    const { payload } = await jose.jwtVerify(tokens.id_token!, jwks(), { issuer, audience: app.client_id, algorithms: ['RS256'] });
    expect(payload.sid).toBeTruthy();
    // without an API the access token is for the management API; a plain user gets no user:admin there
    const access = await jose.jwtVerify(tokens.access_token, jwks(), { issuer, audience: `${issuer}/api`, typ: 'at+jwt' });
    expect(access.payload.scope).toBe('openid profile email');
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/acme')).status).toBe(403);
  });
});

describe('APIs', () => {
  it('issue RS256 access tokens for the named API with its browser lifetime; RBAC limits scopes to group permissions; permissions claim', async () => {
    const items = await createApi(
      { name: 'Items', identifier: 'https://items.acme.example', RBAC: true, addPermissionAccessToken: true, tokenExpirationBrowser: 1800 },
      ['read:items', 'write:items'],
    );
    // worker -> staff -> readers; readers holds read:items
    const groups = '/api/companys/acme/domainNames/acme-domain/groups';
    for (const name of ['staff', 'readers']) {
      expect((await api('POST', groups, { name, displayName: name, email: `${name}@acme.example` })).status).toBe(201);
    }
    expect((await api('POST', `${groups}/staff/members`, [{ id: 'worker', type: 'user' }])).status).toBe(200);
    expect((await api('POST', `${groups}/readers/members`, [{ id: 'staff', type: 'group' }])).status).toBe(200);
    const granted = await api('POST', `${groups}/readers/permissions`, [{ apiId: items.id, permission: 'read:items' }]);
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual([{ apiId: items.id, apiName: 'Items', permission: 'read:items', description: 'may read:items' }]);

    const app = await createApplication({ client_name: 'Items SPA', app_type: 'SPA' });
    const config = await rp(app, false);
    const signIn = async () => exchange(config, await browserSignIn(config, { scope: 'openid read:items write:items unknown:scope', audience: items.identifier }));

    let tokens = await signIn();
    expect(tokens.expires_in).toBe(1800);
    let { payload, protectedHeader } = await jose.jwtVerify(tokens.access_token, jwks(), { issuer, audience: items.identifier, typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: worker, scope: 'openid read:items', permissions: ['read:items'], client_id: app.client_id });
    expect(payload.exp! - payload.iat!).toBe(1800);
    // the same token reads userinfo (openid), but is no management API token
    expect((await client.fetchUserInfo(config, tokens.access_token, worker)).sub).toBe(worker);
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/acme')).status).toBe(401);

    // RBAC off: every API scope asked for; the permissions claim repeats them; off too: no claim
    expect((await api('PUT', `/api/api/${items.id}`, { RBAC: false })).status).toBe(200);
    tokens = await signIn();
    ({ payload } = await jose.jwtVerify(tokens.access_token, jwks(), { issuer, audience: items.identifier }));
    expect(payload).toMatchObject({ scope: 'openid read:items write:items', permissions: ['read:items', 'write:items'] });
    expect((await api('PUT', `/api/api/${items.id}`, { addPermissionAccessToken: false })).status).toBe(200);
    ({ payload } = await jose.jwtVerify((await signIn()).access_token, jwks(), { issuer, audience: items.identifier }));
    expect(payload.permissions).toBeUndefined();

    // an unknown audience is refused at the authorization endpoint (RFC 8707 invalid_target)
    const unknown = await browserSignIn(config, { scope: 'openid', audience: 'https://nothing.example' });
    expect(unknown.callback!.searchParams.get('error')).toBe('invalid_target');
  });

  it('issue client_credentials tokens to a machine application, HS256 with the API secret; a machine app cannot sign users in', async () => {
    const billing = await createApi({ name: 'Billing', identifier: 'urn:billing', signingAlgorithm: 'HS256', tokenExpiration: 900, addPermissionAccessToken: true }, ['invoice:read', 'invoice:write']);
    expect(billing.signingSecret).toHaveLength(64);
    const machine = await createApplication({ client_name: 'Billing job', app_type: 'machine', grant_types: ['client_credentials'] });
    const config = await rp(machine, true);
    const tokens = await client.clientCredentialsGrant(config, { audience: 'urn:billing', scope: 'invoice:read' });
    expect(tokens.expires_in).toBe(900);
    const { payload, protectedHeader } = await jose.jwtVerify(tokens.access_token, new TextEncoder().encode(billing.signingSecret), {
      issuer,
      audience: 'urn:billing',
      algorithms: ['HS256'],
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload).toMatchObject({ sub: machine.client_id, scope: 'invoice:read', permissions: ['invoice:read'] });
    // RFC 8707 spelling, and no scope = every scope of the API
    const all = await client.clientCredentialsGrant(config, { resource: 'urn:billing' });
    expect(all.scope).toBe('invoice:read invoice:write');
    await expect(client.clientCredentialsGrant(config, { audience: 'urn:billing', scope: 'root:everything' })).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(client.clientCredentialsGrant(config, { audience: 'urn:nothing' })).rejects.toMatchObject({ error: 'invalid_target' });
    await expect(client.clientCredentialsGrant(config, {})).rejects.toMatchObject({ error: 'invalid_request' });

    const page = await fetch(client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(new URL(page.headers.get('location')!).searchParams.get('error')).toBe('unauthorized_client');

    // soft-deleting the API stops it; recovering restores it
    expect((await api('PUT', `/api/api/${billing.id}`, { status: 'deleted' })).status).toBe(200);
    await expect(client.clientCredentialsGrant(config, { audience: 'urn:billing' })).rejects.toMatchObject({ error: 'invalid_target' });
    expect((await api('PUT', `/api/api/${billing.id}`, { status: 'active' })).status).toBe(200);
    expect((await client.clientCredentialsGrant(config, { audience: 'urn:billing' })).access_token).toBeTruthy();

    // soft-deleting the application stops it; recovering restores it
    expect((await api('PUT', `/api/application/${machine.client_id}`, { status: 'deleted' })).status).toBe(200);
    await expectInvalidClient(client.clientCredentialsGrant(config, { audience: 'urn:billing' }));
    expect((await api('PUT', `/api/application/${machine.client_id}`, { status: 'active' })).status).toBe(200);
    expect((await client.clientCredentialsGrant(config, { audience: 'urn:billing' })).access_token).toBeTruthy();
  });

  it('refuse grant types the application has not enabled', async () => {
    await createApi({ name: 'Reports', identifier: 'urn:reports' }, ['report:read']);
    const web = await createApplication({ client_name: 'No machine', app_type: 'web', grant_types: ['authorization_code'] });
    const config = await rp(web, true);
    await expect(client.clientCredentialsGrant(config, { audience: 'urn:reports' })).rejects.toMatchObject({ error: 'unauthorized_client' });
    await expect(client.refreshTokenGrant(config, 'whatever')).rejects.toMatchObject({ error: 'unauthorized_client' });
    // a public (SPA) application never gets client_credentials, even when enabled
    const spa = await createApplication({ client_name: 'SPA with cc', app_type: 'SPA', grant_types: ['authorization_code', 'client_credentials'] });
    await expect(client.clientCredentialsGrant(await rp(spa, false), { audience: 'urn:reports' })).rejects.toMatchObject({ error: 'unauthorized_client' });
  });

  it('ask for consent when the API does not allow skipping it, remember it, and honour a refusal', async () => {
    const mail = await createApi({ name: 'Mail', identifier: 'urn:mail', allowSkippingUserConsent: false }, ['mail:send']);
    const app = await createApplication({ client_name: 'Third-party mailer', app_type: 'web' });
    const config = await rp(app, true);
    const first = await browserSignIn(config, { scope: 'openid mail:send', audience: mail.identifier });
    expect(first.consent).toContain('Authorize Third-party mailer');
    expect(first.consent).toContain('mail:send');
    expect(first.consent).not.toContain('<script');
    const action = formAction(first.consent!)!;

    const denied = await first.browser!.post(action, { decision: 'deny' });
    expect(denied.location!.searchParams.get('error')).toBe('access_denied');
    expect(denied.location!.searchParams.get('state')).toBe(first.state);

    const again = await browserSignIn(config, { scope: 'openid mail:send', audience: mail.identifier });
    const againAction = formAction(again.consent!)!;
    // the answer belongs to the browser's own interaction: another one (or none) is refused
    expect((await again.browser!.post(action, { decision: 'allow' })).status).toBe(400);
    expect((await fetchBrowser(issuer).post(againAction, { decision: 'allow' })).status).toBe(400);

    const allowed = await again.browser!.post(againAction, { decision: 'allow' });
    const tokens = await exchange(config, { ...again, callback: allowed.location! });
    expect(tokens.scope).toBe('openid mail:send');

    // remembered: the next sign-in goes straight back; a new scope would be asked again
    const second = await browserSignIn(config, { scope: 'openid mail:send', audience: mail.identifier });
    expect(second.consent).toBeUndefined();
    expect(second.callback!.searchParams.get('code')).toBeTruthy();

    // an API that allows skipping consent never asks
    const skip = await createApi({ name: 'Skip', identifier: 'urn:skip' }, ['x:y']);
    const direct = await browserSignIn(config, { scope: 'openid x:y', audience: skip.identifier });
    expect(direct.consent).toBeUndefined();
    expect(direct.callback!.searchParams.get('code')).toBeTruthy();
  });
});

describe('refresh tokens', () => {
  it('rotate; reuse of a rotated token outside the interval revokes the whole family', async () => {
    const notes = await createApi({ name: 'Notes', identifier: 'urn:notes', allowOfflineAccess: true }, ['notes:read']);
    const app = await createApplication({ client_name: 'Rotating web', app_type: 'web', refresh_token_rotation: true, refresh_reuse_interval: 0 });
    const config = await rp(app, true);
    const tokens = await exchange(config, await browserSignIn(config, { scope: 'openid offline_access notes:read', audience: notes.identifier }));
    expect(tokens.refresh_token).toBeTruthy();
    // confidential web application: the API's (non-browser) tokenExpiration
    expect(tokens.expires_in).toBe(86400);

    const second = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    const { payload } = await jose.jwtVerify(second.access_token, jwks(), { issuer, audience: notes.identifier });
    expect(payload.scope).toBe('openid offline_access notes:read');

    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // the family is gone: the successor and the sign-in's userinfo too
    await expect(client.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.fetchUserInfo(config, second.access_token, worker)).rejects.toBeTruthy();
  });

  it('allow a rotated token again within the reuse interval; without rotation the token stays; absolute lifetime ends the family', async () => {
    await createApi({ name: 'Files', identifier: 'urn:files', allowOfflineAccess: true }, ['files:read']);
    const lenient = await createApplication({ client_name: 'Lenient', app_type: 'web', refresh_token_rotation: true, refresh_reuse_interval: 60 });
    const lenientConfig = await rp(lenient, true);
    const first = await exchange(lenientConfig, await browserSignIn(lenientConfig, { scope: 'openid offline_access', audience: 'urn:files' }));
    const a = await client.refreshTokenGrant(lenientConfig, first.refresh_token!);
    const b = await client.refreshTokenGrant(lenientConfig, first.refresh_token!);
    expect(b.access_token).toBeTruthy();
    expect((await client.refreshTokenGrant(lenientConfig, a.refresh_token!)).access_token).toBeTruthy();

    const fixed = await createApplication({
      client_name: 'Fixed',
      app_type: 'web',
      refresh_token_rotation: false,
      refresh_absolute_expiration: true,
      refresh_absolute_lifetime: 3600,
    });
    const fixedConfig = await rp(fixed, true);
    const tokens = await exchange(fixedConfig, await browserSignIn(fixedConfig, { scope: 'openid offline_access', audience: 'urn:files' }));
    const again = await client.refreshTokenGrant(fixedConfig, tokens.refresh_token!);
    expect(again.refresh_token).toBe(tokens.refresh_token);
    expect((await client.refreshTokenGrant(fixedConfig, tokens.refresh_token!)).access_token).toBeTruthy();
    // the sign-in happened two hours ago: past the absolute lifetime
    await server.db.query(`UPDATE oauth_grants SET created_at = now() - interval '2 hours' WHERE client_id = $1`, [fixed.client_id]);
    await expect(client.refreshTokenGrant(fixedConfig, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a sign-in with offline access is one grant: the consent it is asked for saves it, nothing before', async () => {
    await createApi({ name: 'Journal', identifier: 'urn:journal', allowOfflineAccess: true }, ['journal:read']);
    const app = await createApplication({ client_name: 'One grant', app_type: 'web' });
    const config = await rp(app, true);
    const tokens = await exchange(config, await browserSignIn(config, { scope: 'openid offline_access journal:read', audience: 'urn:journal' }));
    expect(tokens.refresh_token).toBeTruthy();
    const { rows } = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_grants WHERE client_id = $1', [app.client_id]);
    // an orphan grant would stay open (a year) after logout, listed among the user's sessions
    expect(rows[0].n).toBe(1);
  });

  it('are issued for an API only with allowOfflineAccess and offline_access', async () => {
    const closed = await createApi({ name: 'Closed', identifier: 'urn:closed', allowOfflineAccess: false }, ['c:read']);
    const app = await createApplication({ client_name: 'Offline asker', app_type: 'web' });
    const config = await rp(app, true);
    const refused = await exchange(config, await browserSignIn(config, { scope: 'openid offline_access c:read', audience: closed.identifier }));
    expect(refused.refresh_token).toBeUndefined();
    expect(refused.scope).toBe('openid c:read');
    const notAsked = await exchange(config, await browserSignIn(config, { scope: 'openid', audience: 'urn:files' }));
    expect(notAsked.refresh_token).toBeUndefined();
  });
});

describe('logout, secrets and CORS', () => {
  it('RP-initiated logout revokes the sign-in and returns only to a registered logout URI', async () => {
    const app = await createApplication({ client_name: 'Logout SPA', app_type: 'SPA' });
    const config = await rp(app, false);
    const flow = await browserSignIn(config, { scope: 'openid' });
    const tokens = await exchange(config, flow);
    expect((await client.fetchUserInfo(config, tokens.access_token, worker)).sub).toBe(worker);

    const wrong = await fetch(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${LOGOUT}/x` }), { redirect: 'manual' });
    expect(wrong.status).toBe(400);
    // the provider asks the user to confirm (a link alone must not sign anyone out)
    const browser = flow.browser!;
    const confirm = await browser.get(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: LOGOUT, state: 'bye' }).toString());
    expect(confirm.status).toBe(200);
    const [, action, xsrf] = /<form id="op.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"/.exec(confirm.body)!;
    const response = await browser.post(action, { xsrf, logout: 'yes' });
    expect(response.status).toBe(303);
    expect(response.location!.toString()).toBe(`${LOGOUT}?state=bye`);
    await expect(client.fetchUserInfo(config, tokens.access_token, worker)).rejects.toBeTruthy();

    // without a hint nothing is revoked, but the page answers; a forged hint or an unknown client is a 400 page, never a redirect
    expect((await fetch(`${issuer}/oauth/logout`)).status).toBe(200);
    for (const query of [`id_token_hint=${tokens.id_token}x`, 'id_token_hint=garbage', `client_id=nope&post_logout_redirect_uri=${encodeURIComponent(LOGOUT)}`, `post_logout_redirect_uri=${encodeURIComponent(LOGOUT)}`]) {
      const refused = await fetch(`${issuer}/oauth/logout?${query}`, { redirect: 'manual' });
      expect(refused.status, query).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
    }
    expect((await postForm('/oauth/interaction/nope/consent', { decision: 'allow' })).status).toBe(400);
  });

  it('rotates a client secret: the old one works during the grace period, then stops', async () => {
    await createApi({ name: 'Jobs', identifier: 'urn:jobs' }, ['job:run']);
    const machine = await createApplication({ client_name: 'Rotated job', app_type: 'machine', grant_types: ['client_credentials'] });
    const rotated = await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.client_secret).toHaveLength(32);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3500_000);
    const oldConfig = await rp(machine, true);
    const newConfig = await rp({ client_id: machine.client_id, client_secret: rotated.body.client_secret }, true);
    expect((await client.clientCredentialsGrant(oldConfig, { audience: 'urn:jobs' })).access_token).toBeTruthy();
    expect((await client.clientCredentialsGrant(newConfig, { audience: 'urn:jobs' })).access_token).toBeTruthy();
    await server.db.query(`UPDATE applications SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [machine.client_id]);
    await expectInvalidClient(client.clientCredentialsGrant(oldConfig, { audience: 'urn:jobs' }));

    // no grace: the previous secret stops at once
    const immediate = await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 0 });
    expect(immediate.body.previousSecretExpiresAt).toBeNull();
    await expectInvalidClient(client.clientCredentialsGrant(newConfig, { audience: 'urn:jobs' }));

    expect((await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 2592001 })).status).toBe(400);
    expect((await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 10 }, other.adminToken)).status).toBe(404);
    expect((await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 10 }, acme.userToken)).status).toBe(403);

    // a soft-deleted application gets no new secret (409, says why); recovered, it does
    expect((await api('PUT', '/api/application', [{ id: machine.client_id, status: 'deleted' }])).status).toBe(200);
    const refused = await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 0 });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/is deleted: recover it/);
    expect((await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 0 }, other.adminToken)).status).toBe(404);
    expect((await api('PUT', '/api/application', [{ id: machine.client_id, status: 'active' }])).status).toBe(200);
    expect((await api('POST', `/api/application/${machine.client_id}/secret`, { graceSeconds: 0 })).status).toBe(200);
  });

  it('answers CORS on token and userinfo only for origins an application allows', async () => {
    await createApplication({ client_name: 'CORS SPA', app_type: 'SPA', allowed_web_orgins: [ORIGIN] });
    const preflight = (origin: string, path = '/oauth/token') =>
      fetch(`${issuer}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    const allowed = await preflight(ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(allowed.headers.get('vary')).toContain('Origin');
    expect((await preflight(ORIGIN, '/oauth/userinfo')).status).toBe(204);
    for (const origin of ['https://evil.example', `${ORIGIN}/`, 'http://localhost:3001']) {
      const refused = await preflight(origin);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    const tokenError = await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=nope' });
    expect(tokenError.status).toBe(400);
    expect(tokenError.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });
});

describe('introspection keeps tenants apart', () => {
  it('an application learns about tokens of its own domain only; another tenant\'s gets active: false', async () => {
    await createApi({ name: 'Ledger', identifier: 'urn:ledger', allowOfflineAccess: true }, ['ledger:read']);
    const app = await createApplication({ client_name: 'Ledger web', app_type: 'web' });
    const config = await rp(app, true);
    const tokens = await exchange(config, await browserSignIn(config, { scope: 'openid offline_access ledger:read', audience: 'urn:ledger' }));
    expect(tokens.refresh_token).toBeTruthy();
    const introspect = (asker: { client_id: string; client_secret: string }) =>
      fetch(`${issuer}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${asker.client_id}:${asker.client_secret}`).toString('base64')}` },
        body: new URLSearchParams({ token: tokens.refresh_token! }),
      }).then((response) => response.json());

    expect(await introspect(app)).toMatchObject({ active: true, client_id: app.client_id, sub: worker });
    // another application of the same domain (its API's back end, say) may ask
    const sibling = await createApplication({ client_name: 'Ledger back end', app_type: 'web' });
    expect(await introspect(sibling)).toMatchObject({ active: true, sub: worker });
    // an application of another tenant learns nothing, not even that the token exists
    const outsider = await call(server, server.adminToken, 'POST', '/api/root/default/application', { client_name: 'Outsider', app_type: 'web', redirect_uris: [REDIRECT] });
    expect(outsider.status, JSON.stringify(outsider.body)).toBe(201);
    expect(await introspect(outsider.body)).toEqual({ active: false });
  });
});

describe('group permissions API', () => {
  it('grants all or nothing, lists, takes back, and keeps tenants apart', async () => {
    const docs = await createApi({ name: 'Docs', identifier: 'urn:docs' }, ['doc:read', 'doc:write']);
    const path = '/api/companys/acme/domainNames/acme-domain/groups/editors/permissions';
    expect((await api('POST', '/api/companys/acme/domainNames/acme-domain/groups', { name: 'editors', displayName: 'Editors', email: 'e@acme.example' })).status).toBe(201);

    const mixed = await api('POST', path, [{ apiId: docs.id, permission: 'doc:read' }, { apiId: docs.id, permission: 'doc:delete' }]);
    expect(mixed.status).toBe(400);
    expect((await api('GET', path)).body).toEqual([]);
    const added = await api('POST', path, [{ apiId: docs.id, permission: 'doc:read' }, { apiId: docs.id, permission: 'doc:write' }]);
    expect(added.status).toBe(200);
    const list = await api('GET', path);
    expect(list.body.map((row: { permission: string }) => row.permission)).toEqual(['doc:read', 'doc:write']);
    expect(list.headers['content-range']).toBe('permissions 0-1/2');
    expect((await api('DELETE', path, [{ apiId: docs.id, permission: 'doc:write' }])).body).toEqual([
      { apiId: docs.id, apiName: 'Docs', permission: 'doc:write', description: 'may doc:write' },
    ]);
    expect((await api('DELETE', path, [{ apiId: docs.id, permission: 'doc:write' }])).status).toBe(404);
    expect((await api('GET', '/api/companys/acme/domainNames/acme-domain/groups/nobody/permissions')).status).toBe(404);

    // another tenant sees nothing and cannot grant its own API's scopes to this group, nor this API's to its own groups
    expect((await api('GET', path, undefined, other.adminToken)).status).toBe(404);
    expect((await api('POST', path, [{ apiId: docs.id, permission: 'doc:read' }], other.adminToken)).status).toBe(404);
    expect((await api('POST', '/api/companys/other/domainNames/other-domain/groups/administrators/permissions', [{ apiId: docs.id, permission: 'doc:read' }], other.adminToken)).status).toBe(400);
    expect((await api('GET', path, undefined, acme.userToken)).status).toBe(403);
  });
});
