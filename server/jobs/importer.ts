import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse';
import { assertContains } from '../api/containment.js';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import { endSignInsAfterNewPassword } from '../accounts/passwords.js';
import { type ImportRow, isRowError, readRow, type RowError } from './rows.js';
import { type ImportOptions, INPUT, type JobParams, readChunks } from './store.js';
import { type JobWork, LostJob } from './work.js';

/**
 * An import job's work (docs/CONSOLE.md, "Import and export"): the stored file read back in order,
 * parsed as it streams (csv-parse, or JSON Lines line by line), each batch of rows checked and then
 * written in one transaction together with the job's counters, so that a job taken up again after
 * its process died goes on from the last committed row (rows_read) and no row is lost or written
 * twice. A dry run checks everything the same way and writes only the job and its errors.
 */

/** A line of JSON Lines longer than this is refused (the file is never held whole in memory, nor is a line). */
const MAX_LINE = 1024 * 1024;

class BadLine {
  constructor(readonly message: string) {}
}

/** JSON Lines: one value per non-blank line. */
async function* jsonLines(source: AsyncIterable<Buffer>): AsyncGenerator<unknown> {
  const decoder = new StringDecoder('utf8');
  let tail = '';
  let skipping = false;
  const one = (line: string) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (!/\S/.test(text)) return undefined;
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return { value: new BadLine('the line is not JSON') };
    }
  };
  let first = true;
  for await (const chunk of source) {
    let text = tail + decoder.write(chunk);
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    const lines = text.split('\n');
    tail = lines.pop()!;
    for (const line of lines) {
      if (skipping) {
        skipping = false;
        continue;
      }
      const read = one(line);
      if (read) yield read.value;
    }
    if (tail.length > MAX_LINE) {
      if (!skipping) yield new BadLine(`the line is longer than ${MAX_LINE} characters`);
      skipping = true;
      tail = '';
    }
  }
  const read = skipping ? undefined : one(tail + decoder.end());
  if (read) yield read.value;
}

class NoEmailColumn extends Error {}

/** The stored pieces in slices of 64 kB: the parser then never holds the event loop for a whole megabyte. */
async function* slices(pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const piece of pieces) for (let at = 0; at < piece.length; at += 65536) yield piece.subarray(at, at + 65536);
}

/** The file's records, in order. */
function records(db: Queryable, at: JobParams & { jobId: string }, options: ImportOptions): AsyncIterable<unknown> {
  const chunks = slices(readChunks(db, at, INPUT));
  if (options.format === 'jsonl') return jsonLines(chunks);
  const mapped = (name: string) => (Object.hasOwn(options.mapping, name) ? options.mapping[name] : name);
  return Readable.from(chunks).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => {
        const names = header.map((name) => String(name).trim());
        if (!names.some((name) => mapped(name) === 'email')) throw new NoEmailColumn('the file has no email column (name one in the mapping)');
        return names;
      },
      skip_empty_lines: true,
      relax_column_count: true,
      max_record_size: MAX_LINE,
    }),
  );
}

interface Existing {
  id: string;
  email: string;
  username: string;
  holdsRole: boolean;
}

interface GroupInfo {
  id: string;
  /** null: may be joined; a sentence: why not. */
  refusal: string | null;
  /** Not in the database yet: created by the first batch that names it. */
  missing: boolean;
}

/** Two 32-bit hashes of a text (FNV-1a and a multiplicative one, different seeds): 64 bits of it. */
function hash64(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b ^ (b >>> 13)) >>> 0];
}

/** Open-addressed hash slots: the key's two halves and its row (0: free). */
interface KeyTable {
  hi: Uint32Array;
  lo: Uint32Array;
  rows: Uint32Array;
}
const keyTable = (slots: number): KeyTable => ({ hi: new Uint32Array(slots), lo: new Uint32Array(slots), rows: new Uint32Array(slots) });

/**
 * The keys of a file's rows so far (id, lower(email), lower(username)) and the row that had each,
 * as 64-bit hashes in typed arrays: a million rows' three million keys take about 100 MB outside
 * the collected heap, where a Map of strings took some 300 MB inside it (and a full collection of
 * it held the event loop for over a second). Two keys of a file sharing a hash (about one chance
 * in four million for a million rows) would refuse the second row as a duplicate of the first.
 */
