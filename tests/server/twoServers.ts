import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../../server/app.js';
import type { ServerConfig } from '../../server/config.js';
import type { AppContext } from '../../server/context.js';
import { openDatabase, type Database } from '../../server/db/index.js';
import { loadSigningKeys, type SigningKeys } from '../../server/keys.js';
import { seedFirstRun } from '../../server/seed.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL, tokenFor, type TestServer } from './helpers.js';

/**
 * A throw-away database that outlives the servers built on it, for tests of what several servers,
 * or one server restarted, share: a fresh database on the PostgreSQL server at DATABASE_URL, or a
 * PGlite data folder on disk (started from the migrated dump of global-setup.ts).
 */
export interface SharedDatabase {
  /** A new connection to it (PostgreSQL: its own pool; PGlite: the folder opened again, so close the previous one first). */
  open(): Promise<Database>;
  drop(): Promise<void>;
}

export async function sharedDatabase(): Promise<SharedDatabase> {
  if (process.env.DATABASE_URL) {
    const name = `iam_test_${crypto.randomBytes(6).toString('hex')}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(sql);
      await client.end();
    };
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return {
      open: () => openDatabase({ databaseUrl: url.toString() }),
      drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-test-shared-'));
  const dump = inject('pgliteDump');
  let first = true;
  return {
    open() {
      const loadDataDir = first && dump ? new Blob([fs.readFileSync(dump)]) : undefined;
      first = false;
      return openDatabase({ dataDir: dir, loadDataDir });
    },
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

let sharedKeys: Promise<SigningKeys> | undefined;

/** A server on `db`, as startServer builds one; close() closes the server and this connection, not the database. */
export async function serverOn(db: Database, overrides: Partial<ServerConfig> = {}): Promise<TestServer> {
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    dataDir: '',
    publicUrl: PUBLIC_URL,
    consoleClientId: 'iam-console',
    adminEmail: ADMIN_EMAIL,
    adminPassword: ADMIN_PASSWORD,
    consoleDir: '/nonexistent',
    accessTokenTtl: 3600,
    logLevel: 'silent',
    ...overrides,
  };
  // one key for every server here, as instances sharing SIGNING_KEY (device cookies then hold on each)
  sharedKeys ??= loadSigningKeys({});
  const keys = await sharedKeys;
  await seedFirstRun(db, config);
  const ctx: AppContext = { db, config, keys };
  const app = await buildApp(ctx);
  await app.ready();
  const adminToken = await tokenFor(ctx, { companyId: 'root', domainId: 'default', userId: 'admin' });
  return {
    app,
    db,
    ctx,
    adminToken,
    async close() {
      await app.close();
      await db.close();
    },
  };
}
