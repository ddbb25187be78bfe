import type { Database } from '../db/index.js';

/**
 * Slices of large user lists (table user_slices, migration 6): every SLICE_ROWS rows of a domain's
 * list in display-name order, with an exact row count kept by a trigger. A jump to any page seeks to
 * the page's slice and skips at most one slice's rows, however deep the page (docs/PERFORMANCE.md).
 */
export const SLICE_ROWS = 10_000;
/** Lists smaller than this page through OFFSET quickly enough; they get no slices. */
export const SLICED_FROM_ROWS = 30_000;

export interface SliceStats {
  total: number;
  slices: number;
  largest: number;
}

/** Slices are cut again when missing, or when writes have made one slice (or their number) too large. */
export function slicesNeedRebuild({ total, slices, largest }: SliceStats): boolean {
  if (total < SLICED_FROM_ROWS) return false;
  return slices === 0 || largest > 2 * SLICE_ROWS || slices > 2 * Math.ceil(total / SLICE_ROWS) + 2;
}

/**
 * Cuts one list (a domain's users of one status) into slices with one walk of its index. It holds
 * the list's exclusive lock, so writers to this list wait (their trigger takes the shared lock) and
 * every change is either in this walk or applied to the new slices after it.
 */
export async function rebuildUserSlices(db: Database, companyId: string, domainId: string, status: 'active' | 'deleted') {
  const partition = status === 'deleted' ? `t.status = 'deleted'` : `t.status <> 'deleted'`;
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(4242, hashtext($1::text || '/' || $2::text || '/' || $3::text))`, [companyId, domainId, status]);
    await tx.query(`DELETE FROM user_slices WHERE company_id = $1 AND domain_id = $2 AND status = $3`, [companyId, domainId, status]);
    await tx.query(
      `INSERT INTO user_slices (company_id, domain_id, status, lo_name, lo_id, n)
       SELECT $1, $2, $3, CASE WHEN pos = 0 THEN '' ELSE display_name END, CASE WHEN pos = 0 THEN '' ELSE id END, $4::bigint
       FROM (SELECT t.display_name, t.id, row_number() OVER (ORDER BY t.display_name, t.id) - 1 AS pos
             FROM users t WHERE t.company_id = $1 AND t.domain_id = $2 AND ${partition}) walk
       WHERE pos % $4::bigint = 0`,
      [companyId, domainId, status, SLICE_ROWS],
    );
    // every slice but the last holds SLICE_ROWS rows; count the last one's
    await tx.query(
      `UPDATE user_slices s SET n = (
         SELECT count(*) FROM users t
         WHERE t.company_id = $1 AND t.domain_id = $2 AND ${partition} AND (t.display_name, t.id) >= (s.lo_name, s.lo_id))
       WHERE (s.company_id, s.domain_id, s.status, s.lo_name, s.lo_id) = (
         SELECT company_id, domain_id, status, lo_name, lo_id FROM user_slices
         WHERE company_id = $1 AND domain_id = $2 AND status = $3 ORDER BY lo_name DESC, lo_id DESC LIMIT 1)`,
      [companyId, domainId, status],
    );
  });
}

const running = new Set<string>();
const failedAt = new Map<string, number>();
/** After a failed rebuild, a list is not tried again for this long (per process). */
const RETRY_AFTER_MS = 60_000;

/**
 * Rebuilds in the background, after the response, one rebuild per list at a time. Until it lands,
 * pages are still exact (they just skip more rows).
 */
export function scheduleSliceRebuild(db: Database, companyId: string, domainId: string, status: 'active' | 'deleted') {
  const list = JSON.stringify([companyId, domainId, status]);
  if (running.has(list) || Date.now() - (failedAt.get(list) ?? 0) < RETRY_AFTER_MS) return;
  running.add(list);
  setImmediate(() => {
    rebuildUserSlices(db, companyId, domainId, status)
      .then(() => failedAt.delete(list))
      .catch((error: Error) => {
        failedAt.set(list, Date.now());
        console.error(`user list slices for ${companyId}/${domainId} (${status}) not rebuilt: ${error.message}`);
      })
      .finally(() => running.delete(list));
  });
}
