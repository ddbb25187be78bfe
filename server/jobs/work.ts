import type { Database, Queryable } from '../db/index.js';
import { recordAudit } from '../accounts/audit.js';
import type { JobRow } from './store.js';

/** The job was taken by another process, cancelled, or this runner was abandoned: nothing more is written for it here. */
export class LostJob extends Error {
  constructor() {
    super('the job is no longer this runner\'s');
  }
}

export interface BatchCounts {
  created?: number;
  updated?: number;
  skipped?: number;
  failed?: number;
  bytes?: number;
  /** An export's resume point. */
  cursor?: string;
}

/**
 * One job in the hands of one runner (runner.ts): each batch commits through `commit`, which holds
 * the job's row locked, checks that the lease is still this runner's, that the job is running and
 * that nobody moved it on (rows_read), runs the batch's writes, then adds its counts and renews the
 * lease, all in one transaction.
 */
export class JobWork {
  lost = false;
  /** How long the last batch's transaction took: the pause after it is a share of it. */
  private lastBatchMs = 0;
  constructor(
    readonly db: Database,
    readonly job: JobRow,
    readonly owner: string,
    readonly leaseSeconds: number,
    readonly batchRows: number,
    private readonly pauseMs: number,
    readonly stopped: () => boolean,
    private readonly afterBatch?: (work: JobWork) => Promise<void> | void,
  ) {}

  private get key() {
    return [this.job.companyId, this.job.domainId, this.job.id, this.owner];
  }

  /** Locks the job's row; throws LostJob unless it is still ours, running, at `rowsRead`. */
  private async hold(tx: Queryable, rowsRead?: number) {
    if (this.lost) throw new LostJob();
    const { rows } = await tx.query<{ status: string; rowsRead: number }>(
      `SELECT status, rows_read::float8 AS "rowsRead" FROM user_jobs WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND lease_owner = $4 FOR UPDATE`,
      this.key,
    );
    if (!rows[0] || rows[0].status !== 'running' || (rowsRead !== undefined && rows[0].rowsRead !== rowsRead)) {
      this.lost = true;
      throw new LostJob();
    }
  }

  /** One batch: `from` rows were read before it, `to` after it. A unique violation is tried again (up to three times) after `again`. */
  async commit(from: number, to: number, again: () => void, batch: (tx: Queryable) => Promise<BatchCounts>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const began = performance.now();
      try {
        await this.db.transaction(async (tx) => {
          await this.hold(tx, from);
          const counts = await batch(tx);
          await tx.query(
            `UPDATE user_jobs SET rows_read = $5, created = created + $6, updated = updated + $7, skipped = skipped + $8, failed = failed + $9,
                    bytes = bytes + $10, options = CASE WHEN $11::text IS NULL THEN options ELSE jsonb_set(options, '{cursor}', to_jsonb($11::text)) END,
                    lease_until = now() + make_interval(secs => $12)
             WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND lease_owner = $4`,
            [...this.key, to, counts.created ?? 0, counts.updated ?? 0, counts.skipped ?? 0, counts.failed ?? 0, counts.bytes ?? 0, counts.cursor ?? null, this.leaseSeconds],
          );
        });
        this.lastBatchMs = performance.now() - began;
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '23505' || attempt >= 3) throw error;
        again();
      }
    }
    this.job.rowsRead = to;
    await this.afterBatch?.(this);
  }

  /**
   * Gives requests the database and the processor between two batches: the set pause, plus twice
   * what the last batch took (an import works at most a third of the time, whatever the machine's
   * speed; a million users still take under five minutes here, and sign-ins meanwhile are slowed
   * less: docs/PERFORMANCE.md, "Importing a million users").
   */
  pause(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.pauseMs + this.lastBatchMs * 2));
  }

  /** The job's end, with its one audit record (who started it, what it did), as its creator's action. */
  private async end(status: 'done' | 'failed', error: string | null) {
    const { job } = this;
    await this.db.transaction(async (tx) => {
      await this.hold(tx);
      const { rows } = await tx.query<{ rowsRead: number; created: number; updated: number; skipped: number; failed: number; bytes: number }>(
        `UPDATE user_jobs SET status = $5, error = $6, finished_at = now(), lease_owner = NULL, lease_until = NULL
         WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND lease_owner = $4
         RETURNING rows_read::float8 AS "rowsRead", created::float8 AS created, updated::float8 AS updated, skipped::float8 AS skipped, failed::float8 AS failed, bytes::float8 AS bytes`,
        [...this.key, status, error],
      );
      if (job.createdBy) await tx.query(`SELECT set_config('iam.actor', $1, true)`, [JSON.stringify(job.createdBy)]);
      const counts = rows[0];
      const changes: Record<string, { after: unknown }> = { status: { after: status } };
      for (const [name, value] of Object.entries(counts)) changes[name] = { after: value };
      if (error) changes.error = { after: error };
      const action = job.kind === 'export' ? 'export' : job.options.dryRun ? 'dryRun' : 'import';
      await recordAudit(tx, { companyId: job.companyId, domainId: job.domainId, resourceType: job.kind === 'export' ? 'exportJobs' : 'importJobs', resourceId: job.id, action, changes });
    });
  }

  finish() {
    return this.end('done', null);
  }

  fail(message: string) {
    return this.end('failed', message);
  }
}
