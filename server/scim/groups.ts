import type { ScimPatchOperation } from 'scim-patch';
import type { Queryable } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import { type Selection, project, wants } from './attributes.js';
import { assertHoldsNoRole, checkIfMatch, etag, field, GROUP_SCHEMA, iso, LIST_SCHEMA, type Place, text, VERSION_SQL } from './common.js';
import { invalidSyntax, invalidValue, notFound, ScimError } from './errors.js';
import { type AttributeMap, attributeOf, filterSql, pageOf } from './filter.js';
import { applyPatch, operationsOf, touched } from './patch.js';

/**
 * SCIM Groups of a domain (docs/CONSOLE.md, "Provisioning (SCIM)"): displayName ↔ display_name,
 * externalId ↔ external_id, members ↔ group_members (users, or groups named with type "Group").
 * A group made here gets a random id, which is also its name. A group that gives a console role,
 * and a member that holds one, are never changed by a provisioning client (common.ts).
 */

const MEMBER = `EXISTS (SELECT 1 FROM group_members gm WHERE gm.company_id = t.company_id AND gm.domain_id = t.domain_id AND gm.group_id = t.id AND `;
const memberOf = (predicate: (column: string) => string) => `${MEMBER}${predicate('gm.member_id')})`;

export const GROUP_ATTRIBUTES: AttributeMap = {
  id: { sql: 't.id', kind: 'text', caseExact: true },
  displayname: { sql: 't.display_name', kind: 'text' },
  externalid: { sql: 't.external_id', kind: 'text', caseExact: true },
  'members.value': { sql: 'gm.member_id', kind: 'text', caseExact: true, exists: memberOf },
  members: { sql: 'gm.member_id', kind: 'text', caseExact: true, exists: memberOf },
  'meta.created': { sql: 't.created_at', kind: 'time' },
  'meta.lastmodified': { sql: 't.updated_at', kind: 'time' },
};

interface GroupRow {
  id: string;
  displayName: string;
  externalId: string | null;
  created: Date;
  lastModified: Date;
  version: string;
}

type Member = { type: 'user' | 'group'; id: string };
type MemberView = { value: string; display: string; type: 'User' | 'Group'; $ref: string };

const SELECT = `t.id, t.display_name AS "displayName", t.external_id AS "externalId", t.created_at AS created, t.updated_at AS "lastModified", ${VERSION_SQL} AS version`;
const LIVE = `t.company_id = $1 AND t.domain_id = $2 AND t.status <> 'deleted'`;
/** Members one request may name: a larger group is built over several PATCHes (as Entra ID and Okta send them anyway). */
const MAX_MEMBERS = 10_000;

const location = (at: Place, id: string) => `${at.base}/Groups/${encodeURIComponent(id)}`;

export function groupResource(at: Place, row: GroupRow, members?: MemberView[]): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    displayName: row.displayName,
    ...(members ? { members } : {}),
    meta: { resourceType: 'Group', created: iso(row.created), lastModified: iso(row.lastModified), location: location(at, row.id), version: etag(row.version) },
  };
}

/**
 * The members of these groups, at most MAX_MEMBERS in one answer (a larger list would be built and
 * serialised on the event loop): past that, a read that asks for them is 400 tooMany (ask with
 * excludedAttributes=members), and a write's answer leaves them out (`omit`).
 */
