import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

/**
 * Checks of request input that run before the route's schema: a character no field can hold answers
 * 400 naming the field, in the route family's own error shape (each family's error handler shapes a
 * 400 HttpError), instead of reaching PostgreSQL, which refuses U+0000 in text. JSON nests at most
 * MAX_JSON_DEPTH levels, checked on the text before it is parsed, so that no walk over a parsed
 * value (these checks, ajv, the handlers) can run out of stack; an /api body names only fields of
 * its resource.
 */

/** How deep JSON may nest: a body, or a JSON query parameter of a list (filter, sort, range). */
export const MAX_JSON_DEPTH = 32;

/**
 * Does the JSON text `text` nest deeper than `limit` levels? One pass over the text counting the
 * [ and { outside strings, before anything recursive sees it. Text that is not JSON may be counted
 * wrongly; JSON.parse refuses it anyway.
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character (\" stays in the string)
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const tooDeep = (what: string) => badRequest(`${what} is nested deeper than ${MAX_JSON_DEPTH} levels`).as('input.tooDeep', { field: what, limit: MAX_JSON_DEPTH });

/**
 * Replaces `app`'s application/json parser (Fastify's, with its __proto__ and constructor checks)
 * by one that refuses a body nested deeper than MAX_JSON_DEPTH first; `emptyIsNone`: an empty body
 * is no body instead of a 400.
 */
function boundedJsonParser(app: FastifyInstance, emptyIsNone: boolean) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (emptyIsNone && text.length === 0) return done(null, undefined);
    if (jsonTooDeep(text)) return done(tooDeep('body'), undefined);
    parseJson(request, text, done);
  });
}

/** C0 control characters and DEL. */
const CONTROL = /[\u0000-\u001F\u007F]/;

/** A body schema that names no required property accepts an empty object. */
function allOptional(schema: unknown): boolean {
  const body = schema as { type?: unknown; required?: unknown[] } | undefined;
  return body?.type === 'object' && !body.required?.length;
}

/**
 * The path (`body/0/name`) of the first key or string value of `value`, at any depth, that holds
 * `bad`; undefined when there is none.
 */
function findBad(value: unknown, path: string, bad: RegExp): string | undefined {
  if (typeof value === 'string') return bad.test(value) ? path : undefined;
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const where = `${path}/${key}`;
    if (bad.test(key)) return where;
    const found = findBad(item, where, bad);
    if (found) return found;
  }
  return undefined;
}

/**
 * The OAuth parameters a route declares (unknown ones are ignored, as OAuth asks). None holds a
 * control character (client ids, scopes, state, codes, URIs, tokens, email addresses); a password
 * may hold any character but NUL.
 */
function checkOAuthParameters(request: FastifyRequest) {
  const schema = request.routeOptions.schema;
  const parts = [
    ['querystring', request.query, schema?.querystring],
    ['body', request.body, schema?.body],
  ] as const;
  for (const [part, input, partSchema] of parts) {
    const declared = (partSchema as { properties?: object } | undefined)?.properties;
    if (!declared || !input || typeof input !== 'object') continue;
    for (const [name, value] of Object.entries(input)) {
      if (!Object.hasOwn(declared, name)) continue;
      const bad = name === 'password' ? /\u0000/ : CONTROL;
      const where = findBad(value, `${part}/${name}`, bad);
      if (where) throw badRequest(`${where} must not contain ${name === 'password' ? 'the NUL character' : 'control characters'}`).as(name === 'password' ? 'input.nul' : 'input.control', { field: where.slice(0, 100) });
    }
  }
}

/**
 * For every route: a JSON body nests at most MAX_JSON_DEPTH levels (the OAuth routes' JSON token
 * requests and sign-in posts included); an absent body is an empty object when the route's body
 * schema requires nothing (POST /api/application/{id}/secret with no body rotates with the
 * defaults); the OAuth routes' parameters are checked for control characters. Call on the root
 * instance before the routes' plugins are registered (they inherit its parser).
 */
export function registerInputChecks(app: FastifyInstance) {
  boundedJsonParser(app, false);
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && allOptional(request.routeOptions.schema?.body)) request.body = {};
    if (request.url.startsWith('/oauth/')) checkOAuthParameters(request);
  });
}

