import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';
import { consoleLoginFields, CookieJar, pageBrowser, pkce, postLogin, postToken, redirectParams, SAME_ORIGIN, setPassword } from './oauthHelpers.js';

/**
 * The account page opened from the console (issue 35, docs/DECISIONS.md 44): the console's
 * sign-in, shown by its access token in the Authorization header of POST /account/console, opens
 * the account page without a second password; the account is exactly the sign-in's (company,
 * domain, id); a sign-in ended (Sign out everywhere, a new password, a block, a reset of her
 * factors, the console's own sign-out) opens nothing and ends what it opened; the required actions
 * still come first; changing her factors asks her password once.
 */
let server: TestServer;
let acme: Tenant;
let globex: Tenant;
const PASSWORD = 'account from console 42';
const at = (tenant: Tenant, userId: string) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users/${userId}`;

let made = 0;
/** A new person of `tenant` with a password (and required actions, when given); her id may be chosen. */
async function person(tenant: Tenant, options: { id?: string; name?: string; requiredActions?: string[] } = {}) {
  const id = options.id ?? `c${++made}`;
  const name = options.name ?? `Person ${id} of ${tenant.companyId}`;
  const requiredActions = options.requiredActions ?? [];
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, email_verified, required_actions) VALUES ($1, $2, $3, $3, $4, $3 || '@' || $1 || '.example', $5, $6)`,
    [tenant.companyId, tenant.domainId, id, name, !requiredActions.includes('verify-email'), requiredActions],
  );
  await setPassword(server, tenant.companyId, tenant.domainId, id, PASSWORD);
  return { id, name, email: `${id}@${tenant.companyId}.example` };
}

/** Her access token from the console's real sign-in (POST /oauth/login, then the token endpoint). */
async function consoleSignIn(tenant: Tenant, email: string) {
  const { verifier, challenge } = pkce();
  const login = await postLogin(server, consoleLoginFields(challenge, { email, password: PASSWORD, company: tenant.companyId, scope: 'openid username email' }));
  const code = redirectParams(login)?.params.code;
  expect(code, `${login.statusCode} ${login.headers.location}`).toBeTruthy();
  const token = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: consoleLoginFields('').redirect_uri, client_id: 'iam-console', code_verifier: verifier });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return token.body.access_token as string;
}

