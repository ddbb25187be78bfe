import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * A reseller runs its own help desk (issue 35; docs/CONSOLE.md, "Roles"; DECISIONS.md, item 45): an
 * Administrator gives the roles she holds, within her subtree, to people she contains; only an
 * Owner gives Owner or acts on one; a new company's first administrator is its Owner when whoever
 * made her so could give Owner there, and never otherwise.
 */
let server: TestServer;
let acme: Tenant;
let beta: Tenant;

const domainPath = (tenant: { companyId: string; domainId: string }) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;

async function addUser(tenant: { companyId: string; domainId: string }, userId: string) {
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@' || $1 || '.example')`, [
    tenant.companyId,
    tenant.domainId,
    userId,
  ]);
}

const give = (token: string, role: string, holder: { companyId: string; domainId: string; id: string; type?: 'user' | 'group' }, over = holder.companyId) =>
  call(server, token, 'POST', `/api/companys/${over}/roleAssignments`, {
    role,
    holderType: holder.type ?? 'user',
    holderId: holder.id,
    holderCompanyId: holder.companyId,
    holderDomainId: holder.domainId,
  });

const rolesOf = async (companyId: string, holderId: string) =>
  (await server.db.query<{ role: string }>(`SELECT role FROM role_assignments WHERE company_id = $1 AND holder_id = $2 ORDER BY role`, [companyId, holderId])).rows.map((row) => row.role);

beforeAll(async () => {
  server = await startServer();
  // acme: a reseller whose administrator ('boss', in administrators) holds Administrator over its subtree
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  beta = await createTenant(server, 'beta', 'root', 'reseller');
}, 120_000);
afterAll(() => server?.close());

