import type { FastifyInstance, FastifyReply, RouteOptions } from 'fastify';
import { CUSTOM_PLAN, type Database, type Queryable } from '../db/index.js';
import { badRequest } from '../errors.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../inputChecks.js';
import type { AccessCheck } from './guard.js';

/**
 * Server-side lists with ra-data-simple-rest's conventions: range=[start,end] (inclusive),
 * sort=["field","ASC"], filter={"q":"text","field":value|[values]} and the condition of docs/CONSOLE.md, "Data provider conventions"
 * triples (condition=status,!=,deleted; repeat the parameter to combine them with AND).
 */

export type FieldType = 'text' | 'boolean' | 'integer' | 'time';

/**
 * A filter that is no field's plain equality (`neverSignedIn: true`, `memberOf: "<group>"`): its
 * value's type and the SQL predicate it makes (on alias t; `bind` adds a parameter). Every one is
 * served by an index (docs/PERFORMANCE.md, "Filters and sorts of the users list").
 */
export interface NamedFilter {
  type: 'boolean' | 'text';
  sql(value: never, bind: (value: unknown) => string): string;
  /**
   * The rows this filter picks, read from a table of their own (a group's members), for the
   * capped count when it is the list's only filter besides status: the table (alias and all), its
   * condition (given the placeholder sql() bound), and its columns for the list's key, in order
   * (docs/PERFORMANCE.md, "Filters and sorts of the users list").
   */
  countFrom?(placeholder: string): { from: string; where: string; key: string[] };
  /**
   * The same rows kept in the list's order too (a group's members with their user's display name):
   * when this filter is the list's only one besides status and the list is in `sort.column`'s
   * order, the page walks them in that order (`sort.as`, then the last key column) and looks each
   * up among the list's rows by its key, instead of walking the whole list and probing each row
   * (docs/PERFORMANCE.md, "Filters and sorts of the users list").
   */
  orderedFrom?(placeholder: string): { from: string; where: string; key: string[]; sort: { column: string; as: string } };
  /** Its best plan depends on its value (a group's size): planned for it on every call (customPlans). */
  planPerValue?: boolean;
}

export interface ListResource {
  /** Name in Content-Range. */
  name: string;
  /** Table with alias t. */
  table: string;
  /** Select list producing the API shape. */
  select: string;
  /**
   * The same for a list of live records (`status <> 'deleted'`), the fields only deleted records
   * have as NULL: their subqueries (the audit trail's delete) cost planning time on every call of a
   * list planned per call (0.5 ms of 2.2 on the embedded database), and never run for a live row.
   */
  liveSelect?: string;
  /**
   * The select list of these fields only (the `fields` parameter: a screen reads only what it shows),
   * the deleted-only fields as NULL when `live`; the key's field always comes first. Unknown names
   * are the caller's to refuse (parseListQuery).
   */
  selectOnly?(fields: string[], live: boolean): string;
  /** Every field of the records, the ones `fields` may name. */
  recordFields?: string[];
  /** API field -> SQL column (on alias t) that filters, conditions and sorting may name. */
  fields: Record<string, { column: string; type?: FieldType }>;
  /** Filters named in filter={...} besides the fields (their names never clash with a field's). */
  filters?: Record<string, NamedFilter>;
  /** SQL text expression searched by filter.q (case-insensitive substring; trigram-indexed where it matters). */
  search?: string;
  /** Key columns in order; the last one breaks ties in sorting. */
  key: string[];
  /** Fields of the records that lists may not filter or sort by (named in the 400). */
  unlisted?: string[];
  defaultSort: string;
  /** The default sort's order when a request names none (ASC unless said; newest first for events). */
  defaultOrder?: 'ASC' | 'DESC';
  /**
   * A table of maintained counts (alias t; the scope's columns plus status and n). Lists filtered
   * by scope and status alone read their total from it instead of counting rows.
   */
  counts?: string;
  /**
   * Maintained slices of the list in one sort order (alias t; the scope's columns plus status,
   * lo_name, lo_id and n; see server/api/userSlices.ts). Deep pages of a one-status list in that
   * order seek to their slice instead of skipping every row before them. Needs counts.
   */
  slices?: {
    table: string;
    /** The sort column the slices follow (the key's last column breaks ties). */
    column: string;
    /** Told when a list's slices are missing or lopsided, with the scope's parameters. */
    stale(db: Database, scopeParams: unknown[], status: 'active' | 'deleted'): void;
    needRebuild(stats: { total: number; slices: number; largest: number }): boolean;
  };
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
    fields: {
      type: 'string',
      maxLength: 4000,
      description: "comma-separated fields of the records to answer with (default: all of them); the record's id always comes",
    },
    total: {
      type: 'string',
      description:
        'deferred: do not count the matches; Content-Range ends in * while more rows follow the page, in the exact total when the page reaches the end (ask again without it, range [0,0], for the count)',
    },
  },
} as const;

