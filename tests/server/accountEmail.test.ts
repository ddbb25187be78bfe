import bcrypt from 'bcryptjs';
import * as jose from 'jose';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailerOf } from '../../server/mail/mailer.js';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';
import { addApplication, CONSOLE_REDIRECT, consoleLoginFields, CookieJar, formAction, injectBrowser, pkce, postLogin, postToken, redirectParams, setPassword } from './oauthHelpers.js';
import { freePort } from './program.js';

/**
 * E-mail, reset links and invitations (docs/CONSOLE.md): without SMTP_URL every message waits in
 * the domain's outbox; with it, it goes to the mail server (a real SMTP receiver here) and is
 * recorded too. Links are single use and expire; the forgotten-password page answers the same
 * whether the address exists; invitations set a password; verification makes email_verified true.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const users = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users`;
const outbox = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/outbox`;
const NEW_PASSWORD = 'a long new password 42';
const LINK = /http:\/\/localhost:8080(\/account\/(?:reset|invite|verify)\?token=[A-Za-z0-9_-]{43})/;

/** A form posted from the provider's own page, as the browser sends it. */
const sameSite = { 'sec-fetch-site': 'same-origin' };

async function post(target: TestServer, url: string, form: Record<string, string>, headers: Record<string, string> = sameSite) {
  return target.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(form).toString() });
}

/** The messages of the outbox sent to `recipient`, newest first (straight from the table). */
async function messagesTo(target: TestServer, recipient: string) {
  const { rows } = await target.db.query<{ id: string; text: string; html: string; subject: string; sentAt: Date | null; error: string | null; language: string }>(
    `SELECT id, text_body AS text, html_body AS html, subject, sent_at AS "sentAt", error, language FROM mail_outbox WHERE recipient = $1 ORDER BY created_at DESC, id DESC`,
    [recipient],
  );
  return rows;
}

/** Waits for the background work of a request (the forgotten-password page answers before it). */
async function waitFor<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const newestLink = async (target: TestServer, recipient: string, count = 1) =>
  waitFor(async () => {
    const messages = await messagesTo(target, recipient);
    return messages.length >= count ? LINK.exec(messages[0].text)![1] : undefined;
  }, `a message to ${recipient}`);

