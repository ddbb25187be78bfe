import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, listQuery, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * The users list's Locked filter (docs/CONSOLE.md, "Account states"; issue 35): the users whose
 * account is locked now, by the sign-in throttle (failed sign-ins past the domain's or the server's
 * limit, or too many sign-ins) or by the second-factor lock (wrong answers counted, or three failed
 * second-factor sign-ins in the hour since her last Unlock), exactly those …/signInState says are
 * locked. Served by the server: another tenant's locked users never appear, another tenant's path is
 * a 404, a person without a console role a 403, and a bad value a 400 naming the filter.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const users = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users`;
const key = (tenant: Tenant, userId: string) => `user:${tenant.companyId}/${tenant.domainId}/${userId}`;
const PEOPLE = ['pw', 'under', 'expired', 'busy', 'guesses', 'events', 'twoEvents', 'calm'];

async function counter(tenant: Tenant, userId: string, kind: string, n: number, live = true) {
  await server.db.query(`INSERT INTO login_attempts (kind, key, n, expires_at) VALUES ($1, $2, $3, now() + $4::interval)`, [kind, key(tenant, userId), n, live ? '30 minutes' : '-1 minute']);
}
async function factorFailures(tenant: Tenant, userId: string, count: number) {
  for (let i = 0; i < count; i++) {
    await server.db.query(
      `INSERT INTO signin_events (company_id, domain_id, client_id, user_id, login, outcome, detail, occurred_at) VALUES ($1, $2, 'iam-console', $3, $3, 'second_factor_failed', 'test', now() - make_interval(mins => $4))`,
      [tenant.companyId, tenant.domainId, userId, 10 + i],
    );
  }
}

async function lockedIds(token: string, tenant: Tenant, value: unknown = true) {
  const response = await call(server, token, 'GET', `${users(tenant)}?${listQuery({ filter: { locked: value }, sort: ['displayName', 'ASC'], range: [0, 99] })}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { id: string }[]).map((user) => user.id).sort();
}

/** The users signInState calls locked, one call each: the filter must agree. */
async function lockedByState(tenant: Tenant) {
  const all = (await call(server, tenant.adminToken, 'GET', `${users(tenant)}?${listQuery({ range: [0, 99] })}`)).body as { id: string }[];
  const locked: string[] = [];
  for (const { id } of all) {
    const state = await call(server, tenant.adminToken, 'GET', `${users(tenant)}/${id}/signInState`);
    expect(state.status).toBe(200);
    if (state.body.lockedUntil) locked.push(id);
  }
  return locked.sort();
}

beforeAll(async () => {
  // the server's limit: 3 failures an account (a domain's policy may set its own)
  server = await startServer({ loginLimits: { failuresPerAccount: 3 } });
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  for (const tenant of [acme, other]) {
    for (const id of PEOPLE) {
      await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@' || $1 || '.example')`, [tenant.companyId, tenant.domainId, id]);
    }
  }
  await counter(acme, 'pw', 'failed-account', 4);
  await counter(acme, 'under', 'failed-account', 3);
  await counter(acme, 'expired', 'failed-account', 50, false);
  await counter(acme, 'busy', 'signed-in-account', 61);
  await counter(acme, 'guesses', 'failed-factor', 15);
  await factorFailures(acme, 'events', 3);
  await factorFailures(acme, 'twoEvents', 2);
  // in the other tenant, a user of the same id locked: never in acme's list, and one of its own
  await counter(other, 'calm', 'failed-account', 40);
}, 60_000);
afterAll(() => server?.close());

describe('the Locked filter of the users list', () => {
  it('lists exactly the users signInState calls locked, and false the others', async () => {
    expect(await lockedIds(acme.adminToken, acme)).toEqual(['busy', 'events', 'guesses', 'pw']);
    expect(await lockedByState(acme)).toEqual(['busy', 'events', 'guesses', 'pw']);
    const all = (await call(server, acme.adminToken, 'GET', `${users(acme)}?${listQuery({ range: [0, 99] })}`)).body.map((user: { id: string }) => user.id);
    expect(await lockedIds(acme.adminToken, acme, false)).toEqual(all.filter((id: string) => !['busy', 'events', 'guesses', 'pw'].includes(id)).sort());
    expect(await lockedIds(other.adminToken, other)).toEqual(['calm']);
    // with others: a search and another filter
    const both = await call(server, acme.adminToken, 'GET', `${users(acme)}?${listQuery({ filter: { locked: true, q: 'gue', blocked: false } })}`);
    expect(both.body.map((user: { id: string }) => user.id)).toEqual(['guesses']);
  });

  it("follows the domain's own failure limit, Unlock, and the end of a window", async () => {
    await server.db.query(`INSERT INTO domain_policies (company_id, domain_id, failures_per_account) VALUES ('acme', $1, 10)`, [acme.domainId]);
    expect(await lockedIds(acme.adminToken, acme)).toEqual(['busy', 'events', 'guesses']);
    expect(await lockedByState(acme)).toEqual(['busy', 'events', 'guesses']);
    await server.db.query(`DELETE FROM domain_policies WHERE company_id = 'acme'`);

    // Unlock ends the throttle's and the second factors' locks at once
    for (const id of ['events', 'guesses']) expect((await call(server, acme.adminToken, 'POST', `${users(acme)}/${id}/unlock`, {})).status).toBe(200);
    expect(await lockedIds(acme.adminToken, acme)).toEqual(['busy', 'pw']);
    await server.db.query(`UPDATE login_attempts SET expires_at = now() - interval '1 second' WHERE key = $1`, [key(acme, 'busy')]);
    expect(await lockedIds(acme.adminToken, acme)).toEqual(['pw']);
    expect(await lockedByState(acme)).toEqual(['pw']);
  });

  it('Support finds them too; another tenant gets 404, a person without a role 403, a bad value 400 naming the filter', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'agent', 'agent', 'Agent', 'agent@acme.example')`, [acme.domainId]);
    const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role: 'support', holderType: 'user', holderId: 'agent', holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status).toBe(201);
    const agent = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
    expect(await lockedIds(agent, acme)).toEqual(['pw']);

    const url = `${users(acme)}?${listQuery({ filter: { locked: true } })}`;
    expect((await call(server, other.adminToken, 'GET', url)).status).toBe(404);
    expect((await call(server, acme.userToken, 'GET', url)).status).toBe(403);
    expect((await call(server, undefined, 'GET', url)).status).toBe(401);
    for (const value of ['yes', 1, { $ne: 1 }]) {
      const bad = await call(server, acme.adminToken, 'GET', `${users(acme)}?${listQuery({ filter: { locked: value } })}`);
      expect(bad.status, JSON.stringify(value)).toBe(400);
      expect(bad.body.message).toMatch(/locked/);
    }
    // the CSV export filters the same way
    const csv = await server.app.inject({ method: 'GET', url: `${users(acme)}/export.csv?${listQuery({ filter: { locked: true }, columns: 'id' })}`, headers: { authorization: `Bearer ${acme.adminToken}` } });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.trim().split('\n').slice(1)).toEqual(['pw']);
  });
});
