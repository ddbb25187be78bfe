import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { consoleLoginFields, CookieJar, formAction, injectBrowser, pageBrowser, pkce, postLogin, setPassword } from './oauthHelpers.js';

/**
 * Second-factor answers sent at once (issue 34): each is counted before it is checked, in one
 * statement, so twenty wrong codes posted together are twenty tries, of which at most five are
 * checked; the fifth ends the sign-in (one second_factor_failed event, which the hourly factor lock
 * counts) and a right code afterwards gets nothing. The same on the account page.
 */
let server: TestServer;
let acme: Tenant;
const PASSWORD = 'concurrency test password 42';
const MAX = 5;
const secrets: Record<string, string> = {};

const codeOf = (userId: string, steps = 0) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secrets[userId]) }).generate({ timestamp: Date.now() + steps * 30_000 });

/** Twenty wrong answers: ten 6-digit codes none of the right ones, ten recovery-code shapes. */
function wrongCodes(userId: string): string[] {
  const right = new Set([-1, 0, 1, 2].map((steps) => codeOf(userId, steps)));
  const codes: string[] = [];
  for (let n = 100000; codes.length < 10; n += 7919) if (!right.has(String(n))) codes.push(String(n));
  for (let i = 0; i < 10; i++) codes.push(`aaaa-bbbb-cccc-${'defghjkmnp'[i].repeat(4)}`);
  return codes;
}

async function awayFromStepEdge() {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 4000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** The account page with one cookie jar: requests go out as given, redirects are not followed. */
const accountClient = (jar?: CookieJar) => pageBrowser(server, jar, { follow: false });

/** Enrols an authenticator app for the person on the account page; keeps its secret. */
async function enrol(userId: string) {
  const account = accountClient();
  const login = await account.post('/account/login', { email: `${userId}@acme.example`, password: PASSWORD, company: 'acme' });
  expect(login.status).toBe(303);
  const page = await account.get('/account/totp');
  secrets[userId] = /id="totp-secret">([A-Z2-7 ]+)</.exec(page.body)![1].replace(/ /g, '');
  await awayFromStepEdge();
  expect((await account.post('/account/totp', { code: codeOf(userId), label: 'Phone' })).headers.location).toBe('/account?done=totp');
  // the confirming code is spent: let the right code of the tests below be the next step's
  await server.db.query(`UPDATE user_factors SET last_step = NULL WHERE company_id = 'acme' AND user_id = $1`, [userId]);
}

const failedEvents = async (userId: string) =>
  (await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM signin_events WHERE company_id = 'acme' AND user_id = $1 AND outcome = 'second_factor_failed'`, [userId])).rows[0].n;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  for (const userId of ['worker', 'boss']) {
    await setPassword(server, 'acme', acme.domainId, userId, PASSWORD);
    await enrol(userId);
  }
}, 60_000);
afterAll(() => server?.close());

describe('wrong second-factor codes posted at once', () => {
  it('at the sign-in: at most five are checked, the sign-in ends, and a right code afterwards gets no code', async () => {
    const { challenge } = pkce();
    const jar = new CookieJar();
    const started = await postLogin(server, consoleLoginFields(challenge, { email: 'worker@acme.example', password: PASSWORD, company: 'acme', scope: 'openid' }));
    expect(started.headers.location).toBe('/oauth/steps');
    jar.keep(started.headers['set-cookie'] as string[] | string | undefined);
    const browser = injectBrowser(server, jar);
    const page = await browser.get('/oauth/steps');
    expect(page.body).toContain('Second factor');
    const action = formAction(page.body)!;
    const before = await failedEvents('worker');

    const answers = await Promise.all(wrongCodes('worker').map((code) => browser.post(action, { step: 'second-factor', code })));
    // a checked wrong code below the limit shows the step again with its error; every other answer ends or finds the sign-in ended
    const checkedAndShownAgain = answers.filter((answer) => answer.body.includes('That code or key is not right'));
    expect(checkedAndShownAgain.length).toBeLessThanOrEqual(MAX - 1);
    for (const answer of answers) expect(answer.status, answer.body.slice(0, 200)).toBeLessThan(500);
    expect(answers.some((answer) => answer.status === 401 && answer.body.includes('Too many wrong answers'))).toBe(true);
    // one ended sign-in, one event for the hourly lock
    expect(await failedEvents('worker')).toBe(before + 1);

    // the sign-in is over: its page is gone and the right code completes nothing
    expect((await browser.get('/oauth/steps')).status).toBe(400);
    await awayFromStepEdge();
    const late = await browser.post(action, { step: 'second-factor', code: codeOf('worker') });
    expect(late.location).toBeUndefined();
    expect(late.status).toBe(400);
  });

  it('on the account page: at most five are checked, the session ends, and a right code afterwards opens nothing', async () => {
    const account = accountClient();
    const login = await account.post('/account/login', { email: 'boss@acme.example', password: PASSWORD, company: 'acme' });
    expect(login.status).toBe(303);
    expect((await account.get('/account')).body).toContain('Second factor');
    const before = await failedEvents('boss');

    const answers = await Promise.all(wrongCodes('boss').map((code) => account.post('/account/second-factor', { code })));
    const checkedAndShownAgain = answers.filter((answer) => answer.body.includes('That code or key is not right'));
    expect(checkedAndShownAgain.length).toBeLessThanOrEqual(MAX - 1);
    for (const answer of answers) expect(answer.status).toBeLessThan(500);
    expect(await failedEvents('boss')).toBe(before + 1);

    // the session is over: the sign-in form, and the right code afterwards does not open the account
    expect((await account.get('/account')).body).toContain('Sign in');
    await awayFromStepEdge();
    const late = await account.post('/account/second-factor', { code: codeOf('boss') });
    expect(late.status).toBe(303);
    const after = await account.get(late.headers.location as string);
    expect(after.body).not.toContain('Account and security');
    expect(after.body).toContain('Sign in');
  });

  it('a right code among wrong ones sent at once still signs in when it is within the five', async () => {
    await awayFromStepEdge();
    const account = accountClient();
    await account.post('/account/login', { email: 'worker@acme.example', password: PASSWORD, company: 'acme' });
    const answers = await Promise.all([codeOf('worker'), ...wrongCodes('worker').slice(0, 2)].map((code) => account.post('/account/second-factor', { code })));
    expect(answers.filter((answer) => answer.status === 303 && answer.headers.location === '/account')).toHaveLength(1);
    expect((await account.get('/account')).body).toContain('Account and security');
  });
});
