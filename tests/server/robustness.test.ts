import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type TestServer } from './helpers.js';
import { addApplication, basicAuth, CONSOLE_REDIRECT } from './oauthHelpers.js';

/** Names every plain object inherits (and __proto__, which JSON.parse makes an own key). */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'prototype', 'hasOwnProperty'] as const;

/** Short strings, often with NUL characters in them. */
const hostileText = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.array(fc.oneof(fc.constant('\u0000'), fc.string({ maxLength: 3 }), fc.constantFrom(...PROTOTYPE_NAMES)), { maxLength: 4 }).map((parts) => parts.join('')),
  );

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createTenant(server, 'acme');
  const users = Array.from({ length: 120 }, (_, i) => i);
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
     SELECT 'root', 'default', 'u' || i, 'user' || i, 'User ' || i, 'user' || i || '@example.com' FROM unnest($1::int[]) AS i`,
    [users],
  );
  await server.db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email)
     SELECT 'root', 'default', 'g' || i, 'g' || i, 'Group ' || i, 'g' || i || '@example.com' FROM unnest($1::int[]) AS i`,
    [users],
  );
  await server.db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
     SELECT 'root', 'default', 'administrators', 'user', 'u' || i FROM unnest($1::int[]) AS i`,
    [users],
  );
});
afterAll(() => server?.close());

/** Every list of the management API, with enough rows for a 100-row page. */
const lists = [
  '/api/companys/root/domainNames/default/users',
  '/api/companys/root/domainNames/default/groups',
  '/api/companys/root/domainNames/default/groups/administrators/members',
  '/api/companys/root/childCompanys',
  '/api/companys/root/domainNames',
  '/api/root/default/application',
  '/api/application',
  '/api/root/default/api',
  '/api/api',
];

describe('lists run a fixed number of statements (no N+1)', () => {
  for (const url of lists) {
    it(url, async () => {
      const statements = async (range: string) => {
        const before = server.db.stats.queries;
        const res = await call(server, server.adminToken, 'GET', `${url}?range=${range}`);
        expect(res.status).toBe(200);
        return server.db.stats.queries - before;
      };
      const ten = await statements('[0,9]');
      const hundred = await statements('[0,99]');
      // the access check rides with the count; a third statement (the planner's estimate) only past 10,000 matches
      expect(ten).toBeLessThanOrEqual(2);
      expect(hundred).toBe(ten);
    });
  }
});

describe('a GET of one record is one statement, the access check with the record', () => {
  const records = [
    '/api/companys/root/domainNames/default/users/u7',
    '/api/companys/root/domainNames/default/groups/administrators',
    '/api/companys/root/domainNames/default/users/nobody-here',
  ];
  for (const url of records) {
    it(url, async () => {
      // a write first, so that the embedded database's memory of reads is empty
      await server.db.query(`UPDATE users SET notes = notes WHERE company_id = 'root' AND id = 'u1'`);
      const before = server.db.stats.queries;
      const res = await call(server, server.adminToken, 'GET', url);
      expect(res.status).toBe(url.endsWith('nobody-here') ? 404 : 200);
      expect(server.db.stats.queries - before).toBe(1);
    });
  }
});

describe('embedded database under concurrency', () => {
  it('answers 200 concurrent requests, reads and writes mixed, without an error', async () => {
    const requests = Array.from({ length: 200 }, (_, i) =>
      i % 4 === 0
        ? call(server, server.adminToken, 'POST', '/api/companys', { name: `conc${i}`, displayName: `C ${i}`, description: 'concurrent', parent: 'root' })
        : call(server, server.adminToken, 'GET', `/api/companys/root/domainNames/default/users?range=[${i % 50},${(i % 50) + 9}]`),
    );
    const responses = await Promise.all(requests);
    expect(responses.filter((r) => r.status >= 300)).toEqual([]);
    const { rows } = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM companies WHERE id LIKE 'conc%'`);
    expect(rows[0].n).toBe(50);
  });
});

