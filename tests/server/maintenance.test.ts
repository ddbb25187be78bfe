import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/index.js';
import { startMaintenance } from '../../server/db/maintenance.js';

describe('embedded database maintenance', () => {
  it('vacuums and analyzes PGlite on a schedule, and stops when asked', async () => {
    const db = await openDatabase({});
    const scripts: string[] = [];
    const exec = db.exec.bind(db);
    db.exec = (script: string) => {
      scripts.push(script);
      return exec(script);
    };
    await db.query(`INSERT INTO companies (id, name, display_name, type, ancestors) VALUES ('root', 'root', 'Root', 'root', ARRAY['root'])`);
    const stop = startMaintenance(db, { firstAfterMs: 10, everyMs: 40 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    stop();
    const runs = scripts.length;
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(scripts.every((script) => script === 'VACUUM ANALYZE')).toBe(true);
    const stats = await db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'companies'`);
    expect(stats.rows[0].n).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(scripts.length).toBe(runs);
    await db.close();
  });
});
