import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startServer, type TestServer } from './helpers.js';

// PostgreSQL only (npm run test:pg): PGlite is in-process and has no connection to lose.
describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL connections lost under the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  /** What a database restart or an administrator's pg_terminate_backend does to our pool. */
  async function terminateServerConnections() {
    const databaseName = new URL(server.ctx.config.databaseUrl!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const { rows } = await admin.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [databaseName],
    );
    await admin.end();
    return rows.length;
  }

  it('logs a dropped idle connection instead of crashing, and answers the next request', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      // several concurrent lists leave several idle connections in the pool
      const lists = await Promise.all(
        Array.from({ length: 4 }, () => call(server, server.adminToken, 'GET', '/api/companys/root/domainNames/default/users')),
      );
      expect(lists.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(await terminateServerConnections()).toBeGreaterThan(0);
      await vi.waitFor(() => expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^database connection lost: /)));

      const after = await call(server, server.adminToken, 'GET', '/api/companys/root/domainNames/default/users');
      expect(after.status).toBe(200);
      const created = await call(server, server.adminToken, 'POST', '/api/companys', { name: 'after-loss', displayName: 'After', description: 'x', parent: 'root' });
      expect(created.status).toBe(201);
    } finally {
      logged.mockRestore();
    }
  });

  it('runs a statement again on a new connection when its backend was ended under it (admin_shutdown)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      // the first call ends its own backend mid-statement (nextval is not rolled back); a second runs through
      await server.db.exec(`CREATE SEQUENCE ended_once;
        CREATE FUNCTION end_backend_once() RETURNS text LANGUAGE plpgsql AS $$
        BEGIN
          IF nextval('ended_once') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(1); END IF;
          RETURN 'done';
        END $$;`);
      const { rows } = await server.db.query<{ result: string }>('SELECT end_backend_once() AS result');
      expect(rows).toEqual([{ result: 'done' }]);
      expect((await server.db.query<{ n: number }>(`SELECT last_value::int AS n FROM ended_once`)).rows[0].n).toBe(2);
    } finally {
      logged.mockRestore();
    }
  });

  it('fails a transaction whose connection is lost between two statements, and hands out a sound one next', async () => {
    const attempt = server.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO companies (id, name, display_name, type, parent, ancestors) VALUES ('lost-tx', 'lost-tx', 'x', 'customer', 'root', ARRAY['root', 'lost-tx'])`);
      await terminateServerConnections();
      await new Promise((resolve) => setTimeout(resolve, 200)); // the loss arrives while no statement runs
      await tx.query('SELECT 1');
    });
    await expect(attempt).rejects.toThrow();
    const { rows } = await server.db.query(`SELECT id FROM companies WHERE id = 'lost-tx'`);
    expect(rows).toEqual([]);
    expect((await call(server, server.adminToken, 'GET', '/api/companys/root/childCompanys')).status).toBe(200);
  });
});
