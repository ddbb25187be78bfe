import type { Queryable } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import { blockUsers, unblockUsers } from '../accounts/administrators.js';
import { type Selection, project, wants } from './attributes.js';
import { assertHoldsNoRole, checkIfMatch, ENTERPRISE_SCHEMA, etag, field, flag, iso, LIST_SCHEMA, type Place, text, USER_SCHEMA, VERSION_SQL } from './common.js';
import { invalidSyntax, invalidValue, mutability, notFound, uniqueness } from './errors.js';
import { type AttributeMap, attributeOf, filterSql, pageOf } from './filter.js';
import { applyPatch, operationsOf, touched } from './patch.js';

/**
 * SCIM Users of a domain (docs/CONSOLE.md, "Provisioning (SCIM)"): userName ↔ username,
 * displayName (made from name when absent), emails[primary] ↔ email, active ↔ not blocked,
 * externalId ↔ external_id; the rest of what the client sent (name, other e-mails, phone numbers,
 * the enterprise extension...) is kept in users.scim_attributes and given back. A deleted account
 * (status 'deleted') is gone for SCIM.
 */

export const USER_ATTRIBUTES: AttributeMap = {
  id: { sql: 't.id', kind: 'text', caseExact: true },
  username: { sql: 't.username', kind: 'text' },
  externalid: { sql: 't.external_id', kind: 'text', caseExact: true },
  displayname: { sql: 't.display_name', kind: 'text' },
  'emails.value': { sql: 't.email', kind: 'text' },
  emails: { sql: 't.email', kind: 'text' },
  // the types of the stored addresses (an account made in the console shows one, of type work):
  // with it Entra ID's own match, emails[type eq "work"].value eq "…", is answered
  'emails.type': {
    sql: "e.value ->> 'type'",
    kind: 'text',
    exists: (predicate) =>
      `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t.scim_attributes -> 'emails') = 'array' THEN t.scim_attributes -> 'emails' ELSE '[{"type": "work"}]'::jsonb END) e WHERE ${predicate("e.value ->> 'type'")})`,
  },
  active: { sql: '(t.blocked_at IS NULL)', kind: 'boolean' },
  'name.givenname': { sql: `(t.scim_attributes #>> '{name,givenName}')`, kind: 'text' },
  'name.familyname': { sql: `(t.scim_attributes #>> '{name,familyName}')`, kind: 'text' },
  'meta.created': { sql: 't.created_at', kind: 'time' },
  'meta.lastmodified': { sql: 't.updated_at', kind: 'time' },
};

interface UserRow {
  id: string;
  username: string;
  displayName: string;
  email: string;
  active: boolean;
  externalId: string | null;
  attributes: Record<string, unknown> | null;
  created: Date;
  lastModified: Date;
  version: string;
}

const SELECT = `t.id, t.username, t.display_name AS "displayName", t.email, t.blocked_at IS NULL AS active, t.external_id AS "externalId",
  t.scim_attributes AS attributes, t.created_at AS created, t.updated_at AS "lastModified", ${VERSION_SQL} AS version`;
const LIVE = `t.company_id = $1 AND t.domain_id = $2 AND t.status <> 'deleted'`;

/** What SCIM writes of a user. */
interface UserWrite {
  username: string;
  displayName: string;
  email: string;
  /** undefined: not said (a create makes the account active, a replace keeps its state). */
  active: boolean | undefined;
  externalId: string | null;
  attributes: Record<string, unknown>;
}

/** Attributes with a column of their own (or none kept: groups is read-only, a password is never taken from SCIM). */
const MAPPED = new Set(['schemas', 'id', 'meta', 'username', 'displayname', 'active', 'externalid', 'groups', 'password', 'emails', 'name', ENTERPRISE_SCHEMA.toLowerCase()]);
const MAX_ATTRIBUTES_JSON = 32 * 1024;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

type Email = { value: string; type?: string; primary?: boolean; display?: string };

