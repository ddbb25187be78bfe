import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../server/db/index.js';
import { pgliteDump } from './helpers.js';

/**
 * The embedded database keeps what it acknowledged. A process kill (kill -9) loses nothing in either
 * mode: every commit has reached the operating system before it is acknowledged. With sync (the
 * default, DATA_SYNC=on) PostgreSQL also syncs each commit to the disk and the data files at each
 * checkpoint, which is what survives a power cut; that cannot be cut in a test, so the test checks
 * that PostgreSQL runs with fsync on and that its syncs reach the file system.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-durability-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs the writer child until it has acknowledged `count` commits, then kills it with SIGKILL. */
async function writeThenKill(dataDir: string, sync: 'on' | 'off', count: number): Promise<number> {
  const dump = inject('pgliteDump') ?? '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/server/fixtures/writeThenWait.ts', dataDir, sync, dump], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let acknowledged = 0;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`writer did not reach ${count} commits:\n${output}`)), 60_000);
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const all = [...output.matchAll(/acknowledged (\d+)/g)];
      if (all.length) acknowledged = Number(all[all.length - 1][1]);
      if (acknowledged >= count) {
        child.kill('SIGKILL');
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => acknowledged < count && reject(new Error(`writer exited early:\n${output}`)));
  });
  await exited;
  return acknowledged;
}

describe.skipIf(!!process.env.DATABASE_URL)('the embedded database after kill -9', () => {
  it.each(['on', 'off'] as const)('has every acknowledged commit (DATA_SYNC=%s)', async (sync) => {
    const dataDir = path.join(tmp, `kill-${sync}`);
    const acknowledged = await writeThenKill(dataDir, sync, 150);
    // the killed process left its lock: the next open takes it over (its pid is gone)
    const db = await openDatabase({ dataDir, sync: sync === 'on' });
    try {
      const { rows } = await db.query<{ n: number; max: number }>('SELECT count(*)::int AS n, max(n) AS max FROM acknowledged');
      expect(rows[0].max).toBeGreaterThanOrEqual(acknowledged);
      expect(rows[0].n).toBe(rows[0].max);
    } finally {
      await db.close();
    }
  }, 120_000);
});

describe.skipIf(!!process.env.DATABASE_URL)('DATA_SYNC', () => {
  it('on: PostgreSQL runs with fsync on, syncing the write-ahead log at each commit', async () => {
    const db = await openDatabase({ dataDir: path.join(tmp, 'sync-on'), sync: true, loadDataDir: pgliteDump() });
    try {
      expect((await db.query('SHOW fsync')).rows[0]).toEqual({ fsync: 'on' });
      expect((await db.query('SHOW wal_sync_method')).rows[0]).toEqual({ wal_sync_method: 'fsync' });
      expect((await db.query('SHOW synchronous_commit')).rows[0]).toEqual({ synchronous_commit: 'on' });
    } finally {
      await db.close();
    }
  });

  it('off: PGlite as it comes, fsync off', async () => {
    const db = await openDatabase({ dataDir: path.join(tmp, 'sync-off'), sync: false, loadDataDir: pgliteDump() });
    try {
      expect((await db.query('SHOW fsync')).rows[0]).toEqual({ fsync: 'off' });
    } finally {
      await db.close();
    }
  });
});
