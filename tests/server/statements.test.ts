import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Queryable } from '../../server/db/index.js';
import { startServer, type TestServer } from './helpers.js';

// How statements reach either database (server/db/index.ts, server/db/pgliteWorker.mjs): prepared
// once and run again by name, with parameters serialized alike on both.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe('statements on either database', () => {
  it('read parameters of every kind alike', async () => {
    const sql = `SELECT $1::text[] AS texts, $2::jsonb AS doc, $3::boolean AS yes, $4::int AS n, $5::text AS nothing,
                        $6::timestamptz AS at, $7::bytea AS bytes, $8::text AS quoted, $9::float8 AS ratio`;
    const params = [
      ['a', 'b"c', 'd\\e', '', null],
      { nested: { list: [1, 'two', null] }, nul: 'x\u2028y' },
      false,
      42,
      null,
      new Date('2026-11-24T12:34:56.789Z'),
      Buffer.from([0, 1, 254, 255]),
      `it's "quoted" {braces}`,
      0.125,
    ];
    const { rows } = await server.db.query<Record<string, unknown>>(sql, params);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.texts).toEqual(['a', 'b"c', 'd\\e', '', null]);
    expect(row.doc).toEqual({ nested: { list: [1, 'two', null] }, nul: 'x\u2028y' });
    expect(row.yes).toBe(false);
    expect(row.n).toBe(42);
    expect(row.nothing).toBeNull();
    expect(new Date(row.at as string | Date).toISOString()).toBe('2026-11-24T12:34:56.789Z');
    expect(Buffer.from(row.bytes as Uint8Array)).toEqual(Buffer.from([0, 1, 254, 255]));
    expect(row.quoted).toBe(`it's "quoted" {braces}`);
    expect(row.ratio).toBe(0.125);
    // the same text again, now a prepared statement, with other values
    const again = await server.db.query<{ n: number; texts: string[] }>(sql, [['z'], {}, true, -1, 'x', new Date(0), Buffer.alloc(0), '', 1]);
    expect(again.rows[0]).toMatchObject({ n: -1, texts: ['z'], yes: true, nothing: 'x' });
  });

  it('report a failed statement and run the next ones, the same text included', async () => {
    const sql = 'SELECT $1::int AS n';
    await expect(server.db.query(sql, ['not a number'])).rejects.toThrow(/invalid input syntax for type integer/);
    expect((await server.db.query(sql, ['7'])).rows).toEqual([{ n: 7 }]);
    await expect(server.db.query('SELEC 1')).rejects.toThrow(/syntax error/);
    await expect(server.db.query('SELEC 1')).rejects.toThrow(/syntax error/);
    expect((await server.db.query(sql, [8])).rows).toEqual([{ n: 8 }]);
    // inside a transaction: its first failure aborts it; a statement first seen after that fails
    // the same way, and once rolled back both run
    const fresh = 'SELECT $1::text AS fresh';
    await expect(
      server.db.transaction(async (tx) => {
        await expect(tx.query(sql, ['nine'])).rejects.toThrow(/invalid input syntax/);
        await tx.query(fresh, ['x']);
      }),
    ).rejects.toThrow(/current transaction is aborted/);
    expect((await server.db.query(fresh, ['y'])).rows).toEqual([{ fresh: 'y' }]);
    expect((await server.db.query(sql, [9])).rows).toEqual([{ n: 9 }]);
  });

  it('answer with the new type after a column changed type under a prepared statement', async () => {
    await server.db.exec(`CREATE TABLE stable_probe (v integer); INSERT INTO stable_probe VALUES (7)`);
    const sql = 'SELECT v FROM stable_probe';
    // several at once, so that on PostgreSQL the statement is prepared on several connections
    const before = await Promise.all(Array.from({ length: 6 }, () => server.db.stable.query<{ v: unknown }>(sql)));
    expect(before.map((result) => result.rows)).toEqual(Array.from({ length: 6 }, () => [{ v: 7 }]));
    expect((await server.db.query(sql)).rows).toEqual([{ v: 7 }]);
    // what a migration does (on PostgreSQL, maybe applied by another process during a rolling upgrade)
    await server.db.exec(`ALTER TABLE stable_probe ALTER COLUMN v TYPE text`);
    const after = await Promise.all(Array.from({ length: 6 }, () => server.db.stable.query<{ v: unknown }>(sql)));
    expect(after.map((result) => result.rows)).toEqual(Array.from({ length: 6 }, () => [{ v: '7' }]));
    expect((await server.db.query(sql)).rows).toEqual([{ v: '7' }]);
    expect((await server.db.stable.query(sql)).rows).toEqual([{ v: '7' }]);
  });

});

describe.runIf(process.env.DATABASE_URL)('statements on PostgreSQL', () => {
  it('run as prepared statements of the connection', async () => {
    // pg_prepared_statements lists the statements prepared on the connection that asks, the
    // asking one included; an unnamed statement is never listed
    const sql = `SELECT statement FROM pg_prepared_statements WHERE statement = $1`;
    const { rows } = await server.db.stable.query<{ statement: string }>(sql, [sql]);
    expect(rows).toEqual([{ statement: sql }]);
  });

  it('run in a transaction again, whole, when a column changed type under one of its prepared statements', async () => {
    await server.db.exec(`CREATE TABLE tx_probe (v integer); INSERT INTO tx_probe VALUES (1)`);
    const read = 'SELECT v FROM tx_probe';
    const bump = (tx: Queryable) => tx.query(`UPDATE tx_probe SET v = v + 1 RETURNING v`);
    // prepared on several connections, inside transactions
    await Promise.all(Array.from({ length: 6 }, () => server.db.transaction(async (tx) => (await tx.query(read)).rows)));
    await server.db.exec(`ALTER TABLE tx_probe ALTER COLUMN v TYPE bigint`);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        server.db.transaction(async (tx) => {
          await bump(tx);
          return (await tx.query<{ v: unknown }>(read)).rows[0].v;
        }),
      ),
    );
    expect(answers).toHaveLength(6);
    // each transaction's update counted once: a refused plan rolled its transaction back before the retry
    expect((await server.db.query<{ v: number }>(read)).rows).toEqual([{ v: 7 }]);
  });

  it('run unnamed with DATABASE_PREPARED_STATEMENTS=off, for a pooler that cannot keep them', async () => {
    const db = await openDatabase({ databaseUrl: server.ctx.config.databaseUrl, preparedStatements: false });
    try {
      const sql = `SELECT count(*) AS prepared FROM pg_prepared_statements`;
      expect((await db.stable.query<{ prepared: number }>(sql)).rows).toEqual([{ prepared: 0 }]);
    } finally {
      await db.close();
    }
  });
});

// last: on PostgreSQL, texts past the process's limit run unnamed from then on
describe('statements on either database, after many', () => {
  it('keep working through a flood of distinct statements', async () => {
    const kept = 'SELECT $1::text AS kept';
    expect((await server.db.query(kept, ['before'])).rows).toEqual([{ kept: 'before' }]);
    // more distinct texts than the embedded database names (its prepared statements start over)
    for (let i = 0; i < 1100; i++) await server.db.query(`SELECT ${i} AS n`);
    expect((await server.db.query(kept, ['after'])).rows).toEqual([{ kept: 'after' }]);
    expect((await server.db.query('SELECT 5 AS n')).rows).toEqual([{ n: 5 }]);
  }, 60_000);
});
