import { LIFETIME_SECONDS } from '../accounts/links.js';
import type { Database } from './index.js';

/**
 * What autovacuum does, for PGlite, which has none: fresh planner statistics (ANALYZE) and the
 * visibility map and GIN pending lists (VACUUM) that deep pages and searches rely on
 * (docs/PERFORMANCE.md, "How lists stay fast"). The work is done one table and one statement at a
 * time, only where rows changed, with a pause between steps so that requests waiting for the
 * database go first: no step holds the database longer than one table's VACUUM or ANALYZE.
 *
 * - Soon after writes: every CHECK_EVERY_MS the change counters (pg_stat_user_tables) are read, and a
 *   table with more changed rows than autovacuum's default threshold (50 rows + 10% of the table),
 *   or with rows and no statistics at all, is maintained at once: a bulk load or import is followed
 *   by ANALYZE within seconds, not minutes. A table is maintained this way at most every REST_MS.
 * - On a schedule (every 15 minutes): every table with any change since its last step.
 *
 * On PostgreSQL autovacuum does both, but only at its next round (autovacuum_naptime, a minute by
 * default): a search in the first minute after a bulk load is planned without statistics (a walk of
 * the whole list instead of the trigram index). So there the server ANALYZEs a table past the same
 * threshold too (ANALYZE only: vacuuming stays autovacuum's job), one instance at a time.
 */

export const CHECK_EVERY_MS = 2_000;
/**
 * PostgreSQL publishes a connection's change counters up to 10 s late: rows an ANALYZE has already
 * seen can show up after it. Waiting this long before a table's next check-triggered step keeps them
 * from bringing another round at once.
 */
export const REST_MS = 15_000;
/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor, PostgreSQL's defaults. */
const CHANGED_ROWS = 50;
const CHANGED_SHARE = 0.1;

export interface MaintenanceOptions {
  /** The sweep of every changed table. */
  everyMs?: number;
  firstAfterMs?: number;
  /** How often the change counters are read. */
  checkEveryMs?: number;
  /** Least time between two check-triggered steps of one table. */
  restMs?: number;
  /** Pause between two steps. */
  pauseMs?: number;
  log?: (message: string) => void;
  /** Told after each step. */
  onStep?: (step: MaintenanceStep) => void;
  /** Sign-in events older than this are deleted (SIGNIN_RETENTION_DAYS); unset: kept. */
  signInRetentionDays?: number;
  /** Audit records older than this are deleted (AUDIT_RETENTION_DAYS); unset: kept. */
  auditRetentionDays?: number;
  /** How often old events are purged. */
  purgeEveryMs?: number;
}

export interface MaintenanceStep {
  sql: string;
  ms: number;
}

interface TableStats {
  name: string;
  oid: number;
  rows: number;
  changed: number;
  unvacuumed: number;
  unanalyzed: boolean;
  /** Milliseconds since the table was last vacuumed or analyzed (by anyone); null: never. */
  restedMs: number | null;
}

