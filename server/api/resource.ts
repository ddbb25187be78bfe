import { type ActsOn, actsOnBody, actsOnParam, type PrincipalType } from './containment.js';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../context.js';
import type { Database, Queryable } from '../db/index.js';
import { badRequest, notFound } from '../errors.js';
import { type AccessCheck, type Locate, statementAccess } from './guard.js';
import { declarePermissionResource } from './roles.js';
import { csvLine, type ListQuery, type ListResource, type ListResult, listQuerySchema, listRows, type ParsedList, parseListQuery, runList, sendList } from './list.js';
import { errorResponses, id, idList } from './schemas.js';

/**
 * A resource type of the management API as one definition: its column map. The SELECT list, the
 * list's filterable and sortable fields, the response and body JSON schemas (validation,
 * serialization and the OpenAPI document) are derived from it, and `crudRoutes` produces its plain
 * routes. Business rules stay plain functions in the resource's module (docs/ADDING-A-RESOURCE.md).
 */

export type JsonSchema = Record<string, unknown>;

/** One API field. */
export interface Field {
  /** SQL on the table's alias t: a column (`t.display_name`) or an expression. */
  column: string;
  /** How it reads in JSON: text (the default), integer, boolean, texts (an array of text), nullableText or object (any JSON object). */
  type?: 'text' | 'integer' | 'boolean' | 'texts' | 'nullableTexts' | 'nullableText' | 'object';
  /** Its schema in request bodies; without one the field is read-only (a body's copy of it is dropped). */
  input?: JsonSchema;
  /** false: lists may not filter or sort by it (400 naming it). */
  listed?: false;
  /** What lists filter and sort by, when not the column itself (the expression an index holds). */
  listColumn?: string;
  /** A point in time: conditions take ISO 8601 times (anything else is a 400, never a database error). */
  time?: true;
  /** Only a deleted record has it: a list of live records reads it as NULL, without planning its SQL (list.ts liveSelect). */
  deletedOnly?: true;
}

export interface ResourceDefinition {
  /** Its name in Content-Range (ra-data-simple-rest reads it). */
  name: string;
  /**
   * Its permission resource (roles.ts): its routes need `<permission>:read` (GET), `:write` (POST,
   * PUT) or `:purge` (DELETE) over the company and domain they name.
   */
  permission: string;
  /** What one record is called in messages: `user x not found`. */
  label: string;
  /** The table with alias t (joins allowed: the list and lookups read it as it is). */
  table: string;
  /** API field -> column, in the order the JSON shows them. */
  fields: Record<string, Field>;
  /** Body fields that are written but never returned (a password hash). */
  writeOnly?: Record<string, JsonSchema>;
  /** What filter.q searches (see ListResource.search). */
  search?: string;
  /** Filters other than a field's equality (see ListResource.filters). */
  filters?: ListResource['filters'];
  /** Key columns in order; the last one is the record's id. */
  key: string[];
  defaultSort: string;
  defaultOrder?: ListResource['defaultOrder'];
  counts?: ListResource['counts'];
  slices?: ListResource['slices'];
}

/** A field's TypeScript type: from its JSON type, or the union of its input's enum (status: 'active' | 'deleted'). */
type FieldValue<F> = F extends { type: 'integer' }
  ? number
  : F extends { type: 'boolean' }
    ? boolean
    : F extends { type: 'texts' }
      ? string[]
      : F extends { type: 'nullableTexts' }
        ? string[] | null
      : F extends { type: 'nullableText' }
        ? string | null
        : F extends { type: 'object' }
          ? Record<string, unknown>
          : F extends { input: { enum: readonly (infer E)[] } }
          ? E
          : string;

/** The record type of a definition (`type User = RecordOf<typeof userDefinition>`): the column map is the one list of fields. */
export type RecordOf<D extends { fields: Record<string, Field> }> = { -readonly [K in keyof D['fields']]: FieldValue<D['fields'][K]> };