/** The console's script: POST /account/console with its token, from its own origin, into the browser's cookie jar. */
async function openFromConsole(jar: CookieJar, token: string | undefined, headers: Record<string, string> = SAME_ORIGIN) {
  const response = await server.app.inject({
    method: 'POST',
    url: '/account/console',
    headers: { ...headers, cookie: jar.header(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  jar.keep(response.headers['set-cookie'] as string | string[] | undefined);
  let location: unknown;
  try {
    location = response.json().location;
  } catch {
    location = undefined;
  }
  return { status: response.statusCode, location, cookies: response.headers['set-cookie'] };
}

/** A browser whose console opened the account page: the page is shown, with no password asked. */
async function opened(token: string, jar = new CookieJar()) {
  const answer = await openFromConsole(jar, token);
  expect(answer.status).toBe(200);
  expect(answer.location).toBe('/account');
  const browser = pageBrowser(server, jar);
  return { browser, page: await browser.get('/account') };
}

const showsAccount = (body: string, name: string) => {
  expect(body).toContain('Account and security');
  expect(body).toContain(name);
  expect(body).not.toContain('type="password"');
};

/** The password form and nothing of any account. */
const showsPasswordForm = (body: string) => {
  expect(body).not.toContain('Account and security');
  expect(body).toContain('type="password"');
};

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  globex = await createTenant(server, 'globex', 'root', 'customer');
}, 60_000);
afterAll(() => server?.close());

describe('the account page opened from the console', () => {
  it("shows her account without a password, with the way back to the console", async () => {
    const her = await person(acme);
    const token = await consoleSignIn(acme, her.email);
    const { browser, page } = await opened(token);
    showsAccount(page.body, her.name);
    expect(page.body).toContain('href="/dashboard"');
    expect(page.body).toContain('Back to the console');
    // the session is the account page's own cookie, HttpOnly, on /account
    expect(browser.jar.header()).toMatch(/iam_account=/);
  });

  it('without a sign-in shows the password form, and a refused token opens nothing', async () => {
    showsPasswordForm((await pageBrowser(server).get('/account')).body);
    for (const token of [undefined, 'not-a-token', `${acme.userToken}x`]) {
      const jar = new CookieJar();
      const answer = await openFromConsole(jar, token);
      expect(answer.status).toBe(401);
      expect(jar.header()).not.toMatch(/iam_account=/);
      showsPasswordForm((await pageBrowser(server, jar).get('/account')).body);
    }
  });

  it("takes only the console's own sign-ins: another application's token of the same person opens nothing", async () => {
    const her = await person(acme);
    const other = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: her.id, clientId: 'some-other-app' });
    expect((await openFromConsole(new CookieJar(), other)).status).toBe(401);
  });

  it("is refused from another site's page (it takes a token, but only from the console's own script)", async () => {
    const her = await person(acme);
    const token = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: her.id });
    const jar = new CookieJar();
    expect((await openFromConsole(jar, token, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(jar.header()).not.toMatch(/iam_account=/);
  });
});

describe('a sign-in that ended opens nothing, and ends what it opened', () => {
  const cases: [string, (id: string, token: string) => Promise<void>][] = [
    ['Sign out everywhere', async (id) => void expect((await call(server, acme.adminToken, 'POST', `${at(acme, id)}/signOutEverywhere`, {})).status).toBe(200)],
    ['a new password set by an administrator', async (id) => void expect((await call(server, acme.adminToken, 'POST', `${at(acme, id)}/password`, { authVerification: await bcrypt.hash('another password 77', 10) })).status).toBe(200)],
    ['a block (and the unblock after it)', async (id) => {
      expect((await call(server, acme.adminToken, 'POST', `${at(acme, id)}/block`, {})).status).toBe(200);
      expect((await call(server, acme.adminToken, 'POST', `${at(acme, id)}/unblock`, {})).status).toBe(200);
    }],
    ["an administrator's reset of her factors (which leaves the console's sign-in itself alone)", async (id) => void expect((await call(server, acme.adminToken, 'DELETE', `${at(acme, id)}/factors`)).status).toBe(200)],
    ["the console's own sign-out (its sign-in revoked)", async (_id, token) => {
      const gid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).gid;
      await server.db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1`, [gid]);
    }],
  ];
  for (const [name, end] of cases) {
    it(`after ${name}`, async () => {
      const her = await person(acme);
      const token = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: her.id });
      const { browser, page } = await opened(token);
      showsAccount(page.body, her.name);
      await end(her.id, token);
      // what it opened is over
      showsPasswordForm((await browser.get('/account')).body);
      expect((await browser.get('/account/totp')).body).not.toContain('totp-secret');
      // and the same token opens nothing any more
      const again = new CookieJar();
      expect((await openFromConsole(again, token)).status).toBe(401);
      showsPasswordForm((await pageBrowser(server, again).get('/account')).body);
    });
  }

  it('a factor reset before the sign-in does not stop it', async () => {
    const her = await person(acme);
    expect((await call(server, acme.adminToken, 'DELETE', `${at(acme, her.id)}/factors`)).status).toBe(200);
    // (the reset's time and the sign-in's are apart)
    await new Promise((resolve) => setTimeout(resolve, 20));
    const token = await consoleSignIn(acme, her.email);
    showsAccount((await opened(token)).page.body, her.name);
  });
});

describe('tenants', () => {
  it("shows the sign-in's own account, never another tenant's of the same id, whatever the query or the cookies", async () => {
    const inAcme = await person(acme, { id: 'same-id', name: 'Ada of Acme' });
    const inGlobex = await person(globex, { id: 'same-id', name: 'Gus of Globex' });
    // a browser that keeps its cookies across tenants: first Globex's person on the account page
    const jar = new CookieJar();
    const globexPage = await pageBrowser(server, jar).post('/account/login', { email: inGlobex.email, password: PASSWORD, company: 'globex' });
    showsAccount(globexPage.body, 'Gus of Globex');
    // then Acme's console sign-in opens it: Acme's person, even where the query names Globex
    const token = await consoleSignIn(acme, inAcme.email);
    const { browser, page } = await opened(token, jar);
    showsAccount(page.body, 'Ada of Acme');
    expect(page.body).not.toContain('Gus of Globex');
    const named = await browser.get('/account?company=globex&domain=globex-domain');
    expect(named.body).toContain('Ada of Acme');
    expect(named.body).not.toContain('Gus of Globex');
  });

  it('a token whose sign-in is of another tenant than it says opens nothing (never matched by bare id)', async () => {
    const inAcme = await person(acme, { id: 'twin' });
    await person(globex, { id: 'twin' });
    const token = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: inAcme.id });
    const gid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).gid;
    // the sign-in row says Globex's twin, the token Acme's: they are not the same account
    await server.db.query(`UPDATE oauth_grants SET company_id = 'globex', domain_id = 'globex-domain' WHERE id = $1`, [gid]);
    expect((await openFromConsole(new CookieJar(), token)).status).toBe(401);
  });
});

describe('what still asks', () => {
  it('the required actions come first, before anything of the account', async () => {
    const her = await person(acme, { requiredActions: ['change-password'] });
    const token = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: her.id });
    const jar = new CookieJar();
    const answer = await openFromConsole(jar, token);
    expect(answer.status).toBe(200);
    expect(answer.location).toBe('/account/steps');
    const browser = pageBrowser(server, jar);
    const step = await browser.get('/account/steps');
    expect(step.body).toContain('Choose a new password');
    showsPasswordForm((await browser.get('/account')).body);
    // the new password ends every sign-in the old one made, the console's too: she signs in with it
    const done = await browser.post('/account/steps', { step: 'change-password', password: 'her own new password 99', confirm: 'her own new password 99' });
    showsPasswordForm(done.body);
    expect((await openFromConsole(new CookieJar(), token)).status).toBe(401);
  });

  it('changing her factors asks her password once (a fresh proof); removing one asks it every time', async () => {
    const her = await person(acme);
    const token = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: her.id });
    const { browser } = await opened(token);
    for (const ask of [() => browser.get('/account/totp'), () => browser.get('/account/passkey'), () => browser.post('/account/recovery')]) {
      const page = await ask();
      expect(page.body).toContain('Confirm it is you');
      expect(page.body).not.toContain('totp-secret');
      expect(page.body).not.toContain('recovery-codes');
    }
    const wrong = await browser.post('/account/confirm', { password: 'not her password', next: '/account/totp' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Wrong password.');
    // a next that is not one of the page's own goes to the account page
    const elsewhere = await browser.post('/account/confirm', { password: PASSWORD, next: 'https://evil.example/' });
    expect(elsewhere.path).toBe('/account');
    const app = await browser.get('/account/totp');
    expect(app.body).toContain('totp-secret');
    const codes = await browser.post('/account/recovery');
    expect(codes.body).toContain('recovery-codes');
    // the removal page still asks the password, as it always did
    const factor = await server.db.query<{ id: string }>(`SELECT id FROM user_factors WHERE company_id = 'acme' AND user_id = $1 LIMIT 1`, [her.id]);
    expect(factor.rows[0]).toBeTruthy();
    expect((await browser.get(`/account/factors/${factor.rows[0].id}/remove`)).body).toContain('Type your password to confirm');
  });

  it("the password typed again goes through the sign-in's throttle, across the sessions the token opens", async () => {
    // a server of its own whose accounts are locked after ten failures
    const main = server;
    server = await startServer({ loginLimits: { failuresPerAccount: 10 } });
    try {
      const tenant = await createTenant(server, 'acme', 'root', 'customer');
      const her = await person(tenant);
      const token = await tokenFor(server.ctx, { companyId: tenant.companyId, domainId: tenant.domainId, userId: her.id });
      // new sessions from the same token: five tries each would be endless, the throttle is not
      for (let round = 0; round < 3; round++) {
        const { browser } = await opened(token);
        for (let i = 0; i < 4; i++) await browser.post('/account/confirm', { password: `wrong ${round} ${i}`, next: '/account/totp' });
      }
      const { rows } = await server.db.query<{ outcome: string; n: number }>(
        `SELECT outcome, count(*)::integer AS n FROM signin_events WHERE company_id = 'acme' AND user_id = $1 GROUP BY outcome`,
        [her.id],
      );
      expect(Object.fromEntries(rows.map((row) => [row.outcome, row.n]))).toEqual({ wrong_password: 10, throttled: 2 });
      const { browser } = await opened(token);
      const refused = await browser.post('/account/confirm', { password: PASSWORD, next: '/account/totp' });
      expect(refused.status).toBe(429);
      expect(refused.body).toContain('Too many failed sign-in attempts');
      expect((await browser.get('/account/totp')).body).not.toContain('totp-secret');
    } finally {
      await server.close();
      server = main;
    }
  });

  it('five wrong passwords end the session opened from the console', async () => {
    const her = await person(acme);
    const token = await tokenFor(server.ctx, { companyId: acme.companyId, domainId: acme.domainId, userId: her.id });
    const { browser } = await opened(token);
    for (let i = 0; i < 5; i++) await browser.post('/account/confirm', { password: `wrong ${i}`, next: '/account/totp' });
    showsPasswordForm((await browser.get('/account')).body);
  });
});