const TABLE_STATS = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name, s.relid::int8::float8 AS oid,
         greatest(c.reltuples, 0)::float8 AS rows, s.n_mod_since_analyze::float8 AS changed,
         (s.n_dead_tup + s.n_ins_since_vacuum)::float8 AS unvacuumed,
         -- rows but no statistics: loaded before the counters started (they are lost with a crash);
         -- ANALYZE of a table without live rows sets reltuples to 0 (and writes no statistics)
         c.reltuples <> 0 AND pg_relation_size(s.relid) > 0
           AND NOT EXISTS (SELECT 1 FROM pg_stats p WHERE p.schemaname = s.schemaname AND p.tablename = s.relname) AS unanalyzed,
         1000 * extract(epoch FROM clock_timestamp()
           - greatest(s.last_analyze, s.last_autoanalyze, s.last_vacuum, s.last_autovacuum))::float8 AS "restedMs"
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = current_schema()`;

/**
 * One round: VACUUM (PGlite) and ANALYZE of each table past the threshold (and rested), or with
 * any change at all when `all` is set, one statement at a time. Returns the steps run, with their
 * duration.
 */
export async function maintainTables(
  db: Database,
  options: { all?: boolean; restMs?: number; pauseMs?: number; stopped?: () => boolean; onStep?: (step: MaintenanceStep) => void } = {},
): Promise<MaintenanceStep[]> {
  const { all = false, restMs = REST_MS, pauseMs = 20, stopped = () => false, onStep } = options;
  // PGlite publishes its change counters at most once a second: without this, the rows of a bulk
  // write still pending there would be counted again after the ANALYZE that already saw them
  if (db.kind === 'pglite') await db.query('SELECT pg_stat_force_next_flush()');
  const tables = (await db.query<TableStats>(TABLE_STATS)).rows;
  const steps: MaintenanceStep[] = [];
  const step = async (sql: string, run: () => Promise<unknown>) => {
    if (stopped()) return;
    if (steps.length) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    // a stop asked for during the pause: no new step starts
    if (stopped()) return;
    const started = performance.now();
    await run();
    steps.push({ sql, ms: performance.now() - started });
    onStep?.(steps[steps.length - 1]);
  };
  for (const table of tables) {
    // PostgreSQL: analyze only (autovacuum vacuums)
    const changed = db.kind === 'pglite' ? Math.max(table.changed, table.unvacuumed) : table.changed;
    const due = all
      ? changed > 0 || table.unanalyzed
      : table.unanalyzed || (changed > CHANGED_ROWS + CHANGED_SHARE * table.rows && (table.restedMs ?? Infinity) >= restMs);
    if (!due) continue;
    if (db.kind === 'pglite') {
      if (table.unvacuumed > 0) await step(`VACUUM ${table.name}`, () => db.exec(`VACUUM ${table.name}`));
      if (table.changed > 0 || table.unanalyzed) await step(`ANALYZE ${table.name}`, () => db.exec(`ANALYZE ${table.name}`));
    } else if (table.changed > 0 || table.unanalyzed) {
      await step(`ANALYZE ${table.name}`, () => analyzeOnce(db, table));
    }
  }
  return steps;
}

/**
 * PostgreSQL: one instance analyzes a table (the others skip it while it is being done), and only
 * if nobody (another instance, autovacuum) has done it since the counters were read.
 */
function analyzeOnce(db: Database, table: TableStats) {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean; changed: number | null }>(
      `SELECT pg_try_advisory_xact_lock(4242002, $1::int) AS locked,
              (SELECT n_mod_since_analyze::float8 FROM pg_stat_user_tables WHERE relid = $2::oid) AS changed`,
      [table.oid % 2 ** 31, table.oid],
    );
    if (rows[0].locked && ((rows[0].changed ?? 0) > 0 || table.unanalyzed)) await tx.exec(`ANALYZE ${table.name}`);
  });
}

/** Rows one purge statement deletes at most: a short statement, so writers never wait long on it. */
export const PURGE_BATCH = 1000;

/** The event tables that are purged by age (docs/OPERATIONS.md). */
export type EventTable = 'signin_events' | 'audit_events';

/**
 * Deletes the events (sign-in events or audit records) older than `days`, PURGE_BATCH rows a
 * statement with a pause between statements (requests waiting for the database go first; PGlite
 * runs one statement at a time; writes that record events never wait for more than one batch).
 * SKIP LOCKED: two instances purging together take different rows instead of waiting on each
 * other. Returns the number of rows deleted.
 */
export async function purgeOldEvents(
  db: Database,
  table: EventTable,
  days: number,
  options: { batch?: number; pauseMs?: number; stopped?: () => boolean } = {},
): Promise<number> {
  const { batch = PURGE_BATCH, pauseMs = 50, stopped = () => false } = options;
  let deleted = 0;
  while (!stopped()) {
    const { rowCount } = await db.query(
      `DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table} WHERE occurred_at < now() - make_interval(days => $1)
         ORDER BY occurred_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [days, batch],
    );
    deleted += rowCount;
    if (rowCount < batch) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return deleted;
}

/**
 * Deletes what the authorization server stored and no longer needs (server/oauth/adapter.ts):
 * codes, tokens, sessions and interactions an hour past their expiry (the hour keeps "expired"
 * and "already used" answers exact for a while). Batched like purgeOldEvents.
 */