const JSON_TYPES = {
  text: { type: 'string' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  texts: { type: 'array', items: { type: 'string' } },
  nullableTexts: { type: ['array', 'null'], items: { type: 'string' } },
  nullableText: { type: ['string', 'null'] },
  object: { type: 'object', additionalProperties: true },
} as const;

/** An output name as SQL: bare when PostgreSQL keeps it as written, quoted otherwise. */
const sqlName = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name}"`);

/** The SELECT list that produces the API shape: `t.id, t.display_name AS "displayName", ...` (AS only where the names differ). */
const selectLists = new WeakMap<ResourceDefinition, string>();
export function selectList(definition: ResourceDefinition, cached = true): string {
  let list = cached ? selectLists.get(definition) : undefined;
  if (list === undefined) {
    list = Object.entries(definition.fields)
      .map(([name, field]) => (field.column.endsWith(`.${name}`) ? field.column : `${field.column} AS ${sqlName(name)}`))
      .join(', ');
    if (cached) selectLists.set(definition, list);
  }
  return list;
}

/** What lists need (server/api/list.ts): the fields they may name, the search, the key. */
export function listResource(definition: ResourceDefinition): ListResource {
  const fields: ListResource['fields'] = {};
  const unlisted: string[] = [];
  for (const [name, field] of Object.entries(definition.fields) as [string, Field][]) {
    if (field.listed === false) {
      unlisted.push(name);
      continue;
    }
    const column = field.listColumn ?? field.column;
    fields[name] = field.type === 'integer' || field.type === 'boolean' ? { column, type: field.type } : field.time ? { column, type: 'time' } : { column };
  }
  const { name, table, search, filters, key, defaultSort, defaultOrder, counts, slices } = definition;
  const live = Object.values(definition.fields).some((field: Field) => field.deletedOnly)
    ? selectList({ ...definition, fields: Object.fromEntries(Object.entries(definition.fields).map(([name, field]: [string, Field]) => [name, field.deletedOnly ? { ...field, column: 'NULL' } : field])) })
    : undefined;
  // one select list per set of fields asked for (a few per screen), never rebuilt per request
  const subsets = new Map<string, string>();
  const selectOnly = (names: string[], liveOnly: boolean) => {
    const cacheKey = `${liveOnly ? 'live' : 'all'} ${names.join(',')}`;
    let select = subsets.get(cacheKey);
    if (select === undefined) {
      const picked = names.map((name) => [name, definition.fields[name]] as [string, Field]);
      select = selectList({ ...definition, fields: Object.fromEntries(picked.map(([name, field]) => [name, liveOnly && field.deletedOnly ? { ...field, column: 'NULL' } : field])) }, false);
      if (subsets.size < 64) subsets.set(cacheKey, select);
    }
    return select;
  };
  return {
    name, table, select: selectList(definition), ...(live ? { liveSelect: live } : {}), selectOnly, recordFields: Object.keys(definition.fields),
    fields, filters, search, key, unlisted, defaultSort, defaultOrder, counts, slices,
  };
}

/** A list whose rows are reshaped before they are sent reads every field of them: it refuses `fields`. */
export function wholeRecordsOnly({ selectOnly: _, ...resource }: ListResource): ListResource {
  return resource;
}

/** The response schema of one record (serialization writes its properties in this order). */
export function recordSchema(definition: ResourceDefinition, extra: Record<string, JsonSchema> = {}) {
  const properties = Object.fromEntries(Object.entries(definition.fields).map(([name, field]) => [name, JSON_TYPES[field.type ?? 'text']]));
  return { type: 'object', properties: { ...properties, ...extra } };
}

/** The body fields: every field with an input schema, then the write-only ones. */
export function bodyProperties(definition: ResourceDefinition): Record<string, JsonSchema> {
  const inputs = Object.entries(definition.fields).filter(([, field]) => field.input).map(([name, field]) => [name, field.input!]);
  return { ...Object.fromEntries(inputs), ...definition.writeOnly };
}