async function membersOf(db: Queryable, at: Place, groupIds: string[], over: 'refuse' | 'omit' = 'refuse'): Promise<Map<string, MemberView[]> | undefined> {
  const byGroup = new Map<string, MemberView[]>(groupIds.map((id) => [id, []]));
  if (!groupIds.length) return byGroup;
  const { rows: size } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM group_members WHERE company_id = $1 AND domain_id = $2 AND group_id = ANY ($3::text[]) LIMIT ${MAX_MEMBERS + 1}) m`,
    [at.companyId, at.domainId, groupIds],
  );
  if (size[0].n > MAX_MEMBERS) {
    if (over === 'omit') return undefined;
    throw new ScimError(400, `members: more than ${MAX_MEMBERS} members in one answer: ask with excludedAttributes=members`, 'tooMany');
  }
  const { rows } = await db.query<{ groupId: string; type: 'user' | 'group'; value: string; display: string }>(
    `SELECT gm.group_id AS "groupId", gm.member_type AS type, gm.member_id AS value, coalesce(u.display_name, g.display_name) AS display
       FROM group_members gm
       LEFT JOIN users u ON gm.member_type = 'user' AND u.company_id = gm.company_id AND u.domain_id = gm.domain_id AND u.id = gm.member_id
       LEFT JOIN groups g ON gm.member_type = 'group' AND g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.member_id
      WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.group_id = ANY ($3::text[]) AND coalesce(u.status, g.status) <> 'deleted'
      ORDER BY gm.member_type DESC, gm.member_id`,
    [at.companyId, at.domainId, groupIds],
  );
  for (const row of rows) {
    const type = row.type === 'user' ? 'User' : 'Group';
    byGroup.get(row.groupId)?.push({ value: row.value, display: row.display, type, $ref: `${at.base}/${type}s/${encodeURIComponent(row.value)}` });
  }
  return byGroup;
}

async function findGroup(db: Queryable, at: Place, id: string, lock = false): Promise<GroupRow> {
  const { rows } = await db.query<GroupRow>(`SELECT ${SELECT} FROM groups t WHERE ${LIVE} AND t.id = $3${lock ? ' FOR UPDATE' : ''}`, [at.companyId, at.domainId, id]);
  if (!rows[0]) throw notFound(`Group ${id}`);
  return rows[0];
}

export async function getGroup(db: Queryable, at: Place, id: string, selection: Selection = {}) {
  const row = await findGroup(db, at, id);
  const members = wants(selection, 'members') ? (await membersOf(db, at, [id]))?.get(id) : undefined;
  return { body: project(groupResource(at, row, members), selection), version: row.version };
}

export async function listGroups(db: Queryable, at: Place, query: Record<string, unknown>, selection: Selection) {
  const values: unknown[] = [at.companyId, at.domainId];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const where = [LIVE];
  if (query.filter !== undefined) where.push(filterSql(GROUP_ATTRIBUTES, query.filter, bind));
  const page = pageOf(query);
  const descending = typeof query.sortOrder === 'string' && query.sortOrder.toLowerCase() === 'descending';
  let order = `t.id${descending ? ' DESC' : ''}`;
  if (typeof query.sortBy === 'string' && query.sortBy) {
    const attribute = attributeOf(GROUP_ATTRIBUTES, query.sortBy);
    if (attribute.exists) throw invalidValue(`sortBy: ${query.sortBy} cannot be sorted on`);
    order = `${attribute.sql} ${descending ? 'DESC' : 'ASC'} NULLS LAST, t.id`;
  }
  const { rows: counted } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM groups t WHERE ${where.join(' AND ')}`, values);
  const rows = page.count === 0 ? [] : (await db.query<GroupRow>(`SELECT ${SELECT} FROM groups t WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${page.count} OFFSET ${page.startIndex - 1}`, values)).rows;
  const members = wants(selection, 'members') ? await membersOf(db, at, rows.map((row) => row.id)) : undefined;
  return {
    schemas: [LIST_SCHEMA],
    totalResults: counted[0].n,
    startIndex: page.startIndex,
    itemsPerPage: rows.length,
    Resources: rows.map((row) => project(groupResource(at, row, members?.get(row.id)), selection)),
  };
}

/** The values of a members list ({ value, type? }), checked. */
function memberValues(raw: unknown, name = 'members'): { value: string; type?: string }[] {
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length > MAX_MEMBERS) throw invalidValue(`${name}: at most ${MAX_MEMBERS} in one request`);
  return list.map((item, i) => {
    if (!item || typeof item !== 'object') throw invalidValue(`${name}[${i}]: must be an object with a value`);
    const value = text(field(item as Record<string, unknown>, 'value'), `${name}[${i}].value`, 128);
    if (!value) throw invalidValue(`${name}[${i}].value: required`);
    const type = text(field(item as Record<string, unknown>, 'type'), `${name}[${i}].type`, 20);
    return { value, ...(type ? { type } : {}) };
  });
}

/** The users and groups of the domain these values name (a user unless typed "Group"); 400 naming one that is none. */
async function resolveMembers(db: Queryable, at: Place, values: { value: string; type?: string }[], groupId?: string): Promise<Member[]> {
  if (!values.length) return [];
  const ids = [...new Set(values.map((item) => item.value))];
  const { rows } = await db.query<{ type: 'user' | 'group'; id: string }>(
    `SELECT 'user' AS type, id FROM users WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3::text[]) AND status <> 'deleted'
     UNION ALL
     SELECT 'group', id FROM groups WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3::text[]) AND status <> 'deleted'`,
    [at.companyId, at.domainId, ids],
  );
  const found = new Set(rows.map((row) => `${row.type} ${row.id}`));
  const members = new Map<string, Member>();
  for (const item of values) {
    const wantsGroup = item.type?.toLowerCase() === 'group';
    const type = wantsGroup || (!item.type && !found.has(`user ${item.value}`) && found.has(`group ${item.value}`)) ? 'group' : 'user';
    if (!found.has(`${type} ${item.value}`)) throw invalidValue(`members: there is no ${type} "${item.value}" in this domain`);
    if (type === 'group' && item.value === groupId) throw invalidValue('members: a group cannot be a member of itself');
    members.set(`${type} ${item.value}`, { type, id: item.value });
  }
  return [...members.values()];
}