// Before the write fuzz below: an accepted random write may sign the administrator out everywhere
// or take away its rights, and every list would then answer 401.
describe('random list queries', () => {
  it('never answer 5xx on any list, whatever range, sort, filter and condition say', async () => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
    const listRoutes = Object.entries(doc.paths)
      .filter(([route, methods]) => route.startsWith('/api/') && methods.get?.parameters?.some((p) => p.in === 'query' && p.name === 'range'))
      .map(([route]) => route.replace('{companyId}', 'root').replace('{domainId}', 'default').replace('{groupId}', 'administrators').replace(/\{\w+\}/g, 'x'));
    expect(listRoutes.length).toBeGreaterThan(8);
    const fieldNames = fc.constantFrom('id', 'name', 'displayName', 'status', 'email', 'primary', 'type', 'q', 'client_name', 'permission', 'nope', ...PROTOTYPE_NAMES);
    const value = fc.oneof(hostileText(8), fc.integer(), fc.boolean(), fc.constant(null), fc.array(hostileText(4), { maxLength: 3 }));
    // JSON text written from pairs: an object built in JS would turn a __proto__ key into a prototype
    const jsonObject = fc.array(fc.tuple(fieldNames, value), { maxLength: 3 }).map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
    const query = fc.record(
      {
        range: fc.oneof(fc.tuple(fc.nat(3000), fc.nat(3000)).map(([a, b]) => JSON.stringify([a, a + (b % 50)])), hostileText(10)),
        sort: fc.oneof(fc.tuple(fieldNames, fc.constantFrom('ASC', 'DESC', 'asc', 'x')).map((pair) => JSON.stringify(pair)), hostileText(10)),
        filter: fc.oneof(jsonObject, hostileText(10)),
        condition: fc.tuple(fieldNames, fc.constantFrom('=', '!=', '<', '>=', '~'), hostileText(6)).map((t) => t.join(',')),
      },
      { requiredKeys: [] },
    );
    const statuses: number[] = [];
    await fc.assert(
      // every list answers GET with a query string and QUERY with the same parameters as JSON
      fc.asyncProperty(fc.constantFrom(...listRoutes), query, fc.boolean(), async (route, params, asQuery) => {
        const url = asQuery ? route : `${route}?${new URLSearchParams(params as Record<string, string>).toString()}`;
        const res = await call(server, server.adminToken, asQuery ? 'QUERY' : 'GET', url, asQuery ? params : undefined);
        statuses.push(res.status);
        expect(res.status, `${asQuery ? `QUERY ${url} ${JSON.stringify(params)}` : `GET ${url}`} -> ${res.text}`).toBeLessThan(500);
      }),
      // Random parameters are nearly always refused (about 1 run in 80 is a valid query): each list
      // is also asked once with none, so that the answers compared include successes every time.
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300), examples: listRoutes.map((route) => [route, {}, false] as [string, Record<string, string>, boolean]) },
    );
    // the fuzz reaches both answers, not only refusals
    expect(statuses).toContain(200);
    expect(statuses).toContain(400);
  });
});

/** A fingerprint of every table a management write can touch. */
async function fingerprint() {
  const tables = ['companies', 'domains', 'users', 'groups', 'group_members', 'applications', 'apis', 'permission_scopes'];
  const parts = await Promise.all(
    tables.map(async (table) => (await server.db.query<{ h: string }>(`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM ${table} t`)).rows[0].h),
  );
  return parts.join(':');
}

describe('random input at every write route', () => {
  it('never answers 5xx, and a refused write changes nothing', async () => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(doc.paths)
      .filter(([route]) => route.startsWith('/api/'))
      .flatMap(([route, methods]) => Object.keys(methods).filter((m) => ['post', 'put', 'delete'].includes(m)).map((m) => [m.toUpperCase(), route] as const));
    expect(writes.length).toBeGreaterThan(20);

    const known: Record<string, string[]> = {
      companyId: ['root', 'acme'],
      domainId: ['default', 'acme-domain'],
      userId: ['u1', 'admin'],
      groupId: ['g1', 'administrators'],
      memberId: ['u2', 'g2'],
      id: ['iam-console', 'u3'],
      apiId: ['nope'],
      scopeId: ['read'],
    };
    const param = (name: string) => fc.oneof(fc.constantFrom(...(known[name] ?? ['x'])), fc.string({ minLength: 1, maxLength: 20 }));
    const body = fc.oneof(
      fc.json(),
      fc.array(fc.oneof(fc.string(), fc.record({ id: fc.string(), type: fc.string() })), { maxLength: 3 }),
      fc.record({ name: fc.string(), displayName: fc.string(), description: fc.string(), email: fc.string(), parent: fc.string(), type: fc.string() }, { requiredKeys: [] }),
      fc.record({ username: fc.string(), displayName: fc.string(), email: fc.emailAddress(), authVerification: fc.string(), status: fc.string() }, { requiredKeys: [] }),
    );

    const request = fc.constantFrom(...writes).chain(([method, route]) => {
      const names = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      return fc.tuple(fc.constant(method), fc.constant(route), fc.tuple(...names.map(param)), body).map(([m, r, values, payload]) => {
        let url: string = r;
        names.forEach((name, i) => (url = url.replace(`{${name}}`, encodeURIComponent(values[i]))));
        return { method: m, url, payload };
      });
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ method, url, payload }) => {
        const before = await fingerprint();
        const res = await server.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
          payload: JSON.stringify(payload ?? null),
        });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)} -> ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(await fingerprint(), `${method} ${url} changed data and answered ${res.statusCode}`).toBe(before);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });
});

