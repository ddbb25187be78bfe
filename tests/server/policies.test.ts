import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../server/policies.js';
import { SIGN_UPS_PER_ADDRESS } from '../../server/oauth/signUp.js';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';
import { CONSOLE_REDIRECT, consoleLoginFields, formAction, injectBrowser, pkce, postLogin, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * A domain's security policy (docs/CONSOLE.md, "Domain security policy") and self sign-up ("Self
 * sign-up"): the API validates, records and keeps tenants apart; the hosted sign-up page refuses short
 * and common passwords, is off unless the policy turns it on, creates an unverified account, answers
 * a taken address the same, and is throttled per address; the sign-in throttle takes the domain's limits.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const policyUrl = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/securityPolicy`;
const sameSite = { 'sec-fetch-site': 'same-origin' };

async function postSignUp(fields: Record<string, string>, remoteAddress = '198.51.100.7', headers: Record<string, string> = sameSite) {
  return server.app.inject({
    method: 'POST',
    url: '/oauth/signup',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const usersWithEmail = async (email: string) =>
  (await server.db.query(`SELECT id, username, email_verified AS "emailVerified", required_actions AS "requiredActions", status, password_hash IS NOT NULL AS "hasPassword" FROM users WHERE company_id = 'acme' AND lower(email) = lower($1)`, [email])).rows;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
}, 60_000);
afterAll(() => server?.close());

describe('the policy API', () => {
  it('answers the defaults for a domain that never set one', async () => {
    const answer = await call(server, acme.adminToken, 'GET', policyUrl(acme));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(DEFAULT_POLICY);
    expect(DEFAULT_POLICY).toMatchObject({ minPasswordLength: 12, refuseCommonPasswords: true, mfa: 'optional', selfSignUp: false });
  });

  it('refuses values out of range with a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ minPasswordLength: 7 }, 'minPasswordLength'],
      [{ minPasswordLength: 129 }, 'minPasswordLength'],
      [{ mfa: 'sometimes' }, 'mfa'],
      [{ failuresPerAccount: 2 }, 'failuresPerAccount'],
      [{ failureWindowSeconds: 10 }, 'failureWindowSeconds'],
      [{ selfSignUp: 'yes please' }, 'selfSignUp'],
      [{ somethingElse: 1 }, 'somethingElse'],
    ] as const) {
      const answer = await call(server, acme.adminToken, 'PUT', policyUrl(acme), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message).toContain(field);
    }
    expect((await call(server, acme.adminToken, 'GET', policyUrl(acme))).body).toEqual(DEFAULT_POLICY);
  });

  it('changes the fields given, keeps the others, and records the change on the domain', async () => {
    const answer = await call(server, acme.adminToken, 'PUT', policyUrl(acme), { minPasswordLength: 14, mfa: 'required-admins', failuresPerAccount: 50 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ ...DEFAULT_POLICY, minPasswordLength: 14, mfa: 'required-admins', failuresPerAccount: 50 });
    // the console sends the whole record back, with its id
    const again = await call(server, acme.adminToken, 'PUT', policyUrl(acme), { ...answer.body, id: acme.domainId, failuresPerAccount: null });
    expect(again.body).toEqual({ ...DEFAULT_POLICY, minPasswordLength: 14, mfa: 'required-admins' });
    expect((await call(server, acme.adminToken, 'GET', policyUrl(acme))).body).toEqual(again.body);

    const history = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: acme.domainId, action: 'securityPolicy' }))}`);
    expect(history.status).toBe(200);
    expect(history.body).toHaveLength(2);
    expect(history.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          resourceType: 'domains',
          actorUserId: 'boss',
          changes: { minPasswordLength: { before: 12, after: 14 }, mfa: { before: 'optional', after: 'required-admins' }, failuresPerAccount: { before: null, after: 50 } },
        }),
        expect.objectContaining({ changes: { failuresPerAccount: { before: 50, after: null } } }),
      ]),
    );
    // nothing changed: nothing recorded
    await call(server, acme.adminToken, 'PUT', policyUrl(acme), { minPasswordLength: 14 });
    const after = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: acme.domainId, action: 'securityPolicy' }))}`);
    expect(after.body).toHaveLength(2);
    await call(server, acme.adminToken, 'PUT', policyUrl(acme), DEFAULT_POLICY);
  });

  it('another tenant gets 404, a lesser role 403, a reader may read', async () => {
    expect((await call(server, other.adminToken, 'GET', policyUrl(acme))).status).toBe(404);
    expect((await call(server, other.adminToken, 'PUT', policyUrl(acme), { selfSignUp: true })).status).toBe(404);
    expect((await call(server, acme.adminToken, 'GET', `/api/companys/acme/domainNames/nowhere/securityPolicy`)).status).toBe(404);
    expect((await call(server, undefined, 'GET', policyUrl(acme))).status).toBe(401);
    expect((await call(server, acme.userToken, 'PUT', policyUrl(acme), { selfSignUp: true })).status).toBe(403);

    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'reader', 'reader', 'Reader', 'reader@acme.example')`, [acme.domainId]);
    const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role: 'auditor', holderType: 'user', holderId: 'reader', holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status).toBe(201);
    const reader = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'reader' });
    expect((await call(server, reader, 'GET', policyUrl(acme))).status).toBe(200);
    const refused = await call(server, reader, 'PUT', policyUrl(acme), { selfSignUp: true });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/domains:write/);
    expect((await call(server, acme.adminToken, 'GET', policyUrl(acme))).body.selfSignUp).toBe(false);
  });
});

describe('self sign-up', () => {
  const fields = (email: string, password = 'a long and unusual passphrase') => ({ company: 'acme', email, displayName: 'New Person', password, confirm: password });

  it('is off by default: the page says so, and a post creates nothing', async () => {
    const page = await server.app.inject({ method: 'GET', url: '/oauth/signup?company=acme' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Sign-up is not offered');
    expect(page.body).not.toContain('<form');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    // an unknown organization says the same
    expect((await server.app.inject({ method: 'GET', url: '/oauth/signup?company=nobody' })).body).toBe(page.body);
    expect((await server.app.inject({ method: 'GET', url: '/oauth/signup/offered?company=acme' })).json()).toEqual({ offered: false, url: null });

    const posted = await postSignUp(fields('off@acme.example'));
    expect(posted.statusCode).toBe(403);
    expect(posted.body).toContain('Sign-up is not offered');
    expect(await usersWithEmail('off@acme.example')).toEqual([]);
  });

  it('when on: refuses a short or common password, then creates an unverified account; a taken address gets the same answer', async () => {
    expect((await call(server, acme.adminToken, 'PUT', policyUrl(acme), { selfSignUp: true })).status).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/oauth/signup/offered?company=acme' })).json()).toEqual({ offered: true, url: `/oauth/signup?company=acme&domain=${acme.domainId}` });
    const page = await server.app.inject({ method: 'GET', url: `/oauth/signup?company=acme` });
    expect(page.body).toContain('<form method="post" action="/oauth/signup">');
    expect(page.body).toContain('At least 12 characters');
    expect(page.body).not.toContain('<script');

    const short = await postSignUp(fields('new@acme.example', 'short pw'));
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('Use at least 12 characters.');
    const common = await postSignUp(fields('new@acme.example', 'QWERTY123456'));
    expect(common.statusCode).toBe(400);
    expect(common.body).toContain('This password is among the most common ones: choose another.');
    const differ = await postSignUp({ ...fields('new@acme.example'), confirm: 'something else entirely' });
    expect(differ.statusCode).toBe(400);
    expect(differ.body).toContain('The two passwords differ');
    expect(await usersWithEmail('new@acme.example')).toEqual([]);

    const created = await postSignUp(fields('New@acme.example'));
    expect(created.statusCode).toBe(200);
    expect(created.body).toContain('Check your inbox');
    expect(await usersWithEmail('new@acme.example')).toEqual([
      { id: expect.any(String), username: 'New@acme.example', emailVerified: false, requiredActions: ['verify-email'], status: 'active', hasPassword: true },
    ]);

    // its verification message is in the outbox (no SMTP_URL here), with a link to confirm the address
    const outbox = await server.db.query(`SELECT recipient, purpose, text_body AS "text" FROM mail_outbox WHERE company_id = 'acme' AND recipient = 'New@acme.example'`);
    expect(outbox.rows).toEqual([{ recipient: 'New@acme.example', purpose: 'verify', text: expect.stringMatching(/\/account\/verify\?token=/) }]);

    // her history says she created it herself, from her address
    const [made] = await usersWithEmail('new@acme.example');
    const history = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: made.id, action: 'create' }))}`);
    expect(history.body).toEqual([expect.objectContaining({ resourceType: 'users', actorUserId: made.id, actorClientId: 'self-sign-up', actorIp: '198.51.100.7' })]);
    expect(JSON.stringify(history.body)).not.toContain('$2');

    // her password is right, but no application gets a code before the address is confirmed
    const { challenge } = pkce();
    const signIn = await postLogin(server, consoleLoginFields(challenge, { email: 'new@acme.example', password: 'a long and unusual passphrase', company: 'acme' }));
    expect(signIn.statusCode).toBe(303);
    expect(signIn.headers.location).toBe('/oauth/steps');

    // the same address again (any case), or an existing account's: the same page, nothing created or sent
    const taken = await postSignUp(fields('New@acme.example', 'another long passphrase'));
    expect(taken.statusCode).toBe(200);
    expect(taken.body).toBe(created.body);
    expect(await usersWithEmail('new@acme.example')).toHaveLength(1);
    expect((await server.db.query(`SELECT 1 FROM mail_outbox WHERE company_id = 'acme' AND lower(recipient) = 'new@acme.example'`)).rows).toHaveLength(1);
    expect((await postSignUp(fields('worker@acme.example'))).statusCode).toBe(200);
    expect(await usersWithEmail('worker@acme.example')).toHaveLength(1);
  });

  it('answers hostile input with a page, never a 5xx, and reflects no markup', async () => {
    const reflected = await server.app.inject({ method: 'GET', url: `/oauth/signup?company=acme&interaction=${encodeURIComponent('"><script>alert(1)</script>')}` });
    expect(reflected.statusCode).toBe(200);
    expect(reflected.body).not.toContain('<script');
    expect(reflected.body).not.toContain('Back to sign-in');
    const long = await server.app.inject({ method: 'GET', url: `/oauth/signup?company=${'a'.repeat(101)}` });
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toMatch(/text\/html/);
    const odd = await postSignUp({ company: 'acme', email: 'x@acme.example', displayName: 'X', password: 'p'.repeat(2000), confirm: 'p' });
    expect(odd.statusCode).toBe(400);
    const named = await postSignUp({ ...fields('named@acme.example'), displayName: '<b>Bold</b>', email: '"><img src=x>@acme.example' });
    expect(named.statusCode).toBe(400);
    expect(named.body).not.toContain('<img');
    expect(named.body).not.toContain('<b>Bold');
  });

  it('refuses a post from another site', async () => {
    const answer = await postSignUp(fields('csrf@acme.example'), '198.51.100.8', { 'sec-fetch-site': 'cross-site' });
    expect(answer.statusCode).toBe(403);
    expect(await usersWithEmail('csrf@acme.example')).toEqual([]);
  });

  it('is throttled per client address', async () => {
    const address = '203.0.113.50';
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS; i++) expect((await postSignUp({ company: 'acme', email: 'not an address' }, address)).statusCode).toBe(400);
    const refused = await postSignUp(fields('late@acme.example'), address);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeTruthy();
    expect(await usersWithEmail('late@acme.example')).toEqual([]);
    // another address is not held up
    expect((await postSignUp(fields('early@acme.example'), '203.0.113.51')).statusCode).toBe(200);
  });

  it('the hosted sign-in page links to it when the policy offers it, and only then', async () => {
    const { challenge } = pkce();
    const authorize = (company: string) =>
      `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', company })}`;
    const browser = injectBrowser(server);
    const onPage = await browser.get(authorize('acme'));
    expect(onPage.body).toMatch(/<a href="\/oauth\/signup\?company=acme&amp;domain=acme-domain&amp;interaction=[A-Za-z0-9_-]+">Create an account<\/a>/);
    // and again after a wrong password: whoever has no account yet needs it most
    const wrong = await browser.post(formAction(onPage.body)!, { email: 'nobody@acme.example', password: 'whatever it is' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Create an account</a>');
    const offPage = await injectBrowser(server).get(authorize('other'));
    expect(formAction(offPage.body)).toBeTruthy();
    expect(offPage.body).not.toContain('Create an account');
  });
});

