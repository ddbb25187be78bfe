import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';
import { consoleLoginFields, pkce, postLogin, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * A user who cannot sign in (docs/CONSOLE.md, "A user's sign-in state"): support staff see the
 * throttle's failed sign-ins and lock, and Unlock clears them; a new password set by someone else
 * does too. Another tenant and a role without the permission cannot.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const PASSWORD = 'account state password 1';
const user = () => `/api/companys/acme/domainNames/${acme.domainId}/users/worker`;

async function signIn(password: string) {
  const { challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, { email: 'worker@acme.example', password, company: 'acme' }));
  return { status: response.statusCode, params: redirectParams(response)?.params ?? {} };
}

beforeAll(async () => {
  server = await startServer({ loginLimits: { failuresPerAccount: 3 } });
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', acme.domainId, 'worker', PASSWORD);
}, 60_000);
afterAll(() => server?.close());

describe('a locked account', () => {
  it('shows its failed sign-ins and lock; Unlock lets the person in at once and is recorded', async () => {
    expect((await call(server, acme.adminToken, 'GET', `${user()}/signInState`)).body).toMatchObject({ failedSignIns: 0, lockedUntil: null, lockedBecause: null, blockedAt: null });
    for (let i = 0; i < 4; i++) await signIn('wrong password 1');
    const state = await call(server, acme.adminToken, 'GET', `${user()}/signInState`);
    expect(state.body).toMatchObject({ failedSignIns: 4, lockedBecause: 'too many failed sign-ins' });
    expect(Date.parse(state.body.lockedUntil)).toBeGreaterThan(Date.now());
    // the right password is refused while locked (and counted: a throttled attempt never reaches bcrypt)
    // (the console's form comes back saying so: docs/CONSOLE.md, "Sign-in form")
    const locked = await signIn(PASSWORD);
    expect(locked.status).toBe(303);
    expect(locked.params).toMatchObject({ error: 'access_denied', error_description: expect.stringMatching(/^Too many failed sign-in attempts\./) });
    expect(locked.params.code).toBeUndefined();

    // Support may unlock (and nothing more); the Auditor may read the state, not unlock
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'agent', 'agent', 'Agent', 'agent@acme.example'), ('acme', $1, 'reader', 'reader', 'Reader', 'reader@acme.example')`, [acme.domainId]);
    for (const [holder, role] of [['agent', 'support'], ['reader', 'auditor']]) {
      const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role, holderType: 'user', holderId: holder, holderCompanyId: 'acme', holderDomainId: acme.domainId });
      expect(given.status).toBe(201);
    }
    const reader = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'reader' });
    expect((await call(server, reader, 'GET', `${user()}/signInState`)).status).toBe(200);
    const refused = await call(server, reader, 'POST', `${user()}/unlock`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/users:unlock/);

    const agent = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
    const unlocked = await call(server, agent, 'POST', `${user()}/unlock`, {});
    expect(unlocked.status, JSON.stringify(unlocked.body)).toBe(200);
    expect(unlocked.body).toMatchObject({ failedSignIns: 0, lockedUntil: null, lockedBecause: null, blockedAt: null });
    expect((await signIn(PASSWORD)).params.code).toBeTruthy();

    const history = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: 'worker', action: 'unlock' }))}`);
    expect(history.body).toEqual([expect.objectContaining({ action: 'unlock', actorUserId: 'agent', actorRoles: 'support', changes: expect.objectContaining({ failedSignIns: { before: 5, after: 0 } }) })]);
  });

  it('a new password set by an administrator ends the lock too', async () => {
    for (let i = 0; i < 4; i++) await signIn('wrong password 2');
    expect((await call(server, acme.adminToken, 'GET', `${user()}/signInState`)).body.lockedUntil).not.toBeNull();
    const record = (await call(server, acme.adminToken, 'GET', user())).body;
    const changed = await call(server, acme.adminToken, 'PUT', user(), { ...record, authVerification: await bcrypt.hash('a brand new password', 10) });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await call(server, acme.adminToken, 'GET', `${user()}/signInState`)).body).toMatchObject({ failedSignIns: 0, lockedUntil: null, lockedBecause: null, blockedAt: null });
    await setPassword(server, 'acme', acme.domainId, 'worker', PASSWORD);
  });

  it('another tenant, no token and an unknown user are answered as everywhere', async () => {
    expect((await call(server, other.adminToken, 'GET', `${user()}/signInState`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'POST', `${user()}/unlock`, {})).status).toBe(404);
    expect((await call(server, undefined, 'POST', `${user()}/unlock`, {})).status).toBe(401);
    expect((await call(server, acme.userToken, 'POST', `${user()}/unlock`, {})).status).toBe(403);
    expect((await call(server, acme.adminToken, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/users/nobody/signInState`)).status).toBe(404);
    expect((await call(server, acme.adminToken, 'POST', `${user()}/unlock`, { extra: 1 })).status).toBe(400);
  });
});

describe('whether she has a password', () => {
  it('is part of her sign-in state: false until one is set, as sendInvitation reads it', async () => {
    const invitee = `/api/companys/acme/domainNames/${acme.domainId}/users/invitee`;
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'invitee', 'invitee', 'Invitee', 'invitee@acme.example')`, [acme.domainId]);
    expect((await call(server, acme.adminToken, 'GET', `${invitee}/signInState`)).body).toMatchObject({ hasPassword: false });
    expect((await call(server, acme.adminToken, 'GET', `${user()}/signInState`)).body).toMatchObject({ hasPassword: true });
    const set = await call(server, acme.adminToken, 'POST', `${invitee}/password`, { authVerification: await bcrypt.hash('the invitee password', 10) });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ hasPassword: true });
    // another tenant learns nothing of it
    expect((await call(server, other.adminToken, 'GET', `${invitee}/signInState`)).status).toBe(404);
  });
});
