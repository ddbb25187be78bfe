import crypto from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import { consoleLoginFields, CookieJar, formAction, injectBrowser, pageBrowser, pkce, postLogin, setPassword } from './oauthHelpers.js';

/**
 * A person's own second factors are on her history (docs/CONSOLE.md, "History and audit log"; issue
 * 35): an authenticator app, a passkey or recovery codes enrolled, and a factor removed, on the
 * account page (client 'account-page') or at sign-in (client 'sign-in'), each recorded as her own
 * action (enrolFactor, newRecoveryCodes, removeFactor) naming the factor's kind and label, never a
 * secret: no TOTP key, recovery code, public key or credential. A refused enrolment records nothing.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const PASSWORD = 'factor history password 42';
const ADDRESS = '198.51.100.77';
const users = () => `/api/companys/acme/domainNames/${acme.domainId}/users`;

/** Her history as the console's History tab reads it. */
async function historyOf(userId: string, token = acme.adminToken) {
  const filter = encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: userId }));
  const response = await call(server, token, 'GET', `/api/companys/acme/auditEvents?filter=${filter}`);
  expect(response.status).toBe(200);
  return response.body as { action: string; actorUserId: string; actorClientId: string; actorIp: string; changes: Record<string, unknown> }[];
}
const own = async (userId: string, action: string) => (await historyOf(userId)).filter((event) => event.action === action);

/** Nothing of these in any record of the company's log (the raw table, every column). */
async function expectNotInLog(secrets: string[]) {
  const text = JSON.stringify((await server.db.query(`SELECT * FROM audit_events WHERE company_id = 'acme'`)).rows);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

async function awayFromStepEdge() {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
const totpCode = (key: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(key) }).generate();

// -- a software authenticator: a 'none' attestation of a new P-256 key (WebAuthn Level 2, 6.5) --

/** The little CBOR (RFC 8949) a WebAuthn attestation needs: maps, text, bytes, small integers. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number) =>
    n < 24 ? Buffer.from([(major << 5) | n]) : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value as object);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

/** The browser's answer to registration options: a new key, attested 'none', for this origin. */
function makePasskey(optionsHtml: string) {
  const options = JSON.parse(/data-options="([^"]+)"/.exec(optionsHtml)![1].replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as { challenge: string };
  const { publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const coseKey = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
  const credentialId = crypto.randomBytes(16);
  const rpIdHash = crypto.createHash('sha256').update(new URL(PUBLIC_URL).hostname).digest();
  const length = Buffer.from([credentialId.length >> 8, credentialId.length & 255]);
  const authData = Buffer.concat([rpIdHash, Buffer.from([0x41]), Buffer.alloc(4), Buffer.alloc(16), length, credentialId, coseKey]);
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: PUBLIC_URL, crossOrigin: false }));
  const id = credentialId.toString('base64url');
  const response = {
    id,
    rawId: id,
    type: 'public-key',
    response: { clientDataJSON: clientData.toString('base64url'), attestationObject: cbor({ fmt: 'none', attStmt: {}, authData }).toString('base64url'), transports: ['internal'] },
    clientExtensionResults: {},
  };
  return { json: JSON.stringify(response), id, publicKey: coseKey.toString('base64url') };
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', acme.domainId, 'worker', PASSWORD);
  await setPassword(server, 'acme', acme.domainId, 'boss', PASSWORD);
}, 60_000);
afterAll(() => server?.close());