describe("a reseller's Administrator runs its help desk", () => {
  it('gives Support, User manager and Administrator to people of her company, and takes them back', async () => {
    for (const role of ['support', 'user-manager', 'administrator']) {
      const id = `desk-${role}`;
      await addUser(acme, id);
      const given = await give(acme.adminToken, role, { ...acme, id });
      expect(given.status, JSON.stringify(given.body)).toBe(201);
      expect(given.body).toMatchObject({ role, holderId: id, companyId: 'acme', domainId: null });
      const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: id });
      expect((await call(server, token, 'GET', `/api/me/permissions?companyId=acme&domainId=${acme.domainId}`)).body.roles).toEqual([role]);
    }
    const taken = await call(server, acme.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${(await give(acme.adminToken, 'auditor', { ...acme, id: 'desk-support' })).body.id}`);
    expect(taken.status).toBe(200);
  });

  it('gives a role to a group, and adds the people she contains to it', async () => {
    expect((await call(server, acme.adminToken, 'POST', `${domainPath(acme)}/groups`, { name: 'help-desk', displayName: 'Help desk', email: 'desk@acme.example' })).status).toBe(201);
    expect((await give(acme.adminToken, 'support', { ...acme, id: 'help-desk', type: 'group' })).status).toBe(201);
    await addUser(acme, 'agent');
    expect((await call(server, acme.adminToken, 'POST', `${domainPath(acme)}/groups/help-desk/members`, [{ id: 'agent', type: 'user' }])).status).toBe(200);
    const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
    expect((await call(server, token, 'GET', `/api/me/permissions?companyId=acme&domainId=${acme.domainId}`)).body.roles).toEqual(['support']);
  });

  it('cannot give Owner, to a person or a group, nor add anyone to a group carrying it: 403 saying why', async () => {
    await addUser(acme, 'would-be-owner');
    const refused = await give(acme.adminToken, 'owner', { ...acme, id: 'would-be-owner' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('You cannot give the Owner role over company acme and the companies below it: your roles there do not give all it gives.');
    expect((await give(acme.adminToken, 'owner', { ...acme, id: 'help-desk', type: 'group' })).status).toBe(403);
    // themselves neither
    expect((await give(acme.adminToken, 'owner', { ...acme, id: 'boss' })).status).toBe(403);
    expect(await rolesOf('acme', 'would-be-owner')).toEqual([]);

    // a group an Owner above made Owner: its members are hers to change no more
    expect((await call(server, server.adminToken, 'POST', `${domainPath(acme)}/groups`, { name: 'owners', displayName: 'Owners', email: 'owners@acme.example' })).status).toBe(201);
    expect((await give(server.adminToken, 'owner', { ...acme, id: 'owners', type: 'group' })).status).toBe(201);
    const joined = await call(server, acme.adminToken, 'POST', `${domainPath(acme)}/groups/owners/members`, [{ id: 'would-be-owner', type: 'user' }]);
    expect(joined.status).toBe(403);
    expect(joined.body.message).toMatch(/group owners: it holds the Owner role/);
    // nor give that group a lesser role (it is acting on it)
    expect((await give(acme.adminToken, 'support', { ...acme, id: 'owners', type: 'group' })).status).toBe(403);
  });

  it('cannot act on an Owner: neither give her a role, take one from her, nor take her Owner role', async () => {
    await addUser(acme, 'acme-owner');
    const owner = await give(server.adminToken, 'owner', { ...acme, id: 'acme-owner' });
    expect(owner.status).toBe(201);
    const support = await give(server.adminToken, 'support', { ...acme, id: 'acme-owner' });
    expect(support.status).toBe(201);
    expect((await give(acme.adminToken, 'auditor', { ...acme, id: 'acme-owner' })).status).toBe(403);
    const takeSupport = await call(server, acme.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${support.body.id}`);
    expect(takeSupport.status).toBe(403);
    expect(takeSupport.body.message).toMatch(/user acme-owner: it holds the Owner role over company acme/);
    expect((await call(server, acme.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${owner.body.id}`)).status).toBe(403);
    expect((await call(server, acme.adminToken, 'POST', `${domainPath(acme)}/users/acme-owner/block`, {})).status).toBe(403);
    expect(await rolesOf('acme', 'acme-owner')).toEqual(['owner', 'support']);
  });

  it('gives nothing in another tenant (404), nor over the company above hers (404)', async () => {
    await addUser(beta, 'beta-person');
    expect((await give(acme.adminToken, 'support', { ...beta, id: 'beta-person' })).status).toBe(404);
    expect((await give(acme.adminToken, 'support', { ...acme, id: 'agent' }, 'beta')).status).toBe(404);
    expect((await call(server, acme.adminToken, 'GET', '/api/companys/beta/roleAssignments')).status).toBe(404);
    expect((await give(acme.adminToken, 'support', { ...acme, id: 'agent' }, 'root')).status).toBe(404);
    expect(await rolesOf('beta', 'beta-person')).toEqual([]);
  });

  it('a User manager and a Support agent give no role (403 naming who may)', async () => {
    for (const role of ['user-manager', 'support']) {
      const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: `desk-${role}` });
      const refused = await give(token, 'support', { ...acme, id: 'would-be-owner' });
      expect(refused.status, role).toBe(403);
      expect(refused.body.message).toMatch(/roles:write.*the Owner or Administrator role/);
      const joined = await call(server, token, 'POST', `${domainPath(acme)}/groups/help-desk/members`, [{ id: 'would-be-owner', type: 'user' }]);
      expect(joined.status, role).toBe(403);
    }
  });
});

describe("a new company's first administrator", () => {
  /** A company made through the API, with a domain, an administrators group and a person, by `token`. */
  async function setUp(token: string, companyId: string, parent: string) {
    const company = await call(server, token, 'POST', '/api/companys', { name: companyId, displayName: companyId, description: 'a customer', type: 'customer', parent });
    expect(company.status, JSON.stringify(company.body)).toBe(201);
    const domain = await call(server, token, 'POST', `/api/companys/${companyId}/domainNames`, { name: 'prod', description: 'prod' });
    expect(domain.status, JSON.stringify(domain.body)).toBe(201);
    const tenant = { companyId, domainId: 'prod' };
    expect((await call(server, token, 'POST', `${domainPath(tenant)}/groups`, { name: 'administrators', displayName: 'Administrators', email: `admins@${companyId}.example` })).status).toBe(201);
    await addUser(tenant, 'first');
    await addUser(tenant, 'second');
    const added = await call(server, token, 'POST', `${domainPath(tenant)}/groups/administrators/members`, [{ id: 'first', type: 'user' }]);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    return tenant;
  }

  it("is its Owner over its subtree when an Owner above adds her; the next administrator is not", async () => {
    const tenant = await setUp(server.adminToken, 'owned', 'acme');
    const { rows } = await server.db.query(`SELECT holder_type, holder_id, role, scope_company_id, scope_domain_id FROM role_assignments WHERE company_id = 'owned'`);
    expect(rows).toEqual([{ holder_type: 'user', holder_id: 'first', role: 'owner', scope_company_id: 'owned', scope_domain_id: null }]);
    const first = await tokenFor(server.ctx, { ...tenant, userId: 'first' });
    expect((await call(server, first, 'GET', '/api/me/permissions?companyId=owned&domainId=prod')).body.roles.sort()).toEqual(['administrator', 'owner']);
    // she runs her own help desk, and makes a second Owner of her own
    expect((await give(first, 'support', { ...tenant, id: 'second' })).status).toBe(201);
    expect((await give(first, 'owner', { ...tenant, id: 'second' })).status).toBe(201);
    // the second member of administrators is an Administrator only
    await addUser(tenant, 'third');
    expect((await call(server, first, 'POST', `${domainPath(tenant)}/groups/administrators/members`, [{ id: 'third', type: 'user' }])).status).toBe(200);
    expect(await rolesOf('owned', 'third')).toEqual([]);
    // nothing above her: her Owner role stops at her company
    expect((await call(server, first, 'GET', '/api/companys/acme/roleAssignments')).status).toBe(404);
  });

  it("is an Administrator only when the reseller's Administrator adds her: setting a company up gives nobody more than its maker holds", async () => {
    const tenant = await setUp(acme.adminToken, 'kid', 'acme');
    expect(await rolesOf('kid', 'first')).toEqual([]);
    const first = await tokenFor(server.ctx, { ...tenant, userId: 'first' });
    const me = await call(server, first, 'GET', '/api/me/permissions?companyId=kid&domainId=prod');
    expect(me.body.roles).toEqual(['administrator']);
    // she still runs a help desk; Owner is for an Owner above to give
    expect((await give(first, 'support', { ...tenant, id: 'second' })).status).toBe(201);
    expect((await give(first, 'owner', { ...tenant, id: 'second' })).status).toBe(403);
    expect((await give(acme.adminToken, 'owner', { ...tenant, id: 'first' })).status).toBe(403);
    expect((await give(server.adminToken, 'owner', { ...tenant, id: 'first' })).status).toBe(201);
  });
});
