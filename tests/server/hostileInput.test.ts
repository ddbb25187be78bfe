import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientError } from '../../server/errors.js';
import { isEmailAddress } from '../../server/api/schemas.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { addApplication, basicAuth, CONSOLE_REDIRECT, consoleLoginFields, pkce, postLogin, redirectParams, setPassword } from './oauthHelpers.js';

let server: TestServer;
let acme: Tenant;
beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme');
  await addApplication(server, { id: 'machine-app', companyId: 'root', domainId: 'default', appType: 'machine', secret: 'machine-secret-123456', redirectUris: [] });
});
afterAll(() => server?.close());

const NUL = 'a\u0000b';

/** Names every plain object inherits: none of them is a field of any list. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf', '__defineGetter__'];

/** Every list route of the OpenAPI document, with the root tenant's ids in its path. */
function listRoutes() {
  const doc = server.app.swagger() as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
  return Object.entries(doc.paths)
    .filter(([route, methods]) => route.startsWith('/api/') && methods.get?.parameters?.some((p) => p.in === 'query' && p.name === 'filter'))
    // a list's CSV export takes its filters too, but has no QUERY twin (listFields.test.ts tests it)
    .filter(([route]) => !route.endsWith('/export.csv'))
    .map(([route]) => route);
}
const fill = (route: string, companyId = 'root', domainId = 'default') =>
  route.replace('{companyId}', companyId).replace('{domainId}', domainId).replace('{groupId}', 'administrators').replace(/\{\w+\}/g, 'x');

const inject = (method: string, url: string, options: { headers?: Record<string, string>; payload?: string } = {}) =>
  server.app.inject({ method: method as 'GET', url, headers: options.headers, payload: options.payload });