/** A record body: these fields required, no others accepted. */
export function bodySchema(definition: ResourceDefinition, required: string[], properties = bodyProperties(definition)) {
  return { type: 'object', ...(required.length ? { required } : {}), additionalProperties: false, properties };
}

/** A list body of records that each name their id (bulk updates: soft delete, recover). */
export function listBodySchema(item: JsonSchema, description?: string) {
  return { type: 'array', minItems: 1, maxItems: 1000, items: { ...item, required: ['id'] }, ...(description ? { description } : {}) };
}

/**
 * The records of a scope with these ids, in the order asked; 404 naming the first unknown one.
 * `scope` holds SQL conditions over $1..$n, `values` their values.
 */
export async function findRecords<T>(
  db: Queryable,
  definition: ResourceDefinition,
  scope: { where: string[]; values: unknown[] },
  ids: string[],
  lock = false,
): Promise<T[]> {
  const one = ids.length === 1;
  const where = idWhere(definition, scope, one);
  const { rows } = await db.query<T & { id: string }>(`SELECT ${selectList(definition)} FROM ${definition.table} WHERE ${where}${lock ? ' FOR UPDATE' : ''}`, [
    ...scope.values,
    one ? ids[0] : ids,
  ]);
  return ids.map((recordId) => {
    const row = rows.find((candidate) => candidate.id === recordId);
    // an empty id is missing too
    if (!row) throw notFound(`${definition.label} ${recordId}`);
    return row;
  });
}

/**
 * The scope's conditions and the record's id, as parameter $n after the scope's values. One id by
 * equality: PostgreSQL then keeps one generic plan for a prepared statement, where `= ANY ($n)` of
 * an array of unknown length is planned again on every call.
 */
function idWhere(definition: ResourceDefinition, scope: { where: string[]; values: unknown[] }, one: boolean): string {
  const idColumn = definition.key[definition.key.length - 1];
  return [...scope.where, `${idColumn} ${one ? '=' : '= ANY'} ($${scope.values.length + 1})`].join(' AND ');
}

/**
 * GET of one record: the guard's access check and the record in one statement, one round trip
 * (PostgreSQL: 4,700-4,800 GETs/s where two statements gave 3,000-3,200; docs/PERFORMANCE.md). The
 * check is a column of the one row the statement always returns, the record joined to it if in
 * scope: the caller's 401, or 404 for another tenant's company, comes before the record's own 404,
 * and no record leaves the server unless the check passed. A stable read: answered from memory on
 * the embedded database until its next write.
 */
/** The statements of findRecordChecked, by the route's scope conditions (one array per route), then resource and access check. */
const recordStatements = new WeakMap<readonly string[], Map<string, string>>();

export async function findRecordChecked<T>(
  db: Database,
  definition: ResourceDefinition,
  scope: { where: string[]; values: unknown[] },
  recordId: string,
  access: ((from: number) => AccessCheck) | undefined,
): Promise<T> {
  if (!access) return (await findRecords<T>(db.stable, definition, scope, [recordId]))[0];
  const check = access(scope.values.length + 2);
  // built once per route (its scope's conditions) and access statement: the same string on every call
  let statements = recordStatements.get(scope.where);
  if (!statements) recordStatements.set(scope.where, (statements = new Map()));
  const cacheKey = `${definition.name} ${check.sql}`;
  let statement = statements.get(cacheKey);
  if (statement === undefined) {
    statement = `SELECT ${check.sql}, r.* FROM (SELECT 1) one LEFT JOIN (SELECT ${selectList(definition)} FROM ${definition.table} WHERE ${idWhere(definition, scope, true)}) r ON true`;
    statements.set(cacheKey, statement);
  }
  const { rows } = await db.stable.query<{ access: string[]; id: string | null }>(statement, [...scope.values, recordId, ...check.params]);
  check.assert(rows[0]);
  check.done();
  if (rows[0].id === null) throw notFound(`${definition.label} ${recordId}`);
  // the row as it is (no copy without its access column): the response's schema writes only the record's fields
  return rows[0] as T;
}

