import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdministrator, call, createTenant, startServer, tokenFor, type Tenant, type TestServer } from './helpers.js';

// The embedded database answers the guard's access check and GET of one record from memory until
// its next write (server/db/index.ts, ReadCache). These tests hold it to "exact, not fresh enough":
// every write, through the API or straight in SQL, is seen by the very next call. On PostgreSQL
// (DATABASE_URL) the same tests run without a cache and must pass the same way.

let server: TestServer;
let acme: Tenant;
const boss = '/api/companys/acme/domainNames/acme-domain/users/boss';
const worker = '/api/companys/acme/domainNames/acme-domain/users/worker';
const deputy = '/api/companys/acme/domainNames/acme-domain/users/deputy';

/** PUT takes the whole record: the one read now, with a new display name. */
async function rename(url: string, displayName: string) {
  const { body } = await call(server, acme.adminToken, 'GET', url);
  return call(server, acme.adminToken, 'PUT', url, { ...body, displayName });
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme');
});
afterAll(() => server?.close());

describe('the embedded read cache', () => {
  it.runIf(!process.env.DATABASE_URL)('answers a repeated GET of one record without asking the database', async () => {
    // (the first call finds her roles there, the second says which version it knows: migration 34)
    expect((await call(server, acme.adminToken, 'GET', worker)).status).toBe(200);
    expect((await call(server, acme.adminToken, 'GET', worker)).status).toBe(200);
    const before = server.db.stats.queries;
    const again = await call(server, acme.adminToken, 'GET', worker);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe('worker');
    expect(server.db.stats.queries - before).toBe(0);
  });

  it('shows a change made through the API in the next GET', async () => {
    expect((await call(server, acme.adminToken, 'GET', worker)).body.displayName).toBe('worker');
    const put = await rename(worker, 'Worker Bee');
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await call(server, acme.adminToken, 'GET', worker)).body.displayName).toBe('Worker Bee');
  });

  it('shows a change made straight in SQL in the next GET', async () => {
    expect((await call(server, acme.adminToken, 'GET', worker)).status).toBe(200);
    await server.db.query(`UPDATE users SET display_name = 'Renamed in SQL' WHERE company_id = 'acme' AND id = 'worker'`);
    expect((await call(server, acme.adminToken, 'GET', worker)).body.displayName).toBe('Renamed in SQL');
  });

  it('refuses a token on the call after its sign-in is revoked, though its access was just checked', async () => {
    await addAdministrator(server, acme, 'deputy');
    const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'deputy' });
    expect((await call(server, token, 'GET', boss)).status).toBe(200);
    expect((await call(server, token, 'GET', boss)).status).toBe(200);
    // boss signs the deputy out everywhere: a write to oauth_grants
    const revoke = await call(server, acme.adminToken, 'POST', `${deputy}/signOutEverywhere`, {});
    expect(revoke.body).toEqual({ revoked: 1 });
    const refused = await call(server, token, 'GET', boss);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain('revoked');
  });

  it('refuses an administrator on the call after leaving the administrators group', async () => {
    const fresh = await createTenant(server, 'initech');
    const user = '/api/companys/initech/domainNames/initech-domain/users/worker';
    expect((await call(server, fresh.adminToken, 'GET', user)).status).toBe(200);
    await server.db.query(`DELETE FROM group_members WHERE company_id = 'initech' AND group_id = 'administrators' AND member_id = 'boss'`);
    expect((await call(server, fresh.adminToken, 'GET', user)).status).toBe(401);
  });

  it("answers another tenant's record with 404 even when the record was just read by its own tenant", async () => {
    const globex = await createTenant(server, 'globex');
    expect((await call(server, acme.adminToken, 'GET', worker)).status).toBe(200);
    expect((await call(server, globex.adminToken, 'GET', worker)).status).toBe(404);
    expect((await call(server, globex.adminToken, 'GET', worker)).status).toBe(404);
  });

  it('never answers a GET with a state older than a write already answered, under concurrent reads and writes', async () => {
    const writes = 25;
    const stale: string[] = [];
    let answered = 0;
    let writing = true;
    const reader = async () => {
      while (writing) {
        // as a request from the network would: a read answered from memory never leaves the
        // microtask queue, and would otherwise keep the database's replies from being handled
        await new Promise((resolve) => setImmediate(resolve));
        const seen = answered;
        const res = await call(server, acme.adminToken, 'GET', worker);
        const version = Number(/^v(\d+)$/.exec(res.body.displayName)?.[1] ?? -1);
        if (version < seen) stale.push(`read v${version} after v${seen} was answered`);
      }
    };
    const writer = async () => {
      try {
        for (let i = 1; i <= writes; i++) {
          expect((await rename(worker, `v${i}`)).status).toBe(200);
          answered = i;
        }
      } finally {
        writing = false;
      }
    };
    await server.db.query(`UPDATE users SET display_name = 'v0' WHERE company_id = 'acme' AND id = 'worker'`);
    await Promise.all([writer(), reader(), reader(), reader(), reader()]);
    expect(stale).toEqual([]);
    expect((await call(server, acme.adminToken, 'GET', worker)).body.displayName).toBe(`v${writes}`);
  });

  it.runIf(!process.env.DATABASE_URL)('hands out frozen rows, so that no caller can change what the next one reads', async () => {
    const sql = `SELECT id, display_name FROM users WHERE company_id = $1 AND id = $2`;
    const first = await server.db.stable.query<{ id: string; display_name: string }>(sql, ['acme', 'worker']);
    expect(() => {
      (first.rows[0] as { display_name: string }).display_name = 'changed';
    }).toThrow(TypeError);
    const second = await server.db.stable.query<{ display_name: string }>(sql, ['acme', 'worker']);
    expect(second.rows[0].display_name).not.toBe('changed');
  });
});