class SeenKeys {
  private table = keyTable(1 << 16);
  private size = 0;

  /** The slot of (h, l) in a table: where it is, else the free slot where it goes. */
  private static slot(table: KeyTable, h: number, l: number): number {
    const mask = table.rows.length - 1;
    let i = (h ^ Math.imul(l, 0x9e3779b1)) & mask;
    while (table.rows[i] !== 0 && (table.hi[i] !== h || table.lo[i] !== l)) i = (i + 1) & mask;
    return i;
  }

  get(key: string): number | undefined {
    const [h, l] = hash64(key);
    const row = this.table.rows[SeenKeys.slot(this.table, h, l)];
    return row === 0 ? undefined : row;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Whether `keys` more keys would fill the table past half: grow() first. */
  wouldFill(keys: number): boolean {
    return (this.size + keys) * 2 > this.table.rows.length;
  }

  /** Adds a key; the caller made room (wouldFill, grow). */
  set(key: string, row: number): void {
    const [h, l] = hash64(key);
    const { table } = this;
    const i = SeenKeys.slot(table, h, l);
    if (table.rows[i] === 0) this.size++;
    table.hi[i] = h;
    table.lo[i] = l;
    table.rows[i] = row;
  }

  /**
   * Doubles the table, moving its keys a slice at a time and letting requests go first between
   * slices: a million rows' keys moved at once held the event loop for 100 to 200 ms. Nothing reads
   * or adds a key meanwhile (the import awaits it).
   */
  async grow(): Promise<void> {
    const old = this.table;
    const next = keyTable(old.rows.length * 2);
    for (let from = 0; from < old.rows.length; from += GROW_SLICE) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      for (let i = from; i < Math.min(old.rows.length, from + GROW_SLICE); i++) {
        if (old.rows[i] === 0) continue;
        const j = SeenKeys.slot(next, old.hi[i], old.lo[i]);
        next.hi[j] = old.hi[i];
        next.lo[j] = old.lo[i];
        next.rows[j] = old.rows[i];
      }
    }
    this.table = next;
  }
}

/** Slots of the seen keys moved between two turns of the event loop (a few milliseconds' work). */
const GROW_SLICE = 1 << 16;

/** What an import remembers between its batches: keys already in the file, groups, containment answers. */
export class ImportState {
  /** id, lower(email), lower(username) of the file's rows so far -> the row that had it. */
  readonly seen = new SeenKeys();
  readonly groups = new Map<string, GroupInfo>();
  /** Users holding a role: null if the importer contains them, else the sentence. */
  readonly contained = new Map<string, string | null>();
  async remember(row: ImportRow) {
    const keys = keysOf(row);
    if (this.seen.wouldFill(keys.length)) await this.seen.grow();
    for (const key of keys) if (!this.seen.has(key)) this.seen.set(key, row.n);
  }
}

const keysOf = (row: ImportRow) => [
  ...(row.id !== undefined ? [`i:${row.id}`] : []),
  `e:${row.email.toLowerCase()}`,
  `u:${row.username.toLowerCase()}`,
];
const KEY_FIELD: Record<string, string> = { i: 'id', e: 'email', u: 'username' };

/** Refuses a row that names an id, e-mail or username an earlier row of the file named. */
function duplicateInFile(state: ImportState, row: ImportRow): RowError | undefined {
  for (const key of keysOf(row)) {
    const earlier = state.seen.get(key);
    if (earlier !== undefined && earlier !== row.n) return { n: row.n, field: KEY_FIELD[key[0]], message: `${KEY_FIELD[key[0]]} ${key.slice(2).slice(0, 100)} is also in row ${earlier} of the file` };
  }
  return undefined;
}

interface Planned {
  creates: ImportRow[];
  updates: (ImportRow & { id: string; passwordChanged: boolean; emailChanged: boolean })[];
  skipped: number;
  errors: RowError[];
}

const lower = (text: string) => text.toLowerCase();

