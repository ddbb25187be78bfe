import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSigningKeys } from '../../server/keys.js';
import { sharedDatabase } from './twoServers.js';

/**
 * Where the signing key lives: SIGNING_KEY first; on PostgreSQL the database, so that every process
 * and machine on it signs alike; on the embedded database the DATA_DIR file.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-keys-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('signing keys', () => {
  it('SIGNING_KEY wins over the stored key', async () => {
    const first = await loadSigningKeys({ dataDir: tmp });
    const pem = fs.readFileSync(path.join(tmp, 'signing-key.pem'), 'utf8');
    const other = fs.mkdtempSync(path.join(tmp, 'other-'));
    const given = await loadSigningKeys({ pem, dataDir: other });
    expect(given.kid).toBe(first.kid);
    expect(fs.existsSync(path.join(other, 'signing-key.pem'))).toBe(false);
  });

  it.skipIf(!!process.env.DATABASE_URL)('embedded database: kept in DATA_DIR, readable only by its owner, the same after a restart', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pglite-'));
    const first = await loadSigningKeys({ dataDir: dir });
    const file = path.join(dir, 'signing-key.pem');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await loadSigningKeys({ dataDir: dir })).kid).toBe(first.kid);
  });

  it.skipIf(!process.env.DATABASE_URL)('PostgreSQL: instances starting together on one database agree on one key, whatever their DATA_DIR', async () => {
    const shared = await sharedDatabase();
    const dbs = await Promise.all([shared.open(), shared.open(), shared.open()]);
    try {
      const dirs = dbs.map(() => fs.mkdtempSync(path.join(tmp, 'instance-')));
      const keys = await Promise.all(dbs.map((db, i) => loadSigningKeys({ db, dataDir: dirs[i] })));
      expect(new Set(keys.map((key) => key.kid)).size).toBe(1);
      // a later instance (a restart, another machine) reads the same key
      expect((await loadSigningKeys({ db: dbs[0], dataDir: fs.mkdtempSync(path.join(tmp, 'later-')) })).kid).toBe(keys[0].kid);
      // nothing was written to the instances' folders
      for (const dir of dirs) expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      for (const db of dbs) await db.close();
      await shared.drop();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('PostgreSQL: an installation that kept its key in DATA_DIR keeps signing with it', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'upgrade-'));
    const before = await loadSigningKeys({ dataDir: dir });
    const shared = await sharedDatabase();
    const db = await shared.open();
    try {
      expect((await loadSigningKeys({ db, dataDir: dir })).kid).toBe(before.kid);
      // and from then on every instance gets it from the database
      expect((await loadSigningKeys({ db, dataDir: fs.mkdtempSync(path.join(tmp, 'fresh-')) })).kid).toBe(before.kid);
    } finally {
      await db.close();
      await shared.drop();
    }
  });
});
