import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import {
  addApplication,
  CONSOLE_REDIRECT,
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
 * One console for every tenant (docs/CONSOLE.md, "Sign-ins and rights"): a reseller (globex) and its
 * customer (acme) each have an administrator `boss` and an ordinary user `worker`. They sign in to the
 * one console application (of root/default) by naming their organization, and get tokens for their
 * own tenant; an unknown organization fails exactly like a wrong password.
 */
let server: TestServer;
let globex: Tenant;
let acme: Tenant;
const PASSWORD = 'console tenants password 1';
const SAME_EMAIL = 'same@shared.example';

/** The console's one-form sign-in as `email`, naming `organization`; the redirect's params. */
async function signIn(email: string, organization: Record<string, string | undefined>, password = PASSWORD) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, { email, password, ...organization }));
  return { response, params: redirectParams(response)?.params ?? {}, verifier };
}

async function consoleTokens(email: string, organization: Record<string, string | undefined>, password = PASSWORD) {
  const { params, verifier, response } = await signIn(email, organization, password);
  expect(params.code, `${response.statusCode} ${response.headers.location}`).toBeTruthy();
  const token = await postToken(server, { grant_type: 'authorization_code', code: params.code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return token.body as { access_token: string; id_token: string; scope: string; client: Record<string, string>; user: Record<string, string> };
}

beforeAll(async () => {
  server = await startServer();
  globex = await createTenant(server, 'globex', 'root', 'reseller');
  acme = await createTenant(server, 'acme', 'globex', 'customer');
  for (const tenant of [globex, acme]) {
    for (const user of ['boss', 'worker']) await setPassword(server, tenant.companyId, tenant.domainId, user, PASSWORD);
  }
  // the same e-mail in both tenants, with the same password
  for (const tenant of [globex, acme]) {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, 'twin', 'twin', 'Twin', $3)`, [tenant.companyId, tenant.domainId, SAME_EMAIL]);
    await setPassword(server, tenant.companyId, tenant.domainId, 'twin', PASSWORD);
  }
}, 120_000);
afterAll(() => server?.close());

describe('every company\'s administrators sign in to the one console', () => {
  it('a reseller\'s administrator names her company and gets a token of her own tenant (its primary domain)', async () => {
    const tokens = await consoleTokens('boss@globex.example', { company: 'globex' });
    expect(tokens.client).toEqual({ client_id: 'iam-console', companyId: 'globex', domain: 'globex-domain' });
    expect(tokens.scope.split(' ')).toContain('user:admin');
    expect(tokens.user).toMatchObject({ id: 'boss', email: 'boss@globex.example' });
    const claims = jose.decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ company: 'globex', domain: 'globex-domain', user_id: 'boss', client_id: 'iam-console', sub: await subjectOf(server, 'globex', 'globex-domain', 'boss') });

    // the console's start: her company by client.companyId, then its domain; and her subtree only
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/globex')).status).toBe(200);
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/globex/domainNames/globex-domain')).status).toBe(200);
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/acme')).status).toBe(200);
    expect([403, 404]).toContain((await call(server, tokens.access_token, 'GET', '/api/companys/root')).status);
    // she creates a customer of her own
    const created = await call(server, tokens.access_token, 'POST', '/api/companys', { name: 'initech', displayName: 'Initech', description: 'a customer', type: 'customer', parent: 'globex' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const outside = await call(server, tokens.access_token, 'POST', '/api/companys', { name: 'hooli', displayName: 'Hooli', description: 'not hers', type: 'customer', parent: 'root' });
    expect([403, 404]).toContain(outside.status);
  });

  it('a customer\'s administrator names company and domain and gets a token of that tenant', async () => {
    const tokens = await consoleTokens('boss@acme.example', { company: 'acme', domain: 'acme-domain' });
    expect(tokens.client).toEqual({ client_id: 'iam-console', companyId: 'acme', domain: 'acme-domain' });
    expect(tokens.scope.split(' ')).toContain('user:admin');
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/acme')).status).toBe(200);
    // a parent company is outside her subtree: refused as every company outside it is
    expect([403, 404]).toContain((await call(server, tokens.access_token, 'GET', '/api/companys/globex')).status);
  });

  it('the same e-mail in two tenants signs in to the one named', async () => {
    const atGlobex = await consoleTokens(SAME_EMAIL, { company: 'globex' });
    const atAcme = await consoleTokens(SAME_EMAIL, { company: 'acme', domain: 'acme-domain' });
    expect(atGlobex.client.companyId).toBe('globex');
    expect(atAcme.client.companyId).toBe('acme');
    expect(jose.decodeJwt(atGlobex.id_token).sub).toBe(await subjectOf(server, 'globex', 'globex-domain', 'twin'));
    expect(jose.decodeJwt(atAcme.id_token).sub).toBe(await subjectOf(server, 'acme', 'acme-domain', 'twin'));
  });

  it('a non-administrator gets no user:admin, and the management API refuses her', async () => {
    const tokens = await consoleTokens('worker@globex.example', { company: 'globex' });
    expect(tokens.client.companyId).toBe('globex');
    expect(tokens.scope.split(' ')).not.toContain('user:admin');
    // a parent company is outside her subtree: refused as every company outside it is
    expect([403, 404]).toContain((await call(server, tokens.access_token, 'GET', '/api/companys/globex')).status);
  });

  it('an unknown organization, an unknown domain, a wrong e-mail and a wrong password all get the same answer', async () => {
    const answers = await Promise.all([
      signIn('boss@globex.example', { company: 'nosuchcompany' }),
      signIn('boss@globex.example', { company: 'globex', domain: 'nosuchdomain' }),
      signIn('boss@acme.example', { company: 'globex' }),
      signIn('boss@globex.example', { company: 'globex' }, 'wrong password 1'),
    ]);
    const shapes = answers.map(({ response, params }) => ({ status: response.statusCode, error: params.error, description: params.error_description, code: params.code, body: response.body }));
    expect(shapes[0]).toEqual({ status: 303, error: 'access_denied', description: 'Wrong email or password', code: undefined, body: '' });
    for (const shape of shapes) expect(shape).toEqual(shapes[0]);
    // the failure of an unknown organization is the console's own tenant's event; a known one's, its own
    const { rows } = await server.db.query<{ company: string; outcome: string }>(
      `SELECT company_id AS company, outcome FROM signin_events WHERE login = 'boss@globex.example' AND outcome IN ('unknown_user', 'wrong_password') ORDER BY occurred_at`,
    );
    expect(rows.map((row) => row.company).sort()).toEqual(['globex', 'root', 'root']);
  });

  it("naming no organization signs in to the console application's own tenant, else to the one organization the password proves", async () => {
    const root = await consoleTokens(ADMIN_EMAIL, {}, ADMIN_PASSWORD);
    expect(root.client).toEqual({ client_id: 'iam-console', companyId: 'root', domain: 'default' });
    // found, not demanded (organizationSearch.test.ts): her one account holding a console role
    const globex = await consoleTokens('boss@globex.example', {});
    expect(globex.client).toEqual({ client_id: 'iam-console', companyId: 'globex', domain: 'globex-domain' });
  });

  it('a console sign-in of another tenant holds the management API only, never an API of the console\'s domain', async () => {
    const api = await call(server, server.adminToken, 'POST', '/api/root/default/api', { name: 'Root orders', identifier: 'https://orders.root.example' });
    expect(api.status, JSON.stringify(api.body)).toBe(201);
    const { params } = await signIn('boss@globex.example', { company: 'globex', audience: 'https://orders.root.example', scope: 'openid' });
    expect(params.error).toBe('invalid_target');
  });

  it('her console sign-in is a session of her own domain, ended when she stops being an administrator', async () => {
    const tokens = await consoleTokens('boss@acme.example', { company: 'acme' });
    const grant = String(jose.decodeJwt(tokens.access_token).gid);
    const sessions = await call(server, acme.adminToken, 'GET', '/api/companys/acme/domainNames/acme-domain/users/boss/sessions');
    expect(sessions.status, JSON.stringify(sessions.body)).toBe(200);
    expect(JSON.stringify(sessions.body)).toContain(grant);
    const { rows } = await server.db.query(`SELECT company_id, domain_id, client_id FROM oauth_grants WHERE id = $1`, [grant]);
    expect(rows[0]).toEqual({ company_id: 'acme', domain_id: 'acme-domain', client_id: 'iam-console' });
    const events = await server.db.query(`SELECT company_id FROM signin_events WHERE user_id = 'boss' AND client_id = 'iam-console' AND outcome = 'success' AND company_id = 'acme'`);
    expect(events.rowCount).toBeGreaterThan(0);

    await server.db.query(`DELETE FROM group_members WHERE company_id = 'acme' AND group_id = 'administrators' AND member_id = 'boss'`);
    expect((await call(server, tokens.access_token, 'GET', '/api/companys/acme')).status).toBe(401);
    await server.db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', 'acme-domain', 'administrators', 'user', 'boss')`);
  });

  it('another application cannot name another organization than its own', async () => {
    const other = { client_id: 'globex-spa' };
    await addApplication(server, { id: other.client_id, companyId: globex.companyId, domainId: globex.domainId, redirectUris: ['https://globex-spa.example/cb'] });
    const { challenge } = pkce();
    const response = await postLogin(server, { ...consoleLoginFields(challenge, { email: 'boss@globex.example', password: PASSWORD, company: 'acme' }), client_id: other.client_id, redirect_uri: 'https://globex-spa.example/cb' });
    expect(redirectParams(response)?.params.error).toBe('invalid_request');
    const browser = injectBrowser(server);
    const page = await browser.get(`/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: other.client_id, redirect_uri: 'https://globex-spa.example/cb', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', company: 'acme' })}`);
    expect(page.location?.searchParams.get('error')).toBe('invalid_request');
    expect(page.location?.searchParams.get('code')).toBeNull();
  });
});