/** Checks a batch against the database (in the batch's transaction): what each row creates, updates, skips or why it fails. */
async function plan(tx: Queryable, at: JobParams, options: ImportOptions, state: ImportState, caller: Principal, rows: ImportRow[]): Promise<Planned> {
  const planned: Planned = { creates: [], updates: [], skipped: 0, errors: [] };
  const { rows: found } = await tx.query<Existing>(
    `SELECT u.id, lower(u.email) AS email, lower(u.username) AS username,
            EXISTS (SELECT 1 FROM principal_roles(u.company_id, u.domain_id, 'user', u.id)) AS "holdsRole"
     FROM users u WHERE u.company_id = $1 AND u.domain_id = $2
       AND (u.id = ANY ($3::text[]) OR lower(u.email) = ANY ($4::text[]) OR lower(u.username) = ANY ($5::text[]))`,
    [at.companyId, at.domainId, rows.flatMap((row) => (row.id !== undefined ? [row.id] : [])), rows.map((row) => lower(row.email)), rows.map((row) => lower(row.username))],
  );
  const byId = new Map(found.map((user) => [user.id, user]));
  const byEmail = new Map(found.map((user) => [user.email, user]));
  const byUsername = new Map(found.map((user) => [user.username, user]));
  await resolveGroups(tx, at, options, state, caller, rows);
  const touched = new Map<string, number>();
  for (const row of rows) {
    const fail = (field: string | null, message: string) => planned.errors.push({ n: row.n, field, message });
    const withId = row.id !== undefined ? byId.get(row.id) : undefined;
    const withEmail = byEmail.get(lower(row.email));
    const withUsername = byUsername.get(lower(row.username));
    const target = options.match === 'id' ? withId : options.match === 'email' ? withEmail : (withId ?? withEmail ?? withUsername);
    if (options.match === 'none' && target) {
      planned.skipped++;
      continue;
    }
    if (target && row.id !== undefined && row.id !== target.id) {
      fail('id', `id ${row.id}: the user with e-mail ${row.email} is ${target.id}`);
      continue;
    }
    if (!target && withId) {
      fail('id', `id ${row.id} is another user of the domain`);
      continue;
    }
    if (withEmail && withEmail !== target) {
      fail('email', `email ${row.email} is already another user's in the domain`);
      continue;
    }
    if (withUsername && withUsername !== target && (row.given.username || !target)) {
      fail('username', `username ${row.username} is already another user's in the domain`);
      continue;
    }
    const badGroup = options.groups ? row.groups?.map((name) => state.groups.get(lower(name))).find((group) => group?.refusal) : undefined;
    if (badGroup) {
      fail('groups', badGroup.refusal!);
      continue;
    }
    if (!target) {
      planned.creates.push(row);
      continue;
    }
    const earlier = touched.get(target.id);
    if (earlier !== undefined) {
      fail(null, `user ${target.id} is also changed by row ${earlier} of the file`);
      continue;
    }
    if (target.holdsRole) {
      const refusal = await containment(tx, state, caller, at, target.id);
      if (refusal) {
        fail(null, refusal);
        continue;
      }
      if (row.status === 'deleted' || row.blocked === true) {
        fail(row.status === 'deleted' ? 'status' : 'blocked', `user ${target.id} holds a role: delete or block her in the console, not by import`);
        continue;
      }
    }
    touched.set(target.id, row.n);
    planned.updates.push({ ...row, id: target.id, passwordChanged: row.passwordHash !== undefined, emailChanged: lower(row.email) !== target.email });
  }
  return planned;
}

/** Whether the importer could act on this role holder through the API (containment.ts); the sentence if not. */
async function containment(tx: Queryable, state: ImportState, caller: Principal, at: JobParams, userId: string): Promise<string | null> {
  if (!state.contained.has(userId)) {
    try {
      await assertContains(tx, caller, { ...at, principals: [{ type: 'user', id: userId }] });
      state.contained.set(userId, null);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 403) throw error;
      state.contained.set(userId, (error as Error).message);
    }
  }
  return state.contained.get(userId)!;
}

