import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICES_TABLE, deviceRoutes, type Device } from './fixtures/devices.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * A resource type declared by definition alone (docs/ADDING-A-RESOURCE.md): a table, a column map,
 * its rules as plain functions, and crudRoutes (tests/server/fixtures/devices.ts). Nothing in the server knows about devices; the
 * routes get the guard, tenancy, lists, QUERY twins and OpenAPI entries like every built-in resource.
 */

let server: TestServer;
let owner: Tenant;
let stranger: Tenant;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'QUERY';
const as = (token: string) => (method: Method, url: string, body?: unknown) => call(server, token, method as never, url, body);
let admin: ReturnType<typeof as>;
let base: string;
const ids = (body: Device[]) => body.map((device) => device.id);
const list = (query: Record<string, unknown>) =>
  admin('GET', `${base}?${Object.entries(query).map(([name, value]) => `${name}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`).join('&')}`);

beforeAll(async () => {
  server = await startServer({}, { apiRoutes: [deviceRoutes] });
  await server.db.query(DEVICES_TABLE);
  owner = await createTenant(server, 'devco');
  stranger = await createTenant(server, 'otherco');
  admin = as(owner.adminToken);
  base = `/api/companys/${owner.companyId}/domainNames/${owner.domainId}/devices`;
});
afterAll(() => server?.close());

