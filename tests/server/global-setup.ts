import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { TestProject } from 'vitest/node';
import type { Database, Queryable } from '../../server/db/index.js';
import { migrate } from '../../server/db/migrations.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Tarball of a freshly migrated PGlite data dir (absent on PostgreSQL). */
    pgliteDump?: string;
  }
}

/**
 * Creating a PGlite cluster (initdb inside WebAssembly) and migrating it costs seconds per test
 * file. Do it once per run: every test file's server then starts from this migrated dump
 * (openDatabase's loadDataDir). On PostgreSQL (DATABASE_URL) there is nothing to do.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) return;
  const pglite = await PGlite.create(undefined, { extensions: { pg_trgm } });
  const wrap = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<T>(text: string, params: unknown[] = []) {
      const result = await target.query<T>(text, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(script: string) {
      await target.exec(script);
    },
  });
  const db: Database = {
    kind: 'pglite',
    stats: { queries: 0 },
    ...wrap(pglite),
    stable: wrap(pglite),
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    close: () => pglite.close(),
  };
  await migrate(db);
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-test-pglite-'));
  const file = path.join(dir, 'migrated.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteDump', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
