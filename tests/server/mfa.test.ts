import * as jose from 'jose';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpStep } from '../../server/accounts/factors.js';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';
import { CONSOLE_REDIRECT, consoleLoginFields, CookieJar, formAction, injectBrowser, pageBrowser, pkce, postLogin, postToken, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * Multi-factor authentication (docs/CONSOLE.md, "Multi-factor authentication and the account page"):
 * a person enrols an authenticator app and recovery codes on the account page; the console's sign-in
 * and the hosted page then ask for a code; a code is good once, one step either side; five wrong
 * answers end the sign-in and are recorded; the ID token's amr says what was used; support staff
 * see and reset a person's factors (another tenant 404, a lesser role 403).
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const PASSWORD = 'mfa test password 42';
const EMAIL = 'worker@acme.example';
const at = (userId: string) => `/api/companys/acme/domainNames/${acme.domainId}/users/${userId}`;

let secret = '';
const totp = () => new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
/** The code of the step `steps` away from now. */
const codeAt = (steps: number) => totp().generate({ timestamp: Date.now() + steps * 30_000 });

/** Waits until a TOTP step has at least 3 s left, so a code made now is checked in the same step. */
async function awayFromStepEdge() {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** A browser on the account page: follows redirects within /account, keeping its cookies. */
const accountBrowser = (jar?: CookieJar) => pageBrowser(server, jar);

/** A console sign-in to acme through the one-form post; the step page's browser when a step is asked. */
async function consoleSignIn(email = EMAIL, password = PASSWORD) {
  const { verifier, challenge } = pkce();
  const jar = new CookieJar();
  const response = await postLogin(server, consoleLoginFields(challenge, { email, password, company: 'acme', scope: 'openid email' }));
  jar.keep(response.headers['set-cookie'] as string[] | string | undefined);
  return { response, verifier, browser: injectBrowser(server, jar) };
}

async function idTokenOf(code: string, verifier: string) {
  const token = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return jose.decodeJwt(token.body.id_token);
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', acme.domainId, 'worker', PASSWORD);
  await setPassword(server, 'acme', acme.domainId, 'boss', PASSWORD);
}, 60_000);
afterAll(() => server?.close());

describe('TOTP codes', () => {
  it('are good one step either side, not two (RFC 6238 pinned: SHA-1, 6 digits, 30 s)', () => {
    secret = new OTPAuth.Secret({ size: 20 }).base32;
    const now = 1_800_000_000_000 + 15_000;
    const step = Math.floor(now / 30_000);
    for (const delta of [-1, 0, 1]) expect(totpStep(secret, totp().generate({ timestamp: now + delta * 30_000 }), now)).toBe(step + delta);
    for (const delta of [-2, 2]) expect(totpStep(secret, totp().generate({ timestamp: now + delta * 30_000 }), now)).toBeUndefined();
    expect(totpStep(secret, 'abcdef', now)).toBeUndefined();
  });
});

describe('the account page', () => {
  it('signs the person in, enrols an authenticator app confirmed by a code, and makes recovery codes', async () => {
    const browser = accountBrowser();
    const login = await browser.get('/account?company=acme');
    expect(login.status).toBe(200);
    expect(login.body).toContain('name="company" value="acme"');
    expect(login.headers['content-security-policy']).toContain("default-src 'none'");
    // login CSRF: another site's post is refused
    expect((await browser.post('/account/login', { email: EMAIL, password: PASSWORD, company: 'acme' }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await browser.post('/account/login', { email: EMAIL, password: 'wrong password 11', company: 'acme' })).status).toBe(401);
    const signedIn = await browser.post('/account/login', { email: EMAIL, password: PASSWORD, company: 'acme' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toContain('No second factor yet');
    const cookie = String(signedIn.headers['set-cookie'] ?? '') || browser.jar.header();
    expect(cookie).toMatch(/iam_account=/);

    const page = await browser.get('/account/totp');
    expect(page.body).toContain('<svg');
    secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(page.body)![1].replace(/ /g, '');
    expect(secret).toHaveLength(32);
    expect((await browser.post('/account/totp', { code: '000000' === codeAt(0) ? '111111' : '000000' })).status).toBe(400);
    // the page after a wrong code keeps the same key
    expect((await browser.post('/account/totp', { code: 'x' })).body).toContain(secret.slice(0, 4));
    expect((await browser.post('/account/totp', { code: codeAt(0) }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    await awayFromStepEdge();
    const enrolled = await browser.post('/account/totp', { code: codeAt(0), label: 'My phone' });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body).toContain('Authenticator app added');
    expect(enrolled.body).toContain('My phone');

    const recovery = await browser.post('/account/recovery');
    const codes = [...recovery.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(10);
    recoveryCodes = codes;
    // nothing secret is stored in the clear
    const stored = await server.db.query<{ secret: string | null; code_hashes: string[] | null }>(`SELECT secret, code_hashes FROM user_factors WHERE company_id = 'acme' AND user_id = 'worker'`);
    expect(JSON.stringify(stored.rows)).not.toContain(secret);
    for (const code of codes) expect(JSON.stringify(stored.rows)).not.toContain(code);

    // signing out ends the session; signing in again asks for the second factor
    expect((await browser.post('/account/logout')).body).toContain('name="company" value="acme"');
    expect((await browser.get('/account')).body).toContain('Sign in');
    const again = await browser.post('/account/login', { email: EMAIL, password: PASSWORD, company: 'acme' });
    expect(again.body).toContain('Second factor');
    expect((await browser.get('/account/totp')).path).toBe('/account?company=acme&domain=acme-domain');
  });
});

let recoveryCodes: string[] = [];
let bossKey = '';

describe('signing in with a second factor', () => {
  it('the console asks for the code after the password; amr says otp; a code is good once', async () => {
    await awayFromStepEdge();
    const first = await consoleSignIn();
    expect(first.response.statusCode).toBe(303);
    expect(first.response.headers.location).toBe('/oauth/steps');
    const page = await first.browser.get('/oauth/steps');
    expect(page.body).toContain('Second factor');
    const action = formAction(page.body)!;
    // the code that confirmed the enrolment was used then: refused now (and one two steps away too)
    expect((await first.browser.post(action, { step: 'second-factor', code: codeAt(0) })).body).toContain('not right');
    expect((await first.browser.post(action, { step: 'second-factor', code: codeAt(2) })).body).toContain('not right');
    expect((await first.browser.post(action, { step: 'second-factor', code: codeAt(-2) })).body).toContain('not right');
    // the next step's code is accepted (a clock one step behind the person's phone)
    const done = await first.browser.post(action, { step: 'second-factor', code: codeAt(1) });
    const code = done.location?.searchParams.get('code');
    expect(code, `${done.status} ${done.body.slice(0, 300)}`).toBeTruthy();
    expect((await idTokenOf(code!, first.verifier)).amr).toEqual(['pwd', 'otp', 'mfa']);

    // that code, and any older one, is not good again
    const second = await consoleSignIn();
    const page2 = await second.browser.get('/oauth/steps');
    expect((await second.browser.post(formAction(page2.body)!, { step: 'second-factor', code: codeAt(1) })).body).toContain('not right');
    expect((await second.browser.post(formAction(page2.body)!, { step: 'second-factor', code: codeAt(0) })).body).toContain('not right');
  });

  it('a code one step old is accepted when no later one was used', async () => {
    await server.db.query(`UPDATE user_factors SET last_step = NULL WHERE company_id = 'acme' AND user_id = 'worker' AND kind = 'totp'`);
    await awayFromStepEdge();
    const { browser, verifier } = await consoleSignIn();
    const page = await browser.get('/oauth/steps');
    const done = await browser.post(formAction(page.body)!, { step: 'second-factor', code: codeAt(-1) });
    expect((await idTokenOf(done.location!.searchParams.get('code')!, verifier)).amr).toContain('otp');
  });

  it('a recovery code signs in once', async () => {
    const use = async (code: string) => {
      const { browser, verifier } = await consoleSignIn();
      const page = await browser.get('/oauth/steps');
      return { answer: await browser.post(formAction(page.body)!, { step: 'second-factor', code }), verifier };
    };
    const first = await use(recoveryCodes[0].toUpperCase());
    const code = first.answer.location?.searchParams.get('code');
    expect(code, first.answer.body.slice(0, 300)).toBeTruthy();
    expect((await idTokenOf(code!, first.verifier)).amr).toEqual(['pwd', 'mfa']);
    const again = await use(recoveryCodes[0]);
    expect(again.answer.location).toBeUndefined();
    expect(again.answer.body).toContain('not right');
    const admin = await call(server, acme.adminToken, 'GET', `${at('worker')}/factors`);
    expect(admin.body.find((f: { type: string }) => f.type === 'recovery').remaining).toBe(9);
  });

  it('five wrong codes end the sign-in and are recorded as second_factor_failed', async () => {
    const { browser } = await consoleSignIn();
    const page = await browser.get('/oauth/steps');
    const action = formAction(page.body)!;
    for (let i = 0; i < 4; i++) expect((await browser.post(action, { step: 'second-factor', code: '12345' + i })).status).toBe(400);
    const last = await browser.post(action, { step: 'second-factor', code: 'aaaa-bbbb-cccc-dddd' });
    expect(last.status).toBe(401);
    expect(last.location).toBeUndefined();
    expect((await browser.get('/oauth/steps')).status).toBe(400);
    const events = await server.db.query<{ outcome: string }>(`SELECT outcome FROM signin_events WHERE company_id = 'acme' AND user_id = 'worker' ORDER BY id DESC LIMIT 1`);
    expect(events.rows[0].outcome).toBe('second_factor_failed');
  });

  it('the hosted page asks for it too, and the ID token says otp', async () => {
    await awayFromStepEdge();
    await server.db.query(`UPDATE user_factors SET last_step = NULL WHERE company_id = 'acme' AND user_id = 'worker' AND kind = 'totp'`);
    const { verifier, challenge } = pkce();
    const browser = injectBrowser(server);
    const url = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', state: 's', company: 'acme' })}`;
    const login = await browser.get(url);
    const step = await browser.post(formAction(login.body)!, { email: EMAIL, password: PASSWORD });
    expect(step.path).toMatch(/^\/oauth\/interaction\/[^/]+\/steps$/);
    expect(step.body).toContain('Second factor');
    const done = await browser.post(formAction(step.body)!, { step: 'second-factor', code: codeAt(0) });
    const code = done.location?.searchParams.get('code');
    expect(code, `${done.status} ${done.body.slice(0, 300)}`).toBeTruthy();
    const claims = await idTokenOf(code!, verifier);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
  });
});

describe('guessing at codes over many sign-ins', () => {
  it('three sign-ins ended by wrong codes within an hour lock the factors: even the right code is refused', async () => {
    // one is recorded above; two more, as two more rounds of five wrong codes would record
    await server.db.query(
      `INSERT INTO signin_events (company_id, domain_id, client_id, user_id, login, outcome, detail) VALUES ('acme', $1, 'iam-console', 'worker', $2, 'second_factor_failed', 'test'), ('acme', $1, 'iam-console', 'worker', $2, 'second_factor_failed', 'test')`,
      [acme.domainId, EMAIL],
    );
    await server.db.query(`UPDATE user_factors SET last_step = NULL WHERE company_id = 'acme' AND user_id = 'worker' AND kind = 'totp'`);
    await awayFromStepEdge();
    const { browser } = await consoleSignIn();
    const page = await browser.get('/oauth/steps');
    const refused = await browser.post(formAction(page.body)!, { step: 'second-factor', code: codeAt(0) });
    expect(refused.location).toBeUndefined();
    expect(refused.body).toContain('Too many wrong codes for this account lately');
    // support staff see why, and Unlock lifts this lock as it lifts the password throttle's
    const state = await call(server, acme.adminToken, 'GET', `${at('worker')}/signInState`);
    expect(state.body.lockedBecause).toBe('too many wrong second-factor codes');
    expect(Date.parse(state.body.lockedUntil)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect((await call(server, acme.adminToken, 'POST', `${at('worker')}/unlock`, {})).body.lockedUntil).toBeNull();
    await awayFromStepEdge();
    const again = await consoleSignIn();
    const next = await again.browser.get('/oauth/steps');
    const done = await again.browser.post(formAction(next.body)!, { step: 'second-factor', code: codeAt(0) });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    await server.db.query(`DELETE FROM signin_events WHERE company_id = 'acme' AND user_id = 'worker' AND detail = 'test'`);
  });

  it('sign-ins side by side share one count: after fifteen wrong codes in the hour, the right one is refused too', async () => {
    await call(server, acme.adminToken, 'POST', `${at('worker')}/unlock`, {});
    await server.db.query(`UPDATE user_factors SET last_step = NULL WHERE company_id = 'acme' AND user_id = 'worker' AND kind = 'totp'`);
    // four sign-ins, none ended (four wrong codes each is under their five): no failed sign-in is recorded
    const signIns = [];
    for (let i = 0; i < 4; i++) {
      const { browser } = await consoleSignIn();
      const action = formAction((await browser.get('/oauth/steps')).body)!;
      signIns.push({ browser, action });
    }
    let wrong = 0;
    for (const { browser, action } of signIns.slice(0, 3)) {
      for (let i = 0; i < 4; i++, wrong++) expect((await browser.post(action, { step: 'second-factor', code: `00000${i}` })).status).toBe(400);
    }
    for (let i = 0; i < 3; i++, wrong++) expect((await signIns[3].browser.post(signIns[3].action, { step: 'second-factor', code: `00001${i}` })).status).toBe(400);
    expect(wrong).toBe(15);
    await awayFromStepEdge();
    const refused = await signIns[3].browser.post(signIns[3].action, { step: 'second-factor', code: codeAt(0) });
    expect(refused.location).toBeUndefined();
    expect(refused.body).toContain('Too many wrong codes for this account lately');
    const state = await call(server, acme.adminToken, 'GET', `${at('worker')}/signInState`);
    expect(Date.parse(state.body.lockedUntil)).toBeGreaterThan(Date.now() + 50 * 60_000);
    // Unlock (or a reset of her factors) clears the count
    await call(server, acme.adminToken, 'POST', `${at('worker')}/unlock`, {});
    const again = await consoleSignIn();
    const done = await again.browser.post(formAction((await again.browser.get('/oauth/steps')).body)!, { step: 'second-factor', code: codeAt(0) });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
  });

  it('twenty wrong codes sent at once over four sign-ins: each is counted, and the count locks her factors', async () => {
    await call(server, acme.adminToken, 'POST', `${at('worker')}/unlock`, {});
    const signIns = await Promise.all([0, 1, 2, 3].map(async () => {
      const { browser } = await consoleSignIn();
      return { browser, action: formAction((await browser.get('/oauth/steps')).body)! };
    }));
    await Promise.all(signIns.flatMap(({ browser, action }) => [0, 1, 2, 3, 4].map((i) => browser.post(action, { step: 'second-factor', code: `00002${i}` }))));
    const { rows } = await server.db.query<{ n: number }>(`SELECT n FROM login_attempts WHERE kind = 'failed-factor' AND key = $1`, [`user:acme/${acme.domainId}/worker`]);
    // each answer is counted (one atomic statement) before it is checked, so the count reaches the
    // fifteen that lock her factors; answers that arrive once the lock holds are refused before they
    // are counted, so how far past fifteen it goes depends on the order they arrive in
    expect(rows[0].n).toBeGreaterThanOrEqual(15);
    expect(rows[0].n).toBeLessThanOrEqual(20);
    const state = await call(server, acme.adminToken, 'GET', `${at('worker')}/signInState`);
    expect(Date.parse(state.body.lockedUntil)).toBeGreaterThan(Date.now() + 50 * 60_000);
    await call(server, acme.adminToken, 'POST', `${at('worker')}/unlock`, {});
    await server.db.query(`DELETE FROM signin_events WHERE company_id = 'acme' AND user_id = 'worker' AND outcome = 'second_factor_failed'`);
  });
});

describe('enrolling at sign-in', () => {
  it("the required action 'enrol-mfa' makes her add an authenticator app before any code", async () => {
    const set = await call(server, acme.adminToken, 'PUT', `${at('boss')}/requiredActions`, { requiredActions: ['enrol-mfa'] });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const { browser, verifier } = await consoleSignIn('boss@acme.example');
    const page = await browser.get('/oauth/steps');
    expect(page.body).toContain('Add a second factor');
    expect(page.body).toContain('Create a passkey instead');
    // a passkey answer to a challenge never given is refused
    const made = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: 'made-up' })).toString('base64url');
    expect((await browser.post(formAction(page.body)!, { step: 'enrol-mfa', webauthn: JSON.stringify({ id: 'x', response: { clientDataJSON: made } }) })).body).toContain('out of date');
    const key = /id="totp-secret">([A-Z2-7 ]+)</.exec(page.body)![1].replace(/ /g, '');
    bossKey = key;
    const code = (steps: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(key) }).generate({ timestamp: Date.now() + steps * 30_000 });
    const wrong = await browser.post(formAction(page.body)!, { step: 'enrol-mfa', code: code(3) });
    expect(wrong.status).toBe(400);
    // the same key is shown again after a wrong code
    expect(wrong.body).toContain(key.slice(0, 4));
    await awayFromStepEdge();
    const done = await browser.post(formAction(page.body)!, { step: 'enrol-mfa', code: code(0) });
    const issued = done.location?.searchParams.get('code');
    expect(issued, `${done.status} ${done.body.slice(0, 300)}`).toBeTruthy();
    expect((await idTokenOf(issued!, verifier)).amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await call(server, acme.adminToken, 'GET', `${at('boss')}/signInState`)).body.requiredActions).toEqual([]);
    expect((await call(server, acme.adminToken, 'GET', `${at('boss')}/factors`)).body.map((f: { type: string }) => f.type)).toEqual(['totp']);
  });

  it("the domain's policy 'required' asks it of everyone without a factor", async () => {
    await server.db.query(`INSERT INTO domain_policies (company_id, domain_id, mfa) VALUES ('other', $1, 'required')`, [other.domainId]);
    await setPassword(server, 'other', other.domainId, 'worker', PASSWORD);
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { email: 'worker@other.example', password: PASSWORD, company: 'other', scope: 'openid' }));
    expect(response.headers.location).toBe('/oauth/steps');
    const jar = new CookieJar();
    jar.keep(response.headers['set-cookie'] as string[] | string | undefined);
    expect((await injectBrowser(server, jar).get('/oauth/steps')).body).toContain('Add a second factor');
    // the account page says so too
    const account = await accountBrowser().post('/account/login', { email: 'worker@other.example', password: PASSWORD, company: 'other' });
    expect(account.body).toContain('Your organization requires a second factor');
    await server.db.query(`DELETE FROM domain_policies WHERE company_id = 'other'`);
  });

  it("the domain's policy 'off' asks no second factor at sign-in, even of someone who enrolled one", async () => {
    await server.db.query(`INSERT INTO domain_policies (company_id, domain_id, mfa) VALUES ('acme', $1, 'off')`, [acme.domainId]);
    const { response } = await consoleSignIn();
    expect(redirectParams(response)?.params.code, String(response.headers.location)).toBeTruthy();
    await server.db.query(`DELETE FROM domain_policies WHERE company_id = 'acme'`);
    const asked = await consoleSignIn();
    expect(asked.response.headers.location).toBe('/oauth/steps');
  });
});

describe("an administrator and a person's factors", () => {
  it('lists them without secrets; another tenant 404; the Auditor reads but may not reset; lesser roles 403', async () => {
    const listed = await call(server, acme.adminToken, 'GET', `${at('worker')}/factors`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((f: { type: string }) => f.type).sort()).toEqual(['recovery', 'totp']);
    expect(listed.text).not.toContain(secret);
    for (const f of listed.body) expect(Object.keys(f).sort()).toEqual(expect.arrayContaining(['createdAt', 'id', 'label', 'lastUsedAt', 'type']));
    expect(listed.text).not.toMatch(/secret|hash|public/i);

    expect((await call(server, other.adminToken, 'GET', `${at('worker')}/factors`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'DELETE', `${at('worker')}/factors`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'DELETE', `${at('worker')}/factors/${listed.body[0].id}`)).status).toBe(404);
    expect((await call(server, acme.userToken, 'GET', `${at('worker')}/factors`)).status).toBe(403);
    expect((await call(server, undefined, 'GET', `${at('worker')}/factors`)).status).toBe(401);

    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'auditor', 'auditor', 'Auditor', 'auditor@acme.example'), ('acme', $1, 'agent', 'agent', 'Agent', 'agent@acme.example')`, [acme.domainId]);
    for (const [holder, role] of [['auditor', 'auditor'], ['agent', 'support']]) {
      const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role, holderType: 'user', holderId: holder, holderCompanyId: 'acme', holderDomainId: acme.domainId });
      expect(given.status).toBe(201);
    }
    for (const holder of ['auditor', 'agent']) {
      const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: holder });
      expect((await call(server, token, 'GET', `${at('worker')}/factors`)).status).toBe(200);
      const refused = await call(server, token, 'DELETE', `${at('worker')}/factors`);
      expect(refused.status, holder).toBe(403);
      expect(refused.body.message).toMatch(/users:write/);
      expect((await call(server, token, 'DELETE', `${at('worker')}/factors/${listed.body[0].id}`)).status).toBe(403);
    }
    expect((await call(server, acme.adminToken, 'DELETE', `${at('worker')}/factors/nope`)).status).toBe(404);
    expect((await call(server, acme.adminToken, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/users/nobody/factors`)).status).toBe(404);
  });

  it('Reset removes one or all, recorded on her history; she then signs in with her password alone', async () => {
    const listed = (await call(server, acme.adminToken, 'GET', `${at('worker')}/factors`)).body;
    const recovery = listed.find((f: { type: string }) => f.type === 'recovery');
    const one = await call(server, acme.adminToken, 'DELETE', `${at('worker')}/factors/${recovery.id}`);
    expect(one.status).toBe(200);
    expect(one.body.map((f: { type: string }) => f.type)).toEqual(['totp']);
    const all = await call(server, acme.adminToken, 'DELETE', `${at('worker')}/factors`);
    expect(all.body).toEqual([]);
    const history = await server.db.query<{ action: string; changes: unknown }>(`SELECT action, changes FROM audit_events WHERE company_id = 'acme' AND resource_id = 'worker' AND action = 'resetFactors' ORDER BY id`);
    expect(history.rows).toHaveLength(2);
    expect(JSON.stringify(history.rows[1].changes)).toContain('totp');

    const { response } = await consoleSignIn();
    expect(redirectParams(response)?.params.code).toBeTruthy();
  });
});