/** A client never adds or removes a member that holds a console role (containment, docs/CONSOLE.md "Roles"). */
async function assertNoRoleAmong(db: Queryable, at: Place, members: Member[]) {
  if (!members.length) return;
  const { rows } = await db.query<{ type: string; id: string; role: string }>(
    `SELECT m.type, m.id, r.role FROM unnest($3::text[], $4::text[]) AS m(type, id) CROSS JOIN LATERAL principal_roles($1, $2, m.type, m.id) r LIMIT 1`,
    [at.companyId, at.domainId, members.map((m) => m.type), members.map((m) => m.id)],
  );
  if (rows[0]) {
    throw new ScimError(403, `${rows[0].type} ${rows[0].id} holds the console role ${rows[0].role}: a provisioning client never adds it to or removes it from a group. Change it in the console.`);
  }
}

/** Members added and removed, after the containment check; the group's lastModified moves on. */
async function changeMembers(tx: Queryable, at: Place, groupId: string, add: Member[], remove: Member[]) {
  await assertNoRoleAmong(tx, at, [...add, ...remove]);
  if (add.length) {
    await tx.query(
      `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
       SELECT $1, $2, $3, m.type, m.id FROM unnest($4::text[], $5::text[]) AS m(type, id) ON CONFLICT DO NOTHING`,
      [at.companyId, at.domainId, groupId, add.map((m) => m.type), add.map((m) => m.id)],
    );
  }
  if (remove.length) {
    await tx.query(
      `DELETE FROM group_members gm USING unnest($4::text[], $5::text[]) AS m(type, id)
        WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.group_id = $3 AND gm.member_type = m.type AND gm.member_id = m.id`,
      [at.companyId, at.domainId, groupId, remove.map((m) => m.type), remove.map((m) => m.id)],
    );
  }
}

async function currentMembers(db: Queryable, at: Place, groupId: string): Promise<Member[]> {
  const { rows } = await db.query<Member>(`SELECT member_type AS type, member_id AS id FROM group_members WHERE company_id = $1 AND domain_id = $2 AND group_id = $3`, [at.companyId, at.domainId, groupId]);
  return rows;
}

/** Sets the members to exactly `wanted`: the difference is written. */
async function setMembers(tx: Queryable, at: Place, groupId: string, wanted: Member[]) {
  const key = (m: Member) => `${m.type} ${m.id}`;
  const current = await currentMembers(tx, at, groupId);
  const have = new Set(current.map(key));
  const want = new Set(wanted.map(key));
  await changeMembers(tx, at, groupId, wanted.filter((m) => !have.has(key(m))), current.filter((m) => !want.has(key(m))));
}

function groupWrite(resource: unknown) {
  if (!resource || typeof resource !== 'object' || Array.isArray(resource)) throw invalidSyntax('the body must be a SCIM Group');
  const r = resource as Record<string, unknown>;
  const displayName = text(field(r, 'displayName'), 'displayName', 200)?.trim();
  if (!displayName) throw invalidValue('displayName: required');
  return { displayName, externalId: text(field(r, 'externalId'), 'externalId', 200) ?? null, members: memberValues(field(r, 'members')) };
}

async function answer(tx: Queryable, at: Place, id: string) {
  const row = await findGroup(tx, at, id);
  return { body: groupResource(at, row, (await membersOf(tx, at, [id], 'omit'))?.get(id)), version: row.version, location: location(at, id) };
}