describe("the sign-in throttle takes the domain's limits", () => {
  it('locks an account after the failures its domain allows', async () => {
    await setPassword(server, 'other', other.domainId, 'worker', 'the right password 1');
    expect((await call(server, other.adminToken, 'PUT', policyUrl(other), { failuresPerAccount: 3 })).status).toBe(200);
    // what the console's form is sent back saying: 'wrong', 'throttled' (with the wait), or a code
    const signIn = async (password: string) => {
      const { challenge } = pkce();
      const response = await postLogin(server, consoleLoginFields(challenge, { email: 'worker@other.example', password, company: 'other' }));
      const params = redirectParams(response)?.params ?? {};
      expect(response.statusCode).toBe(303);
      if (params.code) return 'code';
      if (params.error_description === 'Wrong email or password') return 'wrong';
      expect(Number(params.retry_after)).toBeGreaterThan(0);
      return /^Too many failed sign-in attempts\./.test(params.error_description ?? '') ? 'throttled' : params.error_description;
    };
    // a wrong password sends the console's form back (303 to /login), and so does a locked account, saying so
    for (let i = 0; i < 3; i++) expect(await signIn('a wrong password')).toBe('wrong');
    expect(await signIn('a wrong password')).toBe('throttled');
    expect(await signIn('the right password 1')).toBe('throttled');
    // the user screen's state says so too
    const state = await call(server, other.adminToken, 'GET', `/api/companys/other/domainNames/${other.domainId}/users/worker/signInState`);
    expect(state.body).toMatchObject({ failedSignIns: 5, lockedBecause: 'too many failed sign-ins' });
    // another domain keeps the server's limits (100)
    await setPassword(server, 'acme', acme.domainId, 'boss', 'the right password 2');
    for (let i = 0; i < 5; i++) {
      const { challenge } = pkce();
      expect((await postLogin(server, consoleLoginFields(challenge, { email: 'boss@acme.example', password: 'a wrong password', company: 'acme' }))).statusCode).toBe(303);
    }
  });
});