describe("the account page's second factor", () => {
  it('is asked after the password; five wrong codes end the session; removing a factor asks the password', async () => {
    const code = (steps: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(bossKey) }).generate({ timestamp: Date.now() + steps * 30_000 });
    const browser = accountBrowser();
    const asked = await browser.post('/account/login', { email: 'boss@acme.example', password: PASSWORD, company: 'acme' });
    expect(asked.body).toContain('Second factor');
    // nothing of the account before the factor
    expect((await browser.get('/account/totp')).body).toContain('Second factor');
    for (let i = 0; i < 4; i++) expect((await browser.post('/account/second-factor', { code: '99999' + i })).status).toBe(401);
    const ended = await browser.post('/account/second-factor', { code: '999994' });
    expect(ended.body).toContain('Too many wrong codes');
    expect((await browser.get('/account')).body).toContain('Sign in');
    const events = await server.db.query<{ outcome: string }>(`SELECT outcome FROM signin_events WHERE company_id = 'acme' AND user_id = 'boss' ORDER BY id DESC LIMIT 1`);
    expect(events.rows[0].outcome).toBe('second_factor_failed');

    await browser.post('/account/login', { email: 'boss@acme.example', password: PASSWORD, company: 'acme' });
    await awayFromStepEdge();
    const overview = await browser.post('/account/second-factor', { code: code(1) });
    expect(overview.body).toContain('Account and security');
    const id = /\/account\/factors\/([^/]+)\/remove/.exec(overview.body)![1];
    expect((await browser.get(`/account/factors/${id}/remove`)).body).toContain('Type your password');
    expect((await browser.post(`/account/factors/${id}/remove`, { password: 'not the password 1' })).status).toBe(401);
    expect((await browser.post(`/account/factors/${id}/remove`, { password: PASSWORD }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // another person's factor is not hers to remove
    const workerFactor = await server.db.query<{ id: string }>(`INSERT INTO user_factors (id, company_id, domain_id, user_id, kind, label, code_hashes) VALUES ('w-codes', 'acme', $1, 'worker', 'recovery', 'x', '{}') RETURNING id`, [acme.domainId]);
    expect((await browser.post(`/account/factors/${workerFactor.rows[0].id}/remove`, { password: PASSWORD })).status).toBe(404);
    const removed = await browser.post(`/account/factors/${id}/remove`, { password: PASSWORD });
    expect(removed.body).toContain('Factor removed');
    expect(removed.body).toContain('No second factor yet');
    const history = await server.db.query(`SELECT 1 FROM user_factors WHERE company_id = 'acme' AND user_id = 'worker' AND id = 'w-codes'`);
    expect(history.rows).toHaveLength(1);
  });
});

describe('hostile input', () => {
  it('is answered with a readable 4xx page, never a 5xx', async () => {
    const browser = accountBrowser();
    const nul = await browser.post('/account/login', { email: 'a\u0000b', password: 'x', company: 'acme' });
    expect(nul.status).toBeGreaterThanOrEqual(400);
    expect(nul.status).toBeLessThan(500);
    const scripted = await browser.get('/account?company=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(scripted.status).toBe(200);
    expect(scripted.body).not.toContain('<script>alert');
    expect((await browser.post('/account/login', { email: 'x'.repeat(300), password: 'x' })).status).toBe(400);

    // a parked sign-in of someone with a factor: garbage where the passkey's answer goes
    await setPassword(server, 'acme', acme.domainId, 'boss', PASSWORD);
    await server.db.query(`INSERT INTO user_factors (id, company_id, domain_id, user_id, kind, label, credential_id, public_key, counter) VALUES ('k1', 'acme', $1, 'boss', 'webauthn', 'Key', 'AAAA', 'AAAA', 0)`, [acme.domainId]);
    const { browser: steps } = await consoleSignIn('boss@acme.example');
    const page = await steps.get('/oauth/steps');
    expect(page.body).toContain('Use a passkey or security key');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/<script>/);
    for (const webauthn of ['not json', '{}', JSON.stringify({ id: 'AAAA', response: { clientDataJSON: Buffer.from(JSON.stringify({ challenge: 'made-up' })).toString('base64url') } })]) {
      const answer = await steps.post(formAction(page.body)!, { step: 'second-factor', webauthn });
      expect(answer.status, webauthn).toBe(400);
      expect(answer.body).toContain('out of date');
    }
    // the script files are served, same-origin
    const script = await server.app.inject({ method: 'GET', url: '/account/webauthn.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect((await server.app.inject({ method: 'GET', url: '/account/simplewebauthn-browser.js' })).body).toContain('SimpleWebAuthnBrowser');
    await server.db.query(`DELETE FROM user_factors WHERE id = 'k1'`);
  });
});
