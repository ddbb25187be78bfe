import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from './helpers.js';
import { consoleLoginFields, pkce } from './oauthHelpers.js';

/**
 * Every input answers 4xx (security issue 25, hole 8): JSON nested past MAX_JSON_DEPTH, a post to
 * the device code page without a session, and body fields a resource does not have.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const USERS = '/api/companys/root/domainNames/default/users';
const ADMIN_USER = `${USERS}/admin`;

const inject = (method: string, url: string, options: { headers?: Record<string, string>; payload?: string } = {}) =>
  server.app.inject({ method: method as 'GET', url, headers: options.headers, payload: options.payload });
const asAdmin = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${server.adminToken}`, ...headers });

/** JSON arrays nested `levels` deep, or objects nested `levels` deep. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const DEEP = 100_000;
/** What a recursive walk cannot get through: both shapes, at the top and under a field's name. */
const deepBodies = (field: string) => [arrays(DEEP), objects(DEEP), `{"${field}":${arrays(DEEP)}}`, `{"${field}":${objects(DEEP)}}`];

describe('JSON nested deeper than 32 levels', () => {
  it('POST /oauth/token with a JSON body: 400 invalid_request naming the body, never 500', async () => {
    for (const payload of deepBodies('client_id')) {
      const res = await inject('POST', '/oauth/token', { headers: JSON_TYPE, payload });
      expect(res.statusCode, `${payload.slice(0, 20)}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'body is nested deeper than 32 levels' });
    }
    // 32 levels are JSON like any other (oidc-provider answers about the request itself), and
    // brackets inside strings are text, not nesting
    for (const payload of [`{"a":${arrays(31)}}`, JSON.stringify({ client_id: '['.repeat(DEEP), grant_type: '{'.repeat(100) })]) {
      const res = await inject('POST', '/oauth/token', { headers: JSON_TYPE, payload });
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(res.json().error_description).not.toMatch(/nested/);
    }
    // a form cannot nest: a[b][c] is a name like any other
    const form = await inject('POST', '/oauth/token', { headers: FORM, payload: 'client_id[a][b][c]=x&grant_type[0][1]=client_credentials' });
    expect(form.statusCode, form.body).toBe(400);
    expect(form.json().error).toBe('invalid_request');
  });

  it('POST /oauth/login with a JSON body: a 400 page naming the body, never 500', async () => {
    const { challenge } = pkce();
    const fields = consoleLoginFields(challenge);
    for (const payload of [...deepBodies('client_id'), ...deepBodies('email'), JSON.stringify(fields).replace('"state-123"', arrays(DEEP))]) {
      const res = await inject('POST', '/oauth/login', { headers: JSON_TYPE, payload });
      expect(res.statusCode, `${payload.slice(0, 20)}: ${res.body.slice(0, 300)}`).toBe(400);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
      expect(res.body).toContain('body is nested deeper than 32 levels');
    }
  });

  it('an /api body: 400 naming the body, and nothing is stored', async () => {
    const before = await call(server, server.adminToken, 'GET', '/api/companys/root');
    expect(before.status).toBe(200);
    for (const payload of [...deepBodies('description'), JSON.stringify({ ...before.body, description: 'changed' }).replace('"changed"', arrays(DEEP))]) {
      const res = await inject('PUT', '/api/companys/root', { headers: asAdmin(JSON_TYPE), payload });
      expect(res.statusCode, `${payload.slice(0, 20)}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'body is nested deeper than 32 levels', code: 'input.tooDeep', params: { field: 'body', limit: 32 } });
    }
    expect((await call(server, server.adminToken, 'GET', '/api/companys/root')).body).toEqual(before.body);

    const group = { id: 'deep-group', name: 'deep-group', displayName: 'Deep', email: 'deep@example.com', notes: 'x' };
    const created = await inject('POST', '/api/companys/root/domainNames/default/groups', {
      headers: asAdmin(JSON_TYPE),
      payload: JSON.stringify(group).replace('"x"', objects(DEEP)),
    });
    expect(created.statusCode, created.body).toBe(400);
    expect(created.json().message).toBe('body is nested deeper than 32 levels');
    expect((await call(server, server.adminToken, 'GET', '/api/companys/root/domainNames/default/groups/deep-group')).status).toBe(404);
  });

  it('a list filter, sort or range: 400 naming the parameter, by GET and by QUERY', async () => {
    for (const name of ['filter', 'sort', 'range']) {
      for (const value of [arrays(DEEP), `{"q":${arrays(DEEP)}}`, `{"id":${objects(DEEP)}}`]) {
        const res = await call(server, server.adminToken, 'GET', `${USERS}?${name}=${encodeURIComponent(value)}`);
        expect(res.status, `${name} ${value.slice(0, 10)}: ${res.text}`).toBe(400);
        expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: `querystring/${name} is nested deeper than 32 levels`, code: 'input.tooDeep', params: { field: `querystring/${name}`, limit: 32 } });
      }
    }
    // by QUERY, as JSON (the body is too deep) and as its text
    const asJson = await inject('QUERY', USERS, { headers: asAdmin(JSON_TYPE), payload: `{"filter":{"id":${arrays(DEEP)}}}` });
    expect(asJson.statusCode, asJson.body).toBe(400);
    expect(asJson.json().message).toBe('body is nested deeper than 32 levels');
    const asText = await inject('QUERY', USERS, { headers: asAdmin(JSON_TYPE), payload: JSON.stringify({ filter: `{"id":${arrays(DEEP)}}` }) });
    expect(asText.statusCode, asText.body).toBe(400);
    expect(asText.json().message).toBe('querystring/filter is nested deeper than 32 levels');
    // a filter that nests a little is still a filter
    const fine = await call(server, server.adminToken, 'GET', `${USERS}?filter=${encodeURIComponent('{"id":["admin"]}')}`);
    expect(fine.status, fine.text).toBe(200);
    expect(fine.body.map((user: { id: string }) => user.id)).toEqual(['admin']);
  });
});

