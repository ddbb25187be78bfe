import bcrypt from 'bcryptjs';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdministrator, call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';
import { CONSOLE_REDIRECT, consoleLoginFields, CookieJar, formAction, injectBrowser, pkce, postLogin, postToken, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * Account states (docs/CONSOLE.md, "Account states"): blocking ends every session and refuses
 * sign-in with a sentence only the password's holder reads; unblocking restores it; a password set
 * by an administrator may require a new one at the next sign-in, which the person chooses on a step
 * page before any code is issued, on the console's form and on the hosted page alike. Another
 * tenant and a lesser role cannot use the actions.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const PASSWORD = 'account states password 1';
const NEW_PASSWORD = 'a brand new passphrase 7';
const at = (userId: string) => `/api/companys/acme/domainNames/${acme.domainId}/users/${userId}`;

/** A console sign-in to acme through the one-form post, with a cookie jar for the step pages. */
async function signIn(email: string, password: string, jar = new CookieJar()) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, { email, password, company: 'acme' }), { cookie: jar.header() });
  jar.keep(response.headers['set-cookie'] as string[] | string | undefined);
  const location = response.headers.location;
  const toApplication = typeof location === 'string' && /^https?:/.test(location);
  return { response, verifier, jar, params: toApplication ? (redirectParams(response)?.params ?? {}) : {} };
}

const bcryptHash = (password: string) => bcrypt.hash(password, 10);

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', acme.domainId, 'worker', PASSWORD);
  await setPassword(server, 'acme', acme.domainId, 'boss', PASSWORD);
}, 60_000);
afterAll(() => server?.close());

