import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { ADMIN_GROUP } from '../accounts/accounts.js';
import { mayGive } from './containment.js';
import { OWNER } from './roles.js';

/**
 * A new company's first administrator is its Owner over its subtree (docs/CONSOLE.md, "Roles";
 * DECISIONS.md, item 45), so that a reseller's customer has an Owner of its own. "First": the
 * company is not the root, nobody is in an `administrators` group of any of its domains yet, and
 * nobody holds Owner over it. Asked before the members are added, in their transaction.
 */
export async function isFirstAdministration(db: Queryable, companyId: string, groupId: string): Promise<boolean> {
  if (groupId !== ADMIN_GROUP) return false;
  const { rows } = await db.query<{ first: boolean }>(
    `SELECT c.type <> 'root'
        AND NOT EXISTS (SELECT 1 FROM group_members gm WHERE gm.company_id = c.id AND gm.group_id = $2)
        AND NOT EXISTS (SELECT 1 FROM role_assignments a WHERE a.role = $3 AND a.scope_company_id = c.id AND a.scope_domain_id IS NULL) AS first
     FROM companies c WHERE c.id = $1`,
    [companyId, ADMIN_GROUP, OWNER],
  );
  return rows[0]?.first ?? false;
}

/**
 * Gives Owner over the company to the users just made its first administrators, only when the
 * caller could give the Owner role there herself (containment.ts): setting a company up never
 * gives anyone more than its creator holds. An Administrator of the reseller (no Owner above) adds
 * administrators who hold Administrator only; an Owner above gives the Owner role later.
 */
export async function giveFirstOwner(db: Queryable, caller: Principal, companyId: string, domainId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  if (!(await mayGive(db, caller, [{ role: OWNER, companyId, domainId: null }]))) return;
  await db.query(
    `INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id)
     SELECT $1, $2, 'user', u, $3, $1 FROM unnest($4::text[]) AS u
     ON CONFLICT DO NOTHING`,
    [companyId, domainId, OWNER, userIds],
  );
}
