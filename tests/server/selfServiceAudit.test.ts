import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/ids.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { consoleLoginFields, CookieJar, formAction, injectBrowser, pkce, postLogin, setPassword } from './oauthHelpers.js';

/**
 * What a person does with her own e-mailed links is on her history (docs/CONSOLE.md, "E-mail, reset
 * links and invitations"): a reset, an accepted invitation and a verification are recorded as her
 * own action (actor: herself, through 'account-link', from the page's address), each named, and no
 * record ever holds the password's hash or the link's token. So is a new password she chooses at
 * sign-in when one is required of her (changePassword, through 'sign-in').
 */
let server: TestServer;
let acme: Tenant;
const users = `/api/companys/acme/domainNames/acme-domain/users`;
const LINK = /http:\/\/localhost:8080(\/account\/(?:reset|invite|verify)\?token=([A-Za-z0-9_-]{43}))/;
const NEW_PASSWORD = 'a self-service password 42';
const PAGE_ADDRESS = '198.51.100.23';

async function post(url: string, form: Record<string, string>) {
  return server.app.inject({
    method: 'POST',
    url,
    remoteAddress: PAGE_ADDRESS,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    payload: new URLSearchParams(form).toString(),
  });
}

/** The newest link e-mailed to `recipient`: its path and token. */
async function newestLink(recipient: string) {
  const { rows } = await server.db.query<{ text: string }>(`SELECT text_body AS text FROM mail_outbox WHERE recipient = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, [recipient]);
  const match = LINK.exec(rows[0]?.text ?? '');
  if (!match) throw new Error(`no link to ${recipient}`);
  return { path: match[1], token: match[2] };
}

/** Her history as the console's History tab reads it (the company's log filtered to her). */
async function historyOf(userId: string) {
  const filter = encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: userId }));
  const response = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${filter}`);
  expect(response.status).toBe(200);
  return response.body as { action: string; actorUserId: string; actorCompanyId: string; actorDomainId: string; actorClientId: string; actorIp: string; changes: Record<string, unknown> }[];
}