/** The groups the batch names, found by name (once per job); a group that gives a role needs roles:write (containment.ts). */
async function resolveGroups(tx: Queryable, at: JobParams, options: ImportOptions, state: ImportState, caller: Principal, rows: ImportRow[]) {
  if (!options.groups) return;
  const unknown = [...new Set(rows.flatMap((row) => (row.groups ?? []).map(lower)))].filter((name) => !state.groups.has(name) || state.groups.get(name)!.missing);
  if (unknown.length === 0) return;
  const { rows: found } = await tx.query<{ id: string; name: string; givesRoles: boolean }>(
    `SELECT g.id, lower(g.name) AS name, EXISTS (SELECT 1 FROM principal_roles(g.company_id, g.domain_id, 'group', g.id)) AS "givesRoles"
     FROM groups g WHERE g.company_id = $1 AND g.domain_id = $2 AND lower(g.name) = ANY ($3::text[])`,
    [at.companyId, at.domainId, unknown],
  );
  for (const name of unknown) {
    const group = found.find((candidate) => candidate.name === name);
    if (!group) {
      // its id is its name, as a group created in the console (groups.ts)
      const original = rows.flatMap((row) => row.groups ?? []).find((candidate) => lower(candidate) === name)!;
      state.groups.set(name, { id: original, refusal: null, missing: true });
      continue;
    }
    let refusal: string | null = null;
    if (group.givesRoles) {
      try {
        await assertContains(tx, caller, { ...at, principals: [], membershipOf: group.id });
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 403) throw error;
        refusal = (error as Error).message;
      }
    }
    state.groups.set(name, { id: group.id, refusal, missing: false });
  }
}

/** Rows an import writes before its first ANALYZE of users; the next when it has written twice as many, and so on. */
const ANALYZE_FIRST = 2000;

/** Whether this connection's role owns the trigram index (gin_clean_pending_list needs it); asked once. */
let searchIndexOwned: Promise<boolean> | undefined;
function mayCleanSearchIndex(tx: Queryable): Promise<boolean> {
  searchIndexOwned ??= tx
    .query<{ owned: boolean }>(`SELECT pg_has_role(c.relowner, 'USAGE') AS owned FROM pg_class c WHERE c.oid = 'users_search'::regclass`)
    .then(({ rows }) => rows[0]?.owned === true);
  return searchIndexOwned;
}

const column = <T>(rows: ImportRow[], pick: (row: ImportRow) => T) => rows.map(pick);
const actions = (row: ImportRow) => (row.requiredActions === undefined ? null : row.requiredActions.join(','));

