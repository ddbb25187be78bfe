import type { FastifyReply } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest } from '../errors.js';

/**
 * Server-side lists with ra-data-simple-rest's conventions: range=[start,end] (inclusive),
 * sort=["field","ASC"], filter={"q":"text","field":value|[values]} and SPEC 7's condition
 * triples (condition=status,!=,deleted; repeat the parameter to combine them with AND).
 */

export type FieldType = 'text' | 'boolean' | 'integer';

export interface ListResource {
  /** Name in Content-Range. */
  name: string;
  /** Table with alias t. */
  table: string;
  /** Select list producing the API shape. */
  select: string;
  /** API field -> SQL column (on alias t) that filters, conditions and sorting may name. */
  fields: Record<string, { column: string; type?: FieldType }>;
  /** SQL text expression searched by filter.q (case-insensitive substring; trigram-indexed where it matters). */
  search?: string;
  /** Key columns in order; the last one breaks ties in sorting. */
  key: string[];
  defaultSort: string;
  /**
   * A table of maintained counts (alias t; the scope's columns plus status and n). Lists filtered
   * by scope and status alone read their total from it instead of counting rows.
   */
  counts?: string;
}

export const listQuerySchema = {
  type: 'object',
  properties: {
    range: { type: 'string', description: 'JSON [start, end], inclusive; at most 1000 rows' },
    sort: { type: 'string', description: 'JSON ["field", "ASC" | "DESC"]' },
    filter: { type: 'string', description: 'JSON object: q (search), id (array) or field values' },
    condition: {
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
      description: 'field,operator,value with operator one of = != < <= > >=',
    },
  },
} as const;

export interface ListQuery {
  range?: string;
  sort?: string;
  filter?: string;
  condition?: string | string[];
}

const OPERATORS: Record<string, string> = { '=': '=', '!=': '<>', '<>': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
export const MAX_PAGE = 1000;
const DEFAULT_PAGE = 25;

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`${name} must be valid JSON`);
  }
}

function coerce(resource: ListResource, field: string, value: unknown, where: string): unknown {
  const spec = resource.fields[field];
  if (!spec) throw badRequest(`${where}: unknown field "${field}"`);
  if (spec.type === 'boolean') {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw badRequest(`${where}: ${field} must be true or false`);
  }
  if (spec.type === 'integer') {
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(number)) throw badRequest(`${where}: ${field} must be an integer`);
    return number;
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw badRequest(`${where}: ${field} must be a string`);
  }
  return String(value);
}

export interface ParsedList {
  start: number;
  end: number;
  where: string[];
  params: unknown[];
  orderBy: string;
  /** True when every predicate is on status, so a maintained count can answer the total. */
  statusOnly: boolean;
  sort: { field: string; column: string; direction: 'ASC' | 'DESC' };
}

/** Validates the list query and turns it into SQL pieces; every mistake is a 400 naming the parameter. */
export function parseListQuery(resource: ListResource, query: ListQuery, initialParams: unknown[] = []): ParsedList {
  const params = [...initialParams];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  let statusOnly = true;

  let start = 0;
  let end = DEFAULT_PAGE - 1;
  if (query.range !== undefined) {
    const range = parseJson('range', query.range);
    if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isSafeInteger(n) && n >= 0) || range[1] < range[0]) {
      throw badRequest('range must be [start, end] with 0 <= start <= end');
    }
    if (range[1] - range[0] + 1 > MAX_PAGE) throw badRequest(`range may cover at most ${MAX_PAGE} rows`);
    [start, end] = range as [number, number];
  }

  let sortField = resource.defaultSort;
  let direction = 'ASC';
  if (query.sort !== undefined) {
    const sort = parseJson('sort', query.sort);
    if (!Array.isArray(sort) || sort.length !== 2 || typeof sort[0] !== 'string' || typeof sort[1] !== 'string') {
      throw badRequest('sort must be ["field", "ASC" | "DESC"]');
    }
    if (!resource.fields[sort[0]]) throw badRequest(`sort: unknown field "${sort[0]}"`);
    if (!/^(ASC|DESC)$/i.test(sort[1])) throw badRequest('sort: order must be ASC or DESC');
    sortField = sort[0];
    direction = sort[1].toUpperCase();
  }
  const tiebreak = resource.key[resource.key.length - 1];
  const sortColumn = resource.fields[sortField].column;
  const orderBy = sortColumn === tiebreak ? `${sortColumn} ${direction}` : `${sortColumn} ${direction}, ${tiebreak} ${direction}`;

  if (query.filter !== undefined) {
    const filter = parseJson('filter', query.filter);
    if (!filter || typeof filter !== 'object' || Array.isArray(filter)) throw badRequest('filter must be a JSON object');
    for (const [field, value] of Object.entries(filter as Record<string, unknown>)) {
      if (value === undefined || value === null || value === '') continue;
      if (field !== 'status' || Array.isArray(value)) statusOnly = false;
      if (field === 'q') {
        if (!resource.search) throw badRequest('filter: q is not supported on this list');
        if (typeof value !== 'string') throw badRequest('filter: q must be a string');
        where.push(`${resource.search} ILIKE ${bind(`%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
        continue;
      }
      const column = resource.fields[field]?.column;
      if (Array.isArray(value)) {
        if (value.length > MAX_PAGE) throw badRequest(`filter: ${field} may list at most ${MAX_PAGE} values`);
        const values = value.map((v) => coerce(resource, field, v, 'filter'));
        where.push(values.length ? `${column} = ANY (${bind(values)})` : 'false');
      } else {
        where.push(statusAware(field, column, '=', coerce(resource, field, value, 'filter'), bind));
      }
    }
  }

  const conditions = query.condition === undefined ? [] : Array.isArray(query.condition) ? query.condition : [query.condition];
  for (const condition of conditions) {
    const match = /^([^,]+),(!=|<>|<=|>=|=|<|>),(.*)$/s.exec(condition);
    if (!match) throw badRequest('condition must be field,operator,value with operator one of = != < <= > >=');
    const [, field, operator, raw] = match;
    if (field !== 'status') statusOnly = false;
    const column = resource.fields[field]?.column;
    where.push(statusAware(field, column, OPERATORS[operator], coerce(resource, field, raw, 'condition'), bind));
  }

  return { start, end, where, params, orderBy, statusOnly, sort: { field: sortField, column: sortColumn, direction: direction as 'ASC' | 'DESC' } };
}

