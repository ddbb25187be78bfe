import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import { consoleLoginFields, CookieJar, formAction, injectBrowser, pageBrowser, pkce, postLogin, setPassword } from './oauthHelpers.js';

/**
 * The account page's own session (issue 34) ends with the person's other sign-ins: a new password
 * (reset link, an administrator, her own change at sign-in), Sign out everywhere, a block (and stays
 * ended after the unblock), a reset of her factors. And /account/login runs the sign-in's required
 * actions before it shows anything of the account.
 */
let server: TestServer;
let acme: Tenant;
const PASSWORD = 'account page password 42';
const NEW_PASSWORD = 'a brand new password 77';
const at = (userId: string) => `/api/companys/acme/domainNames/${acme.domainId}/users/${userId}`;

/** A browser on the account page: follows redirects within /account, keeping its cookies. */
const accountBrowser = (jar?: CookieJar) => pageBrowser(server, jar);

let made = 0;
/** A new person of acme with a password and, when given, required actions. */
async function person(requiredActions: string[] = []) {
  const id = `p${++made}`;
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, email_verified, required_actions) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example', $3, $4)`,
    [acme.domainId, id, !requiredActions.includes('verify-email'), requiredActions],
  );
  await setPassword(server, 'acme', acme.domainId, id, PASSWORD);
  return { id, email: `${id}@acme.example` };
}

/** Signed in on the account page, its overview shown. */
async function signedIn(email: string) {
  const browser = accountBrowser();
  const page = await browser.post('/account/login', { email, password: PASSWORD, company: 'acme' });
  expect(page.body).toContain('Account and security');
  return browser;
}

/** The account page's session is over: the sign-in form, and no page of the account behind it. */
async function expectEnded(browser: ReturnType<typeof accountBrowser>) {
  const page = await browser.get('/account');
  expect(page.body).not.toContain('Account and security');
  expect(page.body).toContain('Sign in');
  expect((await browser.get('/account/totp')).body).not.toContain('totp-secret');
}

