import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ORGANIZATIONS } from '../../server/oauth/organizationSearch.js';
import { createTenant, startServer, type TestServer } from './helpers.js';
import { CONSOLE_REDIRECT, consoleLoginFields, injectBrowser, pkce, postLogin, postToken, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * The organization found, not demanded (docs/CONSOLE.md, "Sign-in form"): the console's sign-in with
 * an address and a password and no organization looks, past the console's own tenant, at the
 * accounts with that address that hold a console role; one proved signs in there, several let her
 * pick among them, none is the usual "Wrong email or password" and costs the same.
 */
let server: TestServer;
const PASSWORD = 'the boss of acme 42';

async function signInWithout(email: string, password: string, company?: string) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, { email, password, ...(company ? { company } : {}) }));
  return { response, verifier, params: redirectParams(response)?.params };
}

const events = async (login: string) =>
  (await server.db.query<{ company_id: string; outcome: string }>(`SELECT company_id, outcome FROM signin_events WHERE login = $1 ORDER BY id`, [login])).rows;

/** The throttle's refusal, as the console's form gets it back: its sentence and its wait, nothing else. */
function expectThrottled(answer: Awaited<ReturnType<typeof signInWithout>>) {
  expect(answer.response.statusCode).toBe(303);
  expect(answer.response.headers.location).toMatch(/^http.*\/callback\?/);
  expect(answer.params).toMatchObject({ error: 'access_denied', error_description: expect.stringMatching(/^Too many failed sign-in attempts\. Try again in/) });
  expect(Number(answer.params?.retry_after)).toBeGreaterThan(0);
  expect(answer.response.headers['retry-after']).toBe(answer.params?.retry_after);
  expect(answer.params?.code).toBeUndefined();
}

beforeAll(async () => {
  server = await startServer({ loginLimits: { failuresPerAccount: 8 } });
  for (const company of ['acme', 'globex', 'initech', 'umbrella']) await createTenant(server, company, 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'boss', PASSWORD);
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
}, 120_000);
afterAll(() => server?.close());

