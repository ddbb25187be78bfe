/**
 * Maps every react-admin call onto the nested provider path of the resource's declaration.
 * Query building (range, sort, filter, Content-Range) is ra-data-simple-rest's: per call we build
 * a simple-rest provider whose base URL is the computed path minus its last segment.
 */
import simpleRestProvider from 'ra-data-simple-rest';
import type { DataProvider, RaRecord } from 'react-admin';
import { config } from '../config';
import { httpClient as defaultHttpClient, type HttpOptions, type HttpResponse } from '../http/httpClient';
import { currentPathContext, type PathContext } from '../session/session';
import type { ResourceDeclaration } from '../resources/types';

type HttpClient = (url: string, options?: HttpOptions) => Promise<HttpResponse>;

export interface DataProviderOptions {
  resources: readonly ResourceDeclaration[];
  httpClient?: HttpClient;
  apiBase?: string;
  pathContext?: () => PathContext;
}

/** Extra options callers may pass in params.meta. */
export interface IamMeta {
  /** Condition triples (docs/CONSOLE.md, "Data provider conventions"), e.g. 'status,!=,deleted'. */
  condition?: string | string[];
  /** Overrides the session's company or domain for this call (e.g. another company's domains). */
  pathContext?: Partial<PathContext>;
  /** Query parameters a list sends before the usual ones (a group's candidates: type=user). */
  query?: Record<string, string>;
  /**
   * What deleteMany sends instead of the ids: the records' keys when an id alone does not name one
   * (a user and a group member may share an id; a permission grant is an API and a scope).
   */
  body?: unknown;
  /**
   * Ask for the list's page without counting it (`total=deferred`): when more rows follow and the
   * total is not kept, the answer's total is `*` and getList returns react-admin's pageInfo instead.
   */
  deferTotal?: boolean;
}

/** A user who administers a domain (member of its active `administrators` group, maybe through nested groups). */
export interface Administrator {
  id: string;
  username: string;
  displayName: string;
  email: string;
}

export interface IamDataProvider extends DataProvider {
  /** PUT the whole collection (Set Primary sends every domain with primary on one of them). */
  replaceAll: (resource: string, params: { data: RaRecord[]; meta?: IamMeta }) => Promise<{ data: RaRecord[] }>;
  /** POST a list body to the collection: all or nothing (a group's new members or permissions). */
  createMany: (resource: string, params: { data: unknown[]; meta?: IamMeta }) => Promise<{ data: RaRecord[] }>;
  /** The domain's active administrators (at most 1000), to say which deletions would leave none. */
  getAdministrators: (params?: { meta?: IamMeta }) => Promise<{ data: Administrator[] }>;
  /** POSTs to one of the declaration's `actions` (a user's signOutEverywhere) and answers its JSON. */
  action: <T = unknown>(resource: string, params: { action: string; data?: unknown; meta?: IamMeta }) => Promise<{ data: T }>;
}

/**
 * A path with an empty segment (`companys/x/domainNames//users`) would be a request for nothing:
 * it is what a screen sends when the company has no domain yet (docs/CONSOLE.md, "Layout").
 * Such calls are refused here, before the network.
 */
export class MissingContextError extends Error {
  constructor(path: string) {
    super(`No company or domain to call ${path} with: choose a company and create its first domain`);
    this.name = 'MissingContextError';
  }
}

function checkedPath(path: string): string {
  if (path.split('/').some((segment) => segment === '')) throw new MissingContextError(path);
  return path;
}

/**
 * A list request whose GET URL would be longer than this goes as QUERY to the same path, its
 * parameters in a JSON body (docs/DECISIONS.md, "Long list queries"): 1000 ids do not fit in a
 * URL (proxies cut request lines at 8 KB, Node all headers at 16 KB).
 */
export const MAX_LIST_URL = 4000;
/** The most ids one list call may filter on (the provider's page limit). */
export const MAX_IDS_PER_CALL = 1000;

/** Sends a GET list URL that is too long as QUERY, with its query parameters as a JSON object. */
const longListsAsQuery =
  (client: HttpClient): HttpClient =>
  (url, options = {}) => {
    const cut = url.indexOf('?');
    if ((options.method ?? 'GET') !== 'GET' || url.length <= MAX_LIST_URL || cut < 0) return client(url, options);
    const search = new URLSearchParams(url.slice(cut + 1));
    const body: Record<string, string | string[]> = {};
    for (const name of new Set(search.keys())) {
      const values = search.getAll(name);
      body[name] = values.length > 1 ? values : values[0];
    }
    return client(url.slice(0, cut), { ...options, method: 'QUERY', body: JSON.stringify(body) });
  };