export interface ListQuery {
  range?: string;
  sort?: string;
  filter?: string;
  condition?: string | string[];
  /** `deferred`: the page without counting its matches (docs/CONSOLE.md, "Data provider conventions"). */
  total?: string;
  /** Comma-separated fields to answer with; all of them when absent. */
  fields?: string;
}

/** What the GET routes say about their QUERY twin (OpenAPI). */
const QUERY_RULE =
  'A long filter (e.g. up to 1000 ids) does not fit in a URL: send QUERY to the same path with these parameters in a JSON body instead';

/**
 * Every list route (a GET with listQuerySchema) also answers QUERY (RFC 10008: safe and idempotent,
 * with a body) at its own path, with range, sort, filter and condition in a JSON body, each as the
 * query parameter's JSON text or as that JSON itself. A filter of 1000 ids of 128 characters needs
 * about 137 KB in a URL, far past Node's 16 KB of headers and proxies' request lines
 * (docs/DECISIONS.md, "Long list queries"). The twin is the GET route reading the body instead: same
 * path and params, same config (accessInStatement: the access check in the count statement), same
 * hooks (the guard) and response. Call on the /api instance before its routes are added.
 */
export function addListQueryRoutes(app: FastifyInstance) {
  app.addHook('onRoute', function (route) {
    const querystring = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    if (route.method !== 'GET' || querystring?.properties?.filter !== listQuerySchema.properties.filter) return;
    const { querystring: _, ...schema } = route.schema!;
    route.schema = { ...schema, querystring, description: QUERY_RULE };
    const asQuery = route.handler;
    const twin: RouteOptions = {
      ...route,
      method: 'QUERY',
      url: route.routePath,
      schema: {
        ...schema,
        summary: `${(schema.summary as string | undefined) ?? 'The list'}, with the query parameters in a JSON body (for long filters)`,
        consumes: ['application/json'],
        body: {
          type: 'object',
          properties: {
            ...querystring.properties,
            range: { description: 'as the range parameter: [start, end], as JSON or as its text' },
            sort: { description: 'as the sort parameter: ["field", "ASC" | "DESC"], as JSON or as its text' },
            filter: { description: 'as the filter parameter: an object, as JSON or as its text' },
          },
        },
      },
      handler(request, reply) {
        const body = (request.body ?? {}) as Record<string, unknown>;
        const text = (value: unknown) => (value === undefined || typeof value === 'string' ? value : JSON.stringify(value));
        (request as { query: unknown }).query = { ...body, range: text(body.range), sort: text(body.sort), filter: text(body.filter) };
        return asQuery.call(this, request, reply);
      },
    };
    this.route(twin);
  });
}

const OPERATORS = new Map([['=', '='], ['!=', '<>'], ['<>', '<>'], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>=']]);
export const MAX_PAGE = 1000;
const DEFAULT_PAGE = 25;

/** A JSON query parameter, nesting at most MAX_JSON_DEPTH levels (checked before it is parsed). */
function parseJson(name: string, text: string): unknown {
  if (jsonTooDeep(text)) throw badRequest(`querystring/${name} is nested deeper than ${MAX_JSON_DEPTH} levels`).as('input.tooDeep', { field: `querystring/${name}`, limit: MAX_JSON_DEPTH });
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`${name} must be valid JSON`).as('list.notJson', { field: name });
  }
}

/**
 * The field a request names. Own properties only: `constructor`, `toString` or an own `__proto__`
 * from JSON.parse are unknown fields like any other, never Object.prototype's members.
 */
function fieldOf(resource: ListResource, field: string, where: string) {
  if (!Object.hasOwn(resource.fields, field)) {
    throw badRequest(`${where}: unknown field "${field}"${resource.unlisted?.includes(field) ? ' (no index serves it: lists do not filter or sort by it)' : ''}`).as(
      resource.unlisted?.includes(field) ? 'list.unindexedField' : 'list.unknownField',
      { where, field: field.slice(0, 100) },
    );
  }
  return resource.fields[field];
}

function coerce(resource: ListResource, field: string, value: unknown, where: string): unknown {
  const spec = fieldOf(resource, field, where);
  if (spec.type === 'boolean') {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw badRequest(`${where}: ${field} must be true or false`).as('list.notBoolean', { where, field });
  }
  if (spec.type === 'time') {
    const time = typeof value === 'string' && value.trim() !== '' ? new Date(value) : undefined;
    if (!time || Number.isNaN(time.getTime())) throw badRequest(`${where}: ${field} must be a time (ISO 8601, e.g. 2026-11-20T00:00:00Z)`).as('list.notTime', { where, field });
    // JavaScript reads years PostgreSQL cannot (99999, year 0, before 4713 BC): the years of ISO 8601's four digits only
    const year = time.getUTCFullYear();
    if (year < 1 || year > 9999) throw badRequest(`${where}: ${field} must be a time between the years 1 and 9999`).as('list.timeOutOfRange', { where, field, min: 1, max: 9999 });
    // ISO text, which PostgreSQL reads the same way whatever the server's DateStyle
    return time.toISOString();
  }
  if (spec.type === 'integer') {
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(number)) throw badRequest(`${where}: ${field} must be an integer`).as('list.notInteger', { where, field });
    return number;
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw badRequest(`${where}: ${field} must be a string`).as('list.notString', { where, field });
  }
  return noNul(String(value), `${where}: ${field}`);
}

