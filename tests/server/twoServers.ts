import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../server/db/index.js';
import { pgliteDump } from './helpers.js';
import { throwAwayDatabase } from './program.js';


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
    const { url, drop } = await throwAwayDatabase();
    return { open: () => openDatabase({ databaseUrl: url }), drop };
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