describe('POST /oauth/device without a session', () => {
  const expectExpiredPage = (res: { statusCode: number; headers: Record<string, unknown>; body: string }, what: string) => {
    expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBe(400);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Open the device page again');
  };

  it('answers a 400 page, with or without a code and an xsrf field, without a cookie or with an unknown session; with its page\'s session, the form', async () => {
    for (const payload of ['user_code=BCDF-GHJK', '', 'user_code=BCDF-GHJK&xsrf=abc', 'xsrf=abc', 'user_code=BCDF-GHJK&confirm=yes&xsrf=abc']) {
      expectExpiredPage(await inject('POST', '/oauth/device', { headers: FORM, payload }), `no cookie, ${payload}`);
      const unknown = { ...FORM, cookie: 'iam_session=unknown-session-id; iam_session.sig=forged' };
      expectExpiredPage(await inject('POST', '/oauth/device', { headers: unknown, payload }), `unknown session, ${payload}`);
    }
    expectExpiredPage(await inject('POST', '/oauth/device'), 'no body');
    // another spelling of the page is no page of the provider (tenancy.test.ts): a 404 page, never a 500
    for (const [method, url] of [['POST', '/oauth/device/'], ['GET', '/oauth/device/some-uid/']] as const) {
      const other = await inject(method, url, { headers: FORM, payload: 'user_code=BCDF-GHJK' });
      expect(other.statusCode, url).toBe(404);
      expect(String(other.headers['content-type'])).toMatch(/^text\/html/);
    }
    // the resume step, likewise
    expectExpiredPage(await inject('GET', '/oauth/device/some-uid'), 'GET /oauth/device/some-uid');

    // with the session of the page it came from, a wrong code shows the form again with its error
    const page = await inject('GET', '/oauth/device');
    expect(page.statusCode).toBe(200);
    const cookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(xsrf).toBeTruthy();
    const res = await inject('POST', '/oauth/device', { headers: { ...FORM, cookie }, payload: `xsrf=${xsrf}&user_code=BCDF-GHJK` });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.body).toContain('The code is not valid');
  });
});