export async function createGroup(tx: Queryable, at: Place, body: unknown) {
  const write = groupWrite(body);
  const id = randomAlphanumeric(20);
  const members = await resolveMembers(tx, at, write.members);
  await tx.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email, external_id) VALUES ($1, $2, $3, $3, $4, '', $5)`, [
    at.companyId,
    at.domainId,
    id,
    write.displayName,
    write.externalId,
  ]);
  await changeMembers(tx, at, id, members, []);
  return answer(tx, at, id);
}

async function changeable(tx: Queryable, at: Place, id: string, ifMatch: string | undefined) {
  const current = await findGroup(tx, at, id, true);
  await assertHoldsNoRole(tx, at, 'group', id);
  checkIfMatch(ifMatch, current.version);
  return current;
}

async function writeGroup(tx: Queryable, at: Place, id: string, displayName: string, externalId: string | null) {
  await tx.query(`UPDATE groups t SET display_name = $4, external_id = $5, updated_at = now() WHERE ${LIVE} AND t.id = $3`, [at.companyId, at.domainId, id, displayName, externalId]);
}

export async function replaceGroup(tx: Queryable, at: Place, id: string, body: unknown, ifMatch?: string) {
  await changeable(tx, at, id, ifMatch);
  const write = groupWrite(body);
  await writeGroup(tx, at, id, write.displayName, write.externalId);
  await setMembers(tx, at, id, await resolveMembers(tx, at, write.members, id));
  return answer(tx, at, id);
}

const MEMBERS_PATH = /^members$/i;
const ONE_MEMBER_PATH = /^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$/i;

/**
 * PATCH: when every operation on members is one of the forms Entra ID and Okta send (add to
 * `members`, remove from `members` with a value list, remove `members[value eq "…"]`), those
 * members alone are changed, however large the group, and the other operations go through
 * scim-patch on the group without its members. Any other operation on members (a replace, a
 * remove of all, a filter of another shape) runs every operation through scim-patch, in order, on
 * the group with all its members, and the difference is written.
 */
export async function patchGroup(tx: Queryable, at: Place, id: string, body: unknown, ifMatch?: string) {
  const operations = operationsOf(body);
  const current = await changeable(tx, at, id, ifMatch);
  const pending = new Map<string, { value: string; type?: string; add: boolean }>();
  const others: ScimPatchOperation[] = [];
  for (const op of operations) {
    const kind = op.op.toLowerCase();
    const path = (op as { path?: string }).path?.trim();
    const value = (op as { value?: unknown }).value;
    const one = path ? ONE_MEMBER_PATH.exec(path) : null;
    if (path && MEMBERS_PATH.test(path) && (kind === 'add' || (kind === 'remove' && value !== undefined))) {
      for (const item of memberValues(value)) pending.set(item.value, { ...item, add: kind === 'add' });
    } else if (one && kind === 'remove') pending.set(one[1], { value: one[1], add: false });
    else others.push(op);
  }
  if (others.some((op) => touched(op).includes('members'))) {
    const { rows: size } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM group_members WHERE company_id = $1 AND domain_id = $2 AND group_id = $3`, [at.companyId, at.domainId, id]);
    if (size[0].n > MAX_MEMBERS) throw invalidValue(`members: this group has more than ${MAX_MEMBERS} members: change them with add and remove operations on members`);
    const after = applyPatch(groupResource(at, current, (await membersOf(tx, at, [id]))?.get(id) ?? []), operations);
    const write = groupWrite(after);
    await writeGroup(tx, at, id, write.displayName, write.externalId);
    await setMembers(tx, at, id, await resolveMembers(tx, at, write.members, id));
    return answer(tx, at, id);
  }
  if (others.length) {
    const write = groupWrite({ ...applyPatch(groupResource(at, current), others), members: undefined });
    await writeGroup(tx, at, id, write.displayName, write.externalId);
  }
  if (pending.size) {
    const items = [...pending.values()];
    const added = await resolveMembers(tx, at, items.filter((item) => item.add), id);
    // a member removed is a user unless typed "Group"; one that is not there is simply not there
    const removed = items.filter((item) => !item.add).map((item) => ({ type: item.type?.toLowerCase() === 'group' ? 'group' : 'user', id: item.value }) as Member);
    const { rows: there } = await tx.query<Member>(
      `SELECT member_type AS type, member_id AS id FROM group_members WHERE company_id = $1 AND domain_id = $2 AND group_id = $3 AND member_id = ANY ($4::text[])`,
      [at.companyId, at.domainId, id, removed.map((m) => m.id)],
    );
    const present = new Set(there.map((m) => `${m.type} ${m.id}`));
    const untyped = items.filter((item) => !item.add && !item.type).map((item) => ({ type: 'group' as const, id: item.value }));
    await changeMembers(tx, at, id, added, [...removed, ...untyped].filter((m) => present.has(`${m.type} ${m.id}`)));
    await tx.query(`UPDATE groups t SET updated_at = now() WHERE ${LIVE} AND t.id = $3`, [at.companyId, at.domainId, id]);
  }
  return answer(tx, at, id);
}

/** DELETE: the group is soft-deleted, as the console's delete does (its members stay listed for a recovery). */
export async function deleteGroup(tx: Queryable, at: Place, id: string, ifMatch?: string) {
  await changeable(tx, at, id, ifMatch);
  await tx.query(`UPDATE groups t SET status = 'deleted', updated_at = now() WHERE ${LIVE} AND t.id = $3`, [at.companyId, at.domainId, id]);
}
