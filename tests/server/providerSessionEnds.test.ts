import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { formAction, injectBrowser, pkce } from './oauthHelpers.js';

/**
 * The provider's browser session (oidc-provider's Session, the iam_session cookie: the SSO hosted
 * applications get) ends with her other sign-ins (migration 37): after Sign out everywhere, a new
 * password, a block or a reset of her factors, the next authorization request asks the password
 * again instead of handing out a code. Untouched, it still signs her in without one.
 */
let server: TestServer;
let alpha: Tenant;
let clientId: string;
const PASSWORD = 'provider session password 1';
const REDIRECT = 'https://app.example/cb';
const at = (id: string) => `/api/companys/alpha/domainNames/${alpha.domainId}/users/${id}`;

beforeAll(async () => {
  server = await startServer();
  alpha = await createTenant(server, 'alpha', 'root', 'customer');
  const app = await call(server, server.adminToken, 'POST', `/api/alpha/${alpha.domainId}/application`, { client_name: 'app', redirect_uris: [REDIRECT] });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  clientId = app.body.client_id;
}, 60_000);
afterAll(() => server?.close());

let made = 0;
async function person(requiredActions: string[] = []) {
  const id = `s${++made}`;
  const response = await call(server, server.adminToken, 'POST', `/api/companys/alpha/domainNames/${alpha.domainId}/users`, {
    id,
    username: id,
    displayName: id,
    email: `${id}@alpha.example`,
    authVerification: await bcrypt.hash(PASSWORD, 10),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  if (requiredActions.length) expect((await call(server, server.adminToken, 'PUT', `${at(id)}/requiredActions`, { requiredActions })).status).toBe(200);
  return { id, email: `${id}@alpha.example` };
}

const authorize = () =>
  `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid email', code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's' })}`;

/** Her hosted sign-in in a browser of her own: the code comes back. */
async function signedIn(email: string) {
  const browser = injectBrowser(server);
  const page = await browser.get(authorize());
  const answer = await browser.post(formAction(page.body)!, { email, password: PASSWORD });
  expect(answer.location?.searchParams.get('code'), answer.body.slice(0, 300)).toBeTruthy();
  return browser;
}

const asksPassword = (answer: { location?: URL; body: string }) => {
  expect(answer.location?.searchParams.get('code') ?? null).toBeNull();
  expect(answer.body).toContain('type="password"');
};

describe("the provider's browser session", () => {
  it('signs her in again without a password while nothing ended it', async () => {
    const her = await person();
    const browser = await signedIn(her.email);
    expect((await browser.get(authorize())).location?.searchParams.get('code')).toBeTruthy();
  });

  const ends: [string, (id: string) => Promise<unknown>][] = [
    ['Sign out everywhere', (id) => call(server, server.adminToken, 'POST', `${at(id)}/signOutEverywhere`, {})],
    ['a new password set by an administrator', async (id) => call(server, server.adminToken, 'POST', `${at(id)}/password`, { authVerification: await bcrypt.hash('another password 77', 10) })],
    ['a block, even after the unblock', async (id) => {
      await call(server, server.adminToken, 'POST', `${at(id)}/block`, {});
      await call(server, server.adminToken, 'POST', `${at(id)}/unblock`, {});
    }],
    ['a reset of her factors', (id) => call(server, server.adminToken, 'DELETE', `${at(id)}/factors`)],
  ];
  for (const [name, end] of ends) {
    it(`ends with ${name}: the next sign-in asks the password`, async () => {
      const her = await person();
      const browser = await signedIn(her.email);
      const done = (await end(her.id)) as { status: number } | undefined;
      if (done) expect(done.status).toBe(200);
      asksPassword(await browser.get(authorize()));
    });
  }

  it("another person's end leaves hers alone", async () => {
    const her = await person();
    const other = await person();
    const browser = await signedIn(her.email);
    expect((await call(server, server.adminToken, 'POST', `${at(other.id)}/signOutEverywhere`, {})).status).toBe(200);
    expect((await browser.get(authorize())).location?.searchParams.get('code')).toBeTruthy();
  });

  it('a new password chosen at the hosted sign-in (a required action) still ends in a code, and the session that follows works', async () => {
    const her = await person(['change-password']);
    const browser = injectBrowser(server);
    const page = await browser.get(authorize());
    const step = await browser.post(formAction(page.body)!, { email: her.email, password: PASSWORD });
    expect(step.body).toContain('Choose a new password');
    const done = await browser.post(formAction(step.body)!, { step: 'change-password', password: 'her own new password 99', confirm: 'her own new password 99' });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    expect((await browser.get(authorize())).location?.searchParams.get('code')).toBeTruthy();
  });
});