describe('prototype names as list fields', () => {
  it('answer 400 naming the field on every list route, as sort, filter or condition, by GET and by QUERY', async () => {
    const routes = listRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const route of routes) {
      const url = fill(route);
      for (const name of PROTOTYPE_NAMES) {
        // JSON text written by hand: an object literal's __proto__ would set the prototype, not a key
        const field = JSON.stringify(name);
        const queries = {
          sort: { sort: `[${field},"ASC"]` },
          filter: { filter: `{${field}:"x"}` },
          'empty filter': { filter: `{${field}:null}` },
          condition: { condition: `${name},=,x` },
        };
        for (const [what, query] of Object.entries(queries)) {
          const get = await call(server, server.adminToken, 'GET', `${url}?${new URLSearchParams(query)}`);
          expect(get.status, `GET ${url} ${what} ${name}: ${get.text}`).toBe(400);
          expect(get.body.message).toContain(`unknown field ${field}`);
          const viaQuery = await inject('QUERY', url, {
            headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
            payload: JSON.stringify(query),
          });
          expect(viaQuery.statusCode, `QUERY ${url} ${what} ${name}: ${viaQuery.body}`).toBe(400);
          expect(viaQuery.json().message).toContain(`unknown field ${field}`);
        }
      }
    }
  });

  it('a NUL character in a filter or condition value answers 400 naming the field', async () => {
    const url = '/api/companys/root/domainNames/default/users';
    const cases = [
      [`filter=${encodeURIComponent('{"displayName":"a\\u0000b"}')}`, 'filter: displayName must not contain the NUL character'],
      [`filter=${encodeURIComponent('{"q":"a\\u0000b"}')}`, 'filter: q must not contain the NUL character'],
      [`filter=${encodeURIComponent('{"id":["ok","a\\u0000b"]}')}`, 'filter: id must not contain the NUL character'],
      [`condition=${encodeURIComponent('email,>,a\u0000b')}`, 'querystring/condition must not contain the NUL character'],
    ];
    for (const [query, message] of cases) {
      const res = await call(server, server.adminToken, 'GET', `${url}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message, code: 'input.nul', params: { field: message.replace(' must not contain the NUL character', '') } });
    }
  });
});

describe('a NUL character anywhere in an API request', () => {
  it('answers 4xx on every route: in a path parameter, a query parameter or any text of the body', async () => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    let checked = 0;
    for (const [route, methods] of Object.entries(doc.paths)) {
      if (!route.startsWith('/api/') || route.startsWith('/api/docs')) continue;
      for (const method of Object.keys(methods).filter((m) => ['get', 'post', 'put', 'delete', 'query'].includes(m))) {
        const verb = method.toUpperCase();
        const url = fill(route).replace('/x', '/iam-console');
        const names = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const headers = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' };
        // an import's body is the file itself, read as text: JSON's escaped \u0000 is six characters there, so it gets a real NUL byte
        const raw = (payload: string) => (route.endsWith('/importJobs') ? payload.replaceAll('\\u0000', '\u0000') : payload);
        const body = verb === 'GET' ? undefined : raw(JSON.stringify({ id: 'ok', name: NUL, nested: { text: NUL } }));
        const requests = [
          ...names.map((name) => ({ url: fill(route.replace(`{${name}}`, encodeURIComponent(NUL))), payload: body })),
          { url: `${url}?range=${encodeURIComponent(NUL)}`, payload: body },
          ...(body ? [{ url, payload: body }, { url, payload: raw(JSON.stringify([NUL])) }] : []),
        ];
        for (const request of requests) {
          const res = await inject(verb, request.url, { headers: body ? headers : { authorization: headers.authorization }, payload: request.payload });
          expect(res.statusCode, `${verb} ${request.url} ${request.payload}: ${res.body}`).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, `${verb} ${request.url} ${request.payload}: ${res.body}`).toBeLessThan(500);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    const named = await inject('PUT', '/api/companys/root', { headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'root', displayName: 'R', description: NUL }) });
    expect(named.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'body/description must not contain the NUL character', code: 'input.nul', params: { field: 'body/description' } });
  });
});

/** The OAuth parameters each route declares, from its schema. */
const AUTHORIZE_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce', 'prompt', 'audience', 'resource'];
const LOGIN_PARAMS = [...AUTHORIZE_PARAMS, 'email', 'password'];
const TOKEN_PARAMS = ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'client_id', 'client_secret', 'refresh_token', 'scope', 'audience', 'resource'];
const LOGOUT_PARAMS = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales', 'logout_hint'];
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function expectPage(res: { statusCode: number; headers: Record<string, unknown>; body: string }, name: string) {
  expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBe(400);
  expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
  expect(res.body).toContain(name);
}

describe('a NUL character in an OAuth parameter', () => {
  it('GET /oauth/authorize: 400 page naming the parameter', async () => {
    const { challenge } = pkce();
    for (const name of AUTHORIZE_PARAMS) {
      const fields = { ...consoleLoginFields(challenge), response_type: 'code', [name]: NUL } as Record<string, string>;
      delete fields.email;
      delete fields.password;
      expectPage(await inject('GET', `/oauth/authorize?${form(fields)}`), `querystring/${name}`);
    }
  });

  it('POST /oauth/login: 400 page naming the parameter, email and password included', async () => {
    const { challenge } = pkce();
    for (const name of LOGIN_PARAMS) {
      const fields = { ...consoleLoginFields(challenge), [name]: NUL } as Record<string, string>;
      expectPage(await postLogin(server, fields), `body/${name}`);
    }
  });

  it('POST /oauth/token, form and JSON: 400 invalid_request naming the parameter', async () => {
    for (const name of TOKEN_PARAMS) {
      const fields = { grant_type: 'authorization_code', code: 'c', redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', [name]: NUL };
      for (const [type, payload] of [
        ['application/x-www-form-urlencoded', form(fields)],
        ['application/json', JSON.stringify(fields)],
      ]) {
        const res = await inject('POST', '/oauth/token', { headers: { 'content-type': type }, payload });
        expect(res.statusCode, `${type} ${name}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual({ error: 'invalid_request', error_description: `body/${name} must not contain control characters` });
      }
    }
  });

  it('POST /oauth/token with Basic credentials holding NUL: 401 invalid_client', async () => {
    for (const header of [basicAuth(NUL, 'machine-secret-123456'), basicAuth('machine-app', NUL), `Basic ${Buffer.from(`${NUL}:x`).toString('base64')}`]) {
      const res = await inject('POST', '/oauth/token', { headers: { ...FORM, authorization: header }, payload: form({ grant_type: 'client_credentials' }) });
      expect(res.statusCode, res.body).toBe(401);
      expect(res.json().error).toBe('invalid_client');
    }
  });

  it('GET and POST /oauth/logout: 400 page naming the parameter', async () => {
    for (const name of LOGOUT_PARAMS) {
      expectPage(await inject('GET', `/oauth/logout?${form({ [name]: NUL })}`), `querystring/${name}`);
      expectPage(await inject('POST', '/oauth/logout', { headers: FORM, payload: form({ [name]: NUL }) }), `body/${name}`);
    }
  });

  it('POST to the consent page: 400 page naming the parameter', async () => {
    expectPage(await inject('POST', '/oauth/interaction/x/consent', { headers: FORM, payload: form({ decision: NUL }) }), 'body/decision');
    expectPage(await inject('POST', '/oauth/interaction/x/login', { headers: FORM, payload: form({ email: NUL, password: 'p' }) }), 'body/email');
  });

  it('other control characters are refused too, except in the password, which only refuses NUL', async () => {
    const { challenge } = pkce();
    expectPage(await postLogin(server, consoleLoginFields(challenge, { state: 'a\u0001b' })), 'body/state');
    expectPage(await postLogin(server, consoleLoginFields(challenge, { email: 'admin@example.com\n' })), 'body/email');
    // a password with a tab and a control character is a password like any other
    await setPassword(server, 'root', 'default', 'admin', 'odd\tpass\u0001word');
    try {
      const res = await postLogin(server, consoleLoginFields(challenge, { password: 'odd\tpass\u0001word' }));
      expect(res.statusCode, res.body).toBe(303);
      expect(redirectParams(res)?.params.code).toBeTruthy();
    } finally {
      await setPassword(server, 'root', 'default', 'admin', consoleLoginFields(challenge).password);
    }
  });

  it('unknown parameters are ignored, as OAuth asks, whatever they hold', async () => {
    const res = await inject('GET', `/oauth/logout?${form({ unknown: NUL })}`);
    expect(res.statusCode).toBe(200);
  });
});

