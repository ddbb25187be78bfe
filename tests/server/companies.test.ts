import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const company = (name: string, extra: object = {}) => ({ name, displayName: `${name} Inc`, description: `about ${name}`, parent: 'root', ...extra });

describe('companies', () => {
  it('reads the seeded root company', async () => {
    const res = await call(server, server.adminToken, 'GET', '/api/companys/root');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'root', name: 'root', displayName: 'Root', description: 'The provider itself', type: 'root', parent: null });
  });

  it('creates a company whose id is its name, with type customer by default', async () => {
    const res = await call(server, server.adminToken, 'POST', '/api/companys', company('acme'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'acme', name: 'acme', type: 'customer', parent: 'root' });
    const again = await call(server, server.adminToken, 'POST', '/api/companys', company('acme'));
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('company id "acme" is not available: choose another');
    expect(again.body).toMatchObject({ code: 'unique.companyId', params: { id: 'acme' } });
  });

  it('names the missing field in a 400', async () => {
    const res = await call(server, server.adminToken, 'POST', '/api/companys', { name: 'x', description: 'd', parent: 'root' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('displayName');
  });

  it('pages child companies with Content-Range', async () => {
    for (const name of ['c1', 'c2', 'c3', 'c4']) await call(server, server.adminToken, 'POST', '/api/companys', company(name));
    const res = await call(server, server.adminToken, 'GET', '/api/companys/root/childCompanys?range=[0,2]&sort=["name","ASC"]');
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: string }) => c.id)).toEqual(['acme', 'c1', 'c2']);
    expect(res.headers['content-range']).toBe('companys 0-2/5');
    const page2 = await call(server, server.adminToken, 'GET', '/api/companys/root/childCompanys?range=[3,5]&sort=["name","ASC"]');
    expect(page2.body.map((c: { id: string }) => c.id)).toEqual(['c3', 'c4']);
    expect(page2.headers['content-range']).toBe('companys 3-4/5');
  });

  it('refuses requests without a valid token', async () => {
    expect((await call(server, undefined, 'GET', '/api/companys/root')).status).toBe(401);
    expect((await call(server, 'not.a.token', 'GET', '/api/companys/root')).status).toBe(401);
  });
});

describe('companies: tenancy', () => {
  it('lets an administrator act on their subtree only, and refuses non-administrators', async () => {
    const reseller = await createTenant(server, 'reseller1');
    const sibling = await createTenant(server, 'sibling1');
    const customer = await createTenant(server, 'customer1', 'reseller1', 'customer');
    const as = (token: string, method: 'GET' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, token, method, url, body);

    expect((await as(reseller.adminToken, 'GET', '/api/companys/customer1')).status).toBe(200);
    expect((await as(reseller.adminToken, 'GET', '/api/companys/reseller1/childCompanys')).body).toHaveLength(1);
    for (const target of ['sibling1', 'root']) {
      expect((await as(reseller.adminToken, 'GET', `/api/companys/${target}`)).status).toBe(404);
      expect((await as(reseller.adminToken, 'GET', `/api/companys/${target}/childCompanys`)).status).toBe(404);
      expect((await as(reseller.adminToken, 'PUT', `/api/companys/${target}`, { name: target, displayName: 'x', description: 'x' })).status).toBe(404);
      expect((await as(reseller.adminToken, 'DELETE', `/api/companys/${target}`)).status).toBe(404);
    }
    expect((await as(reseller.adminToken, 'DELETE', '/api/companys', ['sibling1'])).status).toBe(404);
    const create = await call(server, reseller.adminToken, 'POST', '/api/companys', company('sneaky', { parent: 'sibling1' }));
    expect(create.status).toBe(404);
    expect((await as(customer.adminToken, 'GET', '/api/companys/reseller1')).status).toBe(404);
    expect((await as(sibling.userToken, 'GET', '/api/companys/sibling1')).status).toBe(403);
  });
});
