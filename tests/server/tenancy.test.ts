import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.js';
import { migrate } from '../../server/db/migrations.js';
import { loadSigningKeys, replaceStoredSigningKey } from '../../server/keys.js';
import { startupNotices } from '../../server/startupNotices.js';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import {
  basicAuth,
  CONSOLE_REDIRECT,
  consoleCode,
  consoleLoginFields,
  formAction,
  injectBrowser,
  pkce,
  postLogin,
  postToken,
  redirectParams,
  setPassword,
  subjectOf,
} from './oauthHelpers.js';

/**
 * The tenant boundary in the authorization server (docs/CONSOLE.md, "Sign-ins and rights"): two
 * customer tenants, alpha and beta, each with a user `end1`, and alpha with a user `admin` (the
 * root administrator's id). A session, code, token or client of one tenant used at the other is
 * refused or answered with a login page, never with the other's data, on every OAuth endpoint and
 * hosted page; one browser keeps its cookies throughout.
 */
let server: TestServer;
let alpha: Tenant;
let beta: Tenant;
const PASSWORD = 'tenant password 1';
const MANAGEMENT_API = `${PUBLIC_URL}/api`;
let passwordHash: string | undefined;

interface App {
  client_id: string;
  client_secret?: string;
  redirect: string;
}

async function application(tenant: Tenant, name: string, settings: Record<string, unknown> = {}): Promise<App> {
  const redirect = `https://${name}.example/cb`;
  const response = await call(server, server.adminToken, 'POST', `/api/${tenant.companyId}/${tenant.domainId}/application`, {
    client_name: name,
    redirect_uris: [redirect],
    ...settings,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { ...(response.body as { client_id: string; client_secret?: string }), redirect };
}

async function addUser(tenant: Tenant, id: string) {
  const response = await call(server, server.adminToken, 'POST', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users`, {
    id,
    username: `${id}-${tenant.companyId}`,
    displayName: `${id} of ${tenant.companyId}`,
    email: `${id}@${tenant.companyId}.example`,
    authVerification: (passwordHash ??= await bcrypt.hash(PASSWORD, 10)),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

const authorizeUrl = (app: App, params: Record<string, string> = {}) => {
  const { challenge } = pkce();
  return `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect, scope: 'openid email', code_challenge: challenge, code_challenge_method: 'S256', state: 's', ...params })}`;
};

/** The hosted sign-in of `app` in `browser`, as `email`; returns the code (or the page shown). */
async function hostedSignIn(browser: ReturnType<typeof injectBrowser>, app: App, email: string, params: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const page = await browser.get(authorizeUrl(app, { code_challenge: challenge, ...params }));
  let answer = page.location ? page : await browser.post(formAction(page.body)!, { email, password: PASSWORD });
  // a browser signed in as someone else first ends that session (oidc-provider's self-submitting
  // form to the logout confirmation), then comes back to the application
  const switching = /<form method="post" action="([^"]+\/oauth\/logout\/confirm)">/.exec(answer.body);
  if (switching) {
    const hidden = Object.fromEntries([...answer.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map((match) => [match[1], match[2]]));
    answer = await browser.post(new URL(switching[1]).pathname, hidden);
  }
  return { verifier, answer, code: answer.location?.searchParams.get('code') ?? undefined };
}

async function redeem(app: App, code: string, verifier: string, as: App = app) {
  const auth: Record<string, string> = as.client_secret ? { authorization: basicAuth(as.client_id, as.client_secret) } : {};
  return postToken(server, { grant_type: 'authorization_code', code, redirect_uri: app.redirect, code_verifier: verifier, ...(as.client_secret ? {} : { client_id: as.client_id }) }, auth);
}

const isLoginPage = (answer: { status: number; body: string; location?: URL }) =>
  answer.status === 200 && !answer.location && /type="password"/.test(answer.body);

let alphaSpa: App;
let betaSpa: App;
let alphaWeb: App;
let betaWeb: App;

beforeAll(async () => {
  server = await startServer();
  alpha = await createTenant(server, 'alpha', 'root', 'customer');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  await addUser(alpha, 'admin');
  await addUser(alpha, 'end1');
  await addUser(beta, 'end1');
  await setPassword(server, 'alpha', 'alpha-domain', 'boss', PASSWORD);
  alphaSpa = await application(alpha, 'alpha-spa', { app_type: 'SPA' });
  betaSpa = await application(beta, 'beta-spa', { app_type: 'SPA' });
  alphaWeb = await application(alpha, 'alpha-web', { app_type: 'web' });
  betaWeb = await application(beta, 'beta-web', { app_type: 'web' });
}, 120_000);
afterAll(() => server?.close());

describe('an account is its tenant', () => {
  it('a session of a same-id account of a customer never signs in at the root console: the login page is shown', async () => {
    const browser = injectBrowser(server);
    const first = await hostedSignIn(browser, alphaSpa, 'admin@alpha.example');
    expect(first.code).toBeTruthy();
    const token = await redeem(alphaSpa, first.code!, first.verifier);
    expect(token.status).toBe(200);
    expect(token.body.client).toEqual({ client_id: alphaSpa.client_id, companyId: 'alpha', domain: 'alpha-domain' });

    // the same browser at the console's authorization URL: no code, the login page
    const consoleApp = { client_id: 'iam-console', redirect: CONSOLE_REDIRECT };
    const hop = await browser.get(authorizeUrl(consoleApp, { scope: 'openid email user:admin' }));
    expect(hop.location?.searchParams.get('code') ?? null).toBeNull();
    expect(isLoginPage(hop)).toBe(true);
    // without a page to show, the answer is login_required, never a code
    const silent = await browser.get(authorizeUrl(consoleApp, { scope: 'openid user:admin', prompt: 'none' }));
    expect(silent.location?.searchParams.get('error')).toBe('login_required');
    expect(silent.location?.searchParams.get('code')).toBeNull();
  });

  it('an end user signed in at tenant A is asked to sign in at tenant B, and gets B\'s account only with B\'s password', async () => {
    const browser = injectBrowser(server);
    const atAlpha = await hostedSignIn(browser, alphaSpa, 'end1@alpha.example');
    const alphaToken = await redeem(alphaSpa, atAlpha.code!, atAlpha.verifier);
    const alphaSubject = await subjectOf(server, 'alpha', 'alpha-domain', 'end1');
    expect(jose.decodeJwt(alphaToken.body.id_token).sub).toBe(alphaSubject);

    const hop = await browser.get(authorizeUrl(betaSpa));
    expect(isLoginPage(hop)).toBe(true);
    // alpha's credentials do not open beta's account of the same id
    const wrong = await browser.post(formAction(hop.body)!, { email: 'end1@alpha.example', password: PASSWORD });
    expect(wrong.status).toBe(401);
    const atBeta = await hostedSignIn(browser, betaSpa, 'end1@beta.example');
    expect(atBeta.code, `${atBeta.answer.status} ${atBeta.answer.location} ${atBeta.answer.body.slice(300, 1500)}`).toBeTruthy();
    const betaToken = await redeem(betaSpa, atBeta.code!, atBeta.verifier);
    expect(betaToken.status, JSON.stringify(betaToken.body)).toBe(200);
    const betaSubject = await subjectOf(server, 'beta', 'beta-domain', 'end1');
    expect(betaSubject).not.toBe(alphaSubject);
    expect(jose.decodeJwt(betaToken.body.id_token).sub).toBe(betaSubject);
    expect(jose.decodeJwt(betaToken.body.access_token)).toMatchObject({ sub: betaSubject, user_id: 'end1', company: 'beta', domain: 'beta-domain' });
    // and back at alpha, the browser (now beta's) is asked again
    expect(isLoginPage(await browser.get(authorizeUrl(alphaSpa)))).toBe(true);
  });

  it('sub is unique in the issuer and never reassigned: a purged id given to someone new gets a new subject', async () => {
    const subjects = await server.db.query<{ subject: string }>(`SELECT subject FROM users WHERE id IN ('admin', 'end1')`);
    expect(new Set(subjects.rows.map((row) => row.subject)).size).toBe(subjects.rows.length);
    const before = await subjectOf(server, 'alpha', 'alpha-domain', 'end1');
    const users = '/api/companys/alpha/domainNames/alpha-domain/users';
    const record = (await call(server, server.adminToken, 'GET', `${users}/end1`)).body;
    expect((await call(server, server.adminToken, 'PUT', `${users}/end1`, { ...record, status: 'deleted' })).status).toBe(200);
    const purge = await call(server, server.adminToken, 'DELETE', `${users}/end1`);
    expect(purge.status, JSON.stringify(purge.body)).toBe(200);
    expect((await server.db.query(`SELECT 1 FROM users WHERE company_id = 'alpha' AND id = 'end1'`)).rowCount).toBe(0);
    await addUser(alpha, 'end1');
    expect(await subjectOf(server, 'alpha', 'alpha-domain', 'end1')).not.toBe(before);
  });

  it('a grant can only name an account of its application\'s domain', async () => {
    const provider = (await import('../../server/oauth/provider.js')).providerOf(server.ctx);
    const betaSubject = await subjectOf(server, 'beta', 'beta-domain', 'end1');
    const grant = new provider.Grant({ accountId: betaSubject, clientId: alphaSpa.client_id });
    grant.addOIDCScope('openid');
    await expect(grant.save()).rejects.toMatchObject({ error: 'invalid_grant', error_detail: expect.stringMatching(/not an account of the application's domain/) });
    expect((await server.db.query(`SELECT 1 FROM oauth_grants WHERE client_id = $1 AND user_id IS NULL`, [alphaSpa.client_id])).rowCount).toBe(0);
  });
});

describe('every endpoint keeps tenants apart', () => {
  it('token: a code or refresh token of tenant A is refused to tenant B\'s client', async () => {
    const offline = { scope: 'openid offline_access', prompt: 'consent' };
    await call(server, server.adminToken, 'PUT', `/api/application/${alphaWeb.client_id}`, { grant_types: ['authorization_code', 'refresh_token'] });
    const flow = await hostedSignIn(injectBrowser(server), alphaWeb, 'end1@alpha.example', offline);
    const stolen = await redeem(alphaWeb, flow.code!, flow.verifier, betaWeb);
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');

    const again = await hostedSignIn(injectBrowser(server), alphaWeb, 'end1@alpha.example', offline);
    const tokens = await redeem(alphaWeb, again.code!, again.verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toBeTruthy();
    const refresh = await postToken(server, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { authorization: basicAuth(betaWeb.client_id, betaWeb.client_secret!) });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('introspection and revocation of access tokens: own tenant only; a revoked token is inactive everywhere', async () => {
    const flow = await hostedSignIn(injectBrowser(server), alphaWeb, 'end1@alpha.example');
    const tokens = await redeem(alphaWeb, flow.code!, flow.verifier);
    const token = tokens.body.access_token as string;
    const ask = (path: string, app: App, extra: Record<string, string> = {}) =>
      server.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(app.client_id, app.client_secret!) },
        payload: new URLSearchParams({ token, ...extra }).toString(),
      });
    const subject = await subjectOf(server, 'alpha', 'alpha-domain', 'end1');
    const own = await ask('/oauth/introspect', alphaWeb);
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ active: true, sub: subject, client_id: alphaWeb.client_id, company: 'alpha', domain: 'alpha-domain', token_type: 'Bearer' });
    expect((await ask('/oauth/introspect', betaWeb)).json()).toEqual({ active: false });

    // another tenant's client cannot revoke it (answered 200, RFC 7009, and nothing happens)
    expect((await ask('/oauth/revoke', betaWeb)).statusCode).toBe(200);
    expect((await ask('/oauth/introspect', alphaWeb)).json().active).toBe(true);
    expect((await call(server, token, 'GET', '/oauth/userinfo')).status).toBe(200);

    expect((await ask('/oauth/revoke', alphaWeb, { token_type_hint: 'access_token' })).statusCode).toBe(200);
    expect((await ask('/oauth/introspect', alphaWeb)).json()).toEqual({ active: false });
    expect((await call(server, token, 'GET', '/oauth/userinfo')).status).toBe(401);
  });

  it('revocation of a console access token ends its sign-in: the management API refuses it at once', async () => {
    const { code, verifier } = await consoleCode(server);
    const token = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    const access = token.body.access_token as string;
    expect((await call(server, access, 'GET', '/api/companys/root')).status).toBe(200);
    const revoke = await server.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: access, client_id: 'iam-console' }).toString(),
    });
    expect(revoke.statusCode).toBe(200);
    expect((await call(server, access, 'GET', '/api/companys/root')).status).toBe(401);
  });

  it('client credentials tokens are introspected and revoked too', async () => {
    const apiResponse = await call(server, server.adminToken, 'POST', '/api/alpha/alpha-domain/api', { name: 'Ledger', identifier: 'https://ledger.alpha.example' });
    expect(apiResponse.status).toBe(201);
    const machine = await application(alpha, 'alpha-machine', { app_type: 'machine', grant_types: ['client_credentials'] });
    const issued = await postToken(server, { grant_type: 'client_credentials', audience: 'https://ledger.alpha.example' }, { authorization: basicAuth(machine.client_id, machine.client_secret!) });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const form = (extra: Record<string, string>) => ({
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(machine.client_id, machine.client_secret!) },
      payload: new URLSearchParams({ token: issued.body.access_token, ...extra }).toString(),
    });
    expect((await server.app.inject({ url: '/oauth/introspect', ...form({}) })).json()).toMatchObject({ active: true, aud: 'https://ledger.alpha.example' });
    // a token signed with an HS256 API's secret (its tenant holds it) vouches for nothing in another tenant
    const hs = await call(server, beta.adminToken, 'POST', '/api/beta/beta-domain/api', { name: 'Beta HS', identifier: 'https://hs.beta.example', signingAlgorithm: 'HS256' });
    expect(hs.status, JSON.stringify(hs.body)).toBe(201);
    const forged = await new jose.SignJWT({ client_id: machine.client_id, company: 'alpha', domain: 'alpha-domain', scope: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(PUBLIC_URL)
      .setAudience('https://hs.beta.example')
      .setJti('forged-jti')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(Buffer.from(hs.body.signingSecret));
    const asked = await server.app.inject({ url: '/oauth/introspect', ...form({}), payload: new URLSearchParams({ token: forged }).toString() });
    expect(asked.json()).toEqual({ active: false });
    expect((await server.app.inject({ url: '/oauth/revoke', ...form({}) })).statusCode).toBe(200);
    expect((await server.app.inject({ url: '/oauth/introspect', ...form({}) })).json()).toEqual({ active: false });
  });

  it('userinfo answers the token\'s own account; a token re-signed for another tenant is refused', async () => {
    const flow = await hostedSignIn(injectBrowser(server), alphaSpa, 'end1@alpha.example');
    const tokens = await redeem(alphaSpa, flow.code!, flow.verifier);
    const info = await call(server, tokens.body.access_token, 'GET', '/oauth/userinfo');
    expect(info.body).toMatchObject({ sub: await subjectOf(server, 'alpha', 'alpha-domain', 'end1'), email: 'end1@alpha.example' });
    // the same grant claimed for beta (even signed with our key) names no sign-in of beta
    const claims = jose.decodeJwt(tokens.body.access_token);
    const forged = await new jose.SignJWT({ ...claims, company: 'beta', domain: 'beta-domain' })
      .setProtectedHeader({ alg: 'RS256', kid: server.ctx.keys.kid, typ: 'at+jwt' })
      .sign(server.ctx.keys.privateKey);
    expect((await call(server, forged, 'GET', '/oauth/userinfo')).status).toBe(401);
  });

  it('logout: an ID token of tenant A does not name a sign-in of tenant B\'s application', async () => {
    const flow = await hostedSignIn(injectBrowser(server), alphaSpa, 'end1@alpha.example');
    const tokens = await redeem(alphaSpa, flow.code!, flow.verifier);
    const response = await server.app.inject({
      method: 'GET',
      url: `/oauth/logout?${new URLSearchParams({ id_token_hint: tokens.body.id_token, client_id: betaSpa.client_id })}`,
    });
    expect(response.statusCode).toBe(400);
    const grant = jose.decodeJwt(tokens.body.access_token).gid as string;
    expect((await server.db.query(`SELECT 1 FROM oauth_grants WHERE id = $1 AND revoked_at IS NULL`, [grant])).rowCount).toBe(1);
  });

  it('device flow: a browser signed in at tenant A is asked to sign in to confirm tenant B\'s device', async () => {
    const device = await application(beta, 'beta-tv', { app_type: 'native', grant_types: ['device_code'] });
    const start = await server.app.inject({
      method: 'POST',
      url: '/oauth/device/auth',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: device.client_id, scope: 'openid' }).toString(),
    });
    expect(start.statusCode, start.body).toBe(200);
    const { user_code: userCode } = start.json() as { user_code: string };
    const browser = injectBrowser(server);
    await hostedSignIn(browser, alphaSpa, 'end1@alpha.example');
    const entry = await browser.get('/oauth/device');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(entry.body)?.[1];
    expect(xsrf).toBeTruthy();
    const confirm = await browser.post('/oauth/device', { xsrf: xsrf!, user_code: userCode });
    const confirmXsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)?.[1];
    const answer = await browser.post(/action="([^"]+)"/.exec(confirm.body)![1], { xsrf: confirmXsrf!, user_code: userCode, confirm: 'yes' });
    expect(isLoginPage(answer)).toBe(true);
  });

  it('registration: a client\'s registration access token reads no other client', async () => {
    const registering = await startServer({ registrationAccessToken: 'initial-token', registrationDomain: { companyId: 'root', domainId: 'default' } });
    try {
      const register = (body: unknown) =>
        registering.app.inject({ method: 'POST', url: '/oauth/register', headers: { authorization: 'Bearer initial-token', 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      const first = (await register({ redirect_uris: ['https://one.example/cb'] })).json();
      const second = (await register({ redirect_uris: ['https://two.example/cb'] })).json();
      const read = await registering.app.inject({ method: 'GET', url: `/oauth/register/${second.client_id}`, headers: { authorization: `Bearer ${first.registration_access_token}` } });
      expect(read.statusCode).toBe(401);
      expect(read.body).not.toContain('two.example');
    } finally {
      await registering.close();
    }
  });
});

describe('no endpoint by another spelling', () => {
  it('the provider answers only the exact form of its paths, so that no check around it is skipped', async () => {
    for (const url of ['/oauth/token/', '/oauth/Token', '/oauth/REVOKE', '/oauth/introspect/', '/oauth/register/', '/oauth/Device/auth', '/oauth/logout/Confirm']) {
      const response = await server.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=x' });
      expect(response.statusCode, url).toBe(404);
    }
    // (a dot segment is resolved first: /oauth/./token is the token endpoint with its checks)
    const dotted = await server.app.inject({ method: 'POST', url: '/oauth/./token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' });
    expect(dotted.statusCode).toBe(400);
  });
});

describe('API identifiers are one namespace', () => {
  it('another tenant cannot register an identifier in use, nor the management API\'s; its machine application gets no token for it', async () => {
    const created = await call(server, alpha.adminToken, 'POST', '/api/alpha/alpha-domain/api', { name: 'Bank', identifier: 'https://api.bank.example' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await call(server, alpha.adminToken, 'POST', `/api/api/${created.body.id}/PermissionScopes`, { permission: 'transfer' })).status).toBe(201);

    const clash = await call(server, beta.adminToken, 'POST', '/api/beta/beta-domain/api', { name: 'Bank', identifier: 'https://api.bank.example' });
    expect(clash.status).toBe(409);
    expect(clash.body.message).not.toContain('alpha');
    const reserved = await call(server, beta.adminToken, 'POST', '/api/beta/beta-domain/api', { name: 'Mine', identifier: MANAGEMENT_API });
    expect(reserved.status).toBe(409);

    const machine = await application(beta, 'beta-machine', { app_type: 'machine', grant_types: ['client_credentials'] });
    const minted = await postToken(server, { grant_type: 'client_credentials', audience: 'https://api.bank.example', scope: 'transfer' }, { authorization: basicAuth(machine.client_id, machine.client_secret!) });
    expect(minted.status).toBe(400);
    expect(minted.body.access_token).toBeUndefined();
  });

  it('a purged API\'s identifier stays its tenant\'s while tokens issued for it may be valid', async () => {
    const created = await call(server, alpha.adminToken, 'POST', '/api/alpha/alpha-domain/api', { name: 'Retiring', identifier: 'https://retiring.example', tokenExpiration: 600 });
    expect(created.status).toBe(201);
    expect((await call(server, alpha.adminToken, 'PUT', `/api/api/${created.body.id}`, { status: 'deleted' })).status).toBe(200);
    expect((await call(server, alpha.adminToken, 'DELETE', '/api/api', [created.body.id])).status).toBe(200);
    const taken = await call(server, beta.adminToken, 'POST', '/api/beta/beta-domain/api', { name: 'Retiring', identifier: 'https://retiring.example' });
    expect(taken.status).toBe(409);
    // its own tenant may use it again
    const again = await call(server, alpha.adminToken, 'POST', '/api/alpha/alpha-domain/api', { name: 'Retiring again', identifier: 'https://retiring.example' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    // once every token of it has expired, it is free
    await server.db.query(`UPDATE retired_api_identifiers SET until = now() - interval '1 second' WHERE identifier = 'https://retiring.example'`);
    expect((await call(server, alpha.adminToken, 'PUT', `/api/api/${again.body.id}`, { status: 'deleted' })).status).toBe(200);
    expect((await call(server, alpha.adminToken, 'DELETE', '/api/api', [again.body.id])).status).toBe(200);
    await server.db.query(`UPDATE retired_api_identifiers SET until = now() - interval '1 second' WHERE identifier = 'https://retiring.example'`);
    expect((await call(server, beta.adminToken, 'POST', '/api/beta/beta-domain/api', { name: 'Retiring', identifier: 'https://retiring.example' })).status).toBe(201);
  });

  it('the migration renames clashing identifiers (the oldest keeps it), ends their sign-ins and says so at start-up', async () => {
    const { db } = server;
    // the schema as it was before migration 19: identifiers unique per domain only
    await db.query(`DROP INDEX apis_identifier`);
    await db.query(`CREATE UNIQUE INDEX apis_identifier ON apis (company_id, domain_id, identifier)`);
    await db.query(`INSERT INTO apis (id, company_id, domain_id, name, identifier, created_at) VALUES ('old-shared', 'alpha', 'alpha-domain', 'Shared old', 'urn:shared', now() - interval '1 day')`);
    await db.query(`INSERT INTO apis (id, company_id, domain_id, name, identifier) VALUES ('new-shared', 'beta', 'beta-domain', 'Shared new', 'urn:shared')`);
    await db.query(`DELETE FROM schema_migrations WHERE id = 19`);
    await migrate(db);
    const { rows } = await db.query<{ id: string; identifier: string }>(`SELECT id, identifier FROM apis WHERE id IN ('old-shared', 'new-shared') ORDER BY id`);
    expect(rows).toEqual([
      { id: 'new-shared', identifier: 'urn:shared#renamed-new-shared' },
      { id: 'old-shared', identifier: 'urn:shared' },
    ]);
    // said once, and the stored signing key replaced (no token of the shared audience survives)
    let replaced = 0;
    const keys = { replaceStored: async () => (replaced++, true) };
    const notices = await startupNotices(db, server.ctx.config, keys);
    expect(notices.join('\n')).toMatch(/new-shared of beta\/beta-domain shared its identifier "urn:shared"/);
    expect(notices.join('\n')).toMatch(/signing key was replaced/);
    expect(replaced).toBe(1);
    expect(await startupNotices(db, server.ctx.config, keys)).toEqual([]);
    expect(replaced).toBe(1);
    // and the index is provider-wide again
    await expect(db.query(`INSERT INTO apis (id, company_id, domain_id, name, identifier) VALUES ('third', 'beta', 'beta-domain', 'Third', 'urn:shared')`)).rejects.toThrow();
  });
});

describe('replacing the stored signing key', () => {
  it('makes a new key where the provider keeps it, never over SIGNING_KEY', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-keys-'));
    try {
      const before = await loadSigningKeys({ dataDir });
      expect(await replaceStoredSigningKey({ dataDir })).toBe(true);
      const after = await loadSigningKeys({ dataDir });
      expect(after.kid).not.toBe(before.kid);
      const pem = fs.readFileSync(path.join(dataDir, 'signing-key.pem'), 'utf8');
      expect(await replaceStoredSigningKey({ pem, dataDir })).toBe(false);
      expect((await loadSigningKeys({ dataDir })).kid).toBe(after.kid);
      expect(await replaceStoredSigningKey({ dataDir: path.join(dataDir, 'none') })).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the console\'s one-form sign-in', () => {
  it('accepts only same-origin posts (login CSRF)', async () => {
    const { challenge } = pkce();
    const crossSite: Record<string, string>[] = [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }];
    for (const headers of crossSite) {
      const response = await postLogin(server, consoleLoginFields(challenge), headers);
      expect(response.statusCode, JSON.stringify(headers)).toBe(403);
      expect(response.headers.location).toBeUndefined();
    }
    // the console's own post: Chromium says same-origin, and Origin: null under a no-referrer policy
    const sameOrigin: Record<string, string>[] = [{ origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' }, { origin: 'null', 'sec-fetch-site': 'same-origin' }, { origin: PUBLIC_URL }];
    for (const headers of sameOrigin) {
      const same = await postLogin(server, consoleLoginFields(pkce().challenge), headers);
      expect(same.statusCode, JSON.stringify(headers)).toBe(303);
      expect(redirectParams(same)?.params.code).toBeTruthy();
    }
  });

  it('asks every client for PKCE, confidential ones too', async () => {
    const response = await postLogin(server, {
      ...consoleLoginFields('', { client_id: alphaWeb.client_id, redirect_uri: alphaWeb.redirect, scope: 'openid', code_challenge: undefined, code_challenge_method: undefined }),
      email: 'end1@alpha.example',
      password: PASSWORD,
    });
    expect(redirectParams(response)?.params).toMatchObject({ error: 'invalid_request' });
    expect(redirectParams(response)?.params.code).toBeUndefined();
  });
});

describe('user:admin outside the console', () => {
  it('an application of the tenant gets it only after the administrator consents on the provider\'s page', async () => {
    const browser = injectBrowser(server);
    const flow = await hostedSignIn(browser, alphaSpa, 'boss@alpha.example', { scope: 'openid user:admin' });
    expect(flow.code).toBeUndefined();
    expect(flow.answer.body).toContain('user:admin');
    const allowed = await browser.post(formAction(flow.answer.body)!, { decision: 'allow' });
    const code = allowed.location?.searchParams.get('code');
    expect(code).toBeTruthy();
    const token = await redeem(alphaSpa, code!, flow.verifier);
    expect(token.body.scope).toContain('user:admin');
    expect((await call(server, token.body.access_token, 'GET', '/api/companys/alpha')).status).toBe(200);
  });
});

describe('dynamic registration', () => {
  it('needs a named domain', () => {
    expect(() => configFromEnv({ REGISTRATION_ACCESS_TOKEN: 'x' })).toThrow(/REGISTRATION_DOMAIN/);
    expect(configFromEnv({ REGISTRATION_ACCESS_TOKEN: 'x', REGISTRATION_DOMAIN: 'beta/beta-domain' }).registrationDomain).toEqual({ companyId: 'beta', domainId: 'beta-domain' });
  });

  it('follows the management API\'s URI and size rules, joins the named domain, and never receives user:admin', async () => {
    const registering = await startServer({ registrationAccessToken: 'initial-token', registrationDomain: { companyId: 'regco', domainId: 'regco-domain' } });
    try {
      const tenant = await createTenant(registering, 'regco', 'root', 'customer');
      await setPassword(registering, tenant.companyId, tenant.domainId, 'boss', PASSWORD);
      const register = (body: unknown) =>
        registering.app.inject({ method: 'POST', url: '/oauth/register', headers: { authorization: 'Bearer initial-token', 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      const refused = [
        { redirect_uris: ['http://evil.example/cb'] },
        { redirect_uris: ['https://rp@evil.example/cb'] },
        { redirect_uris: ['javascript:alert(1)'] },
        { redirect_uris: Array.from({ length: 20_000 }, (_, i) => `https://rp.example/cb${i}`) },
        { redirect_uris: ['https://rp.example/cb'], client_name: 'x'.repeat(900_000) },
        { redirect_uris: ['https://rp.example/cb'], jwks_uri: 'http://169.254.169.254/keys' },
        { redirect_uris: ['https://rp.example/cb'], backchannel_logout_uri: 'http://10.0.0.1/logout' },
      ];
      for (const body of refused) {
        const response = await register(body);
        expect(response.statusCode, JSON.stringify(body).slice(0, 100)).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
      }
      expect((await registering.db.query(`SELECT 1 FROM applications WHERE self_registered`)).rowCount).toBe(0);

      const registered = await register({ redirect_uris: ['https://rp.example/cb'], client_name: 'Self registered', token_endpoint_auth_method: 'none' });
      expect(registered.statusCode, registered.body).toBe(201);
      const client = registered.json() as { client_id: string };
      const { rows } = await registering.db.query<{ companyId: string; domainId: string }>(
        `SELECT company_id AS "companyId", domain_id AS "domainId" FROM applications WHERE id = $1 AND self_registered`,
        [client.client_id],
      );
      expect(rows).toEqual([{ companyId: 'regco', domainId: 'regco-domain' }]);

      // regco's administrator signs in through it and asks for user:admin: not granted, no consent offered
      const browser = injectBrowser(registering);
      const { verifier, challenge } = pkce();
      const page = await browser.get(
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://rp.example/cb', scope: 'openid user:admin', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      );
      const answer = await browser.post(formAction(page.body)!, { email: 'boss@regco.example', password: PASSWORD });
      const code = answer.location?.searchParams.get('code');
      expect(code, answer.body).toBeTruthy();
      const token = await postToken(registering, { grant_type: 'authorization_code', code: code!, redirect_uri: 'https://rp.example/cb', client_id: client.client_id, code_verifier: verifier });
      expect(token.status).toBe(200);
      expect(token.body.scope).not.toContain('user:admin');
      expect((await call(registering, token.body.access_token, 'GET', '/api/companys/regco')).status).toBe(403);
    } finally {
      await registering.close();
    }
  });
});
