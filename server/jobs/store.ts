import type { Database, Queryable } from '../db/index.js';
import type { ResourceDefinition } from '../api/resource.js';

/**
 * The import and export jobs of a domain's users as stored (migration 40: user_jobs, their file in
 * user_job_chunks, an import's refused rows in user_job_errors); docs/CONSOLE.md, "Import and export".
 */

export type JobKind = 'import' | 'export';
export type JobStatus = 'uploading' | 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ImportOptions {
  format: 'csv' | 'jsonl';
  dryRun: boolean;
  match: 'none' | 'id' | 'email';
  groups: boolean;
  mapping: Record<string, string>;
  fileName?: string;
  /** A real import run on a dry run's stored file: the job whose input it reads. */
  inputJob?: string;
}

export interface ExportOptions {
  format: 'csv' | 'jsonl';
  passwordHashes: boolean;
  groups: boolean;
  /** The last user id written to a committed chunk (where a resumed export goes on). */
  cursor?: string;
}

export interface JobRow {
  companyId: string;
  domainId: string;
  id: string;
  kind: JobKind;
  status: JobStatus;
  options: ImportOptions & ExportOptions;
  rowsRead: number;
  createdBy: Record<string, string> | null;
}

export const INPUT = 'input';
export const OUTPUT = 'output';

/** The file is kept in pieces of this size (a row each in user_job_chunks). */
export const CHUNK_BYTES = 1024 * 1024;

const counter = (column: string) => ({ column: `${column}::float8`, type: 'integer' as const });

/** The API shape of a job (one definition for the lists and the single GETs of both kinds). */
export const jobDefinition = {
  name: 'userJobs',
  permission: 'users',
  label: 'job',
  table: 'user_jobs t',
  fields: {
    id: { column: 't.id' },
    kind: { column: 't.kind' },
    status: { column: 't.status' },
    // the resume point of an export is the server's own
    options: { column: `(t.options - 'cursor')`, type: 'object', listed: false },
    rowsRead: counter('t.rows_read'),
    created: counter('t.created'),
    updated: counter('t.updated'),
    skipped: counter('t.skipped'),
    failed: counter('t.failed'),
    bytes: counter('t.bytes'),
    error: { column: 't.error', type: 'nullableText', listed: false },
    // who started it (the caller's ip and roles stay in the audit trail)
    createdBy: {
      column: `jsonb_build_object('userId', t.created_by ->> 'userId', 'companyId', t.created_by ->> 'companyId', 'domainId', t.created_by ->> 'domainId')`,
      type: 'object',
      listed: false,
    },
    createdAt: { column: 't.created_at', time: true },
    startedAt: { column: 't.started_at', type: 'nullableText', time: true },
    finishedAt: { column: 't.finished_at', type: 'nullableText', time: true },
  },
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'createdAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

export type JobParams = { companyId: string; domainId: string };

/**
 * The file of a job, its pieces in order from `fromSeq`, a few at a time (each piece read once:
 * memory holds a few megabytes whatever the file's size).
 */
export async function* readChunks(db: Queryable, at: JobParams & { jobId: string }, part: string, fromSeq = 0): AsyncGenerator<Buffer> {
  let next = fromSeq;
  for (;;) {
    const { rows } = await db.query<{ seq: number; data: Uint8Array }>(
      `SELECT seq, data FROM user_job_chunks WHERE company_id = $1 AND domain_id = $2 AND job_id = $3 AND part = $4 AND seq >= $5 ORDER BY seq LIMIT 4`,
      [at.companyId, at.domainId, at.jobId, part, next],
    );
    for (const row of rows) yield Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
    if (rows.length < 4) return;
    next = rows[rows.length - 1].seq + 1;
  }
}

/** Job ids: sortable by creation (time, then randomness), never guessed. */
export function newJobId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/**
 * Jobs finished more than `days` ago are deleted with their files and errors (the pieces first, a
 * few at a time: a 2 GB file is 2,000 rows of a megabyte), and an upload whose process died is
 * failed after a day. Returns the jobs deleted.
 */
export async function purgeOldJobs(db: Database, days: number, stopped: () => boolean = () => false): Promise<number> {
  await db.query(
    `UPDATE user_jobs SET status = 'failed', error = 'the upload was interrupted', finished_at = now()
     WHERE status = 'uploading' AND created_at < now() - interval '1 day'`,
  );
  const old = `SELECT j.company_id, j.domain_id, j.id FROM user_jobs j
     WHERE j.status IN ('done', 'failed', 'cancelled') AND coalesce(j.finished_at, j.created_at) < now() - make_interval(days => $1)
       -- a real import still reading a dry run's file keeps it
       AND NOT EXISTS (SELECT 1 FROM user_jobs r WHERE r.company_id = j.company_id AND r.domain_id = j.domain_id
                       AND r.options ->> 'inputJob' = j.id AND r.status IN ('uploading', 'queued', 'running'))`;
  while (!stopped()) {
    const { rowCount } = await db.query(
      `DELETE FROM user_job_chunks WHERE (company_id, domain_id, job_id, part, seq) IN (
         SELECT c.company_id, c.domain_id, c.job_id, c.part, c.seq FROM user_job_chunks c
         WHERE (c.company_id, c.domain_id, c.job_id) IN (${old}) LIMIT 20)`,
      [days],
    );
    if (rowCount < 20) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let deleted = 0;
  while (!stopped()) {
    const { rowCount } = await db.query(`DELETE FROM user_jobs WHERE (company_id, domain_id, id) IN (${old} LIMIT 100)`, [days]);
    deleted += rowCount;
    if (rowCount < 100) break;
  }
  return deleted;
}