/** Nothing of the secrets in any record of the company's log (the raw table, every column). */
async function expectNoSecretsInLog(secrets: string[]) {
  const { rows } = await server.db.query(`SELECT * FROM audit_events WHERE company_id = 'acme'`);
  const text = JSON.stringify(rows);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', 'the old password 1');
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'newcomer', 'newcomer', 'Newcomer', 'newcomer@acme.example')`);
}, 60_000);
afterAll(() => server?.close());

describe("a person's own links on her history", () => {
  it('a reset through the link is recorded as hers, named resetPassword, without the hash or the token', async () => {
    await server.db.query(`UPDATE users SET required_actions = '{change-password}' WHERE company_id = 'acme' AND id = 'worker'`);
    expect((await call(server, acme.adminToken, 'POST', `${users}/worker/sendResetLink`, {})).status).toBe(200);
    const link = await newestLink('worker@acme.example');
    expect((await server.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    const done = await post('/account/reset', { token: link.token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.statusCode, done.body.slice(0, 300)).toBe(200);

    const history = await historyOf('worker');
    const reset = history.find((event) => event.action === 'resetPassword');
    expect(reset, JSON.stringify(history)).toBeDefined();
    expect(reset).toMatchObject({ actorUserId: 'worker', actorCompanyId: 'acme', actorDomainId: 'acme-domain', actorClientId: 'account-link', actorIp: PAGE_ADDRESS });
    // as the API names the columns (password_hash: password, only said to have changed)
    // the link reached her address: it is verified now (issue 35), as an invitation's
    expect(reset!.changes).toEqual({ password: { hidden: true }, required_actions: { before: ['change-password'], after: [] }, emailVerified: { before: false, after: true } });
    expect((await server.db.query(`SELECT email_verified FROM users WHERE company_id = 'acme' AND id = 'worker'`)).rows[0].email_verified).toBe(true);
    // one record of it: the users trigger does not add an 'update' of its own
    expect(history.filter((event) => event.actorUserId === 'worker')).toHaveLength(1);
    // the administrator's send is recorded too, as hers
    expect(history.some((event) => event.action === 'sendResetLink' && event.actorUserId === 'boss')).toBe(true);

    const { rows } = await server.db.query<{ hash: string }>(`SELECT password_hash AS hash FROM users WHERE company_id = 'acme' AND id = 'worker'`);
    await expectNoSecretsInLog([rows[0].hash, rows[0].hash.slice(7), link.token, sha256(link.token), NEW_PASSWORD]);
  });

  it('a used or wrong link records nothing', async () => {
    const before = (await historyOf('worker')).length;
    const { token } = await newestLink('worker@acme.example');
    expect((await post('/account/reset', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).statusCode).toBe(400);
    expect((await post('/account/reset', { token: 'x'.repeat(43), password: NEW_PASSWORD, confirm: NEW_PASSWORD })).statusCode).toBe(400);
    expect((await historyOf('worker')).length).toBe(before);
  });

  it('an accepted invitation is recorded as acceptInvitation: the password set and the address proved', async () => {
    expect((await call(server, acme.adminToken, 'POST', `${users}/newcomer/sendInvitation`, {})).status).toBe(200);
    const link = await newestLink('newcomer@acme.example');
    const done = await post('/account/invite', { token: link.token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.statusCode, done.body.slice(0, 300)).toBe(200);
    const accepted = (await historyOf('newcomer')).find((event) => event.action === 'acceptInvitation');
    expect(accepted).toMatchObject({ actorUserId: 'newcomer', actorClientId: 'account-link', actorIp: PAGE_ADDRESS });
    expect(accepted!.changes).toMatchObject({ password: { hidden: true }, emailVerified: { before: false, after: true } });
    const { rows } = await server.db.query<{ hash: string }>(`SELECT password_hash AS hash FROM users WHERE company_id = 'acme' AND id = 'newcomer'`);
    await expectNoSecretsInLog([rows[0].hash, link.token, sha256(link.token)]);
  });

  it('a verification is recorded as verifyEmail, naming the address proved', async () => {
    await server.db.query(`UPDATE users SET email_verified = false, required_actions = '{verify-email}' WHERE company_id = 'acme' AND id = 'worker'`);
    expect((await call(server, acme.adminToken, 'POST', `${users}/worker/sendVerification`, {})).status).toBe(200);
    const link = await newestLink('worker@acme.example');
    const done = await post('/account/verify', { token: link.token });
    expect(done.statusCode, done.body.slice(0, 300)).toBe(200);
    const verified = (await historyOf('worker')).find((event) => event.action === 'verifyEmail');
    expect(verified).toMatchObject({ actorUserId: 'worker', actorClientId: 'account-link', actorIp: PAGE_ADDRESS });
    expect(verified!.changes).toEqual({
      email: { after: 'worker@acme.example' },
      emailVerified: { before: false, after: true },
      required_actions: { before: ['verify-email'], after: [] },
    });
    await expectNoSecretsInLog([link.token, sha256(link.token)]);
  });

  it('a new password chosen at sign-in (the change-password action) is recorded as her own changePassword', async () => {
    await server.db.query(`UPDATE users SET required_actions = '{change-password}' WHERE company_id = 'acme' AND id = 'worker'`);
    const first = await postLogin(server, consoleLoginFields(pkce().challenge, { email: 'worker@acme.example', password: NEW_PASSWORD, company: 'acme' }), { 'sec-fetch-site': 'same-origin' });
    expect(first.headers.location).toBe('/oauth/steps');
    const jar = new CookieJar();
    jar.keep(first.headers['set-cookie'] as string[] | string | undefined);
    const browser = injectBrowser(server, jar, { remoteAddress: PAGE_ADDRESS, headers: { 'sec-fetch-site': 'same-origin' } });
    const page = await browser.get('/oauth/steps');
    expect(page.body).toContain('Choose a new password');
    const chosen = 'her very own password 7';
    const done = await browser.post(formAction(page.body)!, { step: 'change-password', password: chosen, confirm: chosen });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    const changed = (await historyOf('worker')).find((event) => event.action === 'changePassword');
    expect(changed).toMatchObject({ actorUserId: 'worker', actorClientId: 'sign-in', actorIp: PAGE_ADDRESS });
    expect(changed!.changes).toEqual({ password: { hidden: true }, required_actions: { before: ['change-password'], after: [] } });
    const { rows } = await server.db.query<{ hash: string }>(`SELECT password_hash AS hash FROM users WHERE company_id = 'acme' AND id = 'worker'`);
    await expectNoSecretsInLog([rows[0].hash, chosen]);
  });
});