describe('body fields a resource does not have', () => {
  it('PUT of one record: 400 naming each unknown field, and the record is unchanged', async () => {
    const before = await call(server, server.adminToken, 'GET', ADMIN_USER);
    expect(before.status).toBe(200);
    const res = await call(server, server.adminToken, 'PUT', ADMIN_USER, { ...before.body, displayName: 'Changed', verified: true, mfa: { totp: true } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'body/verified, body/mfa are not fields of this resource', code: 'input.unknownFields', params: { fields: 'body/verified, body/mfa', count: 2 } });
    const one = await call(server, server.adminToken, 'PUT', ADMIN_USER, { displayName: 'Changed', mfa: true });
    expect(one.body.message).toBe('body/mfa is not a field of this resource');
    expect(one.body).toMatchObject({ code: 'input.unknownField', params: { field: 'body/mfa' } });
    expect((await call(server, server.adminToken, 'GET', ADMIN_USER)).body).toEqual(before.body);
  });

  it('list bodies and creations too: 400 naming the item and field, nothing written', async () => {
    const before = await call(server, server.adminToken, 'GET', ADMIN_USER);
    const bulk = await call(server, server.adminToken, 'PUT', USERS, [{ id: 'admin', displayName: 'Changed' }, { id: 'nobody', verified: true }]);
    expect(bulk.status, bulk.text).toBe(400);
    expect(bulk.body.message).toBe('body/1/verified is not a field of this resource');
    expect((await call(server, server.adminToken, 'GET', ADMIN_USER)).body).toEqual(before.body);

    const created = await call(server, server.adminToken, 'POST', '/api/companys/root/domainNames/default/groups', {
      id: 'extra-group',
      name: 'extra-group',
      displayName: 'Extra',
      email: 'extra@example.com',
      owner: 'admin',
    });
    expect(created.status, created.text).toBe(400);
    expect(created.body.message).toBe('body/owner is not a field of this resource');
    expect((await call(server, server.adminToken, 'GET', '/api/companys/root/domainNames/default/groups/extra-group')).status).toBe(404);

    const members = await call(server, server.adminToken, 'POST', '/api/companys/root/domainNames/default/groups/administrators/members', [
      { id: 'admin', type: 'user', role: 'owner' },
    ]);
    expect(members.status, members.text).toBe(400);
    expect(members.body.message).toBe('body/0/role is not a field of this resource');
    const removal = await call(server, server.adminToken, 'DELETE', '/api/companys/root/domainNames/default/groups/administrators/members', [
      { id: 'admin', type: 'user', force: true },
    ]);
    expect(removal.status, removal.text).toBe(400);
    expect(removal.body.message).toBe('body/0/force is not a field of this resource');
  });

  it('every record PUT back as GET or the list returned it answers 200; with one more field, 400', async () => {
    const api = await call(server, server.adminToken, 'POST', '/api/root/default/api', { id: 'bounds-api', name: 'Bounds', identifier: 'https://bounds.example/api' });
    expect(api.status, api.text).toBe(201);
    const scope = await call(server, server.adminToken, 'POST', `/api/api/${api.body.id}/PermissionScopes`, { permission: 'read', description: 'Read' });
    expect(scope.status, scope.text).toBe(201);
    const first = async (list: string, id: string) => {
      const res = await call(server, server.adminToken, 'GET', `${list}?range=[0,999]`);
      expect(res.status, res.text).toBe(200);
      const record = res.body.find((candidate: { id: string }) => candidate.id === id);
      expect(record, `${list} ${id}`).toBeTruthy();
      return record as Record<string, unknown>;
    };
    const records: [string, string, Record<string, unknown>][] = [
      ['/api/companys/root', '', (await call(server, server.adminToken, 'GET', '/api/companys/root')).body],
      ['/api/companys/root/domainNames/default', '/api/companys/root/domainNames', await first('/api/companys/root/domainNames', 'default')],
      [ADMIN_USER, USERS, (await call(server, server.adminToken, 'GET', ADMIN_USER)).body],
      ['/api/companys/root/domainNames/default/groups/administrators', '/api/companys/root/domainNames/default/groups', await first('/api/companys/root/domainNames/default/groups', 'administrators')],
      ['/api/application/iam-console', '/api/application', await first('/api/application', 'iam-console')],
      [`/api/api/${api.body.id}`, '/api/api', api.body],
      [`/api/api/${api.body.id}/PermissionScopes/${scope.body.id}`, '', scope.body],
    ];
    for (const [url, collection, record] of records) {
      const back = await call(server, server.adminToken, 'PUT', url, record);
      expect(back.status, `PUT ${url}: ${back.text}`).toBe(200);
      const extra = await call(server, server.adminToken, 'PUT', url, { ...record, unknownField: 1 });
      expect(extra.status, `PUT ${url} with unknownField: ${extra.text}`).toBe(400);
      expect(extra.body.message).toBe('body/unknownField is not a field of this resource');
      if (!collection) continue; // no PUT of a list
      const list = await call(server, server.adminToken, 'PUT', collection, [back.body]);
      expect(list.status, `PUT ${collection}: ${list.text}`).toBe(200);
      const listExtra = await call(server, server.adminToken, 'PUT', collection, [{ ...back.body, unknownField: 1 }]);
      expect(listExtra.status, `PUT ${collection} with unknownField: ${listExtra.text}`).toBe(400);
      expect(listExtra.body.message).toBe('body/0/unknownField is not a field of this resource');
    }
  });
});