describe('the account page records her factors on her history', () => {
  const browser = () => pageBrowser(server, jar);
  const jar = new CookieJar();
  let totpKey = '';
  let codes: string[] = [];
  let passkey: ReturnType<typeof makePasskey>;

  it('an authenticator app enrolled: enrolFactor, hers, naming it; a wrong code records nothing', async () => {
    expect((await browser().post('/account/login', { email: 'worker@acme.example', password: PASSWORD, company: 'acme' })).body).toContain('No second factor yet');
    const page = await browser().get('/account/totp');
    totpKey = /id="totp-secret">([A-Z2-7 ]+)</.exec(page.body)![1].replace(/ /g, '');
    expect((await browser().post('/account/totp', { code: 'abcdef' })).status).toBe(400);
    expect(await own('worker', 'enrolFactor')).toEqual([]);
    await awayFromStepEdge();
    expect((await browser().post('/account/totp', { code: totpCode(totpKey), label: 'My phone' })).body).toContain('Authenticator app added');
    const [enrolled] = await own('worker', 'enrolFactor');
    expect(enrolled).toMatchObject({ actorUserId: 'worker', actorClientId: 'account-page', changes: { factor: { after: 'totp: My phone' } } });
    expect(enrolled.actorIp).toBeTruthy();
  });

  it('a passkey enrolled: enrolFactor naming it, never its key', async () => {
    const page = await browser().get('/account/passkey');
    passkey = makePasskey(page.body);
    const added = await browser().post('/account/passkey', { webauthn: passkey.json, label: 'Laptop key' });
    expect(added.body, added.body.slice(0, 400)).toContain('Passkey added');
    const events = await own('worker', 'enrolFactor');
    expect(events.map((event) => event.changes)).toContainEqual({ factor: { after: 'webauthn: Laptop key' } });
    // an answer to the challenge already spent is refused: nothing more recorded
    await browser().get('/account/passkey');
    const again = await browser().post('/account/passkey', { webauthn: makePasskey(page.body).json });
    expect(again.status).toBe(400);
    expect(await own('worker', 'enrolFactor')).toHaveLength(2);
  });

  it('recovery codes made: newRecoveryCodes, without a code', async () => {
    const page = await browser().post('/account/recovery');
    codes = [...page.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((match) => match[1]);
    expect(codes).toHaveLength(10);
    const [made] = await own('worker', 'newRecoveryCodes');
    expect(made).toMatchObject({ actorUserId: 'worker', actorClientId: 'account-page', changes: { factor: { after: 'recovery: Recovery codes' } } });
  });

  it('a factor removed: removeFactor naming it; a wrong password records nothing', async () => {
    const overview = await browser().get('/account');
    const ids = [...overview.body.matchAll(/\/account\/factors\/([^/]+)\/remove/g)].map((match) => match[1]);
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM user_factors WHERE company_id = 'acme' AND user_id = 'worker' AND kind = 'webauthn'`);
    expect(ids).toContain(rows[0].id);
    expect((await browser().post(`/account/factors/${rows[0].id}/remove`, { password: 'not her password 1' })).status).toBe(401);
    expect(await own('worker', 'removeFactor')).toEqual([]);
    expect((await browser().post(`/account/factors/${rows[0].id}/remove`, { password: PASSWORD })).body).toContain('Factor removed');
    const [removed] = await own('worker', 'removeFactor');
    expect(removed).toMatchObject({ actorUserId: 'worker', actorClientId: 'account-page', changes: { factor: { before: 'webauthn: Laptop key', after: null } } });
    // her sessions go on: removing a factor is no reset by an administrator
    expect((await browser().get('/account')).body).toContain('Account and security');
  });

  it('no record holds a secret', async () => {
    const { rows } = await server.db.query<{ secret: string | null }>(`SELECT secret FROM user_factors WHERE company_id = 'acme' AND user_id = 'worker' AND kind = 'totp'`);
    await expectNotInLog([totpKey, rows[0].secret!, ...codes, ...codes.map((code) => code.replace(/-/g, '')), passkey.id, passkey.publicKey]);
  });
});

describe('enrolling at sign-in is on her history', () => {
  it("the required action 'enrol-mfa': enrolFactor through 'sign-in', from her address", async () => {
    expect((await call(server, acme.adminToken, 'PUT', `${users()}/boss/requiredActions`, { requiredActions: ['enrol-mfa'] })).status).toBe(200);
    const jar = new CookieJar();
    const first = await postLogin(server, consoleLoginFields(pkce().challenge, { email: 'boss@acme.example', password: PASSWORD, company: 'acme' }), { 'sec-fetch-site': 'same-origin' });
    jar.keep(first.headers['set-cookie'] as string | string[] | undefined);
    const steps = injectBrowser(server, jar, { remoteAddress: ADDRESS, headers: { 'sec-fetch-site': 'same-origin' } });
    const page = await steps.get('/oauth/steps');
    expect(page.body).toContain('Add a second factor');
    const key = /id="totp-secret">([A-Z2-7 ]+)</.exec(page.body)![1].replace(/ /g, '');
    expect((await steps.post(formAction(page.body)!, { step: 'enrol-mfa', code: 'abcdef' })).status).toBe(400);
    expect(await own('boss', 'enrolFactor')).toEqual([]);
    await awayFromStepEdge();
    const done = await steps.post(formAction(page.body)!, { step: 'enrol-mfa', code: totpCode(key) });
    expect(done.location?.searchParams.get('code'), done.body.slice(0, 300)).toBeTruthy();
    const [enrolled] = await own('boss', 'enrolFactor');
    expect(enrolled).toMatchObject({ actorUserId: 'boss', actorClientId: 'sign-in', actorIp: ADDRESS, changes: { factor: { after: 'totp: Authenticator app' } } });
    await expectNotInLog([key]);
  });

  it('a passkey at sign-in: enrolFactor naming it', async () => {
    await server.db.query(`DELETE FROM user_factors WHERE company_id = 'acme' AND user_id = 'boss'`);
    expect((await call(server, acme.adminToken, 'PUT', `${users()}/boss/requiredActions`, { requiredActions: ['enrol-mfa'] })).status).toBe(200);
    const jar = new CookieJar();
    const first = await postLogin(server, consoleLoginFields(pkce().challenge, { email: 'boss@acme.example', password: PASSWORD, company: 'acme' }), { 'sec-fetch-site': 'same-origin' });
    jar.keep(first.headers['set-cookie'] as string | string[] | undefined);
    const steps = injectBrowser(server, jar, { remoteAddress: ADDRESS, headers: { 'sec-fetch-site': 'same-origin' } });
    const page = await steps.get('/oauth/steps');
    const passkey = makePasskey(page.body);
    const done = await steps.post(formAction(page.body)!, { step: 'enrol-mfa', webauthn: passkey.json });
    expect(done.status, done.body.slice(0, 300)).toBeLessThan(400);
    const events = await own('boss', 'enrolFactor');
    expect(events[0]).toMatchObject({ actorUserId: 'boss', actorClientId: 'sign-in', changes: { factor: { after: 'webauthn: Passkey' } } });
    await expectNotInLog([passkey.id, passkey.publicKey]);
  });

  it('her history is read as any other: another tenant 404, a person without a role 403', async () => {
    const filter = encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: 'worker' }));
    expect((await call(server, other.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${filter}`)).status).toBe(404);
    expect((await call(server, acme.userToken, 'GET', `/api/companys/acme/auditEvents?filter=${filter}`)).status).toBe(403);
  });
});