/** JSON escapes can put U+0000 in a value; PostgreSQL text cannot hold it. */
function noNul(text: string, what: string): string {
  if (text.includes('\0')) throw badRequest(`${what} must not contain the NUL character`).as('input.nul', { field: what });
  return text;
}

export interface ParsedList {
  start: number;
  end: number;
  where: string[];
  params: unknown[];
  orderBy: string;
  /** True when every predicate is on status, so a maintained count can answer the total. */
  statusOnly: boolean;
  /**
   * Set when a named filter or a time condition applies: its matches are counted exactly up to
   * FILTERED_COUNT_LIMIT only (counting costs a probe per row, more than the page).
   */
  filtered?: boolean;
  /** Set when a filter's best plan depends on its value (a time condition, NamedFilter.planPerValue): see customPlans. */
  customPlan?: boolean;
  /** Set when the one predicate is "active" or "deleted" (a partial index, maintained counts and slices). */
  partition?: 'active' | 'deleted';
  sort: { column: string; direction: 'ASC' | 'DESC' };
  /** total=deferred: the page without counting, unless the total is a maintained count anyway (runList). */
  deferTotal?: boolean;
  /** The named filter's own rows to count from (NamedFilter.countFrom), when it is the only filter besides status. */
  countFrom?: { from: string; where: string; key: string[] };
  /**
   * The named filter's own rows in the list's order (NamedFilter.orderedFrom), when it is the only
   * filter besides status and the list is sorted in that order; `clause` is its predicate in where.
   */
  orderedFrom?: { from: string; where: string; key: string[]; order: string; clause: string };
  /** The text values of filters and conditions as sent to the database, with where they came from (refusedValue). */
  given?: { what: string; value: string }[];
  /** The fields asked for (`fields`), in the record's order; all of them when absent. */
  fields?: string[];
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
  let filtered = false;
  let customPlan = false;
  // predicates on anything but status, and the named filter's own rows (NamedFilter.countFrom)
  let others = 0;
  let countFrom: ParsedList['countFrom'];
  let orderedFrom: ParsedList['orderedFrom'];
  const given: NonNullable<ParsedList['given']> = [];
  const valueOf = (field: string, raw: unknown, where: string) => {
    const coerced = coerce(resource, field, raw, where);
    if (typeof coerced === 'string') given.push({ what: `${where}: ${field}`, value: coerced });
    return coerced;
  };

  if (query.total !== undefined && query.total !== 'deferred') throw badRequest('total must be "deferred" (or left out, for a counted total)').as('list.total');
  const fields = query.fields === undefined ? undefined : askedFields(resource, query.fields);
  const deferTotal = query.total === 'deferred';