/** Which records a route reaches: the path's parameters (in this order) or the caller, as $1..$n of `where`. */
export interface Scope {
  /** Path parameters that name the collection; the guard checks companyId and domainId among them. */
  params: string[];
  /** SQL conditions on t. */
  where: string[];
  /** The values of $1..$n; by default the params' values. */
  values?: (request: FastifyRequest) => unknown[];
}

export const scopeValues = (scope: Scope, request: FastifyRequest) =>
  scope.values ? scope.values(request) : scope.params.map((name) => (request.params as Record<string, string>)[name]);

const paramsSchema = (names: string[], schemas: Record<string, JsonSchema> = {}) =>
  names.length ? { params: { type: 'object', required: names, properties: Object.fromEntries(names.map((name) => [name, schemas[name] ?? id])) } } : {};

/**
 * A list route: GET `path` with range, sort, filter and condition (and its QUERY twin, list.ts). The
 * access check rides in the count statement unless `guarded` is false (the scope itself confines
 * the rows, e.g. to the caller's subtree). `whenEmpty` runs when the page has no rows: the moment to
 * tell "no such parent" (404) from an empty list.
 */
export function addListRoute(
  app: FastifyInstance,
  definition: ResourceDefinition,
  options: {
    path: string;
    tags: string[];
    scope: Scope;
    summary?: string;
    guarded?: false;
    paramSchemas?: Record<string, JsonSchema>;
    whenEmpty?: (request: FastifyRequest) => Promise<void>;
    /** Reshapes each row of the page before it is sent (the audit trail names fields as the API does). */
    mapRow?: (row: Record<string, unknown>) => unknown;
    /** The permission it needs, when not `<definition.permission>:read`. */
    permission?: string;
    /** Where its records are, when its path names no company (guard.ts, locateRecords). */
    locate?: Locate;
  },
) {
  const resource = options.mapRow ? wholeRecordsOnly(listResource(definition)) : listResource(definition);
  const { scope, whenEmpty } = options;
  declarePermissionResource(definition.permission);
  const schema = {
    tags: options.tags,
    ...(options.summary ? { summary: options.summary } : {}),
    ...paramsSchema(scope.params, options.paramSchemas),
    querystring: listQuerySchema,
    response: { 200: { type: 'array', items: recordSchema(definition) }, ...errorResponses },
  };
  app.get<{ Querystring: ListQuery }>(
    options.path,
    {
      config: {
        permission: options.permission ?? `${definition.permission}:read`,
        ...(options.locate ? { locate: options.locate } : {}),
        ...(options.guarded === false ? {} : { accessInStatement: true }),
      },
      schema,
    },
    async (request, reply) => {
      const parsed = parseListQuery(resource, request.query, scopeValues(scope, request));
      const result: ListResult<unknown> = await runList(app.ctx.db, resource, parsed, scope.where, options.guarded === false ? undefined : statementAccess(request));
      if (whenEmpty && result.rows.length === 0) await whenEmpty(request);
      const { mapRow } = options;
      return sendList(reply, definition.name, mapRow ? { ...result, rows: result.rows.map((row) => mapRow(row as Record<string, unknown>)) } : result);
    },
  );
  addExportRoute(app, definition, {
    path: options.path,
    tags: options.tags,
    params: paramsSchema(scope.params, options.paramSchemas),
    permission: options.permission ?? `${definition.permission}:read`,
    locate: options.locate,
    mapRow: options.mapRow,
    whenEmpty,
    list: (request, query) => ({ resource, parsed: parseListQuery(resource, query, scopeValues(scope, request)), scope: scope.where }),
  });
}

export interface ExportQuery {
  sort?: string;
  filter?: string;
  condition?: string | string[];
  total?: string;
  columns?: string;
  labels?: string;
}

