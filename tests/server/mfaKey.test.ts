import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, type ServerConfig } from '../../server/config.js';
import { openDatabase, type Database } from '../../server/db/index.js';
import { seedFirstRun } from '../../server/seed.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, createTenant, PUBLIC_URL, pgliteDump, serverOn, type TestServer } from './helpers.js';
import { CookieJar, pageBrowser, SAME_ORIGIN, setPassword } from './oauthHelpers.js';

/**
 * The key of authenticator app secrets is never in the database that holds them (issue 34): MFA_KEY,
 * or for the embedded database DATA_DIR/mfa-key (made on first need, mode 0600). A key left in the
 * database by an older version is moved out at start-up (secrets encrypted again, the stored key
 * deleted); PostgreSQL without MFA_KEY refuses to start when secrets exist.
 */
const PASSWORD = 'mfa key test password 42';
const servers: TestServer[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mfa-key-'));
  folders.push(dir);
  return dir;
};

/** AES-256-GCM as server/accounts/factors.ts seals: v1.iv.tag.body, base64url. */
function seal(key: Buffer, plain: string) {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}
function open(key: Buffer, sealed: string) {
  const [, iv, tag, body] = sealed.split('.');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

async function start(db: Database, overrides: Parameters<typeof serverOn>[1]) {
  const server = await serverOn(db, overrides);
  servers.push(server);
  return server;
}

/** Enrols an authenticator app for worker@acme on the account page: its secret. */
async function enrolWorker(server: TestServer): Promise<string> {
  await createTenant(server, 'acme', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
  const browser = pageBrowser(server, new CookieJar(), { follow: false });
  expect((await browser.post('/account/login', { email: 'worker@acme.example', password: PASSWORD, company: 'acme' })).headers.location).toBe('/account');
  const page = await browser.get('/account/totp');
  const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(page.body)![1].replace(/ /g, '');
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();
  expect((await browser.post('/account/totp', { code })).headers.location).toBe('/account?done=totp');
  return secret;
}

const storedSecret = async (db: Database) => (await db.query<{ secret: string }>(`SELECT secret FROM user_factors WHERE kind = 'totp' AND user_id = 'worker'`)).rows[0].secret;
const storedKeys = async (db: Database) => (await db.query(`SELECT 1 FROM mfa_keys`)).rows.length;

describe('MFA_KEY', () => {
  it('is read as base64 or hex of 32 bytes; anything else is a configuration error', () => {
    const key = crypto.randomBytes(32);
    expect(configFromEnv({ MFA_KEY: key.toString('base64') }).mfaKey).toEqual(key);
    expect(configFromEnv({ MFA_KEY: key.toString('hex') }).mfaKey).toEqual(key);
    expect(configFromEnv({}).mfaKey).toBeUndefined();
    for (const bad of ['short', crypto.randomBytes(16).toString('base64'), crypto.randomBytes(31).toString('hex')]) expect(() => configFromEnv({ MFA_KEY: bad })).toThrow(/MFA_KEY must be 32 random bytes/);
  });

  it('encrypts the secrets, and nothing of the key is in the database', async () => {
    const key = crypto.randomBytes(32);
    const dataDir = tempDir();
    const db = await openDatabase({ loadDataDir: pgliteDump() });
    const server = await start(db, { mfaKey: key, dataDir });
    const secret = await enrolWorker(server);
    expect(open(key, await storedSecret(db))).toBe(secret);
    expect(await storedKeys(db)).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'mfa-key'))).toBe(false);
  });
});