  let start = 0;
  let end = DEFAULT_PAGE - 1;
  if (query.range !== undefined) {
    const range = parseJson('range', query.range);
    if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isSafeInteger(n) && n >= 0) || range[1] < range[0]) {
      throw badRequest('range must be [start, end] with 0 <= start <= end').as('list.range');
    }
    if (range[1] - range[0] + 1 > MAX_PAGE) throw badRequest(`range may cover at most ${MAX_PAGE} rows`).as('list.rangeTooLong', { limit: MAX_PAGE });
    [start, end] = range as [number, number];
  }

  let sortField = resource.defaultSort;
  let direction: string = resource.defaultOrder ?? 'ASC';
  if (query.sort !== undefined) {
    const sort = parseJson('sort', query.sort);
    if (!Array.isArray(sort) || sort.length !== 2 || typeof sort[0] !== 'string' || typeof sort[1] !== 'string') {
      throw badRequest('sort must be ["field", "ASC" | "DESC"]').as('list.sort');
    }
    fieldOf(resource, sort[0], 'sort');
    if (!/^(ASC|DESC)$/i.test(sort[1])) throw badRequest('sort: order must be ASC or DESC').as('list.sortOrder');
    sortField = sort[0];
    direction = sort[1].toUpperCase();
  }
  const tiebreak = resource.key[resource.key.length - 1];
  const sortColumn = fieldOf(resource, sortField, 'sort').column;
  const orderBy = sortColumn === tiebreak ? `${sortColumn} ${direction}` : `${sortColumn} ${direction}, ${tiebreak} ${direction}`;

  if (query.filter !== undefined) {
    const filter = parseJson('filter', query.filter);
    if (!filter || typeof filter !== 'object' || Array.isArray(filter)) throw badRequest('filter must be a JSON object').as('list.filterNotObject');
    for (const [field, value] of Object.entries(filter as Record<string, unknown>)) {
      const named = resource.filters && Object.hasOwn(resource.filters, field) ? resource.filters[field] : undefined;
      // every name must exist, even with an empty value (which means "no filter")
      if (field !== 'q' && !named) fieldOf(resource, field, 'filter');
      if (value === undefined || value === null || value === '') continue;
      if (field !== 'status' || Array.isArray(value)) statusOnly = false;
      if (field !== 'status') others++;
      if (named) {
        filtered = true;
        if (named.planPerValue) customPlan = true;
        if (named.type === 'boolean' && value !== true && value !== false) throw badRequest(`filter: ${field} must be true or false`).as('list.notBoolean', { where: 'filter', field });
        if (named.type === 'text' && typeof value !== 'string') throw badRequest(`filter: ${field} must be a string`).as('list.notString', { where: 'filter', field });
        let placeholder = '';
        const clause = named.sql((named.type === 'text' ? noNul(value as string, `filter: ${field}`) : value) as never, (v) => (placeholder = bind(v)));
        where.push(clause);
        countFrom = named.countFrom?.(placeholder);
        const ordered = named.orderedFrom?.(placeholder);
        if (ordered && ordered.sort.column === sortColumn && ordered.key.length === resource.key.length) {
          const last = ordered.key[ordered.key.length - 1];
          orderedFrom = { from: ordered.from, where: ordered.where, key: ordered.key, order: `${ordered.sort.as} ${direction}, ${last} ${direction}`, clause };
        }
        continue;
      }
      if (field === 'q') {
        if (!resource.search) throw badRequest('filter: q is not supported on this list').as('list.noSearch');
        if (typeof value !== 'string') throw badRequest('filter: q must be a string').as('list.notString', { where: 'filter', field: 'q' });
        where.push(`${resource.search} ILIKE ${bind(`%${noNul(value, 'filter: q').replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
        continue;
      }
      const { column } = fieldOf(resource, field, 'filter');
      if (Array.isArray(value)) {
        if (value.length > MAX_PAGE) throw badRequest(`filter: ${field} may list at most ${MAX_PAGE} values`).as('list.tooManyValues', { field, limit: MAX_PAGE });
        const values = value.map((v) => valueOf(field, v, 'filter'));
        where.push(values.length ? `${column} = ANY (${bind(values)})` : 'false');
      } else {
        where.push(statusAware(field, column, '=', valueOf(field, value, 'filter'), bind));
      }
    }
  }

  const conditions = query.condition === undefined ? [] : Array.isArray(query.condition) ? query.condition : [query.condition];
  for (const condition of conditions) {
    const match = /^([^,]+),(!=|<>|<=|>=|=|<|>),(.*)$/s.exec(condition);
    if (!match) throw badRequest('condition must be field,operator,value with operator one of = != < <= > >=').as('list.condition');
    const [, field, operator, raw] = match;
    if (field !== 'status') statusOnly = false, others++;
    const { column, type } = fieldOf(resource, field, 'condition');
    if (type === 'time') filtered = customPlan = true;
    where.push(statusAware(field, column, OPERATORS.get(operator)!, valueOf(field, raw, 'condition'), bind));
  }

  const statusColumn = resource.fields.status?.column;
  const partition =
    where.length !== 1 ? undefined : where[0] === `${statusColumn} <> 'deleted'` ? 'active' : where[0] === `${statusColumn} = 'deleted'` ? 'deleted' : undefined;
  return { start, end, where, params, orderBy, statusOnly, filtered, partition, sort: { column: sortColumn, direction: direction as 'ASC' | 'DESC' }, deferTotal, customPlan, given, fields,
    ...(countFrom && others === 1 ? { countFrom } : {}), ...(orderedFrom && others === 1 ? { orderedFrom } : {}) };
}

/** The `fields` parameter: known names, each once, in the record's order (one statement per set, however they are written). */
function askedFields(resource: ListResource, text: string): string[] | undefined {
  const all = resource.recordFields;
  if (!all || !resource.selectOnly) throw badRequest('fields: this list answers whole records only').as('list.wholeRecords');
  const names = text.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of names) if (!all.includes(name)) throw badRequest(`fields: unknown field "${name}"`).as('list.unknownField', { where: 'fields', field: name.slice(0, 100) });
  return names.length ? all.filter((name) => name === 'id' || names.includes(name)) : undefined;
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
  /** Undefined when not counted (total=deferred, more rows past the page): `*` in Content-Range. */
  total: number | undefined;
}

/** Totals above this are estimated by the planner instead of counted row by row (docs/PERFORMANCE.md). */
export const EXACT_COUNT_LIMIT = 10_000;
/**
 * The same for lists under a named filter or a time condition (docs/PERFORMANCE.md, "Filters and
 * sorts of the users list"): their matches are found by a probe per row (a membership, a time
 * range across the name order), and counting 10,000 of them cost several pages.
 */
export const FILTERED_COUNT_LIMIT = 1_000;
const countLimit = (parsed: ParsedList) => (parsed.filtered ? FILTERED_COUNT_LIMIT : EXACT_COUNT_LIMIT);

