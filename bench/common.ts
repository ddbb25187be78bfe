/**
 * What the parts of `npm run bench` share: percentiles, the HTTP client on its own thread, and a
 * server of the real app on a fresh database (a database of its own on the PostgreSQL server at
 * DATABASE_URL, else PGlite in a temp dir).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import type { ServerConfig } from '../server/config.js';
import type { AppContext } from '../server/context.js';
import { openDatabase, type Database } from '../server/db/index.js';
import { loadSigningKeys } from '../server/keys.js';
import { mintAccessToken } from '../tests/server/mintToken.js';
import { seedFirstRun } from '../server/seed.js';
import { throwAwayDatabase } from '../tests/server/program.js';

export function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The HTTP client runs on its own thread (its own event loop, like a browser elsewhere): timing the
 * API from the server's own event loop would charge the client's work to the server. Keep-alive
 * connections, as browsers use.
 */
const CLIENT = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (url, token) => new Promise((resolve, reject) => {
  http.get(url, { agent, headers: { authorization: 'Bearer ' + token } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
  }).on('error', reject);
});
parentPort.on('message', async ({ url, token, warmups, iterations }) => {
  for (let i = 0; i < warmups; i++) await get(url, token);
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    const status = await get(url, token);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (status !== 200) { parentPort.postMessage({ error: 'HTTP ' + status }); return; }
  }
  parentPort.postMessage({ samples });
});`;

export function apiTimer(token: string) {
  const worker = new Worker(CLIENT, { eval: true });
  return {
    /** Milliseconds of `iterations` calls of url (after `warmups` untimed ones). */
    async samples(url: string, iterations: number, warmups = 0) {
      const reply = new Promise<{ samples?: number[]; error?: string }>((resolve) => worker.once('message', resolve));
      worker.postMessage({ url, token, warmups, iterations });
      const { samples, error } = await reply;
      if (!samples) throw new Error(`${url}: ${error}`);
      return samples;
    },
    close: () => worker.terminate(),
  };
}

export interface BenchServer {
  db: Database;
  ctx: AppContext;
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  base: string;
  /** An access token of an administrator (user:admin), as the token endpoint issues it. */
  token(who: { companyId: string; domainId: string; userId: string }): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real app (buildApp, as server/main.ts serves it, without the background maintenance) on a
 * fresh, migrated and first-run-seeded database, listening on a free port. `prepare` runs on the
 * database before the server starts. PGlite syncs every commit to disk unless `sync` is false
 * (DATA_SYNC).
 */
export async function startBenchServer(
  prefix: string,
  prepare?: (db: Database) => Promise<void>,
  options: { sync?: boolean } = {},
): Promise<BenchServer> {
  const fresh = process.env.DATABASE_URL ? await throwAwayDatabase(process.env.DATABASE_URL, prefix) : undefined;
  const databaseUrl = fresh?.url;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    publicUrl: 'http://localhost:0',
    databaseUrl,
    consoleClientId: 'iam-console',
    adminEmail: 'admin@example.com',
    adminPassword: 'bench-password',
    consoleDir: '/nonexistent',
    accessTokenTtl: 3600,
    logLevel: 'silent',
  };
  let closed = false;
  const db = await openDatabase({
    databaseUrl,
    dataDir: databaseUrl ? undefined : dataDir,
    sync: options.sync,
    // dropping the benchmark's database ends connections the pool may not have closed yet
    onConnectionError: (error) => closed || console.error(`database connection lost: ${error.message}`),
  });
  await seedFirstRun(db, config);
  await prepare?.(db);
  const keys = await loadSigningKeys({});
  const ctx: AppContext = { db, config, keys };
  const app = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return {
    db,
    ctx,
    app,
    base,
    async token({ companyId, domainId, userId }) {
      return mintAccessToken(ctx, { companyId, domainId, userId, scope: 'openid user:admin', keepScope: true });
    },
    async close() {
      await app.close();
      await db.close();
      closed = true;
      await fresh?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A company under root with its primary domain, an `administrators` group and its administrator
 * `boss` (the tests' createTenant, in bulk-free SQL), and more domains when asked.
 */
export async function createTenant(db: Database, companyId: string, domains: string[]) {
  await db.query(
    `INSERT INTO companies (id, name, display_name, description, type, parent, ancestors)
     SELECT $1, $1, $1, 'benchmark tenant', 'customer', p.id, p.ancestors || $1::text FROM companies p WHERE p.id = 'root'`,
    [companyId],
  );
  for (const [i, domainId] of domains.entries()) {
    await db.query(`INSERT INTO domains (company_id, id, name, description, is_primary) VALUES ($1, $2, $2, 'benchmark', $3)`, [companyId, domainId, i === 0]);
  }
  await db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ($1, $2, 'administrators', 'administrators', 'Administrators', 'admins@example.com')`,
    [companyId, domains[0]],
  );
  await db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, 'boss', 'boss', 'Boss', 'boss@' || $1 || '.example')`,
    [companyId, domains[0]],
  );
  await db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ($1, $2, 'administrators', 'user', 'boss')`,
    [companyId, domains[0]],
  );
}
