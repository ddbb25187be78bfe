import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

/**
 * Checks of request input that run before the route's schema: a character no field can hold answers
 * 400 naming the field, in the route family's own error shape (each family's error handler shapes a
 * 400 HttpError), instead of reaching PostgreSQL, which refuses U+0000 in text.
 */

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
 * For every route: an absent body is an empty object when the route's body schema requires
 * nothing (POST /api/application/{id}/secret with no body rotates with the defaults); the OAuth
 * routes' parameters are checked for control characters.
 */
export function registerInputChecks(app: FastifyInstance) {
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
  const parseJson = api.getDefaultJsonParser('error', 'error');
  api.removeContentTypeParser('application/json');
  api.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parseJson(request, body as string, done);
  });
  api.addHook('preValidation', async (request) => {
    const where = findBad(request.query, 'querystring', /\u0000/) ?? findBad(request.body, 'body', /\u0000/);
    if (where) throw badRequest(`${where} must not contain the NUL character`);
  });
}