/** The SQL of one list request: the page, the total, and the planner's estimate (same parameters). */
function buildListSql(resource: ListResource, parsed: ParsedList, scope: string[]) {
  const where = [...scope, ...parsed.where];
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const limit = parsed.end - parsed.start + 1;
  const keys = resource.key.join(', ');
  const slices = slicesFor(resource, parsed);
  const count = totalSql(resource, parsed, whereSql, scope);
  if (slices && parsed.start > 0) {
    return { pageSql: slicedPageSql(resource, parsed, whereSql, slices), ...count, params: parsed.params };
  }
  return { pageSql: plainPageSql(resource, parsed, whereSql), ...count, params: parsed.params };
}

/** The select list of this list's rows (ListResource.liveSelect), plus `extra` columns. */
function selectOf(resource: ListResource, parsed: ParsedList, extra = '') {
  const live = resource.liveSelect !== undefined && parsed.where.includes(`${resource.fields.status?.column} <> 'deleted'`);
  if (parsed.fields && resource.selectOnly) return `${resource.selectOnly(parsed.fields, live)}${extra}`;
  return `${live ? resource.liveSelect : resource.select}${extra}`;
}

/** A page without slices. Deep pages walk the key columns first (an index-only scan) and fetch whole rows for the page alone. */
function plainPageSql(resource: ListResource, parsed: ParsedList, whereSql: string, extra = '') {
  const limit = parsed.end - parsed.start + 1;
  const keys = resource.key.join(', ');
  const select = selectOf(resource, parsed, extra);
  const ordered = parsed.orderedFrom;
  if (ordered) {
    // the filter's own rows in the list's order, each looked up by its key and checked against
    // the rest of the list's conditions (the scope reaches them through the join's equalities);
    // its own predicate is what the walk reads, so it is left out
    const join = resource.key.map((column, i) => `${column} = ${ordered.key[i]}`).join(' AND ');
    const rest = whereSql.replace(/^WHERE /, '').replace(ordered.clause, 'true');
    return `SELECT ${select} FROM ${ordered.from} JOIN ${resource.table} ON ${join}
      WHERE ${ordered.where} AND ${rest}
      ORDER BY ${ordered.order} LIMIT ${limit}${parsed.start > 0 ? ` OFFSET ${parsed.start}` : ''}`;
  }
  return parsed.start > 0
      ? `SELECT ${select} FROM ${resource.table}
         WHERE (${keys}) IN (SELECT ${keys} FROM ${resource.table} ${whereSql} ORDER BY ${parsed.orderBy} LIMIT ${limit} OFFSET ${parsed.start})
         ORDER BY ${parsed.orderBy}`
      : `SELECT ${select} FROM ${resource.table} ${whereSql} ORDER BY ${parsed.orderBy} LIMIT ${limit}`;
}

function slicesFor(resource: ListResource, parsed: ParsedList) {
  return resource.slices && resource.counts && parsed.partition && parsed.sort.column === resource.slices.column ? resource.slices : undefined;
}

/**
 * A page of a sliced list: in ascending order its rows are positions [first, stop) (a descending
 * page is counted from the end, with the maintained total). The slice holding `first` is the last
 * one whose preceding slices hold no more than `first` rows; the page seeks to the slice's first key
 * and skips the rest. Without slices this is a plain OFFSET from the first key, still exact.
 */
function slicedPageSql(resource: ListResource, parsed: ParsedList, whereSql: string, slices: NonNullable<ListResource['slices']>) {
  const keys = resource.key.join(', ');
  const tiebreak = resource.key[resource.key.length - 1];
  const limit = parsed.end - parsed.start + 1;
  const bounds =
    parsed.sort.direction === 'ASC'
      ? `SELECT ${parsed.start}::bigint AS first, ${parsed.start + limit}::bigint AS stop`
      : `SELECT greatest(0, n - ${parsed.start + limit}) AS first, greatest(0, n - ${parsed.start}) AS stop
         FROM (SELECT coalesce(sum(t.n), 0)::bigint AS n FROM ${resource.counts} t ${whereSql}) total`;
  return `WITH bounds AS (${bounds}),
    here AS (
      SELECT lo_name, lo_id, before FROM (
        SELECT t.lo_name, t.lo_id, coalesce(sum(t.n) OVER (ORDER BY t.lo_name, t.lo_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::bigint AS before
        FROM ${slices.table} t ${whereSql}) s
      WHERE before <= (SELECT first FROM bounds)
      ORDER BY lo_name DESC, lo_id DESC LIMIT 1)
    SELECT ${selectOf(resource, parsed)} FROM ${resource.table}
    WHERE (${keys}) IN (
      -- the literal LIMIT tells the planner a page is small (a nested loop, not a scan of the table);
      -- the outer one trims a descending page that reaches the start of the list
      SELECT ${unqualified(keys)} FROM (
        SELECT ${keys}, ${slices.column} FROM ${resource.table} ${whereSql}
          AND (${slices.column}, ${tiebreak}) >= (coalesce((SELECT lo_name FROM here), ''), coalesce((SELECT lo_id FROM here), ''))
        ORDER BY ${slices.column} ASC, ${tiebreak} ASC
        LIMIT ${limit} OFFSET (SELECT first FROM bounds) - coalesce((SELECT before FROM here), 0)) k
      ORDER BY ${unqualified(`${slices.column}, ${tiebreak}`)} LIMIT (SELECT stop - first FROM bounds))
    ORDER BY ${parsed.orderBy}`;
}

