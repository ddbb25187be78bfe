import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

/**
 * Checks of request input that run before the route's schema: a character no field can hold answers
 * 400 naming the field, in the route family's own error shape (each family's error handler shapes a
 * 400 HttpError), instead of reaching PostgreSQL, which refuses U+0000 in text. JSON nests at most
 * MAX_JSON_DEPTH levels, checked on the text before it is parsed, so that no walk over a parsed
 * value (these checks, ajv, the handlers) can run out of stack.
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

const tooDeep = (what: string) => badRequest(`${what} is nested deeper than ${MAX_JSON_DEPTH} levels`);

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
      if (where) throw badRequest(`${where} must not contain ${name === 'password' ? 'the NUL character' : 'control characters'}`);
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

/**
 * For the /api instance, after the guard (whose access check comes first): an empty JSON body is
 * no body (Fastify refuses it by default), and no key or text of the query or body holds NUL.
 * Other control characters are data there (a tab or line break in notes).
 */
export function registerApiInputChecks(api: FastifyInstance) {
  boundedJsonParser(api, true);
  api.addHook('preValidation', async (request) => {
    const where = findBad(request.query, 'querystring', /\u0000/) ?? findBad(request.body, 'body', /\u0000/);
    if (where) throw badRequest(`${where} must not contain the NUL character`);
  });
}