describe('the hosted page of the console takes the same sign-in link', () => {
  const authorize = (params: Record<string, string>) => {
    const { verifier, challenge } = pkce();
    const url = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid email user:admin', code_challenge: challenge, code_challenge_method: 'S256', state: 's', ...params })}`;
    return { url, verifier };
  };
  const isLoginPage = (answer: { status: number; body: string; location?: URL }) => answer.status === 200 && !answer.location && /type="password"/.test(answer.body);

  it('signs in to the organization the link names; another organization (or none) asks again in the same browser', async () => {
    const browser = injectBrowser(server);
    const { url, verifier } = authorize({ company: 'globex', domain: 'globex-domain' });
    const page = await browser.get(url);
    expect(isLoginPage(page)).toBe(true);
    expect(page.body).toContain('Organization: <strong>globex › globex-domain</strong>');
    // another tenant's password is no good here
    const wrong = await browser.post(formAction(page.body)!, { email: 'boss@acme.example', password: PASSWORD });
    expect(wrong.status).toBe(401);
    const answer = await browser.post(formAction(wrong.body)!, { email: 'boss@globex.example', password: PASSWORD });
    const code = answer.location?.searchParams.get('code');
    expect(code, `${answer.status} ${answer.location}`).toBeTruthy();
    const token = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    expect(token.body.client).toEqual({ client_id: 'iam-console', companyId: 'globex', domain: 'globex-domain' });

    // the same browser, silently, at the same organization: signed in (single sign-on)
    const again = await browser.get(authorize({ company: 'globex', prompt: 'none' }).url);
    expect(again.location?.searchParams.get('code')).toBeTruthy();
    // at another organization, or none (the console's own): asked to sign in again, never a code
    for (const params of [{ company: 'acme' }, {}] as Record<string, string>[]) {
      const hop = await browser.get(authorize(params).url);
      expect(hop.location?.searchParams.get('code') ?? null).toBeNull();
      expect(isLoginPage(hop)).toBe(true);
      const silent = await browser.get(authorize({ ...params, prompt: 'none' }).url);
      expect(silent.location?.searchParams.get('error')).toBe('login_required');
    }
  });

  it('an unknown organization in the link shows the same sign-in page and the same refusal', async () => {
    const browser = injectBrowser(server);
    const page = await browser.get(authorize({ company: 'nosuchcompany' }).url);
    expect(isLoginPage(page)).toBe(true);
    const answer = await browser.post(formAction(page.body)!, { email: 'boss@globex.example', password: PASSWORD });
    expect(answer.status).toBe(401);
    expect(answer.body).toContain('Wrong email or password.');
  });
});