function emailsOf(raw: unknown): Email[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidValue('emails: must be a list of { value, type, primary }');
  if (raw.length > 20) throw invalidValue('emails: at most 20');
  return raw.map((item, i) => {
    if (!item || typeof item !== 'object') throw invalidValue(`emails[${i}]: must be an object with a value`);
    const record = item as Record<string, unknown>;
    const value = text(field(record, 'value'), `emails[${i}].value`, 254)?.trim();
    if (!value) throw invalidValue(`emails[${i}].value: required`);
    const type = text(field(record, 'type'), `emails[${i}].type`, 50);
    const primary = flag(field(record, 'primary'), `emails[${i}].primary`);
    const display = text(field(record, 'display'), `emails[${i}].display`, 254);
    return { value, ...(type !== undefined ? { type } : {}), ...(primary !== undefined ? { primary } : {}), ...(display !== undefined ? { display } : {}) };
  });
}

/** The enterprise extension as kept: Entra ID sends manager as a bare id, or a list of one { value }. */
function enterpriseOf(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidValue(`${ENTERPRISE_SCHEMA}: must be an object`);
  const result = { ...(raw as Record<string, unknown>) };
  const key = Object.keys(result).find((name) => name.toLowerCase() === 'manager');
  if (key) {
    let manager = result[key];
    if (Array.isArray(manager)) manager = manager[0];
    if (typeof manager === 'string') manager = { value: manager };
    if (manager && typeof manager === 'object') {
      const value = text(field(manager as Record<string, unknown>, 'value'), `${ENTERPRISE_SCHEMA}:manager.value`, 200);
      const displayName = text(field(manager as Record<string, unknown>, 'displayName'), `${ENTERPRISE_SCHEMA}:manager.displayName`, 200);
      result[key] = value ? { value, ...(displayName ? { displayName } : {}) } : undefined;
    } else result[key] = undefined;
    if (result[key] === undefined) delete result[key];
  }
  return result;
}

/** A SCIM User as the columns and attributes it is stored as; 400 naming the attribute that is wrong. */
export function userWrite(resource: unknown): UserWrite {
  if (!resource || typeof resource !== 'object' || Array.isArray(resource)) throw invalidSyntax('the body must be a SCIM User');
  const r = resource as Record<string, unknown>;
  const username = text(field(r, 'userName'), 'userName', 200)?.trim();
  if (!username) throw invalidValue('userName: required');
  const nameRaw = field(r, 'name');
  if (nameRaw !== undefined && nameRaw !== null && (typeof nameRaw !== 'object' || Array.isArray(nameRaw))) throw invalidValue('name: must be an object');
  const name = (nameRaw ?? undefined) as Record<string, unknown> | undefined;
  const given = text(name && field(name, 'givenName'), 'name.givenName', 200)?.trim();
  const family = text(name && field(name, 'familyName'), 'name.familyName', 200)?.trim();
  const formatted = text(name && field(name, 'formatted'), 'name.formatted', 400)?.trim();
  const emails = emailsOf(field(r, 'emails'));
  const primary = emails.find((email) => email.primary) ?? emails[0];
  const email = primary?.value ?? (EMAIL.test(username) ? username : undefined);
  if (!email || !EMAIL.test(email)) throw invalidValue(`emails: a user needs an e-mail address (the primary emails value${primary ? `; "${primary.value}" is not one` : ''})`);
  const displayName = (text(field(r, 'displayName'), 'displayName', 200)?.trim() || formatted || [given, family].filter(Boolean).join(' ') || username).slice(0, 200);
  const enterprise = enterpriseOf(field(r, ENTERPRISE_SCHEMA));
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) if (!MAPPED.has(key.toLowerCase()) && value !== null && value !== undefined) attributes[key] = value;
  if (name) attributes.name = name;
  if (emails.length) attributes.emails = emails;
  if (enterprise && Object.keys(enterprise).length) attributes[ENTERPRISE_SCHEMA] = enterprise;
  if (JSON.stringify(attributes).length > MAX_ATTRIBUTES_JSON) throw invalidValue(`the user's other attributes take more than ${MAX_ATTRIBUTES_JSON / 1024} KB`);
  return {
    username,
    displayName,
    email,
    active: flag(field(r, 'active'), 'active'),
    externalId: text(field(r, 'externalId'), 'externalId', 200) ?? null,
    attributes,
  };
}