describe('blocking an account', () => {
  it('ends its sessions, refuses its sign-in with a sentence only the password tells, and unblocking restores it', async () => {
    await addAdministrator(server, acme, 'deputy');
    const deputyToken = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'deputy' });
    expect((await call(server, deputyToken, 'GET', `/api/companys/acme`)).status).toBe(200);
    const before = await signIn('worker@acme.example', PASSWORD);
    expect(before.params.code).toBeTruthy();

    const blocked = await call(server, acme.adminToken, 'POST', `${at('deputy')}/block`, {});
    expect(blocked.status).toBe(200);
    expect(Date.parse(blocked.body.blockedAt)).toBeGreaterThan(Date.now() - 60_000);
    // every session of hers ended: her token is refused at once
    expect((await call(server, deputyToken, 'GET', `/api/companys/acme`)).status).toBe(401);
    const live = await server.db.query(`SELECT 1 FROM oauth_grants WHERE company_id = 'acme' AND user_id = 'deputy' AND revoked_at IS NULL`);
    expect(live.rows).toEqual([]);

    // the worker's sign-in is untouched; the deputy's is refused, saying why only with the right password
    await setPassword(server, 'acme', acme.domainId, 'deputy', PASSWORD);
    const right = await signIn('deputy@acme.example', PASSWORD);
    // the console's form comes back saying so (docs/CONSOLE.md, "Sign-in form")
    expect(right.response.statusCode).toBe(303);
    expect(right.params).toMatchObject({ error: 'access_denied', error_description: 'This account is blocked. Ask your administrator to unblock it.' });
    expect(right.params.code).toBeUndefined();
    const wrong = await signIn('deputy@acme.example', 'not her password 9');
    expect(wrong.params.error).toBe('access_denied');
    expect(wrong.response.body ?? '').not.toContain('blocked');
    const events = await server.db.query<{ outcome: string }>(`SELECT outcome FROM signin_events WHERE company_id = 'acme' AND user_id = 'deputy' ORDER BY id`);
    expect(events.rows.map((row) => row.outcome)).toEqual(['blocked', 'wrong_password']);

    // the list shows it; her history says who blocked her
    const listed = await call(server, acme.adminToken, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/users?filter=${encodeURIComponent('{"q":"deputy"}')}`);
    expect(listed.body[0]).toMatchObject({ id: 'deputy', blockedAt: blocked.body.blockedAt, emailVerified: false });

    const unblocked = await call(server, acme.adminToken, 'POST', `${at('deputy')}/unblock`, {});
    expect(unblocked.body.blockedAt).toBeNull();
    expect((await signIn('deputy@acme.example', PASSWORD)).params.code).toBeTruthy();
    const history = await server.db.query<{ action: string }>(`SELECT action FROM audit_events WHERE company_id = 'acme' AND resource_type = 'users' AND resource_id = 'deputy' ORDER BY id`);
    expect(history.rows.map((row) => row.action)).toEqual(['block', 'unblock']);
  });

  it('refuses blocking yourself and the last administrator of a domain', async () => {
    const self = await call(server, acme.adminToken, 'POST', `${at('boss')}/block`, {});
    expect(self.status).toBe(400);
    expect(self.body.message).toMatch(/yourself/);
    // other's only administrator, blocked by an administrator above it (root)
    const root = await tokenFor(server.ctx, { companyId: 'root', domainId: (await server.db.query<{ id: string }>(`SELECT id FROM domains WHERE company_id = 'root' AND is_primary`)).rows[0].id, userId: (await server.db.query<{ id: string }>(`SELECT u.id FROM users u JOIN group_members m ON m.member_id = u.id AND m.company_id = u.company_id WHERE u.company_id = 'root' AND m.group_id = 'administrators' LIMIT 1`)).rows[0].id });
    const last = await call(server, root, 'POST', `/api/companys/other/domainNames/${other.domainId}/users/boss/block`, {});
    expect(last.status).toBe(409);
    expect((await call(server, root, 'GET', `/api/companys/other/domainNames/${other.domainId}/users/boss/signInState`)).body.blockedAt).toBeNull();
  });
});

describe('a password set by an administrator', () => {
  it('ends her sessions; "require a new password" sends her next sign-in to the change page before any code', async () => {
    const set = await call(server, acme.adminToken, 'POST', `${at('worker')}/password`, { authVerification: await bcryptHash(PASSWORD), requireChange: true });
    expect(set.status).toBe(200);
    expect(set.body.requiredActions).toEqual(['change-password']);
    const history = await server.db.query<{ action: string }>(`SELECT action FROM audit_events WHERE resource_id = 'worker' AND company_id = 'acme' ORDER BY id DESC LIMIT 1`);
    expect(history.rows[0].action).toBe('setPassword');

    const first = await signIn('worker@acme.example', PASSWORD);
    expect(first.response.statusCode).toBe(303);
    expect(first.response.headers.location).toBe('/oauth/steps');
    expect(first.params.code).toBeUndefined();
    const browser = injectBrowser(server, first.jar);
    const page = await browser.get('/oauth/steps');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Choose a new password');
    const action = formAction(page.body)!;

    // refusals, each a sentence on the same page
    expect((await browser.post(action, { step: 'change-password', password: NEW_PASSWORD, confirm: 'something else 12' })).body).toContain('do not match');
    expect((await browser.post(action, { step: 'change-password', password: 'short', confirm: 'short' })).body).toContain('at least 12 characters');
    expect((await browser.post(action, { step: 'change-password', password: PASSWORD, confirm: PASSWORD })).body).toContain('different from the one you signed in with');
    // another site's post is refused
    const forged = await server.app.inject({ method: 'POST', url: action, headers: { cookie: first.jar.header(), 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ step: 'change-password', password: NEW_PASSWORD, confirm: NEW_PASSWORD }).toString() });
    expect(forged.statusCode).toBe(403);

    const done = await browser.post(action, { step: 'change-password', password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    const code = done.location?.searchParams.get('code');
    expect(code, `${done.status} ${done.body.slice(0, 300)}`).toBeTruthy();
    const token = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: first.verifier });
    expect(token.status).toBe(200);
    expect(jose.decodeJwt(token.body.id_token).amr).toEqual(['pwd']);
    expect((await call(server, acme.adminToken, 'GET', `${at('worker')}/signInState`)).body.requiredActions).toEqual([]);

    // the parked sign-in is gone: its page cannot be replayed
    expect((await browser.get('/oauth/steps')).status).toBe(400);
    // the old password is no good any more; the new one signs in at once
    expect((await signIn('worker@acme.example', PASSWORD)).params.error).toBe('access_denied');
    expect((await signIn('worker@acme.example', NEW_PASSWORD)).params.code).toBeTruthy();
  });

  it('is asked on the hosted page too, under its interaction', async () => {
    await call(server, acme.adminToken, 'PUT', `${at('worker')}/requiredActions`, { requiredActions: ['change-password'] });
    const { verifier, challenge } = pkce();
    const browser = injectBrowser(server);
    const url = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', state: 's', company: 'acme' })}`;
    const login = await browser.get(url);
    const step = await browser.post(formAction(login.body)!, { email: 'worker@acme.example', password: NEW_PASSWORD });
    expect(step.status).toBe(200);
    expect(step.path).toMatch(/^\/oauth\/interaction\/[^/]+\/steps$/);
    expect(step.body).toContain('Choose a new password');
    const done = await browser.post(formAction(step.body)!, { step: 'change-password', password: 'the third passphrase 3', confirm: 'the third passphrase 3' });
    const code = done.location?.searchParams.get('code');
    expect(code, `${done.status} ${done.body.slice(0, 300)}`).toBeTruthy();
    const token = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    expect(jose.decodeJwt(token.body.id_token).amr).toEqual(['pwd']);
  });

  it('blocking her between the password and the step ends the parked sign-in', async () => {
    await call(server, acme.adminToken, 'PUT', `${at('worker')}/requiredActions`, { requiredActions: ['change-password'] });
    const first = await signIn('worker@acme.example', 'the third passphrase 3');
    expect(first.response.headers.location).toBe('/oauth/steps');
    await call(server, acme.adminToken, 'POST', `${at('worker')}/block`, {});
    const page = await injectBrowser(server, first.jar).get('/oauth/steps');
    expect(page.status).toBe(400);
    expect(page.body).toContain('expired');
    await call(server, acme.adminToken, 'POST', `${at('worker')}/unblock`, {});
  });
});