export async function purgeExpiredOidc(db: Database, options: { batch?: number; pauseMs?: number; stopped?: () => boolean } = {}): Promise<number> {
  const { batch = PURGE_BATCH, pauseMs = 50, stopped = () => false } = options;
  let deleted = 0;
  while (!stopped()) {
    const { rowCount } = await db.query(
      `DELETE FROM oidc_payloads WHERE (model, id) IN (
         SELECT model, id FROM oidc_payloads WHERE expires_at < now() - interval '1 hour'
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [batch],
    );
    deleted += rowCount;
    if (rowCount < batch) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return deleted;
}

/**
 * How long a message stays in the outbox (mail_outbox, migration 22): as long as the longest link
 * a message carries can work (an invitation's 7 days, server/accounts/links.ts), so that every
 * message purged holds only dead links, and none lingers for ever with a person's address in it.
 */
export const OUTBOX_KEPT_SECONDS = Math.max(...Object.values(LIFETIME_SECONDS));

/**
 * Deletes the outbox's messages older than `keptSeconds`, and the account tokens (reset, invitation
 * and verification links) an hour past their expiry (used ones expire too). Batched like
 * purgeOldEvents; each by an index on its age (mail_outbox_age, migration 28; account_tokens_age).
 */
export async function purgeOldMail(db: Database, options: { keptSeconds?: number; batch?: number; pauseMs?: number; stopped?: () => boolean } = {}): Promise<number> {
  const { keptSeconds = OUTBOX_KEPT_SECONDS, batch = PURGE_BATCH, pauseMs = 50, stopped = () => false } = options;
  const statements: [string, unknown[]][] = [
    [
      `DELETE FROM mail_outbox WHERE (company_id, domain_id, id) IN (
         SELECT company_id, domain_id, id FROM mail_outbox WHERE created_at < now() - make_interval(secs => $1)
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [keptSeconds, batch],
    ],
    [
      `DELETE FROM account_tokens WHERE id IN (
         SELECT id FROM account_tokens WHERE expires_at < now() - interval '1 hour'
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [batch],
    ],
  ];
  let deleted = 0;
  for (const [sql, params] of statements) {
    while (!stopped()) {
      const { rowCount } = await db.query(sql, params);
      deleted += rowCount;
      if (rowCount < batch) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  return deleted;
}

/**
 * Deletes the sign-ins sent to upstream identity providers that never came back (upstream_flows,
 * five minutes each) and the SAML assertion ids kept past their assertion's end
 * (saml_assertions_seen): both are useless once expired. Batched like purgeOldEvents.
 */
export async function purgeExpiredUpstream(db: Database, options: { batch?: number; pauseMs?: number; stopped?: () => boolean } = {}): Promise<number> {
  const { batch = PURGE_BATCH, pauseMs = 50, stopped = () => false } = options;
  let deleted = 0;
  for (const table of ['upstream_flows', 'saml_assertions_seen']) {
    while (!stopped()) {
      const { rowCount } = await db.query(
        `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE expires_at < now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [batch],
      );
      deleted += rowCount;
      if (rowCount < batch) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  return deleted;
}

/**
 * Starts the checks and the sweep; returns the function that stops them (a step under way
 * finishes, no new one starts).
 */
export function startMaintenance(db: Database, options: MaintenanceOptions = {}): () => void {
  const { everyMs = 15 * 60_000, firstAfterMs = 60_000, checkEveryMs = CHECK_EVERY_MS, restMs = REST_MS, pauseMs = 20, log = () => {}, onStep } = options;
  const { purgeEveryMs = 60 * 60_000 } = options;
  const retention = (
    [
      ['signin_events', options.signInRetentionDays],
      ['audit_events', options.auditRetentionDays],
    ] as const
  ).filter((entry): entry is readonly [EventTable, number] => Boolean(entry[1]));
  let stopped = false;
  let purgeTimer: NodeJS.Timeout | undefined;
  // its own timer: a long purge never delays the checks after writes, nor they it
  const purge = async () => {
    for (const [table, days] of retention) {
      try {
        const started = performance.now();
        const deleted = await purgeOldEvents(db, table, days, { stopped: () => stopped });
        if (deleted) onStep?.({ sql: `DELETE FROM ${table} (${deleted} rows past ${days} days)`, ms: performance.now() - started });
      } catch (error) {
        if (!stopped) log(`${table} purge failed: ${(error as Error).message}`);
      }
    }
    try {
      const started = performance.now();
      const deleted = await purgeExpiredOidc(db, { stopped: () => stopped });
      if (deleted) onStep?.({ sql: `DELETE FROM oidc_payloads (${deleted} expired)`, ms: performance.now() - started });
    } catch (error) {
      if (!stopped) log(`oidc_payloads purge failed: ${(error as Error).message}`);
    }
    try {
      const started = performance.now();
      const deleted = await purgeOldMail(db, { stopped: () => stopped });
      if (deleted) onStep?.({ sql: `DELETE FROM mail_outbox, account_tokens (${deleted} past their links' life)`, ms: performance.now() - started });
    } catch (error) {
      if (!stopped) log(`mail_outbox purge failed: ${(error as Error).message}`);
    }
    try {
      const started = performance.now();
      const deleted = await purgeExpiredUpstream(db, { stopped: () => stopped });
      if (deleted) onStep?.({ sql: `DELETE FROM upstream_flows, saml_assertions_seen (${deleted} expired)`, ms: performance.now() - started });
    } catch (error) {
      if (!stopped) log(`upstream_flows purge failed: ${(error as Error).message}`);
    }
    if (!stopped) schedulePurge(purgeEveryMs);
  };
  const schedulePurge = (wait: number) => {
    purgeTimer = setTimeout(purge, wait);
    purgeTimer.unref();
  };
  schedulePurge(firstAfterMs);
  let sweepAt = Date.now() + firstAfterMs;
  let timer: NodeJS.Timeout | undefined;
  const round = async () => {
    // PostgreSQL sweeps with autovacuum; only the check after writes runs there
    const all = db.kind === 'pglite' && Date.now() >= sweepAt;
    if (all) sweepAt = Date.now() + everyMs;
    try {
      await maintainTables(db, { all, restMs, pauseMs, stopped: () => stopped, onStep });
    } catch (error) {
      if (!stopped) log(`database maintenance failed: ${(error as Error).message}`);
    }
    if (!stopped) next();
  };
  const next = () => {
    const wait = db.kind === 'pglite' ? Math.min(checkEveryMs, Math.max(0, sweepAt - Date.now())) : checkEveryMs;
    timer = setTimeout(round, wait);
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(purgeTimer);
  };
}