/** The export's parameters: the list's, without range (copies: a list's own filter schema would give it a QUERY twin, list.ts). */
const exportQuerySchema = {
  type: 'object',
  properties: {
    sort: { ...listQuerySchema.properties.sort },
    filter: { ...listQuerySchema.properties.filter },
    condition: { ...listQuerySchema.properties.condition },
    // accepted as the list's (a client sends its list's parameters); an export counts nothing either way
    total: { ...listQuerySchema.properties.total },
    columns: { type: 'string', maxLength: 4000, description: 'comma-separated fields of the records, in order (default: all of them)' },
    labels: { type: 'string', maxLength: 20000, description: 'JSON array of the header row, one label per column (default: the field names)' },
  },
} as const;

function exportHeader(definition: ResourceDefinition, query: ExportQuery): { columns: string[]; labels: string[] } {
  const fields = Object.keys(definition.fields);
  const columns = query.columns?.trim() ? query.columns.split(',').map((name) => name.trim()) : fields;
  for (const name of columns) if (!fields.includes(name)) throw badRequest(`columns: unknown field "${name}"`).as('list.unknownField', { where: 'columns', field: name.slice(0, 100) });
  if (query.labels === undefined || query.labels === '') return { columns, labels: columns };
  let labels: unknown;
  try {
    labels = JSON.parse(query.labels);
  } catch {
    throw badRequest('labels must be a JSON array of texts').as('resource.labelsNotJson');
  }
  if (!Array.isArray(labels) || !labels.every((label) => typeof label === 'string' && label.length <= 200)) {
    throw badRequest('labels must be a JSON array of texts (at most 200 characters each)').as('resource.labelsNotTexts', { limit: 200 });
  }
  if (labels.length !== columns.length) throw badRequest(`labels: ${labels.length} labels for ${columns.length} columns`).as('resource.labelsCount', { labels: labels.length, columns: columns.length });
  return { columns, labels };
}

/**
 * `GET <list path>/export.csv`: the whole filtered list as CSV (docs/CONSOLE.md, "Fields, filters
 * and CSV export of the lists"), with the list's permission and tenancy (the guard checks before
 * the handler), streamed a keyset page at a time (list.ts listRows). The first page is read before
 * the answer starts, so a refusal of the query is still a proper error.
 */
export function addExportRoute(
  app: FastifyInstance,
  definition: ResourceDefinition,
  options: {
    path: string;
    tags: string[];
    params: object;
    permission: string;
    locate?: Locate;
    mapRow?: (row: Record<string, unknown>) => unknown;
    /** As the list's: an export with no row tells "no such parent" (404) from an empty list too. */
    whenEmpty?: (request: FastifyRequest) => Promise<void>;
    list: (request: FastifyRequest, query: ListQuery) => { resource: ListResource; parsed: ParsedList; scope: string[] };
  },
) {
  app.get<{ Querystring: ExportQuery }>(
    `${options.path}/export.csv`,
    {
      config: { permission: options.permission, ...(options.locate ? { locate: options.locate } : {}) },
      schema: {
        tags: options.tags,
        summary: 'The whole filtered list as CSV (streamed; same filter, sort and condition as the list)',
        ...options.params,
        querystring: exportQuerySchema,
        produces: ['text/csv'],
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const { columns, labels } = exportHeader(definition, request.query);
      const { sort, filter, condition, total } = request.query;
      const { resource, parsed, scope } = options.list(request, { sort, filter, condition, total });
      // only the columns asked for (and what mapRow reads): a field's subquery runs only when it is written
      const wanted = new Set([...columns, ...(options.mapRow ? Object.keys(definition.fields) : [])]);
      const select = selectList({ ...definition, fields: Object.fromEntries(Object.entries(definition.fields).filter(([name]) => wanted.has(name))) });
      const pages = listRows(app.ctx.db, { ...resource, select }, parsed, scope);
      const first = await pages.next();
      if (first.done && options.whenEmpty) await options.whenEmpty(request);
      const { mapRow } = options;
      const lines = (rows: Record<string, unknown>[]) =>
        rows.map((row) => {
          const shaped = (mapRow ? mapRow(row) : row) as Record<string, unknown>;
          return csvLine(columns.map((name) => shaped[name]));
        }).join('');
      async function* csv() {
        // the byte order mark tells spreadsheets the text is UTF-8
        yield `\uFEFF${csvLine(labels)}`;
        if (first.done) return;
        yield lines(first.value);
        for await (const rows of pages) yield lines(rows);
      }
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${definition.name}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(csv()));
    },
  );
}

