import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * The filters of a group's Members tab and of an API's Permission tab, and their CSV exports
 * (docs/CONSOLE.md, "Lists" and "Groups"): member type, search and e-mail domain; a scope by its
 * permission (its address) or by search. Each is served by the list's primary key; a filter no index
 * serves is a 400; another tenant gets 404 and a role without the list's permission 403.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const members = (groupId = 'sales', tenant = () => acme) => `/api/companys/${tenant().companyId}/domainNames/${tenant().domainId}/groups/${groupId}/members`;
const filtered = (path: string, filter: Record<string, unknown>, extra = '') => `${path}?filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`;
const ids = (body: { id: string }[]) => body.map((row) => row.id);
let apiId: string;
const scopes = () => `/api/api/${apiId}/PermissionScopes`;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  const { db } = server;
  await db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES
      ('acme', $1, 'ann', 'ann', 'Ann', 'ann@Globex.com'),
      ('acme', $1, 'bob', 'bob', 'Bob', 'bob@initech.com'),
      ('acme', $1, 'agent', 'agent', 'Agent', 'agent@acme.example'),
      ('acme', $1, 'maker', 'maker', 'Maker', 'maker@acme.example')`,
    [acme.domainId],
  );
  await db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES
      ('acme', $1, 'sales', 'sales', 'Sales', 'sales@acme.example'), ('acme', $1, 'emea', 'emea', 'EMEA', 'emea@globex.com')`,
    [acme.domainId],
  );
  await db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES
      ('acme', $1, 'sales', 'user', 'ann'), ('acme', $1, 'sales', 'user', 'bob'), ('acme', $1, 'sales', 'group', 'emea')`,
    [acme.domainId],
  );
  const api = await call(server, acme.adminToken, 'POST', `/api/acme/${acme.domainId}/api`, { name: 'Orders', identifier: 'urn:orders' });
  expect(api.status, JSON.stringify(api.body)).toBe(201);
  apiId = api.body.id;
  for (const permission of ['read:orders', 'write:orders', 'read:users']) {
    expect((await call(server, acme.adminToken, 'POST', scopes(), { permission, description: `may ${permission}` })).status).toBe(201);
  }
  // Support reads groups but not APIs; an Application manager reads APIs but not groups
  for (const [holder, role] of [['agent', 'support'], ['maker', 'application-manager']]) {
    const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role, holderType: 'user', holderId: holder, holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status, JSON.stringify(given.body)).toBe(201);
  }
}, 60_000);
afterAll(() => server?.close());

describe("a group's members", () => {
  it('show their e-mail, and filter by type, search and e-mail domain', async () => {
    const all = await call(server, acme.adminToken, 'GET', members());
    expect(all.body).toEqual([
      { id: 'ann', displayName: 'Ann', type: 'user', email: 'ann@Globex.com' },
      { id: 'bob', displayName: 'Bob', type: 'user', email: 'bob@initech.com' },
      { id: 'emea', displayName: 'EMEA', type: 'group', email: 'emea@globex.com' },
    ]);
    expect(ids((await call(server, acme.adminToken, 'GET', filtered(members(), { type: 'group' }))).body)).toEqual(['emea']);
    expect(ids((await call(server, acme.adminToken, 'GET', filtered(members(), { type: 'user' }))).body)).toEqual(['ann', 'bob']);
    // the domain in any case, with or without its @; a user and a group alike
    const globex = await call(server, acme.adminToken, 'GET', filtered(members(), { emailDomain: '@GLOBEX.com' }));
    expect(ids(globex.body)).toEqual(['ann', 'emea']);
    expect(globex.headers['content-range']).toBe('members 0-1/2');
    expect(ids((await call(server, acme.adminToken, 'GET', filtered(members(), { emailDomain: 'globex.com', type: 'user' }))).body)).toEqual(['ann']);
    expect(ids((await call(server, acme.adminToken, 'GET', filtered(members(), { q: 'initech' }))).body)).toEqual(['bob']);
    // empty values filter nothing
    expect(ids((await call(server, acme.adminToken, 'GET', filtered(members(), { emailDomain: '', type: '' }))).body)).toEqual(['ann', 'bob', 'emea']);
  });

  it('refuse a filter no index serves, and a malformed one', async () => {
    const byEmail = await call(server, acme.adminToken, 'GET', filtered(members(), { email: 'ann@Globex.com' }));
    expect(byEmail.status).toBe(400);
    expect(byEmail.body.message).toMatch(/no index serves it/);
    expect((await call(server, acme.adminToken, 'GET', filtered(members(), { emailDomain: 7 }))).status).toBe(400);
    expect((await call(server, acme.adminToken, 'GET', filtered(members(), { nope: 'x' }))).status).toBe(400);
    expect((await call(server, acme.adminToken, 'GET', filtered(members(), { emailDomain: 'a\u0000b' }))).status).toBe(400);
  });

  it('export the filtered members as CSV, e-mail included', async () => {
    const url = `${members()}/export.csv?filter=${encodeURIComponent(JSON.stringify({ emailDomain: 'globex.com' }))}&columns=id,displayName,email,type&labels=${encodeURIComponent(JSON.stringify(['ID', 'Name', 'E-mail', 'Type']))}`;
    const csv = await call(server, acme.adminToken, 'GET', url);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.text.replace(/^\uFEFF/, '').trim().split('\r\n')).toEqual(['ID,Name,E-mail,Type', 'ann,Ann,ann@Globex.com,user', 'emea,EMEA,emea@globex.com,group']);
  });

  it("are another tenant's 404 and a role without groups:read's 403, filtered or exported", async () => {
    const filter = { emailDomain: 'globex.com' };
    for (const path of [filtered(members(), filter), filtered(`${members()}/export.csv`, filter)]) {
      expect((await call(server, other.adminToken, 'GET', path)).status, path).toBe(404);
      const maker = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'maker' });
      const refused = await call(server, maker, 'GET', path);
      expect(refused.status, path).toBe(403);
      expect(refused.body.message).toMatch(/groups:read/);
      const agent = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
      expect((await call(server, agent, 'GET', path)).status, path).toBe(200);
    }
    // another tenant's own group of the same name is theirs alone
    expect((await call(server, other.adminToken, 'GET', filtered(members('administrators', () => other), filter))).body).toEqual([]);
    expect((await call(server, acme.adminToken, 'GET', filtered(members('nosuchgroup'), filter))).status).toBe(404);
  });
});

describe("an API's permission scopes", () => {
  it('are found by their permission (a scope address) and by search', async () => {
    const one = await call(server, acme.adminToken, 'GET', filtered(scopes(), { id: ['write:orders'] }));
    expect(one.body).toEqual([{ id: 'write:orders', permission: 'write:orders', description: 'may write:orders' }]);
    expect(one.headers['content-range']).toBe('PermissionScopes 0-0/1');
    expect((await call(server, acme.adminToken, 'GET', filtered(scopes(), { id: ['nope'] }))).body).toEqual([]);
    expect(ids((await call(server, acme.adminToken, 'GET', filtered(scopes(), { q: 'ORDERS' }))).body)).toEqual(['read:orders', 'write:orders']);
    // the description is shown only: searched, never a filter of its own
    expect((await call(server, acme.adminToken, 'GET', filtered(scopes(), { description: 'x' }))).status).toBe(400);
  });

  it('export the searched scopes as CSV', async () => {
    const csv = await call(server, acme.adminToken, 'GET', `${filtered(`${scopes()}/export.csv`, { q: 'users' })}&columns=permission,description`);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.text.replace(/^\uFEFF/, '').trim().split('\r\n')).toEqual(['permission,description', 'read:users,may read:users']);
  });

  it("are another tenant's 404 and a role without apis:read's 403, filtered or exported", async () => {
    const filter = { id: ['read:orders'] };
    const agent = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
    const maker = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'maker' });
    for (const path of [filtered(scopes(), filter), filtered(`${scopes()}/export.csv`, filter)]) {
      expect((await call(server, other.adminToken, 'GET', path)).status, path).toBe(404);
      const refused = await call(server, agent, 'GET', path);
      expect(refused.status, path).toBe(403);
      expect(refused.body.message).toMatch(/apis:read/);
      expect((await call(server, maker, 'GET', path)).status, path).toBe(200);
    }
  });
});