const location = (at: Place, id: string) => `${at.base}/Users/${encodeURIComponent(id)}`;

/** The user as SCIM shows it. */
export function userResource(at: Place, row: UserRow, groups?: { value: string; display: string }[]): Record<string, unknown> {
  const { name, emails: stored, [ENTERPRISE_SCHEMA]: enterprise, ...rest } = row.attributes ?? {};
  // the column is the truth (the console may have changed it): the primary address shows it
  let emails = Array.isArray(stored) && stored.length ? (structuredClone(stored) as Email[]) : [];
  const primary = emails.find((email) => email.primary) ?? emails[0];
  if (primary) primary.value = row.email;
  else emails = [{ value: row.email, type: 'work', primary: true }];
  return {
    // the extensions the user has attributes of (the enterprise one, or another the client sent)
    schemas: [USER_SCHEMA, ...(enterprise ? [ENTERPRISE_SCHEMA] : []), ...Object.keys(rest).filter((key) => key.toLowerCase().startsWith('urn:'))],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.username,
    ...(name ? { name } : {}),
    displayName: row.displayName,
    ...rest,
    emails,
    active: row.active,
    ...(groups ? { groups: groups.map((group) => ({ ...group, $ref: `${at.base}/Groups/${encodeURIComponent(group.value)}`, type: 'direct' })) } : {}),
    ...(enterprise ? { [ENTERPRISE_SCHEMA]: enterprise } : {}),
    meta: { resourceType: 'User', created: iso(row.created), lastModified: iso(row.lastModified), location: location(at, row.id), version: etag(row.version) },
  };
}

/** The active groups each of these users is directly in. */
async function groupsOf(db: Queryable, at: Place, userIds: string[]): Promise<Map<string, { value: string; display: string }[]>> {
  const byUser = new Map<string, { value: string; display: string }[]>(userIds.map((id) => [id, []]));
  if (!userIds.length) return byUser;
  const { rows } = await db.query<{ userId: string; value: string; display: string }>(
    `SELECT gm.member_id AS "userId", g.id AS value, g.display_name AS display FROM group_members gm
       JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.group_id AND g.status <> 'deleted'
      WHERE gm.company_id = $1 AND gm.domain_id = $2 AND gm.member_type = 'user' AND gm.member_id = ANY ($3::text[])
      ORDER BY g.display_name, g.id`,
    [at.companyId, at.domainId, userIds],
  );
  for (const row of rows) byUser.get(row.userId)?.push({ value: row.value, display: row.display });
  return byUser;
}

async function findUser(db: Queryable, at: Place, id: string, lock = false): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(`SELECT ${SELECT} FROM users t WHERE ${LIVE} AND t.id = $3${lock ? ' FOR UPDATE' : ''}`, [at.companyId, at.domainId, id]);
  if (!rows[0]) throw notFound(`User ${id}`);
  return rows[0];
}

export async function getUser(db: Queryable, at: Place, id: string, selection: Selection = {}) {
  const row = await findUser(db, at, id);
  const groups = wants(selection, 'groups') ? (await groupsOf(db, at, [id])).get(id) : undefined;
  return { body: project(userResource(at, row, groups), selection), version: row.version };
}

