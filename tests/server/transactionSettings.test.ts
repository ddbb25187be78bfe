import { afterAll, beforeAll, expect, it } from 'vitest';
import { transactionSettings } from '../../server/db/index.js';
import { startServer, type TestServer } from './helpers.js';

/**
 * The settings of a request's context (iam.actor, read by the audit triggers) travel in the message
 * that begins each transaction, quoted as literals (server/db/index.ts): whatever a value holds
 * (quotes, backslashes, JSON escapes, SQL), the transaction reads back exactly that value, and
 * nothing outside a transaction or after it sees it.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const HOSTILE = [
  `it's`,
  `\\'); DROP TABLE users; --`,
  `back\\slash \\\\ and \\n, quote '' and "double"`,
  JSON.stringify({ ip: `1.2.3.4'; SELECT 1; --`, userId: `a\\b'c`, note: '\u00e9\u4e2d \u{1F600} \t\r\n' }),
  `$$ dollar $tag$ E'\\x41'`,
];

it('reads back every value exactly as set, in the transaction only', async () => {
  for (const value of HOSTILE) {
    const read = await transactionSettings.run(new Map([['iam.actor', value]]), () =>
      server.db.transaction(async (tx) => (await tx.query<{ v: string }>(`SELECT current_setting('iam.actor', true) AS v`)).rows[0].v),
    );
    expect(read).toBe(value);
  }
  const outside = await server.db.query<{ v: string | null }>(`SELECT nullif(current_setting('iam.actor', true), '') AS v`);
  expect(outside.rows[0].v).toBeNull();
  expect((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users')).rows[0].n).toBeGreaterThan(0);
});

it('begins a plain transaction without settings, and one that fails still rolls back', async () => {
  const read = await server.db.transaction(async (tx) => (await tx.query<{ v: string | null }>(`SELECT nullif(current_setting('iam.actor', true), '') AS v`)).rows[0].v);
  expect(read).toBeNull();
  await expect(
    transactionSettings.run(new Map([['iam.actor', 'x']]), () =>
      server.db.transaction(async (tx) => {
        await tx.query(`INSERT INTO meta (key, value) VALUES ('settings-test', 'kept?')`);
        throw new Error('no');
      }),
    ),
  ).rejects.toThrow('no');
  expect((await server.db.query(`SELECT 1 FROM meta WHERE key = 'settings-test'`)).rowCount).toBe(0);
});
