import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rehashAfterSignIn } from '../../server/accounts/importedHashes.js';
import { bcryptCost } from '../../server/passwords.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { everyForm, FIREBASE_SAMPLE, pbkdf2Form, saltedForm } from './importedHashesForms.js';
import { basicAuth, consoleLoginFields, formAction, injectBrowser, pkce, postLogin, postToken, redirectParams } from './oauthHelpers.js';

/**
 * Imported password hashes at sign-in (docs/CONSOLE.md, "Imported password hashes"): an account
 * whose password_hash is one of the imported forms signs in with its password through the hosted
 * sign-in page (and the console's form, with or without its organization), and its hash becomes the
 * provider's bcrypt at that first sign-in: without an audit record, without ending a session, and
 * not over a password changed meanwhile. A wrong password fails and changes nothing. The hashes are
 * put on the users straight in the database, as an import would leave them.
 */
let server: TestServer;
let acme: Tenant;
const PASSWORD = 'brought over from elsewhere 7';
let app: { client_id: string; client_secret?: string; redirect: string };

const storedHash = async (userId: string) =>
  (await server.db.query<{ hash: string | null }>(`SELECT password_hash AS hash FROM users WHERE company_id = 'acme' AND domain_id = 'acme-domain' AND id = $1`, [userId])).rows[0]?.hash;

async function addUser(id: string, hash: string, requiredActions: string[] = []) {
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash, required_actions)
     VALUES ('acme', 'acme-domain', $1, $1, $1, $1 || '@acme.example', $2, $3)`,
    [id, hash, requiredActions],
  );
}

/** The hosted sign-in of acme's application as `email`: the code when it comes back, else the page shown. */
async function hostedSignIn(email: string, password: string, browser = injectBrowser(server)) {
  const { verifier, challenge } = pkce();
  const authorize = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect, scope: 'openid email', code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`;
  const page = await browser.get(authorize);
  expect(page.body).toContain('type="password"');
  const answer = await browser.post(formAction(page.body)!, { email, password });
  return { browser, answer, verifier, code: answer.location?.searchParams.get('code') ?? undefined };
}

const redeem = (code: string, verifier: string) =>
  postToken(server, { grant_type: 'authorization_code', code, redirect_uri: app.redirect, code_verifier: verifier }, { authorization: basicAuth(app.client_id, app.client_secret!) });

const auditActions = async (userId: string) =>
  (await server.db.query<{ action: string }>(`SELECT action FROM audit_events WHERE company_id = 'acme' AND resource_type = 'users' AND resource_id = $1 ORDER BY id`, [userId])).rows.map((row) => row.action);

const outcomes = async (userId: string) =>
  (await server.db.query<{ outcome: string }>(`SELECT outcome FROM signin_events WHERE company_id = 'acme' AND user_id = $1 ORDER BY id`, [userId])).rows.map((row) => row.outcome);

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  const redirect = 'https://shop.acme.example/cb';
  const created = await call(server, server.adminToken, 'POST', `/api/acme/acme-domain/application`, { client_name: 'shop', app_type: 'web', redirect_uris: [redirect] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  app = { ...created.body, redirect };
}, 120_000);
afterAll(() => server?.close());