describe('tenancy matrix', () => {
  it('gives a sibling or child administrator 404 on every company-scoped route of another tenant, and a plain user 403 everywhere', async () => {
    const left = await createTenant(server, 'left');
    const right = await createTenant(server, 'right');
    const rightChild = await createTenant(server, 'right-child', 'right', 'customer');
    const doc = server.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const fill = (route: string, companyId: string, domainId: string) =>
      route
        .replace('{companyId}', companyId)
        .replace('{domainId}', domainId)
        .replace(/\{(userId|groupId|memberId)\}/g, 'boss')
        .replace(/\{\w+\}/g, 'anything');
    let checked = 0;
    for (const [route, methods] of Object.entries(doc.paths)) {
      if (!route.startsWith('/api/')) continue;
      for (const method of Object.keys(methods).filter((m) => ['get', 'post', 'put', 'delete', 'query'].includes(m))) {
        const verb = method.toUpperCase() as 'GET';
        const body = verb === 'GET' ? undefined : {};
        if (route.includes('{companyId}')) {
          // sibling, and a child tenant reaching up to its parent
          for (const [token, target] of [[left.adminToken, right], [rightChild.adminToken, right]] as const) {
            const res = await call(server, token, verb, fill(route, target.companyId, target.domainId), body);
            expect(res.status, `${verb} ${route} as another tenant's administrator`).toBe(404);
          }
          checked++;
        }
        const res = await call(server, right.userToken, verb, fill(route, right.companyId, right.domainId), body);
        expect(res.status, `${verb} ${route} as a plain user`).toBe(403);
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe('random input at every OAuth route', () => {
  it('never answers 5xx, whatever NUL characters or prototype names the parameters hold', async () => {
    await addApplication(server, { id: 'fuzz-machine', companyId: 'root', domainId: 'default', appType: 'machine', secret: 'fuzz-secret-1234567890', redirectUris: [] });
    const authorize = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce', 'prompt', 'audience', 'resource'];
    const names = {
      authorize,
      login: [...authorize, 'email', 'password', 'prompt_origin'],
      token: ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'client_id', 'client_secret', 'refresh_token', 'scope', 'audience', 'resource'],
      logout: ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales', 'logout_hint'],
      consent: ['ticket', 'decision'],
      userinfo: ['access_token'],
    };
    // plausible values (so that requests get past the first checks) mixed with hostile ones
    const plausible = fc.constantFrom(
      'iam-console', 'fuzz-machine', CONSOLE_REDIRECT, 'code', 'openid user:admin', 'S256', 'authorization_code', 'refresh_token',
      'client_credentials', 'admin@example.com', 'correct horse battery staple', 'allow', 'hosted', 'a'.repeat(43),
    );
    const value = fc.oneof(plausible, hostileText(12), fc.constantFrom(...PROTOTYPE_NAMES));
    const params = (route: keyof typeof names) =>
      fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names[route]), fc.constantFrom(...PROTOTYPE_NAMES)), value), { maxLength: 6 });
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.tuple(fc.oneof(plausible, hostileText(8)), fc.oneof(plausible, hostileText(8))).map(([id, secret]) => basicAuth(id, secret)),
      hostileText(10).map((text) => `Basic ${Buffer.from(text).toString('base64')}`),
      hostileText(10).map((text) => `Bearer ${text}`),
    );
    const request = fc.oneof(
      fc.tuple(fc.constantFrom('GET /oauth/authorize', 'GET /oauth/logout', 'GET /oauth/userinfo'), fc.constant('query' as const)),
      fc.tuple(fc.constantFrom('POST /oauth/login', 'POST /oauth/token', 'POST /oauth/logout', 'POST /oauth/consent', 'POST /oauth/userinfo'), fc.constantFrom('form' as const, 'json' as const)),
    );
    const routeOf = (target: string) => target.split('/').pop() as keyof typeof names;

    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(
        request.chain(([target, encoding]) => fc.tuple(fc.constant(target), fc.constant(encoding), params(routeOf(target)), authorization)),
        async ([target, encoding, pairs, auth]) => {
          const [method, path] = target.split(' ');
          // URLSearchParams keeps __proto__ as a plain key; JSON text is written from the pairs for the same reason
          const search = new URLSearchParams(pairs).toString();
          const json = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
          const headers: Record<string, string> = auth ? { authorization: auth } : {};
          const res = await server.app.inject(
            encoding === 'query'
              ? { method: method as 'GET', url: `${path}?${search}`, headers }
              : {
                  method: method as 'POST',
                  url: path,
                  headers: { ...headers, 'content-type': encoding === 'form' ? 'application/x-www-form-urlencoded' : 'application/json' },
                  payload: encoding === 'form' ? search : json,
                },
          );
          statuses.push(res.statusCode);
          expect(res.statusCode, `${target} ${encoding} ${JSON.stringify(pairs)} ${auth ?? ''} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
    expect(statuses).toContain(400);
    expect(statuses.some((status) => status < 400)).toBe(true);
  });
});
