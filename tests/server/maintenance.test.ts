import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { maintainTables, purgeExpiredOidc, startMaintenance } from '../../server/db/maintenance.js';
import { startServer, type TestServer } from './helpers.js';

const onPostgres = Boolean(process.env.DATABASE_URL);

let server: TestServer;
let stop = () => {};
/** Statements sent with exec (VACUUM and ANALYZE on PGlite) since the test began. */
let steps: string[] = [];
beforeAll(async () => {
  server = await startServer();
  // the tests decide when tables are analyzed, not autovacuum (PostgreSQL)
  if (onPostgres) await server.db.query(`ALTER TABLE users SET (autovacuum_enabled = false)`);
  const exec = server.db.exec.bind(server.db);
  server.db.exec = (script: string) => {
    steps.push(script);
    return exec(script);
  };
});
afterEach(() => {
  stop();
  steps = [];
});
afterAll(() => server?.close());

interface Stats {
  relname: string;
  analyzed: boolean;
  analyzedAt: string | null;
  vacuumed: boolean;
  changed: number;
  rows: number;
}

async function tableStats(): Promise<Map<string, Stats>> {
  const { rows } = await server.db.query<Stats>(
    `SELECT s.relname, s.last_analyze IS NOT NULL AS analyzed, s.last_analyze::text AS "analyzedAt", s.last_vacuum IS NOT NULL AS vacuumed,
            s.n_mod_since_analyze::float8 AS changed, c.reltuples::float8 AS rows
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.schemaname = current_schema()`,
  );
  return new Map(rows.map((row) => [row.relname, row]));
}

async function until(condition: () => Promise<boolean>, timeoutMs = 15_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Inserts users with one statement, whose change counts the database publishes at once. */
async function addUsers(count: number, from = 1) {
  await server.db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
       SELECT 'root', 'default', 'bulk' || i, 'bulk' || i, 'Bulk ' || i, 'bulk' || i || '@example.com' FROM generate_series($1::int, $2::int) AS i`,
      [from, from + count - 1],
    );
    // (PostgreSQL publishes a connection's counts up to 10 s late otherwise)
    await tx.query('SELECT pg_stat_force_next_flush()');
  });
}

describe('database maintenance', () => {
  it('analyzes a table soon after bulk writes, without waiting for the schedule', async () => {
    stop = startMaintenance(server.db, { firstAfterMs: 3_600_000, checkEveryMs: 50, restMs: 0, pauseMs: 1 });
    await addUsers(500);
    // tables are taken one at a time, in no promised order: wait for both claims below
    await until(async () => {
      const now = await tableStats();
      return now.get('users')!.analyzed && now.get('companies')!.analyzed;
    });
    const stats = await tableStats();
    expect(stats.get('users')!.rows).toBeGreaterThanOrEqual(500);
    expect(stats.get('users')!.changed).toBeLessThan(50);
    // the visibility map of the new rows (index-only scans) and the trigram index's pending list
    if (!onPostgres) expect(stats.get('users')!.vacuumed).toBe(true);
    // a table with rows and no statistics at all is analyzed too (after a bulk load, or after a crash
    // lost the change counters), but one without rows is left alone
    expect(stats.get('companies')!.analyzed).toBe(true);
    expect(stats.get('apis')!.analyzed).toBe(false);
    // one table per statement
    expect(steps.every((step) => /^(VACUUM|ANALYZE) public\.\w+$/.test(step))).toBe(true);

    // then a table waits for changes past autovacuum's threshold, which grows with it: 50 rows + 10%
    const before = (await tableStats()).get('users')!;
    await addUsers(40, 1000);
    await until(async () => (await tableStats()).get('users')!.changed >= before.changed + 40);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = (await tableStats()).get('users')!;
    expect(after.analyzedAt, JSON.stringify({ before, after })).toBe(before.analyzedAt);
    await addUsers(100, 2000);
    await until(async () => (await tableStats()).get('users')!.analyzedAt !== before.analyzedAt);
  });

  it.skipIf(onPostgres)('sweeps every changed table one at a time on a schedule, skips unchanged ones, and stops when asked', async () => {
    await server.db.query(`INSERT INTO companies (id, name, display_name, type, parent, ancestors) VALUES ('c1', 'c1', 'C1', 'customer', 'root', ARRAY['root', 'c1'])`);
    stop = startMaintenance(server.db, { firstAfterMs: 10, everyMs: 60_000, checkEveryMs: 20, pauseMs: 1 });
    await until(async () => steps.includes('ANALYZE public.companies'));
    expect(steps.every((step) => /^(VACUUM|ANALYZE) public\.\w+$/.test(step))).toBe(true);
    // tables nobody wrote to are left alone
    expect(steps.some((step) => /\.(apis|permission_scopes|group_permissions)$/.test(step))).toBe(false);
    const stats = await tableStats();
    expect(stats.get('companies')!.rows).toBe(2);
    expect(stats.get('companies')!.vacuumed).toBe(true);
    stop();
    const count = steps.length;
    await addUsers(500, 5000);
    // past the threshold, and past the second PGlite takes to publish the counters
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(steps.length).toBe(count);
  });

  it('maintainTables runs one step per table and statement, reports how long each took, and lets a table rest', async () => {
    await addUsers(200, 10_000);
    await until(async () => (await tableStats()).get('users')!.changed >= 200);
    const steps = await maintainTables(server.db, { all: true, pauseMs: 0 });
    expect(steps.map((step) => step.sql)).toContain('ANALYZE public.users');
    if (!onPostgres) expect(steps.map((step) => step.sql)).toContain('VACUUM public.users');
    expect(steps.every((step) => step.ms >= 0)).toBe(true);
    // past the threshold again at once: the table rests first (counts published late are not a new change)
    await addUsers(300, 20_000);
    await until(async () => (await tableStats()).get('users')!.changed >= 300);
    expect((await maintainTables(server.db)).map((step) => step.sql)).not.toContain('ANALYZE public.users');
    expect((await maintainTables(server.db, { restMs: 0 })).map((step) => step.sql)).toContain('ANALYZE public.users');
  });
});

describe('the authorization server\'s storage', () => {
  it('loses what expired more than an hour ago, in batches, and keeps the rest', async () => {
    await server.db.query(
      `INSERT INTO oidc_payloads (model, id, payload, expires_at)
       SELECT 'AccessToken', 'old-' || i, '{}'::jsonb, now() - interval '2 hours' FROM generate_series(1, 5) AS i
       UNION ALL SELECT 'AuthorizationCode', 'recent', '{}', now() - interval '10 minutes'
       UNION ALL SELECT 'RefreshToken', 'live', '{}', now() + interval '1 day'`,
    );
    expect(await purgeExpiredOidc(server.db, { batch: 2, pauseMs: 0 })).toBe(5);
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM oidc_payloads WHERE id IN ('recent', 'live') OR id LIKE 'old-%' ORDER BY id`);
    expect(rows.map((row) => row.id)).toEqual(['live', 'recent']);
  });
});