describe('the embedded database without MFA_KEY', () => {
  it('keeps the key in DATA_DIR/mfa-key, made on first need with mode 0600', async () => {
    const dataDir = tempDir();
    const db = await openDatabase({ loadDataDir: pgliteDump() });
    const server = await start(db, { dataDir, mfaKey: undefined });
    expect(fs.existsSync(path.join(dataDir, 'mfa-key'))).toBe(false);
    const secret = await enrolWorker(server);
    const file = path.join(dataDir, 'mfa-key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    expect(key).toHaveLength(32);
    expect(open(key, await storedSecret(db))).toBe(secret);
    expect(await storedKeys(db)).toBe(0);
  });
});

describe('a key stored in the database by an earlier version', () => {
  it('is replaced at start-up: the secrets encrypted again with MFA_KEY, the stored key deleted, sign-in codes still good', async () => {
    const db = await openDatabase({ loadDataDir: pgliteDump() });
    const old = crypto.randomBytes(32);
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    await db.query(`INSERT INTO mfa_keys (id, key) VALUES ('totp', $1)`, [old.toString('base64')]);
    // the first run's data (the root company), as the server would make it
    await seedFirstRun(db, { host: '127.0.0.1', port: 0, dataDir: '', publicUrl: PUBLIC_URL, consoleClientId: 'iam-console', adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, consoleDir: '/nonexistent', accessTokenTtl: 3600, logLevel: 'silent' } satisfies ServerConfig);
    await db.query(`INSERT INTO companies (id, name, display_name, description, type, parent, ancestors) SELECT 'acme', 'acme', 'acme', 't', 'customer', 'root', ancestors || 'acme'::text FROM companies WHERE id = 'root'`);
    await db.query(`INSERT INTO domains (company_id, id, name, description, is_primary) VALUES ('acme', 'acme-domain', 'acme-domain', 't', true)`);
    await db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'worker', 'worker', 'worker', 'worker@acme.example')`);
    await db.query(`INSERT INTO user_factors (id, company_id, domain_id, user_id, kind, label, secret) VALUES ('f1', 'acme', 'acme-domain', 'worker', 'totp', 'Phone', $1)`, [seal(old, secret)]);

    const key = crypto.randomBytes(32);
    const server = await start(db, { mfaKey: key, dataDir: tempDir() });
    expect(await storedKeys(db)).toBe(0);
    expect(open(key, await storedSecret(db))).toBe(secret);
    const resealed = await storedSecret(db);
    expect(() => open(old, resealed)).toThrow();

    // she signs in on the account page with her app's code, as before
    await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
    const jar = new CookieJar();
    const post = async (url: string, form: Record<string, string>) => {
      const response = await server.app.inject({ method: 'POST', url, headers: { ...SAME_ORIGIN, cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
      jar.keep(response.headers['set-cookie'] as string | string[] | undefined);
      return response;
    };
    await post('/account/login', { email: 'worker@acme.example', password: PASSWORD, company: 'acme' });
    const left = 30_000 - (Date.now() % 30_000);
    if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    expect((await post('/account/second-factor', { code: new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate() })).headers.location).toBe('/account');
    const overview = await server.app.inject({ method: 'GET', url: '/account', headers: { cookie: jar.header() } });
    expect(overview.body).toContain('Account and security');
  });
});

describe('PostgreSQL without MFA_KEY', () => {
  // the database here is PGlite; DATABASE_URL in the configuration is what the key's source follows
  const POSTGRES = 'postgres://iam@db.invalid/iam';

  it('refuses to start when authenticator app secrets exist, saying what to set', async () => {
    const db = await openDatabase({ loadDataDir: pgliteDump() });
    await db.query(`INSERT INTO mfa_keys (id, key) VALUES ('totp', $1)`, [crypto.randomBytes(32).toString('base64')]);
    await expect(serverOn(db, { databaseUrl: POSTGRES, mfaKey: undefined })).rejects.toThrow(/^Configuration error: MFA_KEY is not set/);
    await db.close();
  });

  it('starts when there are none, and offers no authenticator app (a passkey instead), without a 5xx', async () => {
    const db = await openDatabase({ loadDataDir: pgliteDump() });
    const server = await start(db, { databaseUrl: POSTGRES, mfaKey: undefined });
    await createTenant(server, 'acme', 'root', 'customer');
    await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
    const jar = new CookieJar();
    const login = await server.app.inject({ method: 'POST', url: '/account/login', headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ email: 'worker@acme.example', password: PASSWORD, company: 'acme' }).toString() });
    jar.keep(login.headers['set-cookie'] as string | string[] | undefined);
    const page = await server.app.inject({ method: 'GET', url: '/account/totp', headers: { cookie: jar.header() } });
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('until the operator sets MFA_KEY');
    expect(await storedKeys(db)).toBe(0);
  });
});