async function outboxLink(recipient: string, purpose: 'reset' | 'verify') {
  const pattern = new RegExp(`http://localhost:8080(/account/${purpose}\\?token=[A-Za-z0-9_-]{43})`);
  for (let i = 0; i < 100; i++) {
    const { rows } = await server.db.query<{ text: string }>(`SELECT text_body AS text FROM mail_outbox WHERE recipient = $1 ORDER BY created_at DESC, id DESC`, [recipient]);
    const link = rows.map((row) => pattern.exec(row.text)?.[1]).find(Boolean);
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${purpose} link to ${recipient}`);
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
}, 60_000);
afterAll(() => server?.close());

describe("the account page's session ends", () => {
  it('on a new password set from a reset link', async () => {
    const { email } = await person();
    const browser = await signedIn(email);
    const anyone = accountBrowser();
    await anyone.post('/account/forgot', { company: 'acme', email });
    const token = (await outboxLink(email, 'reset')).split('token=')[1];
    expect((await anyone.post('/account/reset', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).body).toContain('Your password is changed');
    await expectEnded(browser);
  });

  it('on a new password set by an administrator through the API', async () => {
    const { id, email } = await person();
    const browser = await signedIn(email);
    const set = await call(server, acme.adminToken, 'POST', `${at(id)}/password`, { authVerification: await bcrypt.hash(NEW_PASSWORD, 10) });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await expectEnded(browser);
  });

  it('on her own new password, chosen at a sign-in that asked for one', async () => {
    const { id, email } = await person();
    const browser = await signedIn(email);
    expect((await call(server, acme.adminToken, 'PUT', `${at(id)}/requiredActions`, { requiredActions: ['change-password'] })).status).toBe(200);
    // asking for a new password ends nothing yet
    expect((await browser.get('/account')).body).toContain('Account and security');
    const { challenge } = pkce();
    const jar = new CookieJar();
    const started = await postLogin(server, consoleLoginFields(challenge, { email, password: PASSWORD, company: 'acme', scope: 'openid' }));
    expect(started.headers.location).toBe('/oauth/steps');
    jar.keep(started.headers['set-cookie'] as string[] | string | undefined);
    const steps = injectBrowser(server, jar);
    const page = await steps.get('/oauth/steps');
    const done = await steps.post(formAction(page.body)!, { step: 'change-password', password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    await expectEnded(browser);
  });

  it('on Sign out everywhere, even of someone signed in nowhere else', async () => {
    const { id, email } = await person();
    const browser = await signedIn(email);
    const out = await call(server, acme.adminToken, 'POST', `${at(id)}/signOutEverywhere`, {});
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    await expectEnded(browser);
  });

  it('on a block, and stays ended after the unblock', async () => {
    const { id, email } = await person();
    const browser = await signedIn(email);
    expect((await call(server, acme.adminToken, 'POST', `${at(id)}/block`, {})).status).toBe(200);
    await expectEnded(browser);
    expect((await call(server, acme.adminToken, 'POST', `${at(id)}/unblock`, {})).status).toBe(200);
    await expectEnded(browser);
  });

  it("on an administrator's reset of her factors", async () => {
    const { id, email } = await person();
    const browser = await signedIn(email);
    expect((await browser.post('/account/recovery')).body).toContain('<code>');
    expect((await call(server, acme.adminToken, 'DELETE', `${at(id)}/factors`)).status).toBe(200);
    await expectEnded(browser);
  });
});

describe('/account/login runs the sign-in\'s required actions first', () => {
  it('an unverified address: the verification step, nothing of the account (no factor enrolled on it) until it is verified', async () => {
    const { email } = await person(['verify-email']);
    const browser = accountBrowser();
    const page = await browser.post('/account/login', { email, password: PASSWORD, company: 'acme' });
    expect(page.path).toBe('/account/steps');
    expect(page.body).toContain('Verify your e-mail address');
    expect(page.body).not.toContain('Account and security');
    // no account session behind the step: no authenticator app can be enrolled
    const totp = await browser.get('/account/totp');
    expect(totp.body).not.toContain('totp-secret');
    expect((await browser.post('/account/recovery')).body).not.toContain('<code>');
    expect((await browser.post('/account/steps', { step: 'verify-email' })).body).toContain('not verified yet');

    const token = (await outboxLink(email, 'verify')).split('token=')[1];
    await accountBrowser().post('/account/verify', { token });
    const overview = await browser.post('/account/steps', { step: 'verify-email' });
    expect(overview.path).toBe('/account');
    expect(overview.body).toContain('Account and security');
  });

  it('a new password asked by her administrator: chosen before the account is shown', async () => {
    const { email } = await person(['change-password']);
    const browser = accountBrowser();
    const page = await browser.post('/account/login', { email, password: PASSWORD, company: 'acme' });
    expect(page.body).toContain('Choose a new password');
    expect(page.body).not.toContain('Account and security');
    const overview = await browser.post('/account/steps', { step: 'change-password', password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(overview.body).toContain('Account and security');
    // the new password is hers now; the old one no longer opens the page
    expect((await accountBrowser().post('/account/login', { email, password: PASSWORD, company: 'acme' })).status).toBe(401);
  });

  it('an unverified address and a factor owed: the address is verified before any factor can be enrolled on it', async () => {
    const { email } = await person(['enrol-mfa', 'verify-email']);
    const browser = accountBrowser();
    const page = await browser.post('/account/login', { email, password: PASSWORD, company: 'acme' });
    expect(page.body).toContain('Verify your e-mail address');
    expect(page.body).not.toContain('Add a second factor');
    expect(page.body).not.toContain('totp-secret');
    const token = (await outboxLink(email, 'verify')).split('token=')[1];
    await accountBrowser().post('/account/verify', { token });
    const next = await browser.post('/account/steps', { step: 'verify-email' });
    expect(next.body).toContain('Add a second factor');
  });

  it("a factor her administrator asks for: enrolled at the step, then the account", async () => {
    const { email } = await person(['enrol-mfa']);
    const browser = accountBrowser();
    const page = await browser.post('/account/login', { email, password: PASSWORD, company: 'acme' });
    expect(page.body).toContain('Add a second factor');
    expect(page.body).not.toContain('Account and security');
  });
});
