import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../server/db/index.js';
import { pgliteDump } from './helpers.js';


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
  let first = true;
  return {
    open() {
      const loadDataDir = first ? pgliteDump() : undefined;
      first = false;
      return openDatabase({ dataDir: dir, loadDataDir });
    },
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