describe('who may', () => {
  it('validates bodies with the field named', async () => {
    const unknown = await call(server, acme.adminToken, 'PUT', `${at('worker')}/requiredActions`, { requiredActions: ['dance'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/requiredActions/);
    const plain = await call(server, acme.adminToken, 'POST', `${at('worker')}/password`, { authVerification: 'plain text password' });
    expect(plain.status).toBe(400);
    expect(plain.body.message).toMatch(/authVerification/);
  });

  it('another tenant gets 404 and a role without the permission 403, for every action', async () => {
    const actions: [string, string, unknown][] = [
      ['POST', 'block', {}],
      ['POST', 'unblock', {}],
      ['POST', 'password', { authVerification: await bcryptHash(PASSWORD) }],
      ['PUT', 'requiredActions', { requiredActions: [] }],
    ];
    // an auditor of acme (reads everything, changes nothing)
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'auditor', 'auditor', 'Auditor', 'auditor@acme.example')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', 'auditor', 'auditor', 'acme')`, [acme.domainId]);
    const auditor = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'auditor' });
    for (const [method, name, body] of actions) {
      const foreign = await call(server, other.adminToken, method as 'POST', `${at('worker')}/${name}`, body);
      expect(foreign.status, `${name} from another tenant`).toBe(404);
      const lesser = await call(server, auditor, method as 'POST', `${at('worker')}/${name}`, body);
      expect(lesser.status, `${name} as auditor`).toBe(403);
    }
    expect((await call(server, auditor, 'GET', `${at('worker')}/signInState`)).status).toBe(200);
    expect((await call(server, other.adminToken, 'GET', `${at('worker')}/signInState`)).status).toBe(404);
    // nothing changed
    const state = await call(server, acme.adminToken, 'GET', `${at('worker')}/signInState`);
    expect(state.body.blockedAt).toBeNull();
  });
});
