import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * GET /api/companys/{id}/subtreeCompanys: the company and every company below it, the list the
 * console's company switcher searches. The tree:
 *
 *   root ─┬─ globex (reseller) ─┬─ globex-a (customer)
 *         │                     ├─ globex-b (customer, display name "Bravo Widgets")
 *         │                     └─ globex-east (reseller) ── east-shop (customer)
 *         └─ initech (reseller) ── initech-c (customer)
 */
let server: TestServer;
let globex: Tenant;
let initech: Tenant;
let eastShop: Tenant;
beforeAll(async () => {
  server = await startServer();
  globex = await createTenant(server, 'globex');
  await createTenant(server, 'globex-a', 'globex', 'customer');
  await createTenant(server, 'globex-b', 'globex', 'customer');
  await createTenant(server, 'globex-east', 'globex');
  eastShop = await createTenant(server, 'east-shop', 'globex-east', 'customer');
  initech = await createTenant(server, 'initech');
  await createTenant(server, 'initech-c', 'initech', 'customer');
  await server.db.query(`UPDATE companies SET display_name = 'Bravo Widgets' WHERE id = 'globex-b'`);
});
afterAll(() => server?.close());

const ids = (body: { id: string }[]) => body.map((company) => company.id);
const list = (token: string | undefined, companyId: string, query = '') => call(server, token, 'GET', `/api/companys/${companyId}/subtreeCompanys${query}`);
const q = (text: string) => `filter=${encodeURIComponent(JSON.stringify({ q: text }))}`;

describe('subtree companies', () => {
  it('lists the company itself and every descendant, at any depth, sorted by name', async () => {
    const res = await list(globex.adminToken, 'globex', '?sort=["name","ASC"]');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(['east-shop', 'globex', 'globex-a', 'globex-b', 'globex-east']);
    expect(res.headers['content-range']).toBe('companys 0-4/5');
    expect(res.body.find((company: { id: string }) => company.id === 'east-shop')).toEqual({
      id: 'east-shop',
      name: 'east-shop',
      displayName: 'east-shop',
      description: 'test tenant',
      type: 'customer',
      parent: 'globex-east',
    });
    const descending = await list(globex.adminToken, 'globex', '?sort=["displayName","DESC"]');
    expect(ids(descending.body)).toEqual(['globex-east', 'globex-a', 'globex', 'east-shop', 'globex-b']);
  });

  it('searches names and display names with q', async () => {
    expect(ids((await list(globex.adminToken, 'globex', `?${q('east')}&sort=["name","ASC"]`)).body)).toEqual(['east-shop', 'globex-east']);
    const byDisplayName = await list(globex.adminToken, 'globex', `?${q('WIDGETS')}`);
    expect(ids(byDisplayName.body)).toEqual(['globex-b']);
    expect(byDisplayName.headers['content-range']).toBe('companys 0-0/1');
    // a company of another subtree matches the words, but is not listed
    expect((await list(globex.adminToken, 'globex', `?${q('initech')}`)).body).toEqual([]);
  });

  it('pages with range and Content-Range', async () => {
    const first = await list(globex.adminToken, 'globex', '?range=[0,1]&sort=["name","ASC"]');
    expect(ids(first.body)).toEqual(['east-shop', 'globex']);
    expect(first.headers['content-range']).toBe('companys 0-1/5');
    const last = await list(globex.adminToken, 'globex', '?range=[4,5]&sort=["name","ASC"]');
    expect(ids(last.body)).toEqual(['globex-east']);
    expect(last.headers['content-range']).toBe('companys 4-4/5');
  });

  it('lists the subtree of a company below the caller, and the whole tree for the root administrator', async () => {
    expect(ids((await list(globex.adminToken, 'globex-east', '?sort=["name","ASC"]')).body)).toEqual(['east-shop', 'globex-east']);
    expect(ids((await list(eastShop.adminToken, 'east-shop')).body)).toEqual(['east-shop']);
    const everything = await list(server.adminToken, 'root', '?range=[0,99]');
    expect(ids(everything.body).sort()).toEqual(['east-shop', 'globex', 'globex-a', 'globex-b', 'globex-east', 'initech', 'initech-c', 'root']);
  });

  it("answers another tenant's subtree exactly as the other company routes do: 404, no rows", async () => {
    const cases: [Tenant, string][] = [
      [initech, 'globex'], // a sibling
      [initech, 'globex-east'],
      [globex, 'root'], // above one's own company
      [eastShop, 'globex'],
      [globex, 'no-such-company'],
    ];
    for (const [tenant, target] of cases) {
      const subtree = await list(tenant.adminToken, target);
      const children = await call(server, tenant.adminToken, 'GET', `/api/companys/${target}/childCompanys`);
      const company = await call(server, tenant.adminToken, 'GET', `/api/companys/${target}`);
      expect([subtree.status, children.status, company.status], `${tenant.companyId} -> ${target}`).toEqual([404, 404, 404]);
      expect(subtree.body).toEqual(children.body);
      expect(subtree.headers['content-range']).toBeUndefined();
    }
  });

  it('answers 401 without a valid token and 403 to a signed-in user who is not an administrator', async () => {
    expect((await list(undefined, 'globex')).status).toBe(401);
    expect((await list('not.a.token', 'globex')).status).toBe(401);
    const worker = await list(globex.userToken, 'globex');
    expect(worker.status).toBe(403);
    expect(worker.status).toBe((await call(server, globex.userToken, 'GET', '/api/companys/globex/childCompanys')).status);
    expect(worker.headers['content-range']).toBeUndefined();
  });
});