describe('signing in with an imported hash', () => {
  it('works in every form through the hosted sign-in page, re-hashes to bcrypt once, and the next sign-in uses the bcrypt', async () => {
    // (MD5 asks for a new password first: below)
    const forms: Record<string, string> = { ...(await everyForm(PASSWORD)), firebase: FIREBASE_SAMPLE.hash };
    delete forms.md5;
    let n = 0;
    for (const [name, hash] of Object.entries(forms)) {
      const id = `imported-${++n}`;
      const password = name === 'firebase' ? FIREBASE_SAMPLE.password : PASSWORD;
      await addUser(id, hash);

      const first = await hostedSignIn(`${id}@acme.example`, password);
      expect(first.code, `${name}: ${first.answer.status} ${first.answer.body.slice(0, 200)}`).toBeTruthy();
      const tokens = await redeem(first.code!, first.verifier);
      expect(tokens.status, name).toBe(200);

      const after = (await storedHash(id))!;
      if (name === 'bcrypt cost 10 ($2y$, PHP)') {
        // already the provider's own: left as it is
        expect(after, name).toBe(hash);
      } else {
        expect(after, name).not.toBe(hash);
        expect(bcryptCost(after), name).toBe(10);
      }
      const again = await hostedSignIn(`${id}@acme.example`, password);
      expect(again.code, name).toBeTruthy();
      expect(await storedHash(id), name).toBe(after);
      expect(await hostedSignIn(`${id}@acme.example`, `${password}x`).then((answer) => answer.code), name).toBeUndefined();

      // not a new password: no setPassword in her history, and the sign-in's token still works
      expect(await auditActions(id), name).toEqual([]);
      expect(await outcomes(id), name).toEqual(['success', 'success', 'wrong_password']);
      const userinfo = await server.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { authorization: `Bearer ${tokens.body.access_token}` } });
      expect(userinfo.statusCode, name).toBe(200);
    }
  });

  it('fails with a wrong password and leaves the imported hash as it was', async () => {
    const hash = pbkdf2Form(PASSWORD, 'sha256');
    await addUser('wrong-1', hash);
    const wrong = await hostedSignIn('wrong-1@acme.example', 'not the password 1');
    expect(wrong.code).toBeUndefined();
    expect(wrong.answer.status).toBe(401);
    expect(wrong.answer.body).toContain('Wrong email or password');
    expect(await storedHash('wrong-1')).toBe(hash);
    expect(await outcomes('wrong-1')).toEqual(['wrong_password']);
  });

  it('refuses a hash out of bounds written to the database by other means like a wrong password, quickly and without a 500', async () => {
    // an argon2id of 4 GiB and 1000 passes: checked, it would hold a password thread for minutes
    await addUser('hostile-1', `$argon2id$v=19$m=4194304,t=1000,p=1$c2FsdHNhbHRzYWx0$${'A'.repeat(43)}`);
    const started = Date.now();
    const answer = await hostedSignIn('hostile-1@acme.example', PASSWORD);
    expect(answer.code).toBeUndefined();
    expect(answer.answer.status).toBe(401);
    expect(answer.answer.body).toContain('Wrong email or password');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('MD5: the import asked for a new password; the step refuses the imported one, even still in its imported form, and takes another', async () => {
    await addUser('md5-1', saltedForm(PASSWORD, 'md5', 'suffix'), ['change-password']);
    const first = await hostedSignIn('md5-1@acme.example', PASSWORD);
    expect(first.code).toBeUndefined();
    expect(first.answer.body).toContain('Choose a new password');
    // re-hashed at the password already
    expect(bcryptCost((await storedHash('md5-1'))!)).toBe(10);
    const action = formAction(first.answer.body)!;
    expect((await first.browser.post(action, { step: 'change-password', password: PASSWORD, confirm: PASSWORD })).body).toContain('different from the one you signed in with');
    // the same check against the imported form (a re-hash that had not happened yet)
    await server.db.query(`UPDATE users SET password_hash = $1 WHERE company_id = 'acme' AND domain_id = 'acme-domain' AND id = 'md5-1'`, [saltedForm(PASSWORD, 'md5', 'prefix')]);
    expect((await first.browser.post(action, { step: 'change-password', password: PASSWORD, confirm: PASSWORD })).body).toContain('different from the one you signed in with');
    const done = await first.browser.post(action, { step: 'change-password', password: 'a password of her own 42', confirm: 'a password of her own 42' });
    expect(done.location?.searchParams.get('code')).toBeTruthy();
    expect(await auditActions('md5-1')).toEqual(['changePassword']);
    expect((await hostedSignIn('md5-1@acme.example', 'a password of her own 42')).code).toBeTruthy();
    expect((await hostedSignIn('md5-1@acme.example', PASSWORD)).code).toBeUndefined();
  });

  it("re-hashes at the console's sign-in too, with or without its organization", async () => {
    // worker: an ordinary account, named with her organization
    await server.db.query(`UPDATE users SET password_hash = $1 WHERE company_id = 'acme' AND id = 'worker'`, [saltedForm(PASSWORD, 'sha256', 'prefix')]);
    const named = await postLogin(server, consoleLoginFields(pkce().challenge, { email: 'worker@acme.example', password: PASSWORD, company: 'acme' }));
    expect(redirectParams(named)?.params.code, named.headers.location as string).toBeTruthy();
    expect(bcryptCost((await storedHash('worker'))!)).toBe(10);
    // boss: an administrator of acme found by her address alone (docs/CONSOLE.md, "Sign-in form")
    await server.db.query(`UPDATE users SET password_hash = $1 WHERE company_id = 'acme' AND id = 'boss'`, [pbkdf2Form(PASSWORD, 'sha512')]);
    const found = await postLogin(server, consoleLoginFields(pkce().challenge, { email: 'boss@acme.example', password: PASSWORD }));
    expect(redirectParams(found)?.params.code, found.headers.location as string).toBeTruthy();
    expect(bcryptCost((await storedHash('boss'))!)).toBe(10);
    expect(await auditActions('boss')).toEqual([]);
  });

  it("keeps the account page's sessions, which a new password ends", async () => {
    await addUser('pages-1', pbkdf2Form(PASSWORD, 'sha256'));
    const session = () =>
      server.db.query(`INSERT INTO account_sessions (id, company_id, domain_id, user_id, expires_at) VALUES ($1, 'acme', 'acme-domain', 'pages-1', now() + interval '1 hour')`, [
        crypto.randomUUID(),
      ]);
    const sessions = async () => (await server.db.query(`SELECT 1 FROM account_sessions WHERE company_id = 'acme' AND user_id = 'pages-1'`)).rows.length;
    await session();
    expect((await hostedSignIn('pages-1@acme.example', PASSWORD)).code).toBeTruthy();
    expect(bcryptCost((await storedHash('pages-1'))!)).toBe(10);
    expect(await sessions()).toBe(1);
    // an administrator's new password still ends it
    const user = `/api/companys/acme/domainNames/acme-domain/users/pages-1`;
    const record = (await call(server, acme.adminToken, 'GET', user)).body;
    const set = await call(server, acme.adminToken, 'PUT', user, { ...record, authVerification: bcrypt.hashSync('set by an administrator 3', 10) });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(await sessions()).toBe(0);
  });

  it('never writes over a password changed since it was proved', async () => {
    const imported = pbkdf2Form(PASSWORD, 'sha256');
    await addUser('race-1', imported);
    const changed = saltedForm('changed meanwhile 9', 'sha512', 'prefix');
    await server.db.query(`UPDATE users SET password_hash = $1 WHERE company_id = 'acme' AND id = 'race-1'`, [changed]);
    // the sign-in read the user (and proved the password) before the change
    const proved = { companyId: 'acme', domainId: 'acme-domain', id: 'race-1', passwordHash: imported };
    expect(await rehashAfterSignIn(server.db, proved, PASSWORD)).toBe(false);
    expect(await storedHash('race-1')).toBe(changed);
    // and with the hash as proved, it re-hashes
    expect(await rehashAfterSignIn(server.db, { ...proved, passwordHash: changed }, 'changed meanwhile 9')).toBe(true);
    expect(bcryptCost((await storedHash('race-1'))!)).toBe(10);
  });
});
