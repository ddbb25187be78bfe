import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { transactionSettings } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import { RETRY_AFTER_SECONDS } from '../errors.js';
import { jsonTooDeep } from '../inputChecks.js';
import { selectionOf } from './attributes.js';
import { authenticate, type ScimCaller, scimBaseUrl } from './auth.js';
import { PATCH_SCHEMA, type Place } from './common.js';
import { MAX_BULK_OPERATIONS, MAX_PAYLOAD_BYTES, resourceTypesAnswer, schemasAnswer, serviceProviderConfig } from './discovery.js';
import { asScimError, errorBody, invalidSyntax, invalidValue, notFound, ScimError } from './errors.js';
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from './groups.js';
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from './users.js';

/**
 * The SCIM 2.0 server of each domain (RFC 7643/7644; docs/CONSOLE.md, "Provisioning (SCIM)"), at
 * /scim/v2/{companyId}/{domainId}/…, outside /api and its guard: its callers are provisioning
 * clients (Entra ID, Okta), authenticated by auth.ts, every answer in application/scim+json and
 * every refusal in SCIM's error form. Each call is recorded in scim_calls (method, path, status,
 * which token or application, the refusal's detail: never a body, never a token), the newest
 * KEPT_CALLS of a domain kept. Writes run in a transaction whose actor (the audit trail's) is the
 * token or the application, so every change is in the domain's audit log.
 */

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
const KEPT_CALLS = 500;
/** Ids in paths, as the management API's (server/api/schemas.ts idPattern): no path tricks. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

interface Answer {
  status: number;
  body?: unknown;
  location?: string;
  version?: string;
}

interface Call {
  method: string;
  segments: string[];
  query: Record<string, unknown>;
  body: unknown;
  ifMatch?: string;
}

/** What the call record of a request says, filled in as the request goes. */
const calls = new WeakMap<FastifyRequest, { companyId: string; domainId: string; caller?: ScimCaller; detail?: string }>();

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export async function scimRoutes(app: FastifyInstance) {
  const ctx = app.ctx;

  app.addContentTypeParser('application/scim+json', { parseAs: 'string', bodyLimit: MAX_PAYLOAD_BYTES }, (_request, body, done) => {
    const text = body as string;
    if (text.length === 0) return done(null, undefined);
    if (jsonTooDeep(text)) return done(invalidSyntax('the body is nested too deep'), undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(invalidSyntax('the body is not JSON'), undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const scim = asScimError(error);
    if (!scim) request.log.error({ err: error }, 'SCIM: unhandled error');
    const answer = scim ?? new ScimError(500, 'Internal error');
    const call = calls.get(request);
    if (call) call.detail = answer.message;
    if (answer.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="SCIM"');
    if (answer.status === 503) reply.header('Retry-After', RETRY_AFTER_SECONDS);
    reply.status(answer.status).header('content-type', SCIM_CONTENT_TYPE).send(errorBody(answer));
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).header('content-type', SCIM_CONTENT_TYPE).send(errorBody(notFound('This SCIM endpoint')));
  });

  // every call to a domain's SCIM server is recorded, refused ones too (a body too large, not JSON...),
  // before its answer leaves (the Provisioning tab's last calls)
  app.addHook('onRequest', async (request) => {
    const { companyId, domainId } = (request.params ?? {}) as { companyId?: string; domainId?: string };
    if (!(companyId && domainId && ID.test(companyId) && ID.test(domainId))) return;
    const call: { companyId: string; domainId: string; caller?: ScimCaller; detail?: string } = { companyId, domainId };
    calls.set(request, call);
    // who calls is proved before the body is read: nobody unproved gets a body parsed
    call.caller = await authenticate(ctx, request.headers.authorization, companyId, domainId);
  });
  app.addHook('onSend', async (request, reply) => {
    // answers about people are never kept by a cache on the way
    reply.header('Cache-Control', 'no-store');
    const call = calls.get(request);
    if (!call) return;
    try {
      await record(ctx, request, reply.statusCode, call);
    } catch (error) {
      request.log.warn({ err: error }, 'SCIM: the call could not be recorded');
    }
  });

  app.route<{ Params: { companyId: string; domainId: string; '*': string } }>({
    method: [...METHODS],
    url: '/:companyId/:domainId/*',
    schema: { hide: true },
    async handler(request, reply) {
      const { companyId, domainId } = request.params;
      const call = calls.get(request);
      if (!call) throw notFound('This SCIM endpoint');
      call.caller ??= await authenticate(ctx, request.headers.authorization, companyId, domainId);
      const at: Place = { companyId, domainId, base: scimBaseUrl(ctx.config.publicUrl, companyId, domainId) };
      const actor = JSON.stringify({ userId: null, companyId, domainId, clientId: call.caller.clientId ?? `scim-token:${call.caller.tokenId}`, ip: request.ip, roles: 'scim' });
      const answer = await transactionSettings.run(new Map([['iam.actor', actor]]), () =>
        dispatch(ctx, at, {
          method: request.method,
          segments: request.params['*'].split('/').filter(Boolean),
          query: request.query as Record<string, unknown>,
          body: request.body,
          ifMatch: request.headers['if-match'],
        }),
      );
      return send(reply, answer);
    },
  });
}

function send(reply: FastifyReply, answer: Answer) {
  reply.status(answer.status);
  if (answer.location) reply.header('Location', answer.location);
  if (answer.version) reply.header('ETag', `W/"${answer.version}"`);
  if (answer.body === undefined) return reply.send();
  return reply.header('content-type', SCIM_CONTENT_TYPE).send(answer.body);
}

async function record(ctx: AppContext, request: FastifyRequest, status: number, call: { companyId: string; domainId: string; caller?: ScimCaller; detail?: string }) {
  const path = request.url.split('?', 1)[0].slice(0, 500);
  // a call nobody was proved for (no token, a wrong one) is kept at most once a minute per domain:
  // anyone may send those, and a flood of them must not push the clients' real calls out of the log
  if (!call.caller) {
    const { rowCount: recent } = await ctx.db.query(
      `SELECT 1 FROM scim_calls WHERE company_id = $1 AND domain_id = $2 AND token_id IS NULL AND client_id IS NULL AND at > now() - interval '1 minute' LIMIT 1`,
      [call.companyId, call.domainId],
    );
    if (recent) return;
  }
  const { rowCount } = await ctx.db.query(
    `INSERT INTO scim_calls (company_id, domain_id, id, method, path, status, token_id, client_id, detail)
     SELECT d.company_id, d.id, $3, $4, $5, $6, $7, $8, $9 FROM domains d WHERE d.company_id = $1 AND d.id = $2`,
    [call.companyId, call.domainId, randomAlphanumeric(20), request.method, path, status, call.caller?.tokenId ?? null, call.caller?.clientId ?? null, call.detail?.slice(0, 500) ?? null],
  );
  if (!rowCount) return;
  // the newest KEPT_CALLS stay: whatever is older than the one at that place goes
  await ctx.db.query(
    `DELETE FROM scim_calls WHERE company_id = $1 AND domain_id = $2
       AND at < (SELECT at FROM scim_calls WHERE company_id = $1 AND domain_id = $2 ORDER BY at DESC OFFSET ${KEPT_CALLS - 1} LIMIT 1)`,
    [call.companyId, call.domainId],
  );
}

const methodNotAllowed = (method: string, what: string) => new ScimError(405, `${method} is not allowed on ${what}`);

/** One SCIM call (the HTTP route's, or one operation of a /Bulk) to its answer. */
async function dispatch(ctx: AppContext, at: Place, call: Call, inBulk = false): Promise<Answer> {
  const { db } = ctx;
  const [endpoint, id, ...more] = call.segments;
  const write = <T>(run: (tx: Parameters<Parameters<typeof db.transaction>[0]>[0]) => Promise<T>) => db.transaction(run);
  const selection = selectionOf(call.query);
  // (a Schemas id is a URN: only the ids of users and groups are held to the id pattern)
  if (more.length || (id !== undefined && id !== '.search' && !ID.test(id) && endpoint !== 'Schemas')) throw notFound(`${call.segments.join('/')}`);
  const only = (method: string) => {
    if (call.method !== method) throw methodNotAllowed(call.method, `/${call.segments.join('/')}`);
  };
  switch (endpoint) {
    case 'ServiceProviderConfig':
      only('GET');
      if (id !== undefined) throw notFound(call.segments.join('/'));
      return { status: 200, body: serviceProviderConfig(at.base, `${ctx.config.publicUrl}/api/docs`) };
    case 'ResourceTypes':
      only('GET');
      return { status: 200, body: resourceTypesAnswer(at.base, id) };
    case 'Schemas':
      only('GET');
      return { status: 200, body: schemasAnswer(at.base, id) };
    case 'Bulk':
      only('POST');
      if (inBulk || id !== undefined) throw invalidValue('Bulk: a bulk operation cannot be a bulk request');
      return { status: 200, body: await bulk(ctx, at, call.body) };
    case 'Users':
    case 'Groups': {
      const users = endpoint === 'Users';
      if (id === '.search') {
        only('POST');
        const query = searchQuery(call.body);
        return { status: 200, body: users ? await listUsers(db, at, query, selectionOf(query)) : await listGroups(db, at, query, selectionOf(query)) };
      }
      if (id === undefined) {
        if (call.method === 'GET') return { status: 200, body: users ? await listUsers(db, at, call.query, selection) : await listGroups(db, at, call.query, selection) };
        only('POST');
        const created = await write((tx) => (users ? createUser(tx, at, call.body) : createGroup(tx, at, call.body)));
        return { status: 201, ...created };
      }
      switch (call.method) {
        case 'GET': {
          const found = users ? await getUser(db, at, id, selection) : await getGroup(db, at, id, selection);
          return { status: 200, ...found };
        }
        case 'PUT':
          return { status: 200, ...(await write((tx) => (users ? replaceUser : replaceGroup)(tx, at, id, call.body, call.ifMatch))) };
        case 'PATCH':
          return { status: 200, ...(await write((tx) => (users ? patchUser : patchGroup)(tx, at, id, call.body, call.ifMatch))) };
        case 'DELETE':
          await write((tx) => (users ? deleteUser : deleteGroup)(tx, at, id, call.ifMatch));
          return { status: 204 };
        default:
          throw methodNotAllowed(call.method, endpoint);
      }
    }
    default:
      throw notFound(`/${call.segments.join('/') || ''}`);
  }
}

/** POST …/.search: the query's parameters in a SearchRequest body (attributes as lists). */
function searchQuery(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object') throw invalidSyntax('the body must be a SearchRequest');
  const query = { ...(body as Record<string, unknown>) };
  for (const name of ['attributes', 'excludedAttributes']) if (Array.isArray(query[name])) query[name] = (query[name] as unknown[]).join(',');
  return query;
}

/**
 * /Bulk (RFC 7644 "Bulk Operations"): at most MAX_BULK_OPERATIONS operations, each in its own
 * transaction, in the order given, except that an operation naming `bulkId:x` (in its path or
 * data) waits until the operation with bulkId x has run, wherever it is in the request: a group
 * may come before the users it lists. Groups listing each other as members (a cycle) are created,
 * the first without the members it waits for, added at the end; any other cycle, and a bulkId never
 * created, fails 409 for the operation naming it. failOnErrors stops after that many failures. The
 * results are listed in the request's order.
 */
async function bulk(ctx: AppContext, at: Place, body: unknown) {
  const request = body as { schemas?: unknown; Operations?: unknown; failOnErrors?: unknown } | undefined;
  if (!request || typeof request !== 'object' || !Array.isArray(request.schemas) || !request.schemas.includes('urn:ietf:params:scim:api:messages:2.0:BulkRequest')) {
    throw invalidSyntax('schemas: a bulk request names urn:ietf:params:scim:api:messages:2.0:BulkRequest');
  }
  if (!Array.isArray(request.Operations)) throw invalidSyntax('Operations: required');
  if (request.Operations.length > MAX_BULK_OPERATIONS) throw new ScimError(413, `Operations: at most ${MAX_BULK_OPERATIONS} in one bulk request (maxOperations)`);
  const failOnErrors = request.failOnErrors === undefined ? Infinity : Number(request.failOnErrors);
  if (!Number.isInteger(failOnErrors) && failOnErrors !== Infinity) throw invalidValue('failOnErrors: must be an integer');
  const operations = (request.Operations as unknown[]).map((raw) => (raw ?? {}) as { method?: unknown; bulkId?: unknown; path?: unknown; data?: unknown; version?: unknown });
  // which operation creates each bulkId (the first POST naming it), and which bulkIds each one names
  const creator = new Map<string, number>();
  operations.forEach((op, i) => {
    if (typeof op.bulkId === 'string' && String(op.method).toUpperCase() === 'POST' && !creator.has(op.bulkId)) creator.set(op.bulkId, i);
  });
  const named = operations.map((op) => bulkIdsIn([op.path, op.data]));
  const created = new Map<string, string>();
  const results = new Map<number, Record<string, unknown>>();
  const ran = new Set<number>();
  let errors = 0;

  const run = async (i: number) => {
    const op = operations[i];
    const method = typeof op.method === 'string' ? op.method.toUpperCase() : '';
    const bulkId = typeof op.bulkId === 'string' ? op.bulkId : undefined;
    const result: Record<string, unknown> = { method: op.method, ...(bulkId ? { bulkId } : {}) };
    ran.add(i);
    try {
      if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) throw invalidValue(`Operations[${i}].method: POST, PUT, PATCH or DELETE`);
      if (typeof op.path !== 'string' || !/^\/(Users|Groups)(\/[^/]+)?$/.test(op.path)) throw invalidValue(`Operations[${i}].path: /Users, /Groups, /Users/{id} or /Groups/{id}`);
      if (method === 'POST' && !bulkId) throw invalidValue(`Operations[${i}].bulkId: a POST needs one`);
      const segments = resolveBulkIds(op.path, created).split('/').filter(Boolean);
      const answer = await dispatch(ctx, at, { method, segments, query: {}, body: resolveBulkIds(op.data, created), ifMatch: typeof op.version === 'string' ? op.version : undefined }, true);
      if (bulkId && method === 'POST') created.set(bulkId, (answer.body as { id: string }).id);
      result.status = String(answer.status);
      if (answer.location) result.location = answer.location;
      if (answer.version) result.version = `W/"${answer.version}"`;
    } catch (error) {
      const scim = asScimError(error);
      if (!scim) throw error;
      errors++;
      result.status = String(scim.status);
      result.response = errorBody(scim);
    }
    results.set(i, result);
  };
  // an operation is ready when every bulkId it names was created, or will never be (no operation
  // creates it, or its creator ran and failed: then it fails on it)
  const waiting = (id: string) => !created.has(id) && creator.has(id) && !ran.has(creator.get(id)!);
  const ready = (i: number) => [...named[i]].every((id) => !waiting(id));
  // members held back from a group created in a cycle, added once the rest have run
  const heldBack: { i: number; members: unknown[] }[] = [];
  while (ran.size < operations.length && errors < failOnErrors) {
    const next = operations.findIndex((_, i) => !ran.has(i) && ready(i));
    if (next >= 0) {
      await run(next);
      continue;
    }
    // none ready: the rest name each other (groups listing each other as members). RFC 7644 asks to
    // try to resolve such a cycle: the first group is created without the members it cannot name yet,
    // which are added to it at the end; any other operation runs, and fails on the bulkId it names.
    const first = operations.findIndex((_, i) => !ran.has(i));
    const split = withoutWaitingMembers(operations[first], waiting);
    if (split) {
      operations[first] = { ...operations[first], data: split.data };
      heldBack.push({ i: first, members: split.members });
    }
    await run(first);
  }
  for (const { i, members } of heldBack) {
    const result = results.get(i)!;
    const groupId = created.get(operations[i].bulkId as string);
    if (!groupId) continue;
    try {
      await dispatch(ctx, at, { method: 'PATCH', segments: ['Groups', groupId], query: {}, body: { schemas: [PATCH_SCHEMA], Operations: [{ op: 'add', path: 'members', value: resolveBulkIds(members, created) }] } }, true);
    } catch (error) {
      const scim = asScimError(error);
      if (!scim) throw error;
      // the group stands (its location says where); the members it waited for could not be added
      result.status = String(scim.status);
      result.response = errorBody(new ScimError(scim.status, `the group was created, but the members naming a bulkId could not be added: ${scim.message}`, scim.scimType));
    }
  }
  return { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkResponse'], Operations: [...results.keys()].sort((a, b) => a - b).map((i) => results.get(i)!) };
}

/**
 * A POST of a group whose only names of bulkIds still waiting are in its members: its data without
 * those members, and the members held back. Undefined for anything else.
 */
function withoutWaitingMembers(op: { method?: unknown; path?: unknown; data?: unknown }, waiting: (id: string) => boolean) {
  const data = op.data as { members?: unknown } | undefined;
  if (String(op.method).toUpperCase() !== 'POST' || op.path !== '/Groups' || !data || typeof data !== 'object' || !Array.isArray(data.members)) return undefined;
  const waitsFor = (value: unknown) => [...bulkIdsIn(value)].some(waiting);
  const { members, ...rest } = data as { members: unknown[] };
  if (waitsFor(rest)) return undefined;
  const held = members.filter(waitsFor);
  return held.length ? { data: { ...rest, members: members.filter((member) => !waitsFor(member)) }, members: held } : undefined;
}

/** `bulkId:x` in a path or a value of an operation's data. */
const BULK_ID_REFERENCE = /bulkId:([^/"\s]+)/g;

/** The bulkIds `bulkId:x` names anywhere in a value. */
function bulkIdsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const match of value.matchAll(BULK_ID_REFERENCE)) found.add(match[1]);
  else if (Array.isArray(value)) for (const item of value) bulkIdsIn(item, found);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) bulkIdsIn(item, found);
  return found;
}

/** `bulkId:x` references replaced by the ids created, anywhere in a path or data. */
function resolveBulkIds<T>(value: T, created: Map<string, string>): T {
  if (typeof value === 'string') {
    return value.replace(BULK_ID_REFERENCE, (_whole, bulkId: string) => {
      const id = created.get(bulkId);
      if (!id) throw new ScimError(409, `bulkId:${bulkId} names no resource created in this request (none creates it, its creation failed, or the two operations name each other)`, 'invalidValue');
      return id;
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item) => resolveBulkIds(item, created)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveBulkIds(item, created)])) as T;
  return value;
}