async function consoleSignIn(target: TestServer, email: string, password: string, company: string) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(target, consoleLoginFields(challenge, { email, password, company, scope: 'openid email username user:admin' }));
  return { params: redirectParams(response)?.params ?? {}, verifier, status: response.statusCode };
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await server.db.query(`UPDATE companies SET display_name = 'Acme Corporation' WHERE id = 'acme'`);
  await setPassword(server, 'acme', acme.domainId, 'worker', 'the old password 1');
  await setPassword(server, 'acme', acme.domainId, 'boss', 'the boss password 1');
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'agent', 'agent', 'Agent', 'agent@acme.example'), ('acme', $1, 'reader', 'reader', 'Reader', 'reader@acme.example')`,
    [acme.domainId],
  );
  for (const [holder, role] of [['agent', 'support'], ['reader', 'auditor']]) {
    const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role, holderType: 'user', holderId: holder, holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status).toBe(201);
  }
}, 60_000);
afterAll(() => server?.close());

describe('a forgotten password, without a mail server', () => {
  it('answers the same for an unknown address, and sends a single-use link to a known one', async () => {
    const form = { company: 'acme' };
    const page = await server.app.inject({ method: 'GET', url: '/account/forgot?company=acme' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<strong>acme</strong>');
    expect(page.body).not.toContain('<script');

    const unknown = await post(server, '/account/forgot', { ...form, email: 'nobody@acme.example' });
    const known = await post(server, '/account/forgot', { ...form, email: 'Worker@acme.example' });
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toBe(known.body);
    expect(known.body).toContain("If an account with that address exists, we've sent a link");

    const link = await newestLink(server, 'worker@acme.example');
    expect(await messagesTo(server, 'nobody@acme.example')).toEqual([]);
    const [message] = await messagesTo(server, 'worker@acme.example');
    expect(message.subject).toBe('Reset your Acme Corporation password');
    expect(message.html).toContain('Acme Corporation');
    expect(message.sentAt).toBeNull();
    // only the hash is stored
    const token = link.split('token=')[1];
    expect((await server.db.query(`SELECT 1 FROM account_tokens WHERE id = $1`, [token])).rows).toEqual([]);

    // the reset page, then a password the policy refuses, two that differ, and a good one
    const reset = await server.app.inject({ method: 'GET', url: link });
    expect(reset.statusCode).toBe(200);
    expect(reset.body).toContain('name="confirm"');
    expect((await post(server, '/account/reset', { token, password: 'short', confirm: 'short' })).body).toContain('Use at least 12 characters.');
    expect((await post(server, '/account/reset', { token, password: NEW_PASSWORD, confirm: `${NEW_PASSWORD}x` })).body).toContain('The two passwords differ');
    // a form from another site is refused
    expect((await post(server, '/account/reset', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD }, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);

    // she had a session and a required change: both go
    await server.db.query(`UPDATE users SET required_actions = '{change-password}' WHERE company_id = 'acme' AND id = 'worker'`);
    await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'worker' });
    const live = `SELECT count(*)::int AS n FROM oauth_grants WHERE company_id = 'acme' AND user_id = 'worker' AND revoked_at IS NULL`;
    expect((await server.db.query(live)).rows[0].n).toBeGreaterThan(0);
    const done = await post(server, '/account/reset', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Your password is changed.');
    // and where her second factors are
    expect(done.body).toContain('<a href="/account">your account page</a>');
    expect(done.body).toContain('href="/login?company=acme');
    expect((await server.db.query(live)).rows[0].n).toBe(0);
    const { rows } = await server.db.query(`SELECT required_actions AS "requiredActions" FROM users WHERE company_id = 'acme' AND id = 'worker'`);
    expect(rows[0].requiredActions).toEqual([]);

    // single use
    expect((await post(server, '/account/reset', { token, password: 'yet another password 9', confirm: 'yet another password 9' })).statusCode).toBe(400);
    expect((await server.app.inject({ method: 'GET', url: link })).statusCode).toBe(400);
    expect((await consoleSignIn(server, 'worker@acme.example', 'the old password 1', 'acme')).params.code).toBeUndefined();
    expect((await consoleSignIn(server, 'worker@acme.example', NEW_PASSWORD, 'acme')).params.code).toBeTruthy();
  });

  it('expires after 30 minutes, and a newer link makes the older one unusable', async () => {
    await post(server, '/account/forgot', { company: 'acme', email: 'worker@acme.example' });
    const first = await newestLink(server, 'worker@acme.example', 2);
    const { rows } = await server.db.query<{ minutes: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 60)::int AS minutes FROM account_tokens WHERE company_id = 'acme' AND user_id = 'worker' AND used_at IS NULL`,
    );
    expect(rows).toEqual([{ minutes: 30 }]);
    expect((await server.app.inject({ method: 'GET', url: first })).statusCode).toBe(200);
    await server.db.query(`UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE company_id = 'acme' AND user_id = 'worker' AND used_at IS NULL`);
    const expired = await server.app.inject({ method: 'GET', url: first });
    expect(expired.statusCode).toBe(400);
    expect(expired.body).toContain('This link is invalid, has expired or has already been used.');

    await post(server, '/account/forgot', { company: 'acme', email: 'worker@acme.example' });
    const second = await newestLink(server, 'worker@acme.example', 3);
    await post(server, '/account/forgot', { company: 'acme', email: 'worker@acme.example' });
    const third = await newestLink(server, 'worker@acme.example', 4);
    expect((await server.app.inject({ method: 'GET', url: second })).statusCode).toBe(400);
    expect((await server.app.inject({ method: 'GET', url: third })).statusCode).toBe(200);
  });

  it('speaks French to a French browser, and sends at most 5 links an hour to one address', async () => {
    await server.db.query(`DELETE FROM login_attempts WHERE kind LIKE 'mail-%'`);
    for (let i = 0; i < 7; i++) {
      const answer = await server.app.inject({
        method: 'POST',
        url: '/account/forgot',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5', ...sameSite },
        payload: new URLSearchParams({ company: 'acme', email: 'boss@acme.example' }).toString(),
      });
      expect(answer.statusCode).toBe(200);
    }
    await newestLink(server, 'boss@acme.example', 5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const messages = await messagesTo(server, 'boss@acme.example');
    expect(messages).toHaveLength(5);
    expect(messages[0].language).toBe('fr');
    expect(messages[0].subject).toBe('Réinitialisez votre mot de passe Acme Corporation');
  });

  it('speaks German, Japanese or Arabic to such a browser (right to left for Arabic)', async () => {
    const email = 'worker@acme.example';
    for (const language of ['de', 'ja', 'ar']) {
      await server.db.query(`DELETE FROM login_attempts WHERE kind LIKE 'mail-%'`);
      const before = (await messagesTo(server, email)).length;
      const answer = await server.app.inject({
        method: 'POST',
        url: '/account/forgot',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': `${language};q=0.9,en;q=0.5`, ...sameSite },
        payload: new URLSearchParams({ company: 'acme', email }).toString(),
      });
      expect(answer.statusCode).toBe(200);
      await newestLink(server, email, before + 1);
      const [message] = await messagesTo(server, email);
      expect(message.language).toBe(language);
      expect(message.subject).not.toMatch(/Reset your/);
      if (language === 'ar') expect(message.html).toContain('dir="rtl"');
    }
  });

  it('the hosted sign-in page links to it with its application', async () => {
    const browser = injectBrowser(server);
    const { challenge } = pkce();
    const page = await browser.get(
      `/oauth/authorize?${new URLSearchParams({ client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, response_type: 'code', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', company: 'acme' })}`,
    );
    expect(page.status).toBe(200);
    const href = /href="(\/account\/forgot\?interaction=[^"]+)"/.exec(page.body)![1];
    const forgot = await browser.get(href);
    expect(forgot.status).toBe(200);
    // the interaction names the application and organization, on the server
    expect(forgot.body).toContain('<strong>acme</strong>');
    expect(forgot.body).toContain('name="interaction"');
    expect(forgot.body).toContain('Back to sign-in');
  });
});