describe('a console sign-in naming no organization', () => {
  it("finds the one account the password proves, and signs her in to its organization", async () => {
    const { response, verifier, params } = await signInWithout('boss@acme.example', PASSWORD);
    expect(response.statusCode).toBe(303);
    expect(params?.code, JSON.stringify(params)).toBeTruthy();
    const token = await postToken(server, { grant_type: 'authorization_code', code: params!.code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.client).toMatchObject({ companyId: 'acme', domain: 'acme-domain' });
    // recorded as a success of acme's, and as nothing at the console's own tenant
    expect(await events('boss@acme.example')).toEqual([{ company_id: 'acme', outcome: 'success' }]);
  });

  it('never finds an account that holds no console role, nor proves one with a wrong password', async () => {
    expect((await signInWithout('worker@acme.example', PASSWORD)).params).toMatchObject({ error: 'access_denied', error_description: 'Wrong email or password' });
    expect((await signInWithout('boss@acme.example', 'not the password')).params).toMatchObject({ error: 'access_denied', error_description: 'Wrong email or password' });
    // the failure is the console tenant's unknown address, as before
    expect((await events('worker@acme.example')).map((event) => event.company_id)).toEqual(['root']);
  });

  it('lets her pick among the organizations the password proved, naming them only then; the pick signs her in there, once', async () => {
    for (const company of ['globex', 'initech']) {
      await server.db.query(`UPDATE users SET email = 'shared@example.com' WHERE company_id = $1 AND id = 'boss'`, [company]);
      await setPassword(server, company, `${company}-domain`, 'boss', 'shared password 1');
    }
    // a wrong password names nobody
    const wrong = await signInWithout('shared@example.com', 'not the shared one');
    expect(wrong.params).toMatchObject({ error: 'access_denied', error_description: 'Wrong email or password' });
    expect(wrong.response.headers.location).not.toMatch(/globex|initech/);

    const browser = injectBrowser(server);
    const { verifier, challenge } = pkce();
    const page = await browser.post('/oauth/login', consoleLoginFields(challenge, { email: 'shared@example.com', password: 'shared password 1' }));
    expect(page.status).toBe(200);
    expect(page.path).toBe('/oauth/pick');
    expect(page.body).toContain('Choose your organization');
    expect(page.body).toContain(`<a href="${new URL('/login', CONSOLE_REDIRECT)}">Back to sign-in</a>`);
    const choices = [...page.body.matchAll(/<button type="submit" name="choice" value="(\d)">([^<]+)<\/button>/g)].map(([, value, label]) => ({ value, label }));
    expect(choices.map((choice) => choice.label)).toEqual(['globex › globex-domain', 'initech › initech-domain']);
    // on record in each organization the password proved, for her account there
    const recorded = await server.db.query<{ company_id: string; domain_id: string; user_id: string; client_id: string; outcome: string }>(
      `SELECT company_id, domain_id, user_id, client_id, outcome FROM signin_events WHERE login = 'shared@example.com' AND outcome <> 'unknown_user' ORDER BY company_id`,
    );
    expect(recorded.rows).toEqual(
      ['globex', 'initech'].map((company) => ({ company_id: company, domain_id: `${company}-domain`, user_id: 'boss', client_id: 'iam-console', outcome: 'several_organizations' })),
    );
    // another browser (no cookie) has nothing to pick
    expect((await injectBrowser(server).get('/oauth/pick')).status).toBe(400);
    expect((await injectBrowser(server).post('/oauth/pick', { choice: '0' })).status).toBe(400);

    const picked = await browser.post('/oauth/pick', { choice: choices.find((choice) => choice.label.startsWith('initech'))!.value });
    expect(picked.location?.origin + picked.location!.pathname).toBe(CONSOLE_REDIRECT);
    const code = picked.location!.searchParams.get('code');
    expect(code, picked.location?.toString()).toBeTruthy();
    const token = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.client).toMatchObject({ companyId: 'initech', domain: 'initech-domain' });
    // one pick per password: the same browser cannot pick again
    expect((await browser.post('/oauth/pick', { choice: '0' })).status).toBe(400);
    expect((await browser.get('/oauth/pick')).status).toBe(400);

    // a password proving only one of them signs in there
    await setPassword(server, 'initech', 'initech-domain', 'boss', 'initech only 2');
    const one = await signInWithout('shared@example.com', 'initech only 2');
    expect(one.params?.code).toBeTruthy();
    // naming the organization works as before
    expect((await signInWithout('shared@example.com', 'shared password 1', 'globex')).params?.code).toBeTruthy();
  });

  it('blocking an account ends the pick of it; signing in again finds only the one still open', async () => {
    for (const company of ['hooli', 'stark']) {
      await createTenant(server, company, 'root', 'customer');
      await server.db.query(`UPDATE users SET email = 'twice@example.com' WHERE company_id = $1 AND id = 'boss'`, [company]);
      await setPassword(server, company, `${company}-domain`, 'boss', 'twice password 4');
    }
    const browser = injectBrowser(server);
    const page = await browser.post('/oauth/login', consoleLoginFields(pkce().challenge, { email: 'twice@example.com', password: 'twice password 4' }));
    expect(page.path).toBe('/oauth/pick');
    const hooli = /<button type="submit" name="choice" value="(\d)">hooli › hooli-domain<\/button>/.exec(page.body)?.[1];
    expect(hooli).toBeDefined();
    // blocked meanwhile: her parked sign-ins end with her sessions (migration 21's trigger), the pick among them
    await server.db.query(`UPDATE users SET blocked_at = now() WHERE company_id = 'hooli' AND id = 'boss'`);
    const picked = await browser.post('/oauth/pick', { choice: hooli! });
    expect(picked.status).toBe(400);
    expect(picked.body).toContain('This sign-in has expired');
    expect(picked.location).toBeUndefined();
    const again = await signInWithout('twice@example.com', 'twice password 4');
    expect(again.params?.code, JSON.stringify(again.params)).toBeTruthy();
    const token = await postToken(server, { grant_type: 'authorization_code', code: again.params!.code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: again.verifier });
    expect(token.body.client).toMatchObject({ companyId: 'stark' });
  });

  it('refuses a blocked account it finds only after its right password', async () => {
    await server.db.query(`UPDATE users SET blocked_at = now() WHERE company_id = 'umbrella' AND id = 'boss'`);
    await setPassword(server, 'umbrella', 'umbrella-domain', 'boss', 'umbrella password 3');
    expect((await signInWithout('boss@umbrella.example', 'a wrong one')).params?.error_description).toBe('Wrong email or password');
    const blocked = await signInWithout('boss@umbrella.example', 'umbrella password 3');
    // back to the console's form, saying so (docs/CONSOLE.md, "Sign-in form")
    expect(blocked.response.statusCode).toBe(303);
    expect(blocked.params).toMatchObject({ error: 'access_denied', error_description: 'This account is blocked. Ask your administrator to unblock it.' });
  });

  it('checks the password the same number of times whether none, one or several accounts exist', async () => {
    // at most MAX_ORGANIZATIONS accounts, each a bcrypt: a missing one costs a dummy, so a wrong
    // password's time says nothing of how many there are
    const time = async (email: string) => {
      const started = process.hrtime.bigint();
      await signInWithout(email, 'wrong password for timing');
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    // (the counters of the tries above: a refused try checks no password at all)
    await server.db.query('DELETE FROM login_attempts');
    await time('nobody@nowhere.example');
    const none: number[] = [];
    const several: number[] = [];
    for (let i = 0; i < 6; i++) {
      none.push(await time(`nobody${i}@nowhere.example`));
      several.push(await time('shared@example.com'));
    }
    const [a, b] = [median(none), median(several)];
    expect(MAX_ORGANIZATIONS).toBeGreaterThan(1);
    expect(Math.abs(a - b) / Math.max(a, b), `none ${a.toFixed(1)} ms, several ${b.toFixed(1)} ms`).toBeLessThan(0.25);
  }, 60_000);

  it('counts on the address typed, across organizations, before any password is checked', async () => {
    await server.db.query('DELETE FROM login_attempts');
    let last;
    for (let i = 0; i < 9; i++) last = await signInWithout('boss@acme.example', `guess ${i}`);
    // the console's form comes back with the throttle's sentence, not the provider's 429 page
    expectThrottled(last!);
    // the right password too, until the window ends
    const right = await signInWithout('boss@acme.example', PASSWORD);
    expectThrottled(right);
    // an address nobody has is told the same, once its own counter is full (nothing says who exists)
    for (let i = 0; i < 9; i++) last = await signInWithout('nobody-at-all@nowhere.example', `guess ${i}`);
    expectThrottled(last!);
    // (another application's form post keeps the provider's own page, 429: throttle.test.ts)
  });
});