/** The day after a YYYY-MM-DD date, as YYYY-MM-DD (UTC, so no time zone shifts it). */
function dayAfter(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return date;
  day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

function splitPath(apiBase: string, path: string): { apiUrl: string; segment: string } {
  const cut = path.lastIndexOf('/');
  return cut < 0
    ? { apiUrl: apiBase, segment: path }
    : { apiUrl: `${apiBase}/${path.slice(0, cut)}`, segment: path.slice(cut + 1) };
}

export function createDataProvider({
  resources,
  httpClient = defaultHttpClient,
  apiBase = config.apiBase,
  pathContext = currentPathContext,
}: DataProviderOptions): IamDataProvider {
  const declarationOf = (resource: string): ResourceDeclaration => {
    const declaration = resources.find((candidate) => candidate.name === resource);
    if (!declaration) throw new Error(`Unknown resource "${resource}": add its declaration to the registry`);
    return declaration;
  };

  const contextOf = (meta?: IamMeta): PathContext => ({ ...pathContext(), ...meta?.pathContext });

  /** Soft-deletable lists show active records unless the caller asks for another condition. */
  const conditionsOf = (declaration: ResourceDeclaration, meta?: IamMeta, filter?: Record<string, unknown>) => {
    const fromFilter = filter?.condition as string | string[] | undefined;
    const given = meta?.condition ?? fromFilter;
    if (given !== undefined) return Array.isArray(given) ? given : [given];
    const soft = declaration.softDelete;
    return soft ? [`${soft.field},!=,${soft.deleted}`] : [];
  };

  const listClient = longListsAsQuery(httpClient);
  /** meta.query's parameters first, then simple-rest's, then the conditions. */
  const withParameters = (conditions: string[], first: Record<string, string> = {}): HttpClient =>
    conditions.length === 0 && Object.keys(first).length === 0
      ? listClient
      : (url, options) => {
          const cut = url.indexOf('?');
          const [path, rest] = cut < 0 ? [url, ''] : [url.slice(0, cut), url.slice(cut + 1)];
          const parameters = [
            new URLSearchParams(first).toString(),
            rest,
            conditions.map((condition) => `condition=${encodeURIComponent(condition)}`).join('&'),
          ].filter(Boolean);
          return listClient(`${path}?${parameters.join('&')}`, options);
        };

  /** Records without an id of their own (a permission grant) get one from their key. */
  const withIds = (declaration: ResourceDeclaration, records: RaRecord[]): RaRecord[] =>
    declaration.recordId ? records.map((record) => ({ ...record, id: declaration.recordId!(record) })) : records;

  const collection = (resource: string, meta?: IamMeta, conditions: string[] = []) => {
    const declaration = declarationOf(resource);
    const { apiUrl, segment } = splitPath(apiBase, checkedPath(declaration.paths.collection(contextOf(meta))));
    const client = withParameters(conditions, meta?.query);
    return { provider: simpleRestProvider(apiUrl, client as never), segment, declaration, url: `${apiUrl}/${segment}`, client };
  };

  const records = (resource: string, meta?: IamMeta) => {
    const declaration = declarationOf(resource);
    const path = checkedPath((declaration.paths.records ?? declaration.paths.collection)(contextOf(meta)));
    const { apiUrl, segment } = splitPath(apiBase, path);
    return { provider: simpleRestProvider(apiUrl, httpClient as never), segment, url: `${apiBase}/${path}`, declaration };
  };

  /**
   * A declared date range's `<source>_gte` / `<source>_lte` filter values (YYYY-MM-DD) become
   * conditions: from the first day's start to the last day's end; a preset `<source>_days` the
   * last so many days, counted now (a saved "last 7 days" stays the last 7 days).
   */
  const dateRanges = (declaration: ResourceDeclaration, filter: Record<string, unknown> = {}) => {
    const conditions: string[] = [];
    const rest = { ...filter };
    delete rest.condition;
    for (const { source, kind } of declaration.filters ?? []) {
      if (kind !== 'dateRange') continue;
      const from = rest[`${source}_gte`];
      const until = rest[`${source}_lte`];
      const days = Number(rest[`${source}_days`]);
      delete rest[`${source}_gte`];
      delete rest[`${source}_lte`];
      delete rest[`${source}_days`];
      if (days > 0) {
        // a preset: since the start of today, here, or of the day (days - 1) before it
        const start = new Date();
        start.setHours(0, 0, 0, 0);
        start.setDate(start.getDate() - days + 1);
        conditions.push(`${source},>=,${start.toISOString()}`);
      }
      if (from) conditions.push(`${source},>=,${String(from)}`);
      if (until) conditions.push(`${source},<,${dayAfter(String(until))}`);
    }
    return { conditions, filter: rest };
  };

  return {
    getList: async (resource, params) => {
      const declaration = declarationOf(resource);
      const { conditions, filter } = dateRanges(declaration, params.filter);
      const meta = params.meta as IamMeta | undefined;
      const deferred = meta?.deferTotal ? { ...meta, query: { ...meta.query, total: 'deferred' } } : meta;
      const { provider, segment } = collection(resource, deferred, [...conditionsOf(declaration, meta, params.filter), ...conditions]);
      const result = await provider.getList(segment, { ...params, filter });
      const data = withIds(declaration, result.data) as typeof result.data;
      // `users 0-24/*`: more rows follow, uncounted (simple-rest reads the star as NaN)
      if (Number.isNaN(result.total)) {
        const page = params.pagination?.page ?? 1;
        return { data, pageInfo: { hasNextPage: true, hasPreviousPage: page > 1 } };
      }
      return { ...result, data };
    },

    getManyReference: async (resource, params) => {
      const declaration = declarationOf(resource);
      const { conditions, filter } = dateRanges(declaration, params.filter);
      const { provider, segment } = collection(resource, params.meta, [...conditionsOf(declaration, params.meta, params.filter), ...conditions]);
      return provider.getManyReference(segment, { ...params, filter });
    },

    // simple-rest's getMany sends no range, so the provider's default page (25) cut longer lists
    // short: every id is asked for, at most MAX_IDS_PER_CALL per call
    getMany: async (resource, params) => {
      const { url, client } = collection(resource, params.meta);
      const calls: RaRecord['id'][][] = [];
      for (let i = 0; i < params.ids.length; i += MAX_IDS_PER_CALL) calls.push(params.ids.slice(i, i + MAX_IDS_PER_CALL));
      const pages = await Promise.all(
        calls.map(async (ids) => {
          const filter = encodeURIComponent(JSON.stringify({ id: ids }));
          const range = encodeURIComponent(JSON.stringify([0, ids.length - 1]));
          const { json } = await client(`${url}?filter=${filter}&range=${range}`, { signal: params.signal });
          return Array.isArray(json) ? json : [];
        }),
      );
      return { data: pages.flat() };
    },

    getOne: async (resource, params) => {
      const { provider, segment } = records(resource, params.meta);
      return provider.getOne(segment, params);
    },

    create: async (resource, params) => {
      const { provider, segment, declaration } = records(resource, params.meta);
      const idField = declaration.idFromField;
      const data =
        idField && (params.data as RaRecord).id === undefined
          ? { ...params.data, id: (params.data as Record<string, unknown>)[idField] }
          : params.data;
      return provider.create(segment, { ...params, data });
    },

    update: async (resource, params) => {
      const { provider, segment } = records(resource, params.meta);
      return provider.update(segment, params);
    },

    updateMany: async (resource, params) => {
      const { provider, segment } = records(resource, params.meta);
      return provider.updateMany(segment, params);
    },

    delete: async (resource, params) => {
      const { provider, segment } = records(resource, params.meta);
      return provider.delete(segment, params);
    },

    // The provider deletes a list body in one all-or-nothing call (DESIGN 4), not one call per id.
    deleteMany: async (resource, params) => {
      const { url, declaration } = records(resource, params.meta);
      const body = (params.meta as IamMeta | undefined)?.body ?? params.ids;
      const { json } = await httpClient(url, { method: 'DELETE', body: JSON.stringify(body) });
      const deleted = Array.isArray(json) ? withIds(declaration, json) : [];
      return { data: deleted.length && deleted.every((record) => record.id !== undefined) ? deleted.map((record) => record.id) : params.ids };
    },

    createMany: async (resource, params) => {
      const { url, declaration } = records(resource, params.meta);
      const { json } = await httpClient(url, { method: 'POST', body: JSON.stringify(params.data) });
      return { data: Array.isArray(json) ? withIds(declaration, json) : [] };
    },

    replaceAll: async (resource, params) => {
      const { url } = records(resource, params.meta);
      const { json } = await httpClient(url, { method: 'PUT', body: JSON.stringify(params.data) });
      return { data: Array.isArray(json) ? json : params.data };
    },

    action: async (resource, params) => {
      const declaration = declarationOf(resource);
      const pathOf = declaration.actions?.[params.action];
      if (!pathOf) throw new Error(`Resource "${resource}" declares no action "${params.action}"`);
      const path = checkedPath(pathOf(contextOf(params.meta)));
      const { json } = await httpClient(`${apiBase}/${path}`, {
        method: 'POST',
        body: params.data === undefined ? undefined : JSON.stringify(params.data),
      });
      return { data: json as never };
    },

    getAdministrators: async (params = {}) => {
      const { companyId, domainId } = contextOf(params.meta);
      const path = checkedPath(`companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/administrators`);
      const { json } = await httpClient(`${apiBase}/${path}`);
      return { data: Array.isArray(json) ? (json as Administrator[]) : [] };
    },
  };
}
