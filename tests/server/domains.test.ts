import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

let server: TestServer;
let tenant: Tenant;
beforeAll(async () => {
  server = await startServer();
  tenant = await createTenant(server, 'acme');
});
afterAll(() => server?.close());

const base = '/api/companys/acme/domainNames';
const domain = (name: string, extra: object = {}) => ({ name, description: `about ${name}`, ...extra });
const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, tenant.adminToken, method, url, body);
const primaryOf = async (companyId: string) => (await call(server, server.adminToken, 'GET', `/api/companys/${companyId}/domainNames/primary`)).body.id;

describe('domains', () => {
  it('lists, reads and finds the primary domain', async () => {
    const list = await as('GET', base);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: 'acme-domain', name: 'acme-domain', description: 'test', primary: true, languages: null, defaultLanguage: null }]);
    expect(list.headers['content-range']).toBe('domainNames 0-0/1');
    expect((await as('GET', `${base}/primary`)).body).toEqual(list.body[0]);
    expect((await as('GET', `${base}/acme-domain`)).body).toEqual(list.body[0]);
    expect((await as('GET', `${base}/nope`)).status).toBe(404);
  });

  it('makes the first domain of a company primary and later ones not, whatever the body says', async () => {
    await call(server, server.adminToken, 'POST', '/api/companys', { name: 'fresh', displayName: 'Fresh', description: 'new', parent: 'root' });
    expect((await call(server, server.adminToken, 'GET', '/api/companys/fresh/domainNames/primary')).status).toBe(404);
    const first = await call(server, server.adminToken, 'POST', '/api/companys/fresh/domainNames', domain('one', { primary: false }));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: 'one', name: 'one', description: 'about one', primary: true, languages: null, defaultLanguage: null });
    const second = await call(server, server.adminToken, 'POST', '/api/companys/fresh/domainNames', domain('two', { primary: true }));
    expect(second.body).toEqual({ id: 'two', name: 'two', description: 'about two', primary: false, languages: null, defaultLanguage: null });
    expect(await primaryOf('fresh')).toBe('one');
  });

  it('refuses duplicates, the reserved name, a differing id and missing fields', async () => {
    expect((await as('POST', base, domain('dup'))).status).toBe(201);
    const again = await as('POST', base, domain('dup'));
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('duplicated error: dup already exist!');
    const reserved = await as('POST', base, domain('primary'));
    expect(reserved.status).toBe(400);
    expect(reserved.body.message).toContain('reserved');
    expect(reserved.body).toMatchObject({ code: 'domain.reserved', params: { name: 'primary' } });
    expect((await as('POST', base, domain('x1', { id: 'x2' }))).body.message).toContain('id');
    const missing = await as('POST', base, { name: 'nodesc' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('description');
    const badName = await as('POST', base, domain('has space'));
    expect(badName.status).toBe(400);
    expect(badName.body.message).toContain('name');
  });

  it('pages with q search and Content-Range', async () => {
    for (const name of ['page-a', 'page-b', 'page-c', 'page-d']) await as('POST', base, domain(name));
    const page = await as('GET', `${base}?range=[1,2]&sort=["name","ASC"]&filter={"q":"about page"}`);
    expect(page.body.map((d: { id: string }) => d.id)).toEqual(['page-b', 'page-c']);
    expect(page.headers['content-range']).toBe('domainNames 1-2/4');
    const many = await as('GET', `${base}?filter={"id":["page-a","page-d"]}`);
    expect(many.body.map((d: { id: string }) => d.id)).toEqual(['page-a', 'page-d']);
  });

  it('updates the description but never the id or name, and sets primary on request', async () => {
    await as('POST', base, domain('upd'));
    const res = await as('PUT', `${base}/upd`, { id: 'upd', name: 'upd', description: 'changed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'upd', name: 'upd', description: 'changed', primary: false, languages: null, defaultLanguage: null });
    // the name is the id (locked in the console's form): a rename is refused
    const renamed = await as('PUT', `${base}/upd`, { id: 'upd', name: 'updated', description: 'changed' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toBe('upd: name cannot be changed: it is the domain id');
    expect((await as('PUT', `${base}/upd`, { id: 'other', name: 'upd', description: 'x' })).status).toBe(400);
    expect((await as('PUT', `${base}/upd`, { name: 'upd' })).body.message).toContain('description');
    expect((await as('PUT', `${base}/ghost`, domain('ghost'))).status).toBe(404);

    const promoted = await as('PUT', `${base}/upd`, { name: 'upd', description: 'now primary', primary: true });
    expect(promoted.body.primary).toBe(true);
    expect(await primaryOf('acme')).toBe('upd');
    await as('PUT', `${base}/acme-domain`, { name: 'acme-domain', description: 'test', primary: true });
    expect(await primaryOf('acme')).toBe('acme-domain');
  });

  it('sets the primary domain from the whole list, all or nothing', async () => {
    const list = (await as('GET', `${base}?range=[0,99]`)).body as { id: string; primary: boolean }[];
    const chosen = list.map((d) => ({ ...d, primary: d.id === 'dup' }));
    const res = await as('PUT', base, chosen);
    expect(res.status).toBe(200);
    expect(res.body.filter((d: { primary: boolean }) => d.primary).map((d: { id: string }) => d.id)).toEqual(['dup']);
    expect(await primaryOf('acme')).toBe('dup');

    const withUnknown = await as('PUT', base, [{ id: 'page-a', description: 'should not stick', primary: true }, { id: 'ghost' }]);
    expect(withUnknown.status).toBe(404);
    expect(withUnknown.body.message).toContain('ghost');
    expect(await primaryOf('acme')).toBe('dup');
    expect((await as('GET', `${base}/page-a`)).body.description).toBe('about page-a');

    const twoPrimaries = await as('PUT', base, [{ id: 'page-a', primary: true }, { id: 'page-b', primary: true }]);
    expect(twoPrimaries.status).toBe(400);
    expect(twoPrimaries.body.message).toContain('primary');

    await as('PUT', base, [{ id: 'acme-domain', primary: true }]);
    expect(await primaryOf('acme')).toBe('acme-domain');
  });

  it('deletes domains with everything in them and returns them', async () => {
    await as('POST', base, domain('doomed'));
    const users = '/api/companys/acme/domainNames/doomed/users';
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'doomed', 'u1', 'u1', 'U', 'u1@x.io')`);
    await server.db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('acme', 'doomed', 'g1', 'g1', 'G', 'g1@x.io')`);
    const res = await as('DELETE', `${base}/doomed`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'doomed', name: 'doomed', description: 'about doomed', primary: false, languages: null, defaultLanguage: null });
    expect((await as('GET', `${base}/doomed`)).status).toBe(404);
    expect((await as('GET', users)).status).toBe(404);
    const left = await server.db.query(`SELECT 1 FROM users WHERE domain_id = 'doomed' UNION ALL SELECT 1 FROM groups WHERE domain_id = 'doomed'`);
    expect(left.rowCount).toBe(0);
  });

  it('deletes a list all or nothing, and refuses the primary and the caller\'s own domain', async () => {
    const many = await as('DELETE', base, ['page-a', 'page-b']);
    expect(many.status).toBe(200);
    expect(many.body.map((d: { id: string }) => d.id)).toEqual(['page-a', 'page-b']);

    const withUnknown = await as('DELETE', base, ['page-c', 'ghost']);
    expect(withUnknown.status).toBe(404);
    expect((await as('GET', `${base}/page-c`)).status).toBe(200);

    await as('PUT', `${base}/page-c`, { name: 'page-c', description: 'primary now', primary: true });
    const primary = await as('DELETE', base, ['page-c', 'page-d']);
    expect(primary.status).toBe(409);
    expect(primary.body.message).toContain('primary');
    expect(primary.body).toMatchObject({ code: 'domain.deletePrimary', params: { domain: 'page-c' } });
    expect((await as('GET', `${base}/page-d`)).status).toBe(200);

    const own = await as('DELETE', `${base}/acme-domain`);
    expect(own.status).toBe(400);
    expect(own.body.message).toContain('signed in');
    expect(own.body).toMatchObject({ code: 'domain.deleteOwn', params: { domain: 'acme-domain' } });

    // a company's last domains, primary included, can go together (by an administrator of another domain)
    const rest = await call(server, server.adminToken, 'DELETE', '/api/companys/fresh/domainNames', ['one', 'two']);
    expect(rest.status).toBe(200);
    expect((await call(server, server.adminToken, 'GET', '/api/companys/fresh/domainNames')).body).toEqual([]);
  });
});

describe('domains: tenancy', () => {
  it('answers 404 outside the caller\'s subtree and 403 to non-administrators', async () => {
    const reseller = await createTenant(server, 'reseller1');
    const sibling = await createTenant(server, 'sibling1');
    const child = await createTenant(server, 'child1', 'reseller1', 'customer');
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['GET', '/api/companys/reseller1/domainNames'],
      ['GET', '/api/companys/reseller1/domainNames/primary'],
      ['GET', '/api/companys/reseller1/domainNames/reseller1-domain'],
      ['POST', '/api/companys/reseller1/domainNames', domain('intruder')],
      ['PUT', '/api/companys/reseller1/domainNames/reseller1-domain', domain('reseller1-domain')],
      ['PUT', '/api/companys/reseller1/domainNames', [{ id: 'reseller1-domain', primary: true }]],
      ['DELETE', '/api/companys/reseller1/domainNames/reseller1-domain'],
      ['DELETE', '/api/companys/reseller1/domainNames', ['reseller1-domain']],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(server, sibling.adminToken, method, url, body)).status, `sibling ${method} ${url}`).toBe(404);
      expect((await call(server, child.adminToken, method, url, body)).status, `child ${method} ${url}`).toBe(404);
      expect((await call(server, reseller.userToken, method, url, body)).status, `user ${method} ${url}`).toBe(403);
    }
    // the reseller reaches into its child company
    expect((await call(server, reseller.adminToken, 'GET', '/api/companys/child1/domainNames/primary')).body.id).toBe('child1-domain');
    expect((await call(server, reseller.adminToken, 'GET', '/api/companys/reseller1/domainNames')).body).toHaveLength(1);
  });
});