describe('a value the database refuses is a 400 in every error handler', () => {
  it('clientError maps PostgreSQL data errors, and nothing else, to 4xx', () => {
    expect(clientError(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }))?.status).toBe(400);
    expect(clientError(Object.assign(new Error('x'), { code: '22P05' }))?.status).toBe(400);
    expect(clientError(Object.assign(new Error('x'), { statusCode: 404 }))).toEqual({ status: 404, message: 'x' });
    expect(clientError(new Error('boom'))).toBeUndefined();
    expect(clientError(Object.assign(new Error('x'), { code: '40001' }))).toBeUndefined();
  });

  // An Origin header is looked up in the database (CORS) before any parameter check. Node's HTTP
  // parser refuses NUL in headers; inject does not, so the database sees it and refuses it.
  it('the token endpoint answers 400 invalid_request, userinfo the API shape', async () => {
    const origin = 'https://a\u0000b.example';
    const token = await inject('POST', '/oauth/token', { headers: { ...FORM, origin }, payload: form({ grant_type: 'client_credentials' }) });
    expect(token.statusCode, token.body).toBe(400);
    expect(token.json().error).toBe('invalid_request');
    const userinfo = await inject('GET', '/oauth/userinfo', { headers: { origin } });
    expect(userinfo.statusCode, userinfo.body).toBe(400);
    expect(userinfo.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });
});