/** Column names without the table alias (resources name their table t). */
const unqualified = (columns: string) => columns.replace(/\bt\./g, '');

/** Sliceable lists whose first page this process has already looked at. */
const firstPagesSeen = new Set<string>();

/**
 * The first page of a sliceable list, the first time this process serves it: the moment to look at
 * its slices, so that they are cut before anyone jumps deep (the console always opens a list on its
 * first page). Later first pages need no slices and keep their total one lookup.
 */
function firstLook(resource: ListResource, whereSql: string, params: unknown[]) {
  const list = JSON.stringify([resource.table, whereSql, params]);
  if (firstPagesSeen.has(list)) return false;
  if (firstPagesSeen.size >= 10_000) firstPagesSeen.clear();
  firstPagesSeen.add(list);
  return true;
}

/**
 * In the list's default order (every list has an index in it), the capped count walks the rows in
 * the page's own order: the index the page reads, from the rows it has just read, stopping at the
 * cap. Unordered, PostgreSQL may take any plan that finds the rows, and at 10 million events two of
 * those cost far more than the page: a bitmap of every matching row when the table has no
 * statistics yet (0.6-1 s for a tenant's 8 million events, where the planner guessed 25,000 or 157),
 * and a sequential scan from the oldest rows, read again from outside shared_buffers on every call
 * (20-45 ms for a 20% filter) once it has them (docs/PERFORMANCE.md, "Event lists at 10 million
 * rows"). In other orders an ORDER BY would make the count sort every match, so there is none.
 */
function countOrder(resource: ListResource, parsed: ParsedList) {
  // a filtered users list: the planner's own way to the matches (an ORDER BY made it sort them all)
  if (parsed.filtered) return '';
  return parsed.sort.column === resource.fields[resource.defaultSort]?.column ? ` ORDER BY ${parsed.orderBy}` : '';
}

/**
 * The rows the capped count walks. Under a filter with rows of its own (a group's members) and
 * nothing else but status, those rows, each checked against the list by its key (the OFFSET keeps
 * the check a probe per row, which PostgreSQL would otherwise turn into a join of its choosing): at
 * 1,000,000 users the planner walked the users' id order to meet 1,001 members of a group of 1%,
 * 150 users a member (docs/PERFORMANCE.md, "Filters and sorts of the users list"). The scope
 * (`t.company_id = $1`) is written on the filter's own key columns, so that their index is read.
 */
function countedRows(resource: ListResource, parsed: ParsedList, scope: string[], whereSql: string) {
  const plain = `SELECT 1 FROM ${resource.table} ${whereSql}${countOrder(resource, parsed)}`;
  const source = parsed.countFrom;
  if (!source || source.key.length !== resource.key.length) return plain;
  const onSource: string[] = [];
  for (const clause of scope) {
    const match = /^(t\.\w+) = (\$\d+)$/.exec(clause);
    const at = match ? resource.key.indexOf(match[1]) : -1;
    if (at < 0) return plain;
    onSource.push(`${source.key[at]} = ${match![2]}`);
  }
  return `SELECT 1 FROM ${source.from} WHERE ${[...onSource, source.where].join(' AND ')}
    AND EXISTS (SELECT 1 FROM ${resource.table} ${whereSql} AND (${resource.key.join(', ')}) = (${source.key.join(', ')}) OFFSET 0)`;
}

/**
 * The total and, for a sliced list past its first page (or at the first look at it), the slices'
 * shape, which tells whether they need cutting: one statement either way.
 */
function totalSql(resource: ListResource, parsed: ParsedList, whereSql: string, scope: string[]) {
  const sliceable = resource.slices && resource.counts && parsed.partition;
  const slices = sliceable && (parsed.start > 0 || firstLook(resource, whereSql, parsed.params)) ? resource.slices : undefined;
  const countSql = slices
    ? `SELECT (SELECT coalesce(sum(t.n), 0)::int FROM ${resource.counts} t ${whereSql}) AS total,
              count(*)::int AS slices, coalesce(max(t.n), 0)::int AS largest
       FROM ${slices.table} t ${whereSql}`
    : resource.counts && parsed.statusOnly
      ? `SELECT coalesce(sum(t.n), 0)::int AS total FROM ${resource.counts} t ${whereSql}`
      : `SELECT count(*)::int AS total FROM (${countedRows(resource, parsed, scope, whereSql)} LIMIT ${countLimit(parsed) + 1}) capped`;
  const estimateSql = `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${resource.table} ${whereSql}`;
  return { countSql, estimateSql };
}

