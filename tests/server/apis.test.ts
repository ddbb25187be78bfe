import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const newApi = (name: string, extra: object = {}) => ({ name, identifier: `https://${name.toLowerCase().replace(/\W/g, '-')}.example/api`, domain: 'default', companyId: 'root', ...extra });
const as = (token: string, method: Method, url: string, body?: unknown) => call(server, token, method, url, body);
const admin = (method: Method, url: string, body?: unknown) => as(server.adminToken, method, url, body);

async function storedSecret(apiId: string) {
  const { rows } = await server.db.query<{ signing_secret: string | null }>('SELECT signing_secret FROM apis WHERE id = $1', [apiId]);
  return rows[0]?.signing_secret;
}

describe('apis: create', () => {
  it('generates the id and applies the default values of docs/CONSOLE.md, "Constants"', async () => {
    const res = await admin('POST', '/api/api', newApi('Orders'));
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(res.body).toEqual({
      id: res.body.id,
      name: 'Orders',
      domain: 'default',
      companyId: 'root',
      identifier: 'https://orders.example/api',
      tokenExpiration: 86400,
      tokenExpirationBrowser: 7200,
      signingAlgorithm: 'RS256',
      RBAC: false,
      addPermissionAccessToken: false,
      allowSkippingUserConsent: true,
      allowOfflineAccess: false,
      status: 'active',
      deletedAt: null,
      deletedBy: null,
    });
    expect(await storedSecret(res.body.id)).toBeNull();
    expect((await admin('GET', `/api/api/${res.body.id}`)).body).toEqual(res.body);
  });

  it('creates under the path company and domain, keeping a given id', async () => {
    const res = await admin('POST', '/api/root/default/api', { id: 'payments-api', name: 'Payments', identifier: 'payments', RBAC: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'payments-api', domain: 'default', companyId: 'root', RBAC: true });
    const dupId = await admin('POST', '/api/root/default/api', { id: 'payments-api', name: 'Other', identifier: 'other' });
    expect(dupId.status).toBe(409);
    expect(dupId.body.message).toBe('API id "payments-api" is not available: choose another');
  });

  it('refuses a duplicate name (any case) or identifier in the domain with the 409 of docs/CONSOLE.md, "Errors and messages"', async () => {
    await admin('POST', '/api/api', newApi('Catalog'));
    const name = await admin('POST', '/api/api', newApi('CATALOG', { identifier: 'catalog-2' }));
    expect(name.status).toBe(409);
    expect(name.body.message).toBe('duplicated error: CATALOG already exist!');
    const identifier = await admin('POST', '/api/api', newApi('Catalog two', { identifier: 'https://catalog.example/api' }));
    expect(identifier.status).toBe(409);
    expect(identifier.body.message).toBe('API identifier "https://catalog.example/api" is not available: an identifier names one API in the whole provider, choose another');
  });

  it('names the missing or malformed field in a 400', async () => {
    const cases: [object, string][] = [
      [{ identifier: 'x', domain: 'default', companyId: 'root' }, 'name'],
      [{ name: 'x', domain: 'default', companyId: 'root' }, 'identifier'],
      [{ name: 'x', identifier: 'x', companyId: 'root' }, 'domain'],
      [newApi('x', { identifier: 'has space' }), 'identifier'],
      [newApi('x', { identifier: 'i'.repeat(201) }), 'identifier'],
      [newApi('x', { signingAlgorithm: 'none' }), 'signingAlgorithm'],
      [newApi('x', { tokenExpiration: -5 }), 'tokenExpiration'],
    ];
    for (const [body, field] of cases) {
      const res = await admin('POST', '/api/api', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
  });
});

describe('apis: HS256 signing secret', () => {
  it('is returned once on create and on the switch to HS256, and never otherwise', async () => {
    const created = await admin('POST', '/api/api', newApi('Symmetric', { signingAlgorithm: 'HS256' }));
    expect(created.status).toBe(201);
    const secret = created.body.signingSecret;
    expect(secret).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(await storedSecret(created.body.id)).toBe(secret);

    const read = await admin('GET', `/api/api/${created.body.id}`);
    expect(read.body.signingSecret).toBeUndefined();
    expect((await admin('GET', '/api/root/default/api')).text).not.toContain(secret);
    const edited = await admin('PUT', `/api/api/${created.body.id}`, { RBAC: true });
    expect(edited.body).toMatchObject({ RBAC: true, signingAlgorithm: 'HS256' });
    expect(edited.body.signingSecret).toBeUndefined();
    expect(await storedSecret(created.body.id)).toBe(secret);

    const toRs = await admin('PUT', `/api/api/${created.body.id}`, { signingAlgorithm: 'RS256' });
    expect(toRs.body.signingSecret).toBeUndefined();
    expect(await storedSecret(created.body.id)).toBeNull();

    const toHs = await admin('PUT', `/api/api/${created.body.id}`, { signingAlgorithm: 'HS256' });
    expect(toHs.body.signingSecret).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(toHs.body.signingSecret).not.toBe(secret);
    expect(await storedSecret(created.body.id)).toBe(toHs.body.signingSecret);
  });
});

describe('apis: lists', () => {
  it('pages a domain and the subtree with Content-Range, condition and filter', async () => {
    const t = await createTenant(server, 'listco');
    for (const name of ['alpha', 'bravo', 'charlie']) {
      expect((await as(t.adminToken, 'POST', '/api/listco/listco-domain/api', { name, identifier: `urn:${name}`, RBAC: name === 'bravo' })).status).toBe(201);
    }
    const page1 = await as(t.adminToken, 'GET', '/api/listco/listco-domain/api?range=[0,1]&sort=["name","ASC"]');
    expect(page1.body.map((a: { name: string }) => a.name)).toEqual(['alpha', 'bravo']);
    expect(page1.headers['content-range']).toBe('api 0-1/3');
    const page2 = await as(t.adminToken, 'GET', '/api/listco/listco-domain/api?range=[2,3]&sort=["name","ASC"]');
    expect(page2.body.map((a: { name: string }) => a.name)).toEqual(['charlie']);
    expect(page2.headers['content-range']).toBe('api 2-2/3');

    const subtree = await as(t.adminToken, 'GET', '/api/api?sort=["identifier","DESC"]');
    expect(subtree.body.map((a: { identifier: string }) => a.identifier)).toEqual(['urn:charlie', 'urn:bravo', 'urn:alpha']);

    const alpha = page1.body[0];
    await as(t.adminToken, 'PUT', `/api/api/${alpha.id}`, { status: 'deleted' });
    const live = await as(t.adminToken, 'GET', '/api/api?condition=status,!=,deleted&sort=["name","ASC"]');
    expect(live.body.map((a: { name: string }) => a.name)).toEqual(['bravo', 'charlie']);
    const rbac = await as(t.adminToken, 'GET', `/api/api?filter=${encodeURIComponent(JSON.stringify({ RBAC: true, domain: 'listco-domain', companyId: 'listco' }))}`);
    expect(rbac.body.map((a: { name: string }) => a.name)).toEqual(['bravo']);
    const search = await as(t.adminToken, 'GET', `/api/api?filter=${encodeURIComponent(JSON.stringify({ q: 'ARLI' }))}`);
    expect(search.body.map((a: { name: string }) => a.name)).toEqual(['charlie']);
  });
});

describe('apis: update, soft delete, recover, purge', () => {
  it('updates with a full body; id, domain and identifier stay', async () => {
    const api = (await admin('POST', '/api/api', newApi('Editable'))).body;
    const res = await admin('PUT', `/api/api/${api.id}`, { ...api, tokenExpiration: 3600, allowOfflineAccess: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...api, tokenExpiration: 3600, allowOfflineAccess: true });
    const identifier = await admin('PUT', `/api/api/${api.id}`, { ...api, identifier: 'urn:new' });
    expect(identifier.status).toBe(400);
    expect(identifier.body.code).toBe('api.identifierFixed');
    const domain = await admin('PUT', `/api/api/${api.id}`, { ...api, domain: 'other' });
    expect(domain.status).toBe(400);
    expect(domain.body.code).toBe('api.domainFixed');
    const id = await admin('PUT', `/api/api/${api.id}`, { ...api, id: 'another-id' });
    expect(id.status).toBe(400);
    expect(id.body.code).toBe('api.idFixed');
    expect((await admin('PUT', `/api/api/${api.id}`, { ...api, name: 'orders' })).body.message).toBe('duplicated error: orders already exist!');
    expect((await admin('PUT', '/api/api/nosuchapi', { name: 'x' })).status).toBe(404);
  });

  it('purges only what was soft-deleted first, with its permission scopes', async () => {
    const api = (await admin('POST', '/api/api', newApi('Lifecycle'))).body;
    await admin('POST', `/api/api/${api.id}/PermissionScopes`, { permission: 'read' });
    const refused = await admin('DELETE', `/api/api/${api.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('active');
    expect(refused.body).toMatchObject({ code: 'api.activePurge', params: { name: 'Lifecycle' } });

    expect((await admin('PUT', `/api/api/${api.id}`, { status: 'deleted' })).body.status).toBe('deleted');
    expect((await admin('PUT', `/api/api/${api.id}`, { status: 'active' })).body.status).toBe('active');
    await admin('PUT', `/api/api/${api.id}`, { status: 'deleted' });
    const purged = await admin('DELETE', `/api/api/${api.id}`);
    expect(purged.status).toBe(200);
    expect(purged.body).toMatchObject({ id: api.id, name: 'Lifecycle' });
    expect((await admin('GET', `/api/api/${api.id}`)).status).toBe(404);
    const { rows } = await server.db.query('SELECT 1 FROM permission_scopes WHERE api_id = $1', [api.id]);
    expect(rows).toHaveLength(0);
  });

  it('updates and purges lists all or nothing', async () => {
    const a = (await admin('POST', '/api/api', newApi('Bulk A'))).body;
    const b = (await admin('POST', '/api/api', newApi('Bulk B'))).body;
    const clash = await admin('PUT', '/api/api', [
      { id: a.id, tokenExpiration: 60 },
      { id: b.id, name: 'bulk a' },
    ]);
    expect(clash.status).toBe(409);
    expect((await admin('GET', `/api/api/${a.id}`)).body.tokenExpiration).toBe(86400);

    await admin('PUT', `/api/api/${a.id}`, { status: 'deleted' });
    expect((await admin('DELETE', '/api/api', [a.id, b.id])).status).toBe(409);
    expect((await admin('DELETE', '/api/api', [a.id, 'nosuchapi'])).status).toBe(404);
    expect((await admin('GET', `/api/api/${a.id}`)).status).toBe(200);

    const both = await admin('PUT', '/api/api', [
      { id: a.id, status: 'deleted' },
      { id: b.id, status: 'deleted' },
    ]);
    expect(both.body.map((x: { status: string }) => x.status)).toEqual(['deleted', 'deleted']);
    const purged = await admin('DELETE', '/api/api', [b.id, a.id]);
    expect(purged.status).toBe(200);
    expect(purged.body.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
  });
});

describe('permission scopes', () => {
  it('adds, pages, searches, edits and deletes the scopes of an API', async () => {
    const api = (await admin('POST', '/api/api', newApi('Scoped'))).body;
    const base = `/api/api/${api.id}/PermissionScopes`;

    const empty = await admin('GET', base);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers['content-range']).toBe('PermissionScopes */0');

    const created = await admin('POST', base, { permission: 'read:users', description: 'Read users', id: 'read:users' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 'read:users', permission: 'read:users', description: 'Read users' });
    for (const permission of ['write:users', 'read:orders']) expect((await admin('POST', base, { permission })).status).toBe(201);

    const dup = await admin('POST', base, { permission: 'read:users' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('duplicated error: read:users already exist!');
    for (const body of [{ permission: 'two words' }, { permission: 'quo"te' }, { permission: '' }, { permission: 'p'.repeat(101) }, { description: 'no permission' }]) {
      const res = await admin('POST', base, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain('permission');
    }
    const mismatch = await admin('POST', base, { permission: 'a', id: 'b' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('scope.idMismatch');

    const page1 = await admin('GET', `${base}?range=[0,1]`);
    expect(page1.body.map((s: { id: string }) => s.id)).toEqual(['read:orders', 'read:users']);
    expect(page1.headers['content-range']).toBe('PermissionScopes 0-1/3');
    const page2 = await admin('GET', `${base}?range=[2,3]`);
    expect(page2.body).toEqual([{ id: 'write:users', permission: 'write:users', description: '' }]);
    expect(page2.headers['content-range']).toBe('PermissionScopes 2-2/3');
    const search = await admin('GET', `${base}?filter=${encodeURIComponent(JSON.stringify({ q: 'USERS' }))}&sort=["permission","DESC"]`);
    expect(search.body.map((s: { id: string }) => s.id)).toEqual(['write:users', 'read:users']);

    const edited = await admin('PUT', `${base}/write:users`, { description: 'Change users' });
    expect(edited.body).toEqual({ id: 'write:users', permission: 'write:users', description: 'Change users' });
    const renamed = await admin('PUT', `${base}/write:users`, { permission: 'edit:users' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.code).toBe('scope.permissionFixed');
    expect((await admin('PUT', `${base}/nope`, { description: 'x' })).status).toBe(404);

    const removed = await admin('DELETE', `${base}/read:orders`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: 'read:orders', permission: 'read:orders', description: '' });
    expect((await admin('DELETE', `${base}/read:orders`)).status).toBe(404);
    expect((await admin('GET', base)).headers['content-range']).toBe('PermissionScopes 0-1/2');

    expect((await admin('GET', '/api/api/nosuchapi/PermissionScopes')).status).toBe(404);
    expect((await admin('POST', '/api/api/nosuchapi/PermissionScopes', { permission: 'x' })).status).toBe(404);
  });

  it('lists a page in three statements', async () => {
    const api = (await admin('POST', '/api/api', newApi('Counted'))).body;
    for (const permission of ['a', 'b', 'c']) await admin('POST', `/api/api/${api.id}/PermissionScopes`, { permission });
    const before = server.db.stats.queries;
    expect((await admin('GET', `/api/api/${api.id}/PermissionScopes?range=[1,2]`)).body).toHaveLength(2);
    expect(server.db.stats.queries - before).toBe(3);
  });
});

describe('apis: tenancy', () => {
  it('answers 404 to a sibling or child administrator on every route, and 403 to a plain user', async () => {
    const right = await createTenant(server, 'right');
    const left = await createTenant(server, 'left');
    const child = await createTenant(server, 'right-kid', 'right', 'customer');
    const target = (await as(right.adminToken, 'POST', '/api/right/right-domain/api', { name: 'Right api', identifier: 'urn:right' })).body;
    const old = (await as(right.adminToken, 'POST', '/api/right/right-domain/api', { name: 'Right old', identifier: 'urn:old', status: 'deleted' })).body;
    await as(right.adminToken, 'POST', `/api/api/${target.id}/PermissionScopes`, { permission: 'read', description: 'kept' });
    const scopes = `/api/api/${target.id}/PermissionScopes`;

    const routes: [Method, string, unknown?][] = [
      ['GET', '/api/right/right-domain/api'],
      ['POST', '/api/right/right-domain/api', { name: 'Intruder', identifier: 'urn:intruder' }],
      ['POST', '/api/api', { name: 'Intruder', identifier: 'urn:intruder', companyId: 'right', domain: 'right-domain' }],
      ['GET', `/api/api/${target.id}`],
      ['PUT', `/api/api/${target.id}`, { RBAC: true }],
      ['PUT', `/api/api/${old.id}`, { status: 'active' }],
      ['DELETE', `/api/api/${old.id}`],
      ['PUT', '/api/api', [{ id: target.id, RBAC: true }]],
      ['DELETE', '/api/api', [old.id]],
      ['GET', scopes],
      ['POST', scopes, { permission: 'write' }],
      ['PUT', `${scopes}/read`, { description: 'hacked' }],
      ['DELETE', `${scopes}/read`],
    ];
    for (const outsider of [left, child]) {
      for (const [method, url, body] of routes) {
        expect((await as(outsider.adminToken, method, url, body)).status, `${method} ${url} by ${outsider.companyId}`).toBe(404);
      }
      expect((await as(outsider.adminToken, 'GET', '/api/api')).body.map((a: { id: string }) => a.id)).not.toContain(target.id);
    }
    for (const [method, url, body] of routes) {
      expect((await as(right.userToken, method, url, body)).status, `${method} ${url} by a plain user`).toBe(403);
    }
    expect((await as(right.userToken, 'GET', '/api/api')).status).toBe(403);

    expect((await as(right.adminToken, 'GET', `/api/api/${target.id}`)).body.RBAC).toBe(false);
    expect((await as(right.adminToken, 'GET', `/api/api/${old.id}`)).body.status).toBe('deleted');
    expect((await as(right.adminToken, 'GET', scopes)).body).toEqual([{ id: 'read', permission: 'read', description: 'kept' }]);
    // a parent administrator reaches into its child tenant
    const forKid = await as(right.adminToken, 'POST', '/api/api', { name: 'Kid api', identifier: 'urn:kid', companyId: 'right-kid', domain: 'right-kid-domain' });
    expect(forKid.status).toBe(201);
    expect((await as(right.adminToken, 'POST', `/api/api/${forKid.body.id}/PermissionScopes`, { permission: 'kid' })).status).toBe(201);
    expect((await as(child.adminToken, 'GET', `/api/api/${forKid.body.id}/PermissionScopes`)).body).toHaveLength(1);
  });
});