/** The batch's writes (not in a dry run): groups, new users, changed users, memberships. Returns the rows that failed after all (taken meanwhile). */
async function write(tx: Queryable, at: JobParams, options: ImportOptions, state: ImportState, planned: Planned): Promise<{ created: number; updated: number; errors: RowError[] }> {
  const errors: RowError[] = [];
  const applied = [...planned.creates, ...planned.updates];
  if (options.groups) {
    const missing = [...new Set(applied.flatMap((row) => row.groups ?? []).map(lower))].map((name) => state.groups.get(name)!).filter((group) => group.missing);
    if (missing.length) {
      await tx.query(
        `INSERT INTO groups (company_id, domain_id, id, name, display_name, email)
         SELECT $1, $2, g, g, g, '' FROM unnest($3::text[]) g ON CONFLICT DO NOTHING`,
        [at.companyId, at.domainId, missing.map((group) => group.id)],
      );
      for (const group of missing) group.missing = false;
    }
  }
  let created = 0;
  const createdIds = new Map<string, ImportRow>();
  if (planned.creates.length) {
    const rows = planned.creates.map((row) => ({ ...row, id: row.id ?? randomAlphanumeric(20) }));
    const { rows: inserted } = await tx.query<{ id: string }>(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, notes, email, password_hash, status, email_verified, blocked_at, required_actions, external_id)
       SELECT $1, $2, v.id, v.username, v.display_name, coalesce(v.notes, ''), v.email, v.password_hash, coalesce(v.status, 'active'),
              coalesce(v.email_verified, false), CASE WHEN v.blocked THEN now() END, string_to_array(coalesce(v.actions, ''), ',')::text[], v.external_id
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[], $11::boolean[], $12::text[], $13::text[])
         AS v(id, username, display_name, notes, email, password_hash, status, email_verified, blocked, actions, external_id)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        at.companyId,
        at.domainId,
        rows.map((row) => row.id),
        column(rows, (row) => row.username),
        column(rows, (row) => row.displayName),
        column(rows, (row) => row.notes ?? null),
        column(rows, (row) => row.email),
        column(rows, (row) => row.passwordHash ?? null),
        column(rows, (row) => row.status ?? null),
        column(rows, (row) => row.emailVerified ?? null),
        column(rows, (row) => row.blocked ?? null),
        column(rows, actions),
        column(rows, (row) => row.externalId ?? null),
      ],
    );
    // the new users' search entries are merged into the trigram index now, in this transaction:
    // left in its pending list, they would be merged by whichever write next finds the list full,
    // a sign-in's last-sign-in time for one (seconds on a million rows, docs/PERFORMANCE.md)
    if (await mayCleanSearchIndex(tx)) await tx.query(`SELECT gin_clean_pending_list('users_search'::regclass)`);
    const done = new Set(inserted.map((row) => row.id));
    for (const row of rows) {
      if (done.has(row.id)) createdIds.set(row.id, row);
      else errors.push({ n: row.n, field: null, message: `id, email or username of this row was taken while the import ran` });
    }
    created = done.size;
  }
  let updated = 0;
  if (planned.updates.length) {
    const rows = planned.updates;
    const { rowCount } = await tx.query(
      `UPDATE users u SET username = coalesce(v.username, u.username), display_name = coalesce(v.display_name, u.display_name),
              notes = coalesce(v.notes, u.notes), email = v.email, password_hash = coalesce(v.password_hash, u.password_hash),
              status = coalesce(v.status, u.status), email_verified = coalesce(v.email_verified, u.email_verified),
              blocked_at = CASE WHEN v.blocked IS NULL THEN u.blocked_at WHEN v.blocked THEN coalesce(u.blocked_at, now()) END,
              required_actions = coalesce(string_to_array(v.actions, ',')::text[], u.required_actions),
              external_id = coalesce(v.external_id, u.external_id), updated_at = now()
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[], $11::boolean[], $12::text[], $13::text[])
         AS v(id, username, display_name, notes, email, password_hash, status, email_verified, blocked, actions, external_id)
       WHERE u.company_id = $1 AND u.domain_id = $2 AND u.id = v.id`,
      [
        at.companyId,
        at.domainId,
        rows.map((row) => row.id),
        column(rows, (row) => (row.given.username ? row.username : null)),
        column(rows, (row) => (row.given.displayName ? row.displayName : null)),
        column(rows, (row) => row.notes ?? null),
        column(rows, (row) => row.email),
        column(rows, (row) => row.passwordHash ?? null),
        column(rows, (row) => row.status ?? null),
        column(rows, (row) => row.emailVerified ?? null),
        column(rows, (row) => row.blocked ?? null),
        column(rows, actions),
        column(rows, (row) => row.externalId ?? null),
      ],
    );
    updated = rowCount;
    // a new address is unverified (the users_email_changed trigger), unless the file says it is verified
    const verified = rows.filter((row) => row.emailChanged && row.emailVerified === true).map((row) => row.id);
    if (verified.length) await tx.query(`UPDATE users SET email_verified = true WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3::text[])`, [at.companyId, at.domainId, verified]);
    // a new password ends what the old one opened, as the Set password action does
    for (const row of rows) if (row.passwordChanged) await endSignInsAfterNewPassword(tx, { ...at, userId: row.id });
  }
  if (options.groups) {
    const members = [...createdIds.values(), ...planned.updates].flatMap((row) => (row.groups ?? []).map((name) => ({ group: state.groups.get(lower(name))!.id, user: row.id! })));
    if (members.length) {
      await tx.query(
        `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
         SELECT $1, $2, m.group_id, 'user', m.member_id FROM unnest($3::text[], $4::text[]) AS m(group_id, member_id)
         ON CONFLICT DO NOTHING`,
        [at.companyId, at.domainId, members.map((member) => member.group), members.map((member) => member.user)],
      );
    }
  }
  return { created, updated, errors };
}