/**
 * Status has two values; "active" and "<> deleted" are the same rows. Writing both as the
 * partial indexes' own predicate lets PostgreSQL use them.
 */
function statusAware(field: string, column: string, operator: string, value: unknown, bind: (v: unknown) => string) {
  if (field === 'status' && ((operator === '=' && value === 'active') || (operator === '<>' && value === 'deleted'))) {
    return `${column} <> 'deleted'`;
  }
  if (field === 'status' && ((operator === '=' && value === 'deleted') || (operator === '<>' && value === 'active'))) {
    return `${column} = 'deleted'`;
  }
  return `${column} ${operator} ${bind(value)}`;
}

export interface ListResult<T> {
  rows: T[];
  start: number;
  total: number;
}

/** Totals above this are estimated by the planner instead of counted row by row (docs/PERFORMANCE.md). */
export const EXACT_COUNT_LIMIT = 10_000;

/** Where an earlier page of the same list ended: the row at position offset - 1 had these sort values. */
export interface Anchor {
  offset: number;
  values: [unknown, unknown];
}

/** The SQL of one list request; exported so that the benchmark runs exactly what the API runs. */
export function buildListSql(resource: ListResource, parsed: ParsedList, scope: string[], anchor?: Anchor) {
  const where = [...scope, ...parsed.where];
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const limit = parsed.end - parsed.start + 1;
  const keys = resource.key.join(', ');
  const params = [...parsed.params];
  let pageWhere = whereSql;
  let offset = parsed.start;
  if (anchor) {
    // Keyset: seek past the anchor on the index instead of skipping every row before it.
    const tiebreak = resource.key[resource.key.length - 1];
    const after = parsed.sort.direction === 'ASC' ? '>' : '<';
    const bind = (value: unknown) => `$${params.push(value)}`;
    const seek =
      parsed.sort.column === tiebreak
        ? `${tiebreak} ${after} ${bind(anchor.values[1])}`
        : `(${parsed.sort.column}, ${tiebreak}) ${after} (${bind(anchor.values[0])}, ${bind(anchor.values[1])})`;
    pageWhere = `WHERE ${[...where, seek].join(' AND ')}`;
    offset = parsed.start - anchor.offset;
  }
  // Deep pages walk the key columns first (an index-only scan) and fetch whole rows for the page alone.
  const pageSql =
    offset > 0
      ? `SELECT ${resource.select} FROM ${resource.table}
         WHERE (${keys}) IN (SELECT ${keys} FROM ${resource.table} ${pageWhere} ORDER BY ${parsed.orderBy} LIMIT ${limit} OFFSET ${offset})
         ORDER BY ${parsed.orderBy}`
      : `SELECT ${resource.select} FROM ${resource.table} ${pageWhere} ORDER BY ${parsed.orderBy} LIMIT ${limit}`;
  const countSql =
    resource.counts && parsed.statusOnly
      ? `SELECT coalesce(sum(t.n), 0)::int AS total FROM ${resource.counts} t ${whereSql}`
      : `SELECT count(*)::int AS total FROM (SELECT 1 FROM ${resource.table} ${whereSql} LIMIT ${EXACT_COUNT_LIMIT + 1}) capped`;
  const estimateSql = `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${resource.table} ${whereSql}`;
  return { pageSql, pageParams: params, countSql, estimateSql, params: parsed.params };
}

