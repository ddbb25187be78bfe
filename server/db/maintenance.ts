import type { Database } from './index.js';

export interface MaintenanceOptions {
  everyMs?: number;
  firstAfterMs?: number;
  log?: (message: string) => void;
}

/**
 * PGlite has no autovacuum: without it the planner's statistics go stale and index-only scans
 * (deep list pages) fall back to reading the table. Run what autovacuum would, now and then.
 * PostgreSQL does this itself, so nothing runs there.
 */
export function startMaintenance(db: Database, options: MaintenanceOptions = {}): () => void {
  if (db.kind !== 'pglite') return () => {};
  const { everyMs = 15 * 60_000, firstAfterMs = 60_000, log = () => {} } = options;
  const run = () => db.exec('VACUUM ANALYZE').catch((error: Error) => log(`database maintenance failed: ${error.message}`));
  const first = setTimeout(run, firstAfterMs);
  const timer = setInterval(run, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
