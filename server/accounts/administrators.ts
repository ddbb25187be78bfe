import type { Queryable } from '../db/index.js';
import { HttpError } from '../errors.js';
import { ADMIN_GROUP } from './accounts.js';

/**
 * The domain's administrators walked downwards: the active `administrators` group and every active
 * group inside it, then their active users. The same membership as member_groups (migration 13),
 * which walks upwards from one member: every group on the way must be active.
 *
 * This is the one deliberate second walk. member_groups answers "which groups is this member in",
 * so listing the administrators through it means one walk per user of the domain (200,000 in a
 * large one) on every soft delete and member removal (keepingAnAdministrator runs it twice); walking
 * down from the one group visits only the groups inside it and then reads their user members by the
 * group_members key. tests/server/membership.test.ts holds both walks to the same answer on a nested
 * graph. UNION ends even on cyclic data.
 */
const ADMINISTRATORS = `WITH RECURSIVE admin_groups(id) AS (
    SELECT g.id FROM groups g WHERE g.company_id = $1 AND g.domain_id = $2 AND g.id = '${ADMIN_GROUP}' AND g.status = 'active'
    UNION
    SELECT gm.member_id FROM group_members gm
    JOIN admin_groups a ON gm.group_id = a.id
    JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.member_id AND g.status = 'active'
    WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.member_type = 'group'
  )
  SELECT u.id, u.username, u.display_name AS "displayName", u.email FROM users u
  WHERE u.company_id = $1 AND u.domain_id = $2 AND u.status = 'active' AND u.blocked_at IS NULL
    AND EXISTS (SELECT 1 FROM group_members gm JOIN admin_groups a ON gm.group_id = a.id
                WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.member_type = 'user' AND gm.member_id = u.id)`;

/** The console shows them to say who would be left; no domain has anywhere near this many. */
export const MAX_LISTED = 1000;

export interface Administrator {
  id: string;
  username: string;
  displayName: string;
  email: string;
}

export async function activeAdministrators(db: Queryable, companyId: string, domainId: string): Promise<Administrator[]> {
  const { rows } = await db.query<Administrator>(`${ADMINISTRATORS} ORDER BY lower(u.username), u.id LIMIT ${MAX_LISTED}`, [companyId, domainId]);
  return rows;
}

async function hasActiveAdministrator(db: Queryable, companyId: string, domainId: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(`SELECT EXISTS (${ADMINISTRATORS}) AS found`, [companyId, domainId]);
  return rows[0].found;
}

/**
 * Runs a change that can take administrators away (soft-deleting or purging users or groups,
 * removing members) and refuses it, 409, when it would leave a domain that had an active
 * administrator with none: nobody could sign in to manage it any more (docs/CONSOLE.md, "Users" and
 * "Groups"). The `administrators` row is locked first, so two changes that each leave one
 * administrator take turns: the second sees the first's result and is refused.
 */
export async function keepingAnAdministrator<T>(db: Queryable, companyId: string, domainId: string, change: () => Promise<T>): Promise<T> {
  const { rowCount } = await db.query(`SELECT 1 FROM groups WHERE company_id = $1 AND domain_id = $2 AND id = $3 FOR UPDATE`, [
    companyId,
    domainId,
    ADMIN_GROUP,
  ]);
  const had = rowCount > 0 && (await hasActiveAdministrator(db, companyId, domainId));
  const result = await change();
  if (had && !(await hasActiveAdministrator(db, companyId, domainId))) {
    throw new HttpError(
      409,
      `domain ${domainId} would have no active administrator left: nobody could manage it. Add another user to ${ADMIN_GROUP} first`,
    ).as('last_administrator', { domain: domainId, group: ADMIN_GROUP });
  }
  return result;
}

/** The ids of `ids` that a statement returned, in the order given. */
const changedOf = (ids: string[], rows: { id: string }[]) => {
  const changed = new Set(rows.map((row) => row.id));
  return ids.filter((id) => changed.has(id));
};

export interface DomainRef {
  companyId: string;
  domainId: string;
}

/**
 * Blocks these users of a domain (docs/CONSOLE.md, "Account states"), one way for the user screen
 * and the bulk action: the last active administrator of the domain stays (409); the database ends
 * their sessions and spends their links (migrations 23 and 31). Answers those that changed, in the order given.
 */
export async function blockUsers(tx: Queryable, at: DomainRef, ids: string[]): Promise<string[]> {
  return keepingAnAdministrator(tx, at.companyId, at.domainId, async () => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE users SET blocked_at = now(), updated_at = now() WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3::text[]) AND blocked_at IS NULL RETURNING id`,
      [at.companyId, at.domainId, ids],
    );
    return changedOf(ids, rows);
  });
}

/** Unblocks these users of a domain; answers those that changed. */
export async function unblockUsers(tx: Queryable, at: DomainRef, ids: string[]): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE users SET blocked_at = NULL, updated_at = now() WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3::text[]) AND blocked_at IS NOT NULL RETURNING id`,
    [at.companyId, at.domainId, ids],
  );
  return changedOf(ids, rows);
}