describe('an all-optional body may be left out', () => {
  it('POST /api/application/{id}/secret rotates with no body, an empty JSON body, or {}', async () => {
    await addApplication(server, { id: 'rotating-app', companyId: 'root', domainId: 'default', appType: 'web', secret: 'first-secret-123456', redirectUris: ['https://app.example/cb'] });
    const bearer = { authorization: `Bearer ${server.adminToken}` };
    for (const options of [
      { headers: bearer },
      { headers: { ...bearer, 'content-type': 'application/json' }, payload: '' },
      { headers: { ...bearer, 'content-type': 'application/json' }, payload: '{}' },
    ]) {
      const res = await inject('POST', '/api/application/rotating-app/secret', options);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ client_id: 'rotating-app', previousSecretExpiresAt: null });
    }
  });

  it('every API route whose body requires nothing accepts none; a route that requires one still refuses none', async () => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { type?: string; required?: string[] } }> } }>> };
    const optional = Object.entries(doc.paths).flatMap(([route, methods]) =>
      Object.entries(methods)
        .filter(([method, op]) => route.startsWith('/api/') && method !== 'query' && op.requestBody?.content['application/json']?.schema.type === 'object' && !op.requestBody.content['application/json'].schema.required?.length)
        .map(([method]) => [method.toUpperCase(), fill(route).replace('/x', '/iam-console')] as const),
    );
    expect(optional.map(([method]) => method)).toContain('PUT');
    for (const [method, url] of optional) {
      for (const payload of [undefined, '']) {
        const headers: Record<string, string> = { authorization: `Bearer ${server.adminToken}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) };
        const res = await inject(method, url, { headers, payload });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}: ${res.body}`).toBeLessThan(500);
        expect(res.body).not.toMatch(/body must be object|Body cannot be empty/);
      }
    }
    const refused = await inject('POST', '/api/companys', { headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' }, payload: '' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('body must be object');
  });
});

describe('GET and DELETE with a JSON content type and no body (what many HTTP clients send)', () => {
  it('answer on every such route exactly as without the header', async () => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const routes = Object.entries(doc.paths).flatMap(([route, methods]) =>
      Object.entries(methods)
        .filter(([method, op]) => route.startsWith('/api/') && (method === 'get' || method === 'delete') && !op.requestBody)
        .map(([method]) => [method.toUpperCase(), fill(route)] as const),
    );
    expect(routes.filter(([method]) => method === 'DELETE').length).toBeGreaterThanOrEqual(5);
    const bearer = { authorization: `Bearer ${server.adminToken}` };
    for (const [method, url] of routes) {
      const plain = await inject(method, url, { headers: bearer });
      const json = await inject(method, url, { headers: { ...bearer, 'content-type': 'application/json' }, payload: '' });
      expect(json.statusCode, `${method} ${url}: ${json.body}`).toBe(plain.statusCode);
      expect(json.body).not.toMatch(/Body cannot be empty|body must be/);
    }
  });

  it('a real record is deleted that way', async () => {
    const users = '/api/companys/root/domainNames/default/groups';
    const headers = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' };
    const made = await inject('POST', users, { headers, payload: JSON.stringify({ name: 'empty-body', displayName: 'E', email: 'e@example.com', status: 'deleted' }) });
    expect(made.statusCode, made.body).toBe(201);
    const gone = await inject('DELETE', `${users}/empty-body`, { headers, payload: '' });
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json()).toMatchObject({ id: 'empty-body' });
    expect((await inject('GET', `${users}/empty-body`, { headers, payload: '' })).statusCode).toBe(404);
  });
});