type Schema = {
  type?: unknown;
  properties?: Record<string, Schema>;
  additionalProperties?: unknown;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** The branch of an anyOf or oneOf that describes an object (a list of ids or of {id, type}), if exactly one does. */
function objectBranch(schema: Schema): Schema | undefined {
  const branches = (schema.anyOf ?? schema.oneOf ?? []).filter((branch) => branch.type === 'object' || branch.properties);
  return branches.length === 1 ? branches[0] : undefined;
}

/**
 * The paths of the keys of `value` that its body schema does not accept, at any depth the schema
 * describes: where an object's schema closes it (additionalProperties false, which ajv's
 * removeAdditional would quietly drop), a key is unknown unless the schema or one of the route's
 * 2xx response schemas at the same place names it (a read-only field: react-admin sends back the
 * record it read, and those are dropped). `found` keeps the first path of each unknown name.
 */
function unknownFields(value: unknown, schema: Schema | undefined, responses: Schema[], path: string, found: Map<string, string>) {
  if (!schema || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = responses.map((response) => response.items).filter((item): item is Schema => !!item);
    value.forEach((item, index) => unknownFields(item, schema.items, items, `${path}/${index}`, found));
    return;
  }
  if (schema.anyOf || schema.oneOf) return unknownFields(value, objectBranch(schema), responses, path, found);
  const properties = schema.properties ?? {};
  for (const [name, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, name)) {
      const within = responses.map((response) => response.properties?.[name]).filter((part): part is Schema => !!part);
      unknownFields(item, properties[name], within, `${path}/${name}`, found);
    } else if (schema.additionalProperties === false && !responses.some((response) => response.properties && Object.hasOwn(response.properties, name))) {
      if (!found.has(name)) found.set(name, `${path}/${name}`);
    }
  }
}

/** The route's 2xx response schemas: what the API itself answers, and so may be sent back. */
function successResponses(response: unknown): Schema[] {
  if (!response || typeof response !== 'object') return [];
  return Object.entries(response as Record<string, Schema>)
    .filter(([status]) => /^2(\d\d|xx)$/i.test(status))
    .map(([, schema]) => ((schema as { content?: Record<string, { schema: Schema }> }).content?.['application/json']?.schema ?? schema));
}

/** At most this many unknown fields are named in one answer. */
const NAMED_UNKNOWN = 10;

/** 400 naming every field of the body (up to NAMED_UNKNOWN) that the route's resource does not have. */
function checkBodyFields(request: FastifyRequest) {
  const schema = request.routeOptions.schema;
  if (!schema?.body || !request.body || typeof request.body !== 'object') return;
  const found = new Map<string, string>();
  unknownFields(request.body, schema.body as Schema, successResponses(schema.response), 'body', found);
  if (found.size === 0) return;
  const paths = [...found.values()];
  const named = paths.slice(0, NAMED_UNKNOWN).join(', ') + (paths.length > NAMED_UNKNOWN ? ` and ${paths.length - NAMED_UNKNOWN} more` : '');
  throw badRequest(`${named} ${paths.length === 1 ? 'is not a field' : 'are not fields'} of this resource`).as(
    paths.length === 1 ? 'input.unknownField' : 'input.unknownFields',
    paths.length === 1 ? { field: paths[0].slice(0, 100) } : { fields: paths.slice(0, NAMED_UNKNOWN).join(', ').slice(0, 100), count: paths.length },
  );
}

/**
 * For the /api instance, after the guard (whose access check comes first): an empty JSON body is
 * no body (Fastify refuses it by default), no key or text of the query or body holds NUL, and a
 * body names no field its resource does not have (checkBodyFields). Other control characters are
 * data there (a tab or line break in notes).
 */
export function registerApiInputChecks(api: FastifyInstance) {
  boundedJsonParser(api, true);
  api.addHook('preValidation', async (request) => {
    const where = findBad(request.query, 'querystring', /\u0000/) ?? findBad(request.body, 'body', /\u0000/);
    if (where) throw badRequest(`${where} must not contain the NUL character`).as('input.nul', { field: where.slice(0, 100) });
    checkBodyFields(request);
  });
}