export async function listUsers(db: Queryable, at: Place, query: Record<string, unknown>, selection: Selection) {
  const values: unknown[] = [at.companyId, at.domainId];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const where = [LIVE];
  if (query.filter !== undefined) where.push(filterSql(USER_ATTRIBUTES, query.filter, bind));
  const page = pageOf(query);
  const order = orderOf(query);
  const { rows: counted } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM users t WHERE ${where.join(' AND ')}`, values);
  const rows = page.count === 0 ? [] : (await db.query<UserRow>(`SELECT ${SELECT} FROM users t WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${page.count} OFFSET ${page.startIndex - 1}`, values)).rows;
  const groups = wants(selection, 'groups') ? await groupsOf(db, at, rows.map((row) => row.id)) : undefined;
  return {
    schemas: [LIST_SCHEMA],
    totalResults: counted[0].n,
    startIndex: page.startIndex,
    itemsPerPage: rows.length,
    Resources: rows.map((row) => project(userResource(at, row, groups?.get(row.id)), selection)),
  };
}

function orderOf(query: Record<string, unknown>): string {
  const descending = typeof query.sortOrder === 'string' && query.sortOrder.toLowerCase() === 'descending';
  if (typeof query.sortBy !== 'string' || !query.sortBy) return `t.id${descending ? ' DESC' : ''}`;
  const attribute = attributeOf(USER_ATTRIBUTES, query.sortBy);
  return `${attribute.sql} ${descending ? 'DESC' : 'ASC'} NULLS LAST, t.id`;
}

/** A unique violation as SCIM's 409 uniqueness, naming what clashed. */
async function unique<T>(write: UserWrite, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code !== '23505') throw error;
    const what = constraint === 'users_email' ? `emails: "${write.email}"` : `userName: "${write.username}"`;
    throw uniqueness(`${what} is already taken by another account of this domain (a deleted account keeps it until it is purged)`);
  }
}

export async function createUser(tx: Queryable, at: Place, body: unknown) {
  const write = userWrite(body);
  const id = randomAlphanumeric(20);
  const { rows } = await unique(write, () =>
    tx.query<UserRow>(
      `INSERT INTO users AS t (company_id, domain_id, id, username, display_name, email, status, external_id, scim_attributes, blocked_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8::jsonb, CASE WHEN $9::boolean THEN NULL ELSE now() END) RETURNING ${SELECT}`,
      [at.companyId, at.domainId, id, write.username, write.displayName, write.email, write.externalId, JSON.stringify(write.attributes), write.active ?? true],
    ),
  );
  return { body: userResource(at, rows[0], []), version: rows[0].version, location: location(at, id) };
}

/** Writes a user's new state: columns, then active through the block and unblock of the console (sessions end). */
async function writeUser(tx: Queryable, at: Place, current: UserRow, write: UserWrite) {
  await unique(write, () =>
    tx.query(
      `UPDATE users t SET username = $4, display_name = $5, email = $6, external_id = $7, scim_attributes = $8::jsonb, updated_at = now()
        WHERE ${LIVE} AND t.id = $3`,
      [at.companyId, at.domainId, current.id, write.username, write.displayName, write.email, write.externalId, JSON.stringify(write.attributes)],
    ),
  );
  if (current.active && write.active === false) await blockUsers(tx, at, [current.id]);
  if (!current.active && write.active === true) await unblockUsers(tx, at, [current.id]);
  const row = await findUser(tx, at, current.id);
  return { body: userResource(at, row, (await groupsOf(tx, at, [row.id])).get(row.id)), version: row.version, location: location(at, row.id) };
}

/** The user, locked, once the client may change it: it holds no console role, and If-Match holds. */
async function changeable(tx: Queryable, at: Place, id: string, ifMatch: string | undefined) {
  const current = await findUser(tx, at, id, true);
  await assertHoldsNoRole(tx, at, 'user', id);
  checkIfMatch(ifMatch, current.version);
  return current;
}

export async function replaceUser(tx: Queryable, at: Place, id: string, body: unknown, ifMatch?: string) {
  const current = await changeable(tx, at, id, ifMatch);
  return writeUser(tx, at, current, userWrite(body));
}

export async function patchUser(tx: Queryable, at: Place, id: string, body: unknown, ifMatch?: string) {
  const operations = operationsOf(body);
  if (operations.some((op) => touched(op).includes('groups'))) throw mutability('groups: a user\'s groups are changed through the Groups\' members');
  const current = await changeable(tx, at, id, ifMatch);
  const patched = applyPatch(userResource(at, current), operations);
  return writeUser(tx, at, current, userWrite(patched));
}

/** DELETE: the account is blocked (its sessions end) and soft-deleted, as the console's delete does. */
export async function deleteUser(tx: Queryable, at: Place, id: string, ifMatch?: string) {
  const current = await changeable(tx, at, id, ifMatch);
  if (current.active) await blockUsers(tx, at, [id]);
  await tx.query(`UPDATE users t SET status = 'deleted', updated_at = now() WHERE ${LIVE} AND t.id = $3`, [at.companyId, at.domainId, id]);
}