/** Where a write happens: the path's parameters and the caller. */
export interface WriteContext<P = Record<string, string>> {
  params: P;
  caller: Principal;
}

/** One record's change: its id (from the path or the list item) and the body as sent. */
export interface Change<B> {
  id: string;
  body: B;
}

/** The business rules of the plain routes; each runs inside one transaction (all or nothing). */
export interface CrudRules<R, B, P> {
  create?(db: Queryable, at: WriteContext<P>, body: B): Promise<R>;
  update?(db: Queryable, at: WriteContext<P>, changes: Change<B>[]): Promise<R[]>;
  remove?(db: Queryable, at: WriteContext<P>, ids: string[]): Promise<R[]>;
}

/** The usual change of records whose id is fixed: a body may repeat the id, never change it. */
export function samePathId<B extends { id?: string }>({ id: recordId, body }: Change<B>): B & { id: string } {
  if (body.id !== undefined && body.id !== recordId) throw badRequest('id cannot be changed').as('resource.idChanged');
  return { ...body, id: recordId };
}

type Route = 'list' | 'get' | 'create' | 'update' | 'updateList' | 'remove' | 'removeList';

export interface CrudOptions<R, B, P> {
  tags: string[];
  /** The collection: GET (list), POST, PUT and DELETE with list bodies; each record at `${path}/:${idParam}`. */
  path: string;
  idParam: string;
  /** The id's schema in the path (default: the shared id pattern). */
  idSchema?: JsonSchema;
  scope: Scope;
  rules: CrudRules<R, B, P>;
  /** Body schemas of POST, PUT of one record and PUT of a list. */
  bodies: { create?: JsonSchema; update?: JsonSchema; updateList?: JsonSchema; removeList?: JsonSchema };
  /** Response schemas where they are not the plain record's (a secret shown once). */
  responses?: { created?: JsonSchema; updated?: JsonSchema };
  /** The routes to produce (default: all seven). */
  routes?: Route[];
  summaries?: Partial<Record<Route, string>>;
  /** Permissions other than `<definition.permission>:<verb>` (sessions are revoked, not purged). */
  permissions?: Partial<Record<'read' | 'write' | 'purge', string>>;
  /** Where its records are, when its path names no company (guard.ts, locateRecords). */
  locate?: Locate;
  /** Its records are principals (users, groups): a change needs containment of each (containment.ts). */
  principal?: PrincipalType;
  /** Its records belong to a principal (a user's sessions): every write acts on that one. */
  acts?: (request: FastifyRequest) => ActsOn;
}

/**
 * The plain routes of a resource, as a Fastify plugin: list, get, create (201), update of one record
 * and of a list, delete of one record and of a list. Writes run their rule in one transaction and
 * answer with the records written (DESIGN.md 4). The guard checks the path's company and domain.
 */