describe("another application's people", () => {
  it("get a link for the application's own tenant; another organization is refused; the success page sends no one to the console", async () => {
    await addApplication(server, { id: 'acme-shop', companyId: 'acme', domainId: acme.domainId, redirectUris: ['https://shop.acme.example/cb'] });
    const refused = await post(server, '/account/forgot', { client_id: 'acme-shop', company: 'other', email: 'worker@other.example' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('its own organization only');
    const count = (await messagesTo(server, 'worker@acme.example')).length;
    const asked = await post(server, '/account/forgot', { client_id: 'acme-shop', email: 'worker@acme.example' });
    expect(asked.statusCode).toBe(200);
    const token = (await newestLink(server, 'worker@acme.example', count + 1)).split('token=')[1];
    const done = await post(server, '/account/reset', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Your password is changed. Sign in with it.');
    expect(done.body).not.toContain('/login');
  });
});

describe('hostile input on the hosted pages', () => {
  it('is a 4xx page with a sentence, never a 5xx, and never a token accepted that is not one', async () => {
    const gets = [
      '/account/reset',
      '/account/reset?token=',
      `/account/reset?token=${'A'.repeat(43)}`,
      `/account/reset?token=${'A'.repeat(200)}`,
      '/account/reset?token=a&token=b',
      '/account/invite?token=%00%01',
      "/account/verify?token=<script>alert(1)</script>",
      '/account/forgot?interaction=../../etc',
      `/account/forgot?company=${'x'.repeat(500)}`,
      '/account/forgot?company=%0d%0aSet-Cookie:%20x=1',
      '/account/forgot?client_id=no-such-client',
    ];
    for (const url of gets) {
      const answer = await server.app.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBeGreaterThanOrEqual(200);
      expect(answer.statusCode, url).toBeLessThan(500);
      expect(answer.headers['content-security-policy'], url).toContain("default-src 'none'");
      expect(answer.body, url).not.toContain('<script>');
    }
    const posts: [string, Record<string, string>][] = [
      ['/account/forgot', { email: 'x'.repeat(300) }],
      ['/account/forgot', { email: 'nobody@acme.example', client_id: 'no-such-client' }],
      ['/account/forgot', { email: 'nobody@acme.example', company: 'acme', interaction: 'not-an-interaction' }],
      ['/account/reset', { token: 'A'.repeat(43), password: NEW_PASSWORD, confirm: NEW_PASSWORD }],
      ['/account/reset', { token: 'x', password: 'p'.repeat(2000), confirm: '' }],
      ['/account/verify', {}],
      ['/account/invite', { token: '\u0000' }],
    ];
    for (const [url, form] of posts) {
      const answer = await post(server, url, form);
      expect(answer.statusCode, `${url} ${JSON.stringify(form).slice(0, 80)}`).toBeGreaterThanOrEqual(200);
      expect(answer.statusCode, url).toBeLessThan(500);
    }
    // an application other than the console cannot name another organization
    const other = await post(server, '/account/forgot', { email: 'worker@acme.example', client_id: 'iam-console-does-not-exist' });
    expect(other.statusCode).toBe(400);
  });
});

describe('invitations and verification, from the management API', () => {
  it('a user made without a password is invited, chooses one and signs in; her address is verified', async () => {
    const created = await call(server, acme.adminToken, 'POST', users(acme), { id: 'newcomer', username: 'newcomer', displayName: 'Newcomer', email: 'newcomer@acme.example' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Support sends the invitation (users:recover) but never sees the link
    const agent = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
    const sent = await call(server, agent, 'POST', `${users(acme)}/newcomer/sendInvitation`, {});
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toEqual({ messageId: expect.any(String), recipient: 'newcomer@acme.example', mailConfigured: false });
    expect(JSON.stringify(sent.body)).not.toContain('token');
    // Support sees the message in the outbox, without its text (outboxSupport.test.ts)
    const seen = await call(server, agent, 'GET', `${outbox(acme)}/${sent.body.messageId}`);
    expect(seen.status).toBe(200);
    expect(seen.body.text).toBeUndefined();

    // the administrator reads it in the outbox: the list, then the message
    const list = await call(server, acme.adminToken, 'GET', outbox(acme));
    expect(list.status).toBe(200);
    expect(list.body[0]).toMatchObject({ id: sent.body.messageId, recipient: 'newcomer@acme.example', purpose: 'invite', sentAt: null });
    expect(list.body[0].text).toBeUndefined();
    const message = await call(server, acme.adminToken, 'GET', `${outbox(acme)}/${sent.body.messageId}`);
    expect(message.status).toBe(200);
    const link = LINK.exec(message.body.text)![1];
    expect(link).toMatch(/^\/account\/invite/);
    expect((await call(server, acme.adminToken, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/mailSettings`)).body).toEqual({ configured: false });

    // resending replaces the older invitation
    const again = await call(server, acme.adminToken, 'POST', `${users(acme)}/newcomer/sendInvitation`, {});
    expect(again.status).toBe(200);
    const token = (await newestLink(server, 'newcomer@acme.example', 2)).split('token=')[1];
    expect((await server.app.inject({ method: 'GET', url: link })).statusCode).toBe(400);
    const page = await server.app.inject({ method: 'GET', url: `/account/invite?token=${token}` });
    expect(page.body).toContain('Welcome to Acme Corporation');
    expect((await post(server, '/account/invite', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).body).toContain('Your password is set.');
    expect((await consoleSignIn(server, 'newcomer@acme.example', NEW_PASSWORD, 'acme')).params.code).toBeTruthy();
    const state = await server.db.query(`SELECT email_verified AS verified FROM users WHERE company_id = 'acme' AND id = 'newcomer'`);
    expect(state.rows[0].verified).toBe(true);

    // she has a password now: an invitation is refused, a reset link is the way
    const invited = await call(server, acme.adminToken, 'POST', `${users(acme)}/newcomer/sendInvitation`, {});
    expect(invited.status).toBe(409);
    expect(invited.body).toMatchObject({ code: 'accountEmail.hasPassword', params: { id: 'newcomer' } });
    expect((await call(server, acme.adminToken, 'POST', `${users(acme)}/newcomer/sendResetLink`, {})).status).toBe(200);
    const history = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: 'newcomer', action: 'sendInvitation' }))}`);
    expect(history.body.map((event: { actorUserId: string }) => event.actorUserId).sort()).toEqual(['agent', 'boss']);
  });

  it('verification makes email_verified true in the ID token and userinfo; a new address is not verified', async () => {
    const before = await consoleSignIn(server, 'boss@acme.example', 'the boss password 1', 'acme');
    const tokensBefore = await postToken(server, { grant_type: 'authorization_code', code: before.params.code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: before.verifier });
    expect(tokensBefore.status, JSON.stringify(tokensBefore.body)).toBe(200);
    const claimsBefore = await call(server, tokensBefore.body.access_token, 'GET', '/oauth/userinfo');
    expect(claimsBefore.body).toMatchObject({ email: 'boss@acme.example', email_verified: false });

    const sent = await call(server, acme.adminToken, 'POST', `${users(acme)}/boss/sendVerification`, {}, );
    expect(sent.status).toBe(200);
    await server.db.query(`UPDATE users SET required_actions = '{verify-email}' WHERE company_id = 'acme' AND id = 'boss'`);
    const link = await newestLink(server, 'boss@acme.example', 1);
    expect(link).toMatch(/^\/account\/verify/);
    const token = link.split('token=')[1];
    // opening the link (a mail scanner does) changes nothing: the button does
    expect((await server.app.inject({ method: 'GET', url: link })).body).toContain('Verify my address');
    expect((await server.db.query(`SELECT email_verified FROM users WHERE company_id = 'acme' AND id = 'boss'`)).rows[0].email_verified).toBe(false);
    const verified = await post(server, '/account/verify', { token });
    expect(verified.statusCode).toBe(200);
    expect(verified.body).toContain('is verified');
    expect((await post(server, '/account/verify', { token })).statusCode).toBe(400);
    const row = (await server.db.query(`SELECT email_verified AS verified, required_actions AS actions FROM users WHERE company_id = 'acme' AND id = 'boss'`)).rows[0];
    expect(row).toEqual({ verified: true, actions: [] });

    const after = await consoleSignIn(server, 'boss@acme.example', 'the boss password 1', 'acme');
    const tokens = await postToken(server, { grant_type: 'authorization_code', code: after.params.code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: after.verifier });
    const idToken = jose.decodeJwt(tokens.body.id_token);
    if ('email_verified' in idToken) expect(idToken.email_verified).toBe(true);
    expect((await call(server, tokens.body.access_token, 'GET', '/oauth/userinfo')).body).toMatchObject({ email_verified: true });

    // a changed address is not verified any more, and the links sent to the old one stop working
    await call(server, acme.adminToken, 'POST', `${users(acme)}/boss/sendVerification`, {});
    const pending = (await newestLink(server, 'boss@acme.example', 2)).split('token=')[1];
    const record = (await call(server, acme.adminToken, 'GET', `${users(acme)}/boss`)).body;
    expect((await call(server, acme.adminToken, 'PUT', `${users(acme)}/boss`, { username: record.username, displayName: record.displayName, email: 'boss2@acme.example' })).status).toBe(200);
    expect((await server.db.query(`SELECT email_verified FROM users WHERE company_id = 'acme' AND id = 'boss'`)).rows[0].email_verified).toBe(false);
    expect((await post(server, '/account/verify', { token: pending })).statusCode).toBe(400);
  });

  it("the 'verify-email' sign-in step sends a link and waits until she has followed it", async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email, required_actions) VALUES ('acme', $1, 'checker', 'checker', 'Checker', 'checker@acme.example', '{verify-email}')`, [acme.domainId]);
    await setPassword(server, 'acme', acme.domainId, 'checker', 'the checker password 1');
    const { verifier, challenge } = pkce();
    const first = await postLogin(server, consoleLoginFields(challenge, { email: 'checker@acme.example', password: 'the checker password 1', company: 'acme', scope: 'openid email user:admin' }));
    expect(first.headers.location).toBe('/oauth/steps');
    const jar = new CookieJar();
    jar.keep(first.headers['set-cookie'] as string | string[] | undefined);
    const browser = injectBrowser(server, jar);
    const page = await browser.get('/oauth/steps');
    expect(page.status).toBe(200);
    expect(page.body).toContain('We have sent a link to checker@acme.example');
    expect(page.body).toContain('Resend the link');
    const action = formAction(page.body)!;
    const link = await newestLink(server, 'checker@acme.example');
    // shown again: no second message
    await browser.get('/oauth/steps');
    expect(await messagesTo(server, 'checker@acme.example')).toHaveLength(1);
    expect((await browser.post(action, { step: 'verify-email' })).body).toContain('not verified yet');
    expect((await browser.post(action, { step: 'verify-email', resend: '1' })).body).toContain('less than a minute ago');
    expect((await post(server, '/account/verify', { token: link.split('token=')[1] })).statusCode).toBe(200);
    const done = await browser.post(action, { step: 'verify-email' });
    const code = done.location?.searchParams.get('code');
    expect(code, `${done.status} ${done.body.slice(0, 300)}`).toBeTruthy();
    const tokens = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    expect((await call(server, tokens.body.access_token, 'GET', '/oauth/userinfo')).body).toMatchObject({ email: 'checker@acme.example', email_verified: true });
  });

  it('another tenant gets 404 and a lesser role 403 on every new endpoint; the outbox is not readable with users:read', async () => {
    const reader = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'reader' });
    const [message] = (await call(server, acme.adminToken, 'GET', outbox(acme))).body;
    for (const route of ['sendResetLink', 'sendInvitation', 'sendVerification']) {
      expect((await call(server, other.adminToken, 'POST', `${users(acme)}/worker/${route}`, {})).status, route).toBe(404);
      const refused = await call(server, reader, 'POST', `${users(acme)}/worker/${route}`, {});
      expect(refused.status, route).toBe(403);
      expect(refused.body.message).toMatch(/users:recover/);
      expect((await call(server, acme.userToken, 'POST', `${users(acme)}/worker/${route}`, {})).status).toBe(403);
      expect((await call(server, acme.adminToken, 'POST', `${users(acme)}/nobody/${route}`, {})).status).toBe(404);
      expect((await call(server, acme.adminToken, 'POST', `${users(other)}/worker/${route}`, {})).status).toBe(404);
    }
    for (const url of [outbox(acme), `${outbox(acme)}/${message.id}`]) {
      expect((await call(server, other.adminToken, 'GET', url)).status, url).toBe(404);
      const refused = await call(server, reader, 'GET', url);
      expect(refused.status, url).toBe(403);
      expect(refused.body.message).toMatch(/users:recover/);
    }
    // another domain's outbox does not hold acme's messages
    expect((await call(server, acme.adminToken, 'GET', `${outbox(acme).replace(acme.domainId, other.domainId)}`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'GET', `${outbox(other)}/${message.id}`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/mailSettings`)).status).toBe(404);
    expect((await call(server, reader, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/mailSettings`)).status).toBe(200);
  });

  it('a deleted or blocked user gets nothing', async () => {
    await server.db.query(`UPDATE users SET blocked_at = now() WHERE company_id = 'acme' AND id = 'agent'`);
    const blocked = await call(server, acme.adminToken, 'POST', `${users(acme)}/agent/sendResetLink`, {});
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject({ code: 'accountEmail.blocked', params: { id: 'agent' } });
    await server.db.query(`DELETE FROM login_attempts WHERE kind LIKE 'mail-%'`);
    const count = (await messagesTo(server, 'agent@acme.example')).length;
    await post(server, '/account/forgot', { company: 'acme', email: 'agent@acme.example' });
    await post(server, '/account/forgot', { company: 'acme', email: 'worker@acme.example' });
    const workerCount = (await messagesTo(server, 'worker@acme.example')).length;
    await newestLink(server, 'worker@acme.example', workerCount + 1).catch(() => undefined);
    expect((await messagesTo(server, 'agent@acme.example')).length).toBe(count);
    await server.db.query(`UPDATE users SET blocked_at = NULL WHERE company_id = 'acme' AND id = 'agent'`);
  });
});

describe('with a mail server (SMTP_URL)', () => {
  let receiver: SMTPServer;
  let mailServer: TestServer;
  const received: { to: string; body: string }[] = [];

  beforeAll(async () => {
    const port = await freePort();
    receiver = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let body = '';
        stream.on('data', (chunk) => (body += chunk));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((to) => to.address).join(','), body });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    mailServer = await startServer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'accounts@acme.example' });
    const tenant = await createTenant(mailServer, 'acme', 'root', 'customer');
    acmeOnMail = tenant;
  }, 60_000);
  let acmeOnMail: Tenant;
  afterAll(async () => {
    await mailServer?.close();
    await new Promise<void>((resolve) => receiver?.close(resolve));
  });

  it('sends the message and records it; a reset from the mail sets the password', async () => {
    const sent = await call(mailServer, acmeOnMail.adminToken, 'POST', `${users(acmeOnMail)}/worker/sendResetLink`, {});
    expect(sent.status).toBe(200);
    expect(sent.body.mailConfigured).toBe(true);
    await mailerOf(mailServer.ctx).settled();
    const mail = received.find((message) => message.to === 'worker@acme.example');
    expect(mail).toBeDefined();
    expect(mail!.body).toMatch(/From: acme <accounts@acme\.example>/);
    const [row] = await messagesTo(mailServer, 'worker@acme.example');
    expect(row.sentAt).not.toBeNull();
    expect(row.error).toBeNull();
    // the mail's link (quoted-printable may fold it: unfold first)
    const unfolded = mail!.body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const token = /\/account\/reset\?token=([A-Za-z0-9_-]{43})/.exec(unfolded)![1];
    const done = await post(mailServer, '/account/reset', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    const hash = (await mailServer.db.query(`SELECT password_hash AS hash FROM users WHERE company_id = 'acme' AND id = 'worker'`)).rows[0].hash;
    expect(await bcrypt.compare(NEW_PASSWORD, hash)).toBe(true);
    expect((await call(mailServer, acmeOnMail.adminToken, 'GET', `/api/companys/acme/domainNames/${acmeOnMail.domainId}/mailSettings`)).body).toEqual({ configured: true });
  });

  it('a mail server that is down is recorded as the error, never a 5xx', async () => {
    const port = await freePort();
    const down = await startServer({ smtpUrl: `smtp://127.0.0.1:${port}` });
    try {
      const tenant = await createTenant(down, 'acme', 'root', 'customer');
      const sent = await call(down, tenant.adminToken, 'POST', `${users(tenant)}/worker/sendVerification`, {});
      expect(sent.status).toBe(200);
      await mailerOf(down.ctx).settled();
      const [row] = await messagesTo(down, 'worker@acme.example');
      expect(row.sentAt).toBeNull();
      expect(row.error).toMatch(/ECONNREFUSED|connect/i);
      const listed = await call(down, tenant.adminToken, 'GET', outbox(tenant));
      expect(listed.body[0].sentAt).toBeNull();
    } finally {
      await down.close();
    }
  });
});
