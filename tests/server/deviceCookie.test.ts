import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTotp, newTotpSecret } from '../../server/accounts/factors.js';
import { createTenant, PUBLIC_URL, startServer, type TestServer } from './helpers.js';
import { CONSOLE_REDIRECT, consoleLoginFields, CookieJar, formAction, injectBrowser, pkce, postLogin, setPassword } from './oauthHelpers.js';

/**
 * The device cookie (the sign-in throttle's relief for a browser that signed in before,
 * server/oauth/loginThrottle.ts) is set only when a sign-in is complete: someone who knows the
 * password but not the second factor must not get a browser the throttle trusts. Checked on the
 * console's form post, the hosted sign-in page and the account page.
 */
let server: TestServer;
const PASSWORD = 'device cookie password 42';
const SAME = { 'sec-fetch-site': 'same-origin' };
const WITH_FACTOR = 'boss@devco.example';
const WITHOUT = 'worker@devco.example';
let secret = '';
const code = () => new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate();

const cookiesOf = (response: { headers: Record<string, unknown> }) => [response.headers['set-cookie'] ?? []].flat().map(String);
const setsDevice = (response: { headers: Record<string, unknown> }) => cookiesOf(response).some((cookie) => /^iam_device=[^;]+/.test(cookie));
const holdsDevice = (jar: CookieJar) => /(^|; )iam_device=/.test(jar.header());

/**
 * Waits until the TOTP step has at least 3 s left, so a code made now is checked in the same step;
 * forgets the last step used (a code is good once, and each test uses the current one).
 */
async function awayFromStepEdge() {
  await server.db.query(`UPDATE user_factors SET last_step = NULL WHERE company_id = 'devco' AND user_id = 'boss'`);
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

beforeAll(async () => {
  server = await startServer();
  await createTenant(server, 'devco', 'root', 'customer');
  await setPassword(server, 'devco', 'devco-domain', 'boss', PASSWORD);
  await setPassword(server, 'devco', 'devco-domain', 'worker', PASSWORD);
  secret = newTotpSecret();
  await addTotp(server.db, { companyId: 'devco', domainId: 'devco-domain', id: 'boss' }, secret, 0, 'phone');
}, 60_000);
afterAll(() => server?.close());

describe("the console's form post", () => {
  it('sets no device cookie when the sign-in stops at the second factor; sets it once the code is issued', async () => {
    await awayFromStepEdge();
    const { challenge } = pkce();
    const first = await postLogin(server, consoleLoginFields(challenge, { email: WITH_FACTOR, password: PASSWORD, company: 'devco' }), SAME);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/oauth/steps');
    expect(setsDevice(first)).toBe(false);

    const jar = new CookieJar();
    jar.keep(cookiesOf(first));
    const browser = injectBrowser(server, jar, { headers: SAME });
    const page = await browser.get('/oauth/steps');
    expect(page.body).toContain('Second factor');
    // a wrong code: still no device cookie
    const wrong = await browser.post(formAction(page.body)!, { step: 'second-factor', code: code() === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    expect(holdsDevice(jar)).toBe(false);

    const done = await browser.post(formAction(page.body)!, { step: 'second-factor', code: code() });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    expect(setsDevice(done)).toBe(true);
    expect(holdsDevice(jar)).toBe(true);
  });

  it('sets it at once when the password is the whole sign-in', async () => {
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { email: WITHOUT, password: PASSWORD, company: 'devco' }), SAME);
    expect(response.statusCode).toBe(303);
    expect(new URL(String(response.headers.location)).searchParams.get('code')).toBeTruthy();
    expect(setsDevice(response)).toBe(true);
  });

  it('sets none after a wrong password', async () => {
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { email: WITHOUT, password: 'not the password 1', company: 'devco' }), SAME);
    expect(setsDevice(response)).toBe(false);
  });
});

describe('the hosted sign-in page', () => {
  const authorize = () =>
    `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's', company: 'devco' })}`;

  it('sets no device cookie at the second factor; sets it when the interaction ends', async () => {
    await awayFromStepEdge();
    const browser = injectBrowser(server, new CookieJar(), { headers: SAME });
    const login = await browser.get(authorize());
    const step = await browser.post(formAction(login.body)!, { email: WITH_FACTOR, password: PASSWORD });
    expect(step.path).toMatch(/^\/oauth\/interaction\/[^/]+\/steps$/);
    expect(step.body).toContain('Second factor');
    expect(holdsDevice(browser.jar)).toBe(false);

    // an attacker with the password only: leaves the step page and tries again, still no cookie
    expect((await browser.get(step.path)).body).toContain('Second factor');
    expect(holdsDevice(browser.jar)).toBe(false);

    const done = await browser.post(formAction(step.body)!, { step: 'second-factor', code: code() });
    expect(done.location?.toString().startsWith(CONSOLE_REDIRECT), `${done.status} ${done.body.slice(0, 300)}`).toBe(true);
    expect(done.location?.searchParams.get('code')).toBeTruthy();
    expect(holdsDevice(browser.jar)).toBe(true);
  });

  it('sets it when the password is the whole sign-in', async () => {
    const browser = injectBrowser(server, new CookieJar(), { headers: SAME });
    const login = await browser.get(authorize());
    const done = await browser.post(formAction(login.body)!, { email: WITHOUT, password: PASSWORD });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    expect(holdsDevice(browser.jar)).toBe(true);
  });
});

describe('the account page', () => {
  it('sets no device cookie before the second factor; sets it once the factor is proved', async () => {
    await awayFromStepEdge();
    const jar = new CookieJar();
    const post = async (url: string, form: Record<string, string>) => {
      const response = await server.app.inject({
        method: 'POST',
        url,
        headers: { ...SAME, cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      });
      jar.keep(cookiesOf(response));
      return response;
    };
    const signedIn = await post('/account/login', { email: WITH_FACTOR, password: PASSWORD, company: 'devco' });
    expect(signedIn.statusCode).toBe(303);
    expect(jar.header()).toMatch(/iam_account=/);
    expect(setsDevice(signedIn)).toBe(false);
    const page = await server.app.inject({ method: 'GET', url: '/account', headers: { cookie: jar.header() } });
    expect(page.body).toContain('Second factor');
    const proved = await post('/account/second-factor', { code: code() });
    expect(proved.statusCode).toBe(303);
    expect(new URL(String(proved.headers.location), PUBLIC_URL).pathname).toBe('/account');
    expect(setsDevice(proved)).toBe(true);
  });
});