/**
 * Runs the total (with the access check when the route defers it to the list) and then the page:
 * two statements whatever the page size. The total comes from maintained counts when the resource
 * has them and only status filters apply; otherwise it is exact up to EXACT_COUNT_LIMIT rows, and
 * past that (where counting would cost more than the page) the planner's estimate, never less than
 * the counted minimum.
 */
export async function runList<T>(
  db: Queryable,
  resource: ListResource,
  parsed: ParsedList,
  scope: string[],
  access?: (from: number) => AccessCheck,
): Promise<ListResult<T>> {
  try {
    return await runListStatements<T>(db, resource, parsed, scope, access);
  } catch (error) {
    throw refusedValue(parsed, error);
  }
}

/**
 * A value the database refused (PostgreSQL's class 22, data exceptions: a time out of its range,
 * a time zone of +99:00, in a field the list does not read as a time) came from the client: a 400
 * naming the filter or condition whose value the database quotes (docs/CONSOLE.md, "Errors and
 * messages"), never a 500. Any other error is returned as it is.
 */
function refusedValue(parsed: ParsedList, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('22')) return error;
  const message = String((error as Error).message ?? '');
  const source = parsed.given?.find((entry) => message.includes(`"${entry.value}"`));
  return badRequest(`${source?.what ?? 'filter'} is not a value this list can compare: ${message}`).as('list.notComparable', { field: source?.what ?? 'filter', detail: message.slice(0, 100) });
}

async function runListStatements<T>(
  db: Queryable,
  resource: ListResource,
  parsed: ParsedList,
  scope: string[],
  access?: (from: number) => AccessCheck,
): Promise<ListResult<T>> {
  // a maintained count (which a sliced page needs too) costs less than deferring it
  if (parsed.deferTotal && !(resource.counts && parsed.statusOnly)) return runDeferred(db, resource, parsed, scope, access);
  const sql = customPlans(parsed, buildListSql(resource, parsed, scope));
  // The guard's access check rides along in the count statement, which runs before the page is read.
  const check = access?.(sql.params.length + 1);
  // (a function: the check's $10 must not read as a group of the pattern)
  const countSql = check ? sql.countSql.replace(/^((?:\/\* custom plan \*\/ )?)SELECT /, (_, custom: string) => `${custom}SELECT ${check.sql}, `) : sql.countSql;
  const counted = (await db.query<{ total: number; slices?: number; largest?: number }>(countSql, check ? [...sql.params, ...check.params] : sql.params)).rows[0];
  if (check) {
    check.assert(counted as never);
    check.done();
  }
  const page = await db.query<T>(sql.pageSql, sql.params);
  let total = counted.total;
  const slices = resource.slices;
  if (slices && parsed.partition && counted.slices !== undefined && 'transaction' in db) {
    if (slices.needRebuild({ total, slices: counted.slices, largest: counted.largest ?? 0 })) slices.stale(db as Database, parsed.params, parsed.partition);
  }
  if (total > countLimit(parsed) && !(resource.counts && parsed.statusOnly)) {
    const plan = await db.query<{ 'QUERY PLAN': unknown }>(sql.estimateSql, sql.params);
    total = Math.max(total, estimatedRows(plan.rows[0]?.['QUERY PLAN']));
  }
  // an estimate never says less than the rows already seen (a page past the end says nothing)
  return { rows: page.rows, start: parsed.start, total: page.rows.length ? Math.max(total, parsed.start + page.rows.length) : total };
}

/**
 * total=deferred (docs/DECISIONS.md, "Deferred list totals"): the page alone, one row longer than
 * asked, which tells whether more follow; the matches are not counted (under a named filter the
 * count cost 2-12x the page). The guard's access check, which rides in the count statement
 * otherwise, rides in the page statement (once: an uncorrelated subquery), and no row is answered
 * unless it passes (as in the count, the tenant's rows are read in that statement and, when it
 * fails, dropped); an empty page checks it on its own. So one statement in all, where a counted list
 * takes two or three.
 */
async function runDeferred<T>(db: Queryable, resource: ListResource, parsed: ParsedList, scope: string[], access?: (from: number) => AccessCheck): Promise<ListResult<T>> {
  const check = access?.(parsed.params.length + 1);
  const where = [...scope, ...parsed.where];
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const limit = parsed.end - parsed.start + 1;
  const accessColumn = check ? `, (SELECT ${check.sql.replace(/ AS access$/, '')}) AS "${ACCESS_COLUMN}"` : '';
  const pageSql = plainPageSql(resource, { ...parsed, end: parsed.end + 1 }, whereSql, accessColumn);
  // the walk of a filter's own rows in the list's order (orderedFrom) is the best plan whatever the
  // value (the index is in the page's order; the LIMIT stops it): a prepared plan serves it
  const planPerCall = parsed.customPlan && !parsed.orderedFrom;
  const page = await db.query<Record<string, unknown>>(planPerCall ? CUSTOM_PLAN + pageSql : pageSql, check ? [...parsed.params, ...check.params] : parsed.params);
  if (check && page.rows.length) check.assert({ access: page.rows[0][ACCESS_COLUMN] as string[] });
  else if (check) {
    const alone = access!(1);
    alone.assert((await db.query<{ access?: string[] }>(`SELECT ${alone.sql}`, alone.params)).rows[0]);
  }
  check?.done();
  const rows = (check ? page.rows.map(({ [ACCESS_COLUMN]: _, ...row }) => row) : page.rows) as T[];
  if (rows.length > limit) return { rows: rows.slice(0, limit), start: parsed.start, total: undefined };
  if (rows.length > 0 || parsed.start === 0) return { rows, start: parsed.start, total: parsed.start + rows.length };
  // a page past the end says nothing about where the end is: counted as without total=deferred (access already checked)
  return runList(db, resource, { ...parsed, deferTotal: false }, scope);
}

