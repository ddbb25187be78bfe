import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from './helpers.js';

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
    expect(again.body.message).toBe('duplicated error: acme already exist!');
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