/**
 * Keyset anchors, per process: where recent pages of a list ended, so that paging forward (and any
 * jump past a known page) seeks on the index instead of counting off every row before it. They
 * live ANCHOR_TTL_MS: a write in the meantime shifts positions by the rows it added or removed,
 * exactly as OFFSET paging drifts while data changes.
 */
const ANCHOR_TTL_MS = 30_000;
const MAX_LISTS = 500;
const MAX_ANCHORS_PER_LIST = 64;
const anchors = new Map<string, { expires: number; byOffset: Map<number, Anchor['values']> }>();

function findAnchor(list: string, start: number): Anchor | undefined {
  const entry = anchors.get(list);
  if (!entry || entry.expires < Date.now()) return undefined;
  let best: Anchor | undefined;
  for (const [offset, values] of entry.byOffset) {
    if (offset <= start && (!best || offset > best.offset)) best = { offset, values };
  }
  return best;
}

function rememberAnchor(list: string, offset: number, values: Anchor['values']) {
  // only scalar sort values go back into SQL as parameters (not JSON lists, not NULLs)
  if (!values.every((value) => ['string', 'number', 'boolean'].includes(typeof value))) return;
  let entry = anchors.get(list);
  if (!entry || entry.expires < Date.now()) {
    entry = { expires: Date.now() + ANCHOR_TTL_MS, byOffset: new Map() };
    if (anchors.size >= MAX_LISTS) anchors.delete(anchors.keys().next().value!);
  }
  anchors.delete(list);
  anchors.set(list, entry);
  if (entry.byOffset.size >= MAX_ANCHORS_PER_LIST) entry.byOffset.delete(entry.byOffset.keys().next().value!);
  entry.byOffset.set(offset, values);
}

/**
 * Runs the page and the total: two statements whatever the page size. The total comes from
 * maintained counts when the resource has them and only status filters apply; otherwise it is
 * exact up to EXACT_COUNT_LIMIT rows, and past that (where counting would cost more than the page)
 * the planner's estimate, never less than the counted minimum.
 */
export async function runList<T>(db: Queryable, resource: ListResource, parsed: ParsedList, scope: string[]): Promise<ListResult<T>> {
  const tiebreak = resource.key[resource.key.length - 1];
  const tiebreakField = Object.keys(resource.fields).find((field) => resource.fields[field].column === tiebreak);
  const list = JSON.stringify([resource.table, scope, parsed.where, parsed.params, parsed.orderBy]);
  const anchor = tiebreakField && parsed.start > 0 ? findAnchor(list, parsed.start) : undefined;
  const sql = buildListSql(resource, parsed, scope, anchor);
  const page = await db.query<T>(sql.pageSql, sql.pageParams);
  const last = page.rows[page.rows.length - 1] as Record<string, unknown> | undefined;
  if (tiebreakField && last) rememberAnchor(list, parsed.start + page.rows.length, [last[parsed.sort.field], last[tiebreakField]]);
  let total = (await db.query<{ total: number }>(sql.countSql, sql.params)).rows[0].total;
  if (total > EXACT_COUNT_LIMIT && !(resource.counts && parsed.statusOnly)) {
    const plan = await db.query<{ 'QUERY PLAN': unknown }>(sql.estimateSql, sql.params);
    total = Math.max(total, estimatedRows(plan.rows[0]?.['QUERY PLAN']));
  }
  return { rows: page.rows, start: parsed.start, total: Math.max(total, parsed.start + page.rows.length) };
}

function estimatedRows(plan: unknown): number {
  const parsed = typeof plan === 'string' ? JSON.parse(plan) : plan;
  const rows = Array.isArray(parsed) ? parsed[0]?.Plan?.['Plan Rows'] : undefined;
  return typeof rows === 'number' ? Math.round(rows) : 0;
}

/** Content-Range as ra-data-simple-rest reads it: `users 0-24/319` (a star for the range when empty). */
export function sendList<T>(reply: FastifyReply, name: string, result: ListResult<T>) {
  const { rows, start, total } = result;
  const range = rows.length ? `${start}-${start + rows.length - 1}` : '*';
  reply.header('Content-Range', `${name} ${range}/${total}`);
  return rows;
}