/** Runs (or goes on with) an import job; returns when the file is read to its end, or the job is lost, cancelled or the runner stops. */
export async function runImport(work: JobWork): Promise<'done' | 'stopped'> {
  const { db, job } = work;
  const options = job.options as ImportOptions;
  const at = { companyId: job.companyId, domainId: job.domainId };
  const caller = { ...(job.createdBy ?? {}) } as unknown as Principal;
  const state = new ImportState();
  const done = job.rowsRead;
  let n = 0;
  let batch: (ImportRow | RowError)[] = [];
  // The planner's statistics of users, refreshed each time this job has doubled what it wrote:
  // autovacuum analyzes a table at most once a minute, and in a minute an import adds hundreds of
  // thousands of rows, planned meanwhile as the few rows of the last ANALYZE: a sign-in's update
  // and the batches' own lookups then read the whole domain (docs/PERFORMANCE.md).
  let written = 0;
  let analyzeAt = ANALYZE_FIRST;

  const flush = async () => {
    const items = batch;
    batch = [];
    const last = items[items.length - 1].n;
    // a unique violation (a user created through the API meanwhile) rolls the batch back: checked again, it fails that row only
    await work.commit(last - items.length, last, () => state.groups.clear(), async (tx) => {
      const rows = items.filter((item): item is ImportRow => !isRowError(item));
      const errors = items.filter(isRowError);
      const planned = await plan(tx, at, options, state, caller, rows);
      errors.push(...planned.errors);
      let counts = { created: 0, updated: 0 };
      if (!options.dryRun) {
        const written = await write(tx, at, options, state, planned);
        errors.push(...written.errors);
        counts = written;
      } else {
        counts = { created: planned.creates.length, updated: planned.updates.length };
        // what a dry run would create is a group from then on
        for (const row of [...planned.creates, ...planned.updates]) for (const name of row.groups ?? []) {
          const group = state.groups.get(lower(name));
          if (group) group.missing = false;
        }
      }
      if (errors.length) {
        await tx.query(
          `INSERT INTO user_job_errors (company_id, domain_id, job_id, row_number, field, message)
           SELECT $1, $2, $3, e.n, e.field, e.message FROM unnest($4::bigint[], $5::text[], $6::text[]) AS e(n, field, message)
           ON CONFLICT DO NOTHING`,
          [at.companyId, at.domainId, job.id, errors.map((error) => error.n), errors.map((error) => error.field), errors.map((error) => error.message)],
        );
      }
      return { created: counts.created, updated: counts.updated, skipped: planned.skipped, failed: errors.length };
    });
    if (options.dryRun) return;
    written += items.length;
    if (written >= analyzeAt) {
      analyzeAt = written * 2;
      await db.query('ANALYZE users');
    }
  };

  try {
    for await (const record of records(db, { ...at, jobId: options.inputJob ?? job.id }, options)) {
      n++;
      // requests go first every hundred rows: the parser hands over a whole slice's rows without returning to the event loop
      if (n % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
      const item = record instanceof BadLine ? { n, field: null, message: record.message } : readRow(n, record, options.mapping, options.format === 'csv');
      if (!isRowError(item)) {
        const duplicate = duplicateInFile(state, item);
        await state.remember(item);
        if (n > done) batch.push(duplicate ?? item);
      } else if (n > done) batch.push(item);
      if (batch.length >= work.batchRows) {
        await flush();
        if (work.stopped()) return 'stopped';
        await work.pause();
      }
    }
    if (batch.length) await flush();
  } catch (error) {
    if (error instanceof LostJob) throw error;
    const message = error instanceof NoEmailColumn ? error.message : (error as { code?: string }).code?.startsWith('CSV_') ? `the CSV file cannot be read: ${(error as Error).message}` : undefined;
    if (message) {
      await work.fail(message);
      return 'done';
    }
    throw error;
  }
  await work.finish();
  return 'done';
}