describe('a resource type declared in a test (devices of a domain)', () => {
  it('gets its permissions from its declaration: administrators hold devices:*, the caller\'s permissions list them', async () => {
    const me = await admin('GET', `/api/me/permissions?companyId=${owner.companyId}&domainId=${owner.domainId}`);
    expect(me.body.permissions).toEqual(expect.arrayContaining(['devices:read', 'devices:write', 'devices:purge']));
    const roles = await admin('GET', '/api/roles');
    const auditor = roles.body.roles.find((role: { id: string }) => role.id === 'auditor');
    expect(auditor.permissions).toContain('devices:read');
    expect(auditor.permissions).not.toContain('devices:write');
  });

  it('creates records (201 with the stored record), validates bodies from the column map, and says 409 for a duplicate', async () => {
    const created = await admin('POST', base, { name: 'Alpha phone', serial: 'SN-001', seats: 2, managed: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 'SN-001', name: 'Alpha phone', serial: 'SN-001', kind: 'phone', seats: 2, managed: true, status: 'active' });
    for (const [name, serial, kind, seats] of [
      ['Bravo laptop', 'SN-002', 'laptop', 1],
      ['Charlie key', 'SN-003', 'key', 5],
      ['Delta laptop', 'SN-004', 'laptop', 3],
      ['Echo phone', 'SN-005', 'phone', 4],
    ] as const) {
      expect((await admin('POST', base, { name, serial, kind, seats })).status).toBe(201);
    }
    const duplicate = await admin('POST', base, { id: 'other', name: 'Copy', serial: 'SN-001' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toBe('duplicated error: SN-001 already exist!');
    expect((await admin('POST', base, { name: 'No serial' })).status).toBe(400);
    expect((await admin('POST', base, { name: 'X', serial: 'SN-9', seats: 0 })).status).toBe(400);
  });

  it('lists with search, sort, paging and filters, with Content-Range', async () => {
    const all = await list({});
    expect(all.status).toBe(200);
    expect(all.headers['content-range']).toBe('devices 0-4/5');
    expect(all.body.map((device: Device) => device.name)).toEqual(['Alpha phone', 'Bravo laptop', 'Charlie key', 'Delta laptop', 'Echo phone']);

    expect(ids((await list({ filter: { q: 'laptop' } })).body)).toEqual(['SN-002', 'SN-004']);
    expect(ids((await list({ filter: { q: 'sn-00' }, sort: ['seats', 'DESC'] })).body)).toEqual(['SN-003', 'SN-005', 'SN-004', 'SN-001', 'SN-002']);
    const page = await list({ sort: ['name', 'ASC'], range: [1, 2] });
    expect(page.headers['content-range']).toBe('devices 1-2/5');
    expect(ids(page.body)).toEqual(['SN-002', 'SN-003']);
    expect(ids((await list({ filter: { managed: true } })).body)).toEqual(['SN-001']);
    expect(ids((await list({ filter: { kind: ['key', 'phone'] } })).body)).toEqual(['SN-001', 'SN-003', 'SN-005']);
    expect(ids((await list({ condition: 'seats,>=,4' })).body)).toEqual(['SN-003', 'SN-005']);
    // getMany, and the QUERY twin with the filter in the body
    expect(ids((await list({ filter: { id: ['SN-004', 'SN-001'] } })).body)).toEqual(['SN-001', 'SN-004']);
    const query = await admin('QUERY', base, { filter: { id: ['SN-004', 'SN-001'] } });
    expect(query.status).toBe(200);
    expect(ids(query.body)).toEqual(['SN-001', 'SN-004']);
    // unknown fields are 400s naming them
    const unknown = await list({ sort: ['colour', 'ASC'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('sort: unknown field "colour"');
  });

  it('gets and updates one record or a list; the id stays', async () => {
    expect((await admin('GET', `${base}/SN-002`)).body).toMatchObject({ id: 'SN-002', name: 'Bravo laptop', seats: 1 });
    const missing = await admin('GET', `${base}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('device nope not found');

    const edited = await admin('PUT', `${base}/SN-002`, { name: 'Bravo laptop 2', serial: 'SN-002', seats: 9 });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ id: 'SN-002', name: 'Bravo laptop 2', serial: 'SN-002', kind: 'laptop', seats: 9, managed: false, status: 'active' });
    const moved = await admin('PUT', `${base}/SN-002`, { id: 'SN-003', name: 'X', serial: 'SN-002' });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toBe('id cannot be changed');
    expect((await admin('PUT', `${base}/SN-002`, { name: 'X', serial: 'SN-003' })).status).toBe(409);
  });

  it('soft-deletes and recovers through status, purges only deleted records', async () => {
    const deleted = await admin('PUT', base, [{ id: 'SN-004', status: 'deleted' }, { id: 'SN-005', status: 'deleted' }]);
    expect(deleted.status).toBe(200);
    expect(deleted.body.map((device: Device) => device.status)).toEqual(['deleted', 'deleted']);
    expect(ids((await list({ condition: 'status,=,deleted' })).body)).toEqual(['SN-004', 'SN-005']);
    expect(ids((await list({ filter: { status: 'active' } })).body)).toEqual(['SN-001', 'SN-002', 'SN-003']);
    // all or nothing: one unknown id and nothing changes
    expect((await admin('PUT', base, [{ id: 'SN-001', status: 'deleted' }, { id: 'nope', status: 'deleted' }])).status).toBe(404);
    expect((await admin('GET', `${base}/SN-001`)).body.status).toBe('active');

    const refused = await admin('DELETE', `${base}/SN-001`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('device SN-001 is active: delete it first, then purge it');
    expect((await admin('PUT', base, [{ id: 'SN-005', status: 'active' }])).body[0].status).toBe('active');

    const purged = await admin('DELETE', `${base}/SN-004`);
    expect(purged.status).toBe(200);
    expect(purged.body).toMatchObject({ id: 'SN-004', status: 'deleted' });
    expect((await admin('GET', `${base}/SN-004`)).status).toBe(404);
    await admin('PUT', `${base}/SN-003`, { name: 'Charlie key', serial: 'SN-003', status: 'deleted' });
    const bulk = await admin('DELETE', base, ['SN-003']);
    expect(bulk.status).toBe(200);
    expect(ids(bulk.body)).toEqual(['SN-003']);
    expect((await list({})).headers['content-range']).toBe('devices 0-2/3');
  });

  it("answers 404 to another tenant's administrator on every route, before reading the body", async () => {
    const other = as(stranger.adminToken);
    for (const [method, url, body] of [
      ['GET', base, undefined],
      ['QUERY', base, {}],
      ['GET', `${base}/SN-001`, undefined],
      ['POST', base, { name: 'Mine', serial: 'SN-X' }],
      ['PUT', `${base}/SN-001`, { name: 'Mine', serial: 'SN-001' }],
      ['PUT', base, [{ id: 'SN-001', status: 'deleted' }]],
      ['DELETE', `${base}/SN-001`, undefined],
      ['DELETE', base, ['SN-001']],
      ['POST', base, { not: 'even valid' }],
    ] as [Method, string, unknown][]) {
      const answer = await other(method, url, body);
      expect(answer.status, `${method} ${url}`).toBe(404);
      expect(answer.body.message).toBe(`company ${owner.companyId} not found`);
    }
    expect((await admin('GET', `${base}/SN-001`)).body).toMatchObject({ status: 'active', name: 'Alpha phone' });
    // a plain user of the domain itself: 403
    expect((await call(server, owner.userToken, 'GET', base)).status).toBe(403);
  });

  it('documents its routes in the OpenAPI document like the built-in ones', async () => {
    const paths = (server.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    const path = '/api/companys/{companyId}/domainNames/{domainId}/devices';
    expect(Object.keys(paths[path]).sort()).toEqual(['delete', 'get', 'post', 'put', 'query']);
    expect(Object.keys(paths[`${path}/{deviceId}`]).sort()).toEqual(['delete', 'get', 'put']);
  });
});