describe('internationalized email addresses', () => {
  const ADDRESSES = ['用户@例子.广告', 'josé@exämple.com', 'user@xn--bcher-kva.example'];

  it('the format accepts UTF-8 local parts and IDN domains and refuses garbage', () => {
    for (const address of [...ADDRESSES, 'admin@example.com', "o'hara+tag@sub.example.co.uk"]) expect(isEmailAddress(address), address).toBe(true);
    const garbage = ['plain', '@example.com', 'a@', 'a@b', 'a b@c.de', 'a@b c.de', 'a\u0000@b.cd', 'a\u0001@b.cd', 'a@b@c.de', '.a@b.cd', 'a..b@c.de', 'a@-b.cd', 'a\u00a0b@c.de', 'a@xn--zz.example', `${'x'.repeat(65)}@b.cd`, `${'é'.repeat(33)}@b.cd`, `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.ef`];
    for (const address of garbage) expect(isEmailAddress(address), JSON.stringify(address)).toBe(false);
  });

  it('users are created with them, duplicates (ASCII case aside) are refused, and they sign in', async () => {
    const hash = await bcrypt.hash('idn password 1', 10);
    const users = `/api/companys/${acme.companyId}/domainNames/${acme.domainId}/users`;
    for (const [i, address] of ADDRESSES.entries()) {
      const created = await call(server, acme.adminToken, 'POST', users, { username: `idn${i}`, displayName: `IDN ${i}`, email: address, authVerification: hash });
      expect(created.status, created.text).toBe(201);
      expect(created.body.email).toBe(address);
    }
    // lower(email) folds ASCII letters on any database locale
    const twin = await call(server, acme.adminToken, 'POST', users, { username: 'idn-twin', displayName: 'Twin', email: 'JOSé@EXäMPLE.COM', authVerification: hash });
    expect(twin.status, twin.text).toBe(409);
    for (const address of ['a b@c.de', 'no-at-sign', `${'x'.repeat(250)}@b.cd`, 'ada@example.com?x', 'ada@example.com#x']) {
      const refused = await call(server, acme.adminToken, 'POST', users, { username: 'bad', displayName: 'Bad', email: address, authVerification: hash });
      expect(refused.status, address).toBe(400);
      expect(refused.body.message).toContain('email');
    }

    await addApplication(server, { id: 'acme-spa', companyId: acme.companyId, domainId: acme.domainId, redirectUris: ['https://acme.example/cb'] });
    for (const address of [...ADDRESSES, 'USER@XN--BCHER-KVA.EXAMPLE']) {
      const { challenge } = pkce();
      const res = await postLogin(server, { email: address, password: 'idn password 1', client_id: 'acme-spa', redirect_uri: 'https://acme.example/cb', scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
      expect(res.statusCode, `${address}: ${res.headers.location}`).toBe(303);
      expect(redirectParams(res)?.params.code, address).toBeTruthy();
    }
  });
});

describe('long id filters: QUERY on the list path', () => {
  /** 1000 distinct ids of 128 characters, as idPattern allows. */
  const ids = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(120)}.@-_`);

  beforeAll(async () => {
    expect(new Set(ids.map((id) => id.length))).toEqual(new Set([128]));
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
       SELECT 'root', 'default', id, 'long' || n, 'Long ' || n, 'long' || n || '@example.com' FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`,
      [ids],
    );
  });

  it('resolves 1000 ids of 128 characters over HTTP, where the same GET is refused for its size', async () => {
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${address}/api/companys/root/domainNames/default/users`;
    const query = { filter: { id: ids }, range: [0, 999], sort: ['displayName', 'ASC'] };
    const headers = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' };
    const res = await fetch(url, { method: 'QUERY', headers, body: JSON.stringify(query) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBe('users 0-999/1000');
    const rows = (await res.json()) as { id: string }[];
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(ids));
    // the parameters may also be the query string's JSON texts
    const asText = await fetch(url, { method: 'QUERY', headers, body: JSON.stringify({ filter: JSON.stringify({ id: ids.slice(0, 3) }), condition: 'status,!=,deleted' }) });
    expect(((await asText.json()) as unknown[]).length).toBe(3);

    const search = new URLSearchParams({ filter: JSON.stringify({ id: ids }), range: '[0,999]' });
    expect(search.toString().length).toBeGreaterThan(100_000);
    const get = await fetch(`${url}?${search}`, { headers });
    expect(get.status).toBe(431);
  });

  it('answers another tenant exactly as GET does: 404, before reading anything', async () => {
    const other = await createTenant(server, 'other');
    const urls = listRoutes().filter((route) => route.includes('{companyId}')).map((route) => fill(route));
    expect(urls.length).toBeGreaterThan(6);
    for (const url of urls) {
      const get = await call(server, other.adminToken, 'GET', `${url}?${new URLSearchParams({ filter: JSON.stringify({ id: ids.slice(0, 5) }) })}`);
      const viaQuery = await inject('QUERY', url, {
        headers: { authorization: `Bearer ${other.adminToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ filter: { id: ids } }),
      });
      expect(get.status, url).toBe(404);
      expect(viaQuery.statusCode, url).toBe(404);
      expect(viaQuery.json()).toEqual(get.body);
    }
    const mine = await inject('QUERY', `/api/companys/other/domainNames/other-domain/users`, {
      headers: { authorization: `Bearer ${other.adminToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ filter: { id: ['boss', 'worker'] }, sort: ['id', 'ASC'] }),
    });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().map((user: { id: string }) => user.id)).toEqual(['boss', 'worker']);
  });

  it('a QUERY needs a JSON body of the list parameters: anything else is a 400', async () => {
    const url = '/api/companys/root/domainNames/default/users';
    const bearer = { authorization: `Bearer ${server.adminToken}` };
    const cases: [Record<string, string>, string | undefined][] = [
      [bearer, undefined],
      [{ ...bearer, 'content-type': 'application/json' }, '[1,2]'],
      [{ ...bearer, 'content-type': 'application/json' }, '{"range":[0,1001]}'],
      [{ ...bearer, 'content-type': 'application/json' }, '{"filter":"nope"}'],
      [{ ...bearer, 'content-type': 'application/json' }, `{"filter":{"id":${JSON.stringify([...ids, 'one-more'])}}}`],
    ];
    for (const [headers, payload] of cases) {
      const res = await inject('QUERY', url, { headers, payload });
      expect(res.statusCode, `${payload?.slice(0, 40)}: ${res.body}`).toBe(400);
    }
    const empty = await inject('QUERY', url, { headers: { ...bearer, 'content-type': 'application/json' }, payload: '' });
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['content-range']).toMatch(/^users 0-24\//);
  });
});

describe('Content-Type: application/json with no body', () => {
  /** Every API path with this method in the OpenAPI document, filled with ids of the root tenant. */
  const routesWith = (method: 'get' | 'delete') => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    return Object.entries(doc.paths)
      .filter(([route, methods]) => route.startsWith('/api/') && !route.startsWith('/api/docs') && methods[method])
      .map(([route]) => fill(route));
  };

  it('answers DELETE and GET exactly as without the header, on every route (many HTTP clients always send it)', async () => {
    const auth = { authorization: `Bearer ${server.adminToken}` };
    for (const method of ['get', 'delete'] as const) {
      const routes = routesWith(method);
      expect(routes.length).toBeGreaterThanOrEqual(method === 'get' ? 12 : 12);
      for (const url of routes) {
        const plain = await inject(method.toUpperCase(), url, { headers: auth });
        const withType = await inject(method.toUpperCase(), url, { headers: { ...auth, 'content-type': 'application/json' } });
        expect(withType.statusCode, `${method} ${url}: ${withType.body}`).toBe(plain.statusCode);
        expect(withType.statusCode, `${method} ${url}`).toBeLessThan(500);
        if (withType.statusCode === 400) expect(withType.json().message, `${method} ${url}`).not.toMatch(/empty|FST_ERR/i);
      }
    }
  });

  it('a DELETE of one record with the header and no body succeeds', async () => {
    const users = '/api/companys/acme/domainNames/acme-domain/users';
    const as = { authorization: `Bearer ${acme.adminToken}`, 'content-type': 'application/json' };
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email, status) VALUES ('acme', 'acme-domain', 'gone', 'gone', 'Gone', 'gone@acme.example', 'deleted')`);
    const purged = await inject('DELETE', `${users}/gone`, { headers: as });
    expect(purged.statusCode, purged.body).toBe(200);
    expect(purged.json().id).toBe('gone');
  });
});
