import crypto from 'node:crypto';
import { type Database, transactionSettings } from '../db/index.js';
import { databaseUnavailable } from '../errors.js';
import { runExport } from './exporter.js';
import { runImport } from './importer.js';
import { type JobRow, purgeOldJobs } from './store.js';
import { JobWork, LostJob } from './work.js';

/**
 * The background runner of import and export jobs (docs/CONSOLE.md, "Import and export"), one per
 * server process. It claims one waiting job at a time whose lease is free (a queued job, or a
 * running one whose process stopped or died: its lease lapsed), holds it by renewing the lease
 * while it works, and commits each batch only while the lease is still its own (work.ts). Two
 * processes on one PostgreSQL therefore never run one job at once, and a job whose process was
 * killed is taken up again once its lease lapses, from its last committed row.
 */

export interface JobRunnerOptions {
  /** This process's name in lease_owner. */
  owner?: string;
  /** How long a claim holds without renewal (a killed process's job waits this long). */
  leaseSeconds?: number;
  /** How often the runner looks for work when nobody woke it. */
  pollMs?: number;
  /** Rows per batch (one transaction each). */
  batchRows?: number;
  /** Pause between two batches, for the requests waiting on the database. */
  pauseMs?: number;
  /** Finished jobs and their files are deleted after this many days. */
  keepDays?: number;
  log?: (message: string) => void;
  /** Tests: told after each committed batch. */
  afterBatch?: (work: JobWork) => Promise<void> | void;
}

export interface JobRunner {
  /** Something was queued: look now. */
  wake(): void;
  /** Stops after the batch under way and frees the lease at once (another process goes on). */
  stop(): Promise<void>;
  /** As a killed process: stops at once, commits nothing more, leaves the lease to lapse (tests). */
  abandon(): Promise<void>;
}

const runners = new Map<Database, Set<JobRunner>>();

/** Wakes the runners of this process on this database (a job was just queued). */
export function wakeJobRunners(db: Database): void {
  for (const runner of runners.get(db) ?? []) runner.wake();
}

const CLAIM = `
  UPDATE user_jobs j SET lease_owner = $1, lease_until = now() + make_interval(secs => $2),
         status = 'running', started_at = coalesce(j.started_at, now())
  WHERE (j.company_id, j.domain_id, j.id) = (
    SELECT w.company_id, w.domain_id, w.id FROM user_jobs w
    WHERE w.status IN ('queued', 'running') AND (w.lease_until IS NULL OR w.lease_until < now())
    ORDER BY w.created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING j.company_id AS "companyId", j.domain_id AS "domainId", j.id, j.kind, j.status, j.options,
            j.rows_read::float8 AS "rowsRead", j.created_by AS "createdBy"`;

export function startJobRunner(db: Database, options: JobRunnerOptions = {}): JobRunner {
  const owner = options.owner ?? `${process.pid}-${crypto.randomBytes(6).toString('hex')}`;
  // JOB_LEASE_SECONDS: how soon a killed process's job is taken up (tests shorten it)
  const leaseSeconds = options.leaseSeconds ?? (Number(process.env.JOB_LEASE_SECONDS) || 30);
  const pollMs = options.pollMs ?? 5_000;
  const batchRows = options.batchRows ?? (db.kind === 'postgres' ? 1000 : 250);
  const pauseMs = options.pauseMs ?? (db.kind === 'postgres' ? 5 : 20);
  const log = options.log ?? (() => {});
  let stopped = false;
  let abandoned = false;
  let current: JobWork | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  /** Renews the lease of the job at hand between batches (a resumed import reads its committed rows again first). */
  const heartbeat = setInterval(() => {
    const work = current;
    if (!work || work.lost) return;
    db.query(`UPDATE user_jobs SET lease_until = now() + make_interval(secs => $5) WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND lease_owner = $4 AND status = 'running'`, [
      work.job.companyId,
      work.job.domainId,
      work.job.id,
      owner,
      leaseSeconds,
    ])
      .then(({ rowCount }) => {
        // cancelled, or taken over: stop at the next batch
        if (rowCount === 0) work.lost = true;
      })
      .catch(() => undefined);
  }, (leaseSeconds * 1000) / 3);
  heartbeat.unref();

  const runOne = async (): Promise<boolean> => {
    const { rows } = await db.query<JobRow>(CLAIM, [owner, leaseSeconds]);
    const job = rows[0];
    if (!job) return false;
    const work: JobWork = new JobWork(db, job, owner, leaseSeconds, batchRows, pauseMs, (): boolean => stopped || abandoned || work.lost, options.afterBatch);
    current = work;
    try {
      await (job.kind === 'import' ? runImport(work) : runExport(work));
    } catch (error) {
      if (error instanceof LostJob || abandoned) return true;
      if (databaseUnavailable(error)) throw error;
      log(`${job.kind} job ${job.id} failed: ${(error as Error).stack ?? error}`);
      await work.fail(`the ${job.kind} stopped on an internal error`).catch(() => undefined);
    } finally {
      current = undefined;
    }
    return true;
  };

  const loop = async () => {
    while (!stopped && !abandoned) {
      woken = false;
      let busy = false;
      try {
        busy = await runOne();
      } catch (error) {
        if (!stopped && !abandoned) log(`job runner: ${(error as Error).message}`);
      }
      if (!busy && !stopped && !abandoned) await sleep(pollMs);
    }
  };
  // outside any request's context: the runner's transactions name no caller (no audit record per row)
  const running = transactionSettings.exit(() => loop());

  let purgeTimer: NodeJS.Timeout | undefined;
  const purge = async () => {
    try {
      await purgeOldJobs(db, options.keepDays ?? 7, () => stopped || abandoned);
    } catch (error) {
      if (!stopped) log(`user_jobs purge failed: ${(error as Error).message}`);
    }
    if (!stopped && !abandoned) {
      purgeTimer = setTimeout(purge, 60 * 60_000);
      purgeTimer.unref();
    }
  };
  purgeTimer = setTimeout(() => transactionSettings.exit(purge), 60_000);
  purgeTimer.unref();

  const runner: JobRunner = {
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      clearInterval(heartbeat);
      clearTimeout(purgeTimer);
      wakeUp?.();
      await running;
      runners.get(db)?.delete(runner);
      // whatever this runner held goes on in another process at once
      await db.query(`UPDATE user_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`, [owner]).catch(() => undefined);
    },
    async abandon() {
      abandoned = true;
      if (current) current.lost = true;
      clearInterval(heartbeat);
      clearTimeout(purgeTimer);
      wakeUp?.();
      runners.get(db)?.delete(runner);
      await running;
    },
  };
  if (!runners.has(db)) runners.set(db, new Set());
  runners.get(db)!.add(runner);
  return runner;
}
