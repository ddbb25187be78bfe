import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * No authorization by URL prefix (security issue 25, hole 2): a route answers without a token only
 * when it is declared public on the route itself (config: { public: true }, shown as `security: []`
 * in the OpenAPI document); every other route is checked, whatever its path looks like. A company
 * whose id starts with `docs` (the OpenAPI UI lives at /api/docs) is a company like any other.
 */
let server: TestServer;
let other: Tenant;
let apiId: string;

/** Public routes under /api, each listed here on purpose (none today). */
const PUBLIC_API_ROUTES: string[] = [];

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'query'] as const;

beforeAll(async () => {
  server = await startServer();
  other = await createTenant(server, 'other', 'root', 'customer');
  // a real company whose id starts with "docs", with a domain "main"
  const company = await call(server, server.adminToken, 'POST', '/api/companys', { name: 'docsend', displayName: 'Docsend', description: 'x', type: 'customer', parent: 'root' });
  expect(company.status, JSON.stringify(company.body)).toBe(201);
  const domain = await call(server, server.adminToken, 'POST', '/api/companys/docsend/domainNames', { name: 'main', description: 'Main' });
  expect(domain.status, JSON.stringify(domain.body)).toBe(201);
  const api = await call(server, server.adminToken, 'POST', '/api/root/default/api', { id: 'orders-api', name: 'Orders', identifier: 'https://orders.example/api' });
  expect(api.status, JSON.stringify(api.body)).toBe(201);
  apiId = api.body.id;
}, 60_000);
afterAll(() => server?.close());

/** Path parameter values: real records of root, the docs-prefixed company (real and not), another tenant. */
function parameterSets(): Record<string, string>[] {
  const common = { userId: 'admin', groupId: 'administrators', id: 'iam-console', apiId, scopeId: 'read', memberId: 'admin', sessionId: 'no-such-session', assignmentId: 'no-such-assignment', messageId: 'no-such-message', factorId: 'no-such-factor', connectionId: 'no-such-connection', emailDomain: 'no-such.example', identityId: 'no-such-connection:subject', jobId: 'no-such-job', tokenId: 'no-such-token', kind: 'reset', language: 'fr' };
  return [
    { ...common, companyId: 'root', domainId: 'default' },
    { ...common, companyId: 'docsend', domainId: 'main' },
    { ...common, companyId: 'docsx', domainId: 'default' },
    { ...common, companyId: 'other', domainId: 'other-domain', userId: 'boss' },
  ];
}

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no test value for path parameter ${name} of ${path}`);
    return encodeURIComponent(values[name]);
  });
}

interface Operation {
  security?: unknown[];
}

describe('every route of the OpenAPI document', () => {
  it('answers 401 without a token unless it declares itself public; public ones are outside /api or listed', async () => {
    const document = server.app.swagger() as { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>> };
    const failures: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = operations[method];
        if (!operation) continue;
        const name = `${method.toUpperCase()} ${path}`;
        if (Array.isArray(operation.security) && operation.security.length === 0) {
          if (path.startsWith('/api/') && !PUBLIC_API_ROUTES.includes(name)) failures.push(`${name}: public under /api without being listed`);
          continue;
        }
        const sets = path.includes('{') ? parameterSets() : [{}];
        const urls = new Set(sets.map((values) => fill(path, values)));
        for (const url of urls) {
          const body = method === 'get' || method === 'delete' ? undefined : {};
          const response = await call(server, undefined, method.toUpperCase() as never, url, body);
          checked++;
          if (response.status !== 401) failures.push(`${method.toUpperCase()} ${url}: ${response.status} ${response.text.slice(0, 120)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(150);
    // the document and its UI stay readable without a token (routes of the root instance, not of /api)
    expect((await call(server, undefined, 'GET', '/api/docs/json')).status).toBe(200);
    expect((await call(server, undefined, 'GET', '/api/docs')).status).toBe(200);
  }, 120_000);
});

describe('a company whose id starts with "docs"', () => {
  const created = async (kind: 'application' | 'api') => {
    const list = await call(server, server.adminToken, 'GET', `/api/docsend/main/${kind}?range=[0,999]`);
    expect(list.status).toBe(200);
    return list.body as unknown[];
  };

  it('takes no anonymous writes, and answers its reads for root', async () => {
    const anonymousApplication = await call(server, undefined, 'POST', '/api/docsend/main/application', { client_name: 'sneaky', app_type: 'web' });
    expect(anonymousApplication.status).toBe(401);
    expect(JSON.stringify(anonymousApplication.body)).not.toContain('client_secret');
    expect((await call(server, undefined, 'POST', '/api/docsend/main/api', { name: 'Sneaky', identifier: 'https://sneaky.example/api' })).status).toBe(401);
    expect((await call(server, undefined, 'GET', '/api/docsend/application')).status).toBe(401);
    expect(await created('application')).toEqual([]);
    expect(await created('api')).toEqual([]);

    const asRoot = await call(server, server.adminToken, 'GET', '/api/docsend/application');
    expect(asRoot.status).toBe(200);
    expect(asRoot.body).toEqual([]);
  });

  it("refuses another tenant's administrator (404) and an end user (403)", async () => {
    const writes = [
      ['POST', '/api/docsend/main/application', { client_name: 'sneaky', app_type: 'web' }],
      ['POST', '/api/docsend/main/api', { name: 'Sneaky', identifier: 'https://sneaky.example/api' }],
      ['GET', '/api/docsend/application', undefined],
      ['GET', '/api/docsend/main/application', undefined],
      ['GET', '/api/companys/docsend', undefined],
    ] as const;
    for (const [method, url, body] of writes) {
      expect((await call(server, other.adminToken, method, url, body)).status, `${method} ${url} as another tenant's administrator`).toBe(404);
      expect((await call(server, other.userToken, method, url, body)).status, `${method} ${url} as an end user`).toBe(403);
    }
    expect(await created('application')).toEqual([]);
    expect(await created('api')).toEqual([]);
  });
});

describe('a route declared public', () => {
  it('answers without a token and says so in the OpenAPI document; security [] alone is refused', async () => {
    const routes = async (api: FastifyInstance) => {
      api.get('/docs-like/status', { config: { public: true }, schema: { response: { 200: { type: 'object', properties: { up: { type: 'boolean' } } } } } }, async () => ({ up: true }));
      api.get('/docs-like/private', { config: { permission: 'any' } }, async () => ({ up: true }));
    };
    // another app on the same database and keys
    const declaring = { app: await buildApp(server.ctx, { apiRoutes: [routes] }) };
    try {
      await declaring.app.ready();
      expect((await call(declaring, undefined, 'GET', '/api/docs-like/status')).body).toEqual({ up: true });
      expect((await call(declaring, undefined, 'GET', '/api/docs-like/private')).status).toBe(401);
      expect((await call(declaring, server.adminToken, 'GET', '/api/docs-like/private')).status).toBe(200);
      const paths = (declaring.app.swagger() as { paths: Record<string, { get?: Operation }> }).paths;
      expect(paths['/api/docs-like/status'].get?.security).toEqual([]);
      expect(paths['/api/docs-like/private'].get?.security).toBeUndefined();
    } finally {
      await declaring.app.close();
    }
    // documented public without being declared so: the server does not start
    const undeclared = async (api: FastifyInstance) => {
      api.get('/undeclared', { schema: { security: [] } }, async () => ({}));
    };
    await expect(buildApp(server.ctx, { apiRoutes: [undeclared] })).rejects.toThrow(/security \[\] in its schema but not declared/);
  }, 60_000);
});