/** The guard's column in a deferred page's rows (no field of a record starts with two underscores). */
const ACCESS_COLUMN = '__access';

/**
 * A users list under a filter whose best plan depends on its value is planned for it on every call
 * (no prepared generic plan): the best way to "members of group X" depends on the group's size, to
 * "created since T" on the range's width, and a generic plan, made for an average value, walked half
 * a million users for a group of 1% at 1,000,000 users (docs/PERFORMANCE.md, "Filters and sorts of
 * the users list"). The flags (no value) and emailDomain (one index serves every value, in name
 * order) keep prepared plans: planning on every call cost 1.4 ms of a 2.2 ms page on the embedded
 * database.
 */
function customPlans<S extends { pageSql: string; countSql: string; estimateSql: string }>(parsed: ParsedList, sql: S): S {
  if (!parsed.customPlan) return sql;
  return { ...sql, pageSql: CUSTOM_PLAN + sql.pageSql, countSql: CUSTOM_PLAN + sql.countSql, estimateSql: CUSTOM_PLAN + sql.estimateSql };
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
  // `*`: a complete length not known (RFC 9110, Content-Range), total=deferred
  reply.header('Content-Range', `${name} ${range}/${total ?? '*'}`);
  return rows;
}

/** Rows per statement of an export. */
export const EXPORT_PAGE = 1000;

/**
 * Every row of a list, in the list's order, a page of EXPORT_PAGE rows per statement: keyset pages
 * (the next page starts after the last row's sort value and id), so each page seeks on the index
 * that serves the sort and none skips the rows before it, and nothing but one page is ever held.
 * Rows whose sort value is NULL come in a phase of their own, where PostgreSQL puts them (last
 * ascending, first descending), ordered by the id. Separate statements, not a cursor in one
 * transaction: the embedded database has one connection, which a transaction would hold for the
 * whole download.
 */
export async function* listRows(db: Queryable, resource: ListResource, parsed: ParsedList, scope: string[]): AsyncGenerator<Record<string, unknown>[]> {
  const tiebreak = resource.key[resource.key.length - 1];
  const { column, direction } = parsed.sort;
  const byKeyOnly = column === tiebreak;
  const compare = direction === 'ASC' ? '>' : '<';
  const phases: ('null' | 'value')[] = byKeyOnly ? ['value'] : direction === 'ASC' ? ['value', 'null'] : ['null', 'value'];
  for (const phase of phases) {
    let after: { k: unknown; t: unknown; kt: string; tt: string } | undefined;
    for (;;) {
      const params = [...parsed.params];
      const bind = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      const where = [...scope, ...parsed.where];
      if (!byKeyOnly) where.push(phase === 'null' ? `(${column}) IS NULL` : `(${column}) IS NOT NULL`);
      if (after) {
        const t = `${bind(after.t)}::${after.tt}`;
        where.push(byKeyOnly || phase === 'null' ? `${tiebreak} ${compare} ${t}` : `((${column}), ${tiebreak}) ${compare} (${bind(after.k)}::${after.kt}, ${t})`);
      }
      const orderBy = byKeyOnly || phase === 'null' ? `${tiebreak} ${direction}` : parsed.orderBy;
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT ${resource.select}, (${column})::text AS "__k", ${tiebreak}::text AS "__t",
                pg_typeof(${column})::text AS "__kt", pg_typeof(${tiebreak})::text AS "__tt"
         FROM ${resource.table} WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${EXPORT_PAGE}`,
        params,
      ).catch((error: unknown) => {
        throw refusedValue(parsed, error);
      });
      if (rows.length === 0) break;
      const last = rows[rows.length - 1];
      after = { k: last.__k, t: last.__t, kt: sqlType(last.__kt), tt: sqlType(last.__tt) };
      yield rows.map(({ __k, __t, __kt, __tt, ...row }) => row);
      if (rows.length < EXPORT_PAGE) break;
    }
  }
}

/** A type name from pg_typeof, checked before it is written into SQL as a cast. */
function sqlType(name: unknown): string {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9 ]*(\[\])?$/.test(name)) throw new Error(`unexpected sort type ${String(name)}`);
  return name === 'unknown' ? 'text' : name;
}

/** One CSV cell (RFC 4180), with formula injection defused (OWASP "CSV Injection"). */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  // a spreadsheet runs a cell that starts with one of these as a formula
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;