export function crudRoutes<R, B extends object, P>(definition: ResourceDefinition, options: CrudOptions<R, B, P>) {
  return async function plainRoutes(app: FastifyInstance) {
    const { db } = app.ctx;
    const { tags, scope, rules, bodies, idParam } = options;
    const routes = new Set<Route>(options.routes ?? ['list', 'get', 'create', 'update', 'updateList', 'remove', 'removeList']);
    const record = recordSchema(definition);
    const records = { type: 'array', items: record };
    const updated = options.responses?.updated ?? record;
    const item = `${options.path}/:${idParam}`;
    const collectionParams = paramsSchema(scope.params);
    const itemParams = paramsSchema([...scope.params, idParam], { [idParam]: options.idSchema ?? id });
    const schema = (route: Route, parts: object) => ({ tags, ...(options.summaries?.[route] ? { summary: options.summaries[route] } : {}), ...parts });
    const context = (request: FastifyRequest): WriteContext<P> => ({ params: request.params as P, caller: request.principal });
    const recordId = (request: FastifyRequest) => (request.params as Record<string, string>)[idParam];

    const { locate } = options;
    declarePermissionResource(definition.permission);
    const permission = (verb: 'read' | 'write' | 'purge') => ({ permission: options.permissions?.[verb] ?? `${definition.permission}:${verb}`, ...(locate ? { locate } : {}) });
    // what a write acts on, when the records are principals: the path's one, or the body's list
    const { principal } = options;
    const actsOnOne = options.acts ? { acts: options.acts } : principal ? { acts: actsOnParam(principal, idParam) } : {};
    const actsOnList = options.acts ? { acts: options.acts } : principal ? { acts: actsOnBody(principal) } : {};
    if (routes.has('list')) addListRoute(app, definition, { path: options.path, tags, scope, summary: options.summaries?.list, locate });

    if (routes.has('get')) {
      app.get(item, { config: { ...permission('read'), accessInStatement: true }, schema: schema('get', { ...itemParams, response: { 200: record, ...errorResponses } }) }, async (request) =>
        findRecordChecked<R>(db, definition, { where: scope.where, values: scopeValues(scope, request) }, recordId(request), statementAccess(request)),
      );
    }
    if (routes.has('create')) {
      const created = options.responses?.created ?? record;
      app.post(options.path, { config: { ...permission('write'), ...(principal ? { acts: 'nobody' as const } : {}) }, schema: schema('create', { ...collectionParams, body: bodies.create, response: { 201: created, ...errorResponses } }) }, async (request, reply) => {
        const result = await db.transaction((tx) => rules.create!(tx, context(request), request.body as B));
        return reply.status(201).send(result);
      });
    }
    if (routes.has('update')) {
      app.put(item, { config: { ...permission('write'), ...actsOnOne }, schema: schema('update', { ...itemParams, body: bodies.update, response: { 200: updated, ...errorResponses } }) }, async (request) => {
        const change = { id: recordId(request), body: request.body as B };
        return (await db.transaction((tx) => rules.update!(tx, context(request), [change])))[0];
      });
    }
    if (routes.has('updateList')) {
      const body = bodies.updateList;
      app.put(options.path, { config: { ...permission('write'), ...actsOnList }, schema: schema('updateList', { ...collectionParams, body, response: { 200: { type: 'array', items: updated }, ...errorResponses } }) }, async (request) => {
        const changes = (request.body as (B & { id: string })[]).map((patch) => ({ id: patch.id, body: patch }));
        return db.transaction((tx) => rules.update!(tx, context(request), changes));
      });
    }
    if (routes.has('remove')) {
      app.delete(item, { config: { ...permission('purge'), ...actsOnOne }, schema: schema('remove', { ...itemParams, response: { 200: record, ...errorResponses } }) }, async (request) => {
        return (await db.transaction((tx) => rules.remove!(tx, context(request), [recordId(request)])))[0];
      });
    }
    if (routes.has('removeList')) {
      const body = bodies.removeList ?? idList;
      app.delete(options.path, { config: { ...permission('purge'), ...actsOnList }, schema: schema('removeList', { ...collectionParams, body, response: { 200: records, ...errorResponses } }) }, async (request) => {
        return db.transaction((tx) => rules.remove!(tx, context(request), request.body as string[]));
      });
    }
  };
}
