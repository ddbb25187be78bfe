import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../server/db/migrations.js';
import { allPermissions, heldGrants, ROLE_IDS, roleGrants } from '../../server/api/roles.js';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * Least privilege (docs/CONSOLE.md, "Roles"): every route of the OpenAPI document, for each role held
 * over a reseller's subtree, answers 403 exactly when the role does not give the route's permission
 * (x-permission), and 404 for another tenant's records; assignments over one domain, held through
 * nested groups, taken back at once; the last Owner; what an upgrade keeps.
 */
let server: TestServer;
let acme: Tenant;
let beta: Tenant;
const tokens: Record<string, string> = {};
let appId: string;
let apiId: string;
let betaAppId: string;

const METHODS = ['get', 'post', 'put', 'delete', 'query'] as const;

async function addUser(tenant: { companyId: string; domainId: string }, userId: string) {
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@' || $1 || '.example')`, [
    tenant.companyId,
    tenant.domainId,
    userId,
  ]);
}

async function assign(body: Record<string, unknown>, companyId = 'acme', token = server.adminToken) {
  return call(server, token, 'POST', `/api/companys/${companyId}/roleAssignments`, body);
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  await createTenant(server, 'acme-kid', 'acme', 'customer');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  // one holder per role, over acme and its subtree
  for (const role of ROLE_IDS) {
    await addUser(acme, `as-${role}`);
    const given = await assign({ role, holderType: 'user', holderId: `as-${role}`, holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status, JSON.stringify(given.body)).toBe(201);
    tokens[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: `as-${role}` });
  }
  // what the routes act on: a user, a group with a member, an application, an API with a scope
  await addUser(acme, 'target');
  await addUser(acme, 'member1');
  expect((await call(server, acme.adminToken, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/groups`, { name: 'g1', displayName: 'G1', email: 'g1@acme.example' })).status).toBe(201);
  const added = await call(server, acme.adminToken, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/groups/g1/members`, [{ id: 'member1', type: 'user' }]);
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  appId = (await call(server, acme.adminToken, 'POST', `/api/acme/${acme.domainId}/application`, { client_name: 'acme app', redirect_uris: ['https://acme.example/cb'] })).body.client_id;
  apiId = (await call(server, acme.adminToken, 'POST', `/api/acme/${acme.domainId}/api`, { name: 'acme api', identifier: 'https://api.acme.example' })).body.id;
  expect((await call(server, acme.adminToken, 'POST', `/api/api/${apiId}/PermissionScopes`, { permission: 'read' })).status).toBe(201);
  betaAppId = (await call(server, beta.adminToken, 'POST', `/api/beta/${beta.domainId}/application`, { client_name: 'beta app', redirect_uris: ['https://beta.example/cb'] })).body.client_id;
}, 180_000);
afterAll(() => server?.close());

interface Operation {
  'x-permission'?: string;
  security?: unknown[];
}

function routes() {
  const document = server.app.swagger() as { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>> };
  const found: { method: string; path: string; permission: string }[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const method of METHODS) {
      const operation = operations[method];
      if (operation && operation['x-permission']) found.push({ method: method.toUpperCase(), path, permission: operation['x-permission'] });
    }
  }
  return found;
}

const fill = (path: string, values: Record<string, string>) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no test value for ${name} in ${path}`);
    return encodeURIComponent(values[name]);
  });

const acmeValues = () => ({
  companyId: 'acme',
  domainId: acme.domainId,
  userId: 'target',
  groupId: 'g1',
  memberId: 'member1',
  id: appId,
  apiId,
  scopeId: 'read',
  sessionId: 'no-such-session',
  factorId: 'no-such-factor',
  messageId: '1',
  assignmentId: 'no-such-assignment',
  connectionId: 'no-such-connection',
  emailDomain: 'no-such.example',
  identityId: 'no-such-connection:subject',
  jobId: 'no-such-job',
  tokenId: 'no-such-token',
  kind: 'reset',
  language: 'fr',
});

/** The request for a route: no body for GET and DELETE, an empty object otherwise (a bad body is a 400, after the guard). */
const send = (token: string, method: string, url: string) =>
  call(server, token, method as never, url === '/api/me/permissions' ? `${url}?companyId=acme` : url, method === 'GET' || method === 'DELETE' ? undefined : {});

describe('the permission matrix, from the OpenAPI document', () => {
  it('every route declares a known permission', () => {
    const all = routes();
    expect(all.length).toBeGreaterThan(60);
    const known = ['any', ...allPermissions()];
    for (const route of all) expect(known, `${route.method} ${route.path}`).toContain(route.permission);
  });

  it.each(ROLE_IDS)('%s: allowed routes pass the guard, the others answer 403 naming the permission', async (role) => {
    const failures: string[] = [];
    for (const route of routes()) {
      const url = fill(route.path, acmeValues());
      const response = await send(tokens[role], route.method, url);
      const allowed = route.permission === 'any' || heldGrants([role], route.permission);
      if (response.status >= 500) failures.push(`${route.method} ${url}: ${response.status}`);
      else if (allowed && (response.status === 403 || response.status === 401)) failures.push(`${route.method} ${url}: ${response.status} for an allowed ${route.permission}: ${response.text.slice(0, 160)}`);
      else if (!allowed && response.status !== 403) failures.push(`${route.method} ${url}: ${response.status}, not 403, without ${route.permission}`);
      else if (!allowed && !response.body?.message?.includes(route.permission)) failures.push(`${route.method} ${url}: the 403 does not name ${route.permission}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it.each(ROLE_IDS)('%s: another tenant\'s company, domain and records answer 404, never data', async (role) => {
    const failures: string[] = [];
    const values = { ...acmeValues(), companyId: 'beta', domainId: beta.domainId, id: betaAppId };
    for (const route of routes()) {
      if (!/\{(companyId|id)\}/.test(route.path)) continue;
      const url = fill(route.path, values);
      const response = await send(tokens[role], route.method, url);
      // a route the role may use answers another tenant's 404; one it may use nowhere may say so (403), which tells nothing of the record
      const allowed = route.permission === 'any' || heldGrants([role], route.permission);
      if (response.status !== 404 && (allowed || response.status !== 403)) failures.push(`${route.method} ${url}: ${response.status}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('assignments', () => {
  it('a role over one domain gives its permissions in that domain only, and only reading at the company', async () => {
    await addUser(acme, 'one-domain');
    expect((await call(server, server.adminToken, 'POST', '/api/companys/acme/domainNames', { name: 'second', description: 'another domain' })).status).toBe(201);
    const given = await assign({ role: 'support', holderType: 'user', holderId: 'one-domain', holderCompanyId: 'acme', holderDomainId: acme.domainId, domainId: acme.domainId });
    expect(given.status, JSON.stringify(given.body)).toBe(201);
    const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'one-domain' });
    expect((await call(server, token, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/users`)).status).toBe(200);
    expect((await call(server, token, 'GET', '/api/companys/acme/domainNames/second/users')).status).toBe(403);
    expect((await call(server, token, 'GET', '/api/companys/acme')).status).toBe(200);
    expect((await call(server, token, 'GET', '/api/companys/acme/domainNames')).status).toBe(200);
    expect((await call(server, token, 'GET', '/api/companys/acme/auditEvents')).status).toBe(403);
    expect((await call(server, token, 'GET', '/api/companys/acme-kid')).status).toBe(403);
    const permissions = await call(server, token, 'GET', `/api/me/permissions?companyId=acme&domainId=${acme.domainId}`);
    expect(permissions.body.permissions).toEqual(expect.arrayContaining(['users:read', 'sessions:revoke']));
    expect(permissions.body.permissions).not.toContain('users:write');
    const atCompany = await call(server, token, 'GET', '/api/me/permissions?companyId=acme');
    expect(atCompany.body.permissions.sort()).toEqual(['companies:read', 'domains:read']);
    // another tenant's permissions are nobody's business: 404, as its company is everywhere
    expect((await call(server, token, 'GET', `/api/me/permissions?companyId=beta&domainId=${beta.domainId}`)).status).toBe(404);
    expect((await call(server, token, 'GET', '/api/me/permissions?companyId=acme&domainId=nosuch')).status).toBe(404);
  });

  it('a role held by a group reaches the members of nested groups, and taking it back works on the next call', async () => {
    await addUser(acme, 'nested-user');
    const groups = `/api/companys/acme/domainNames/${acme.domainId}/groups`;
    for (const name of ['helpdesk', 'night-shift']) expect((await call(server, acme.adminToken, 'POST', groups, { name, displayName: name, email: `${name}@acme.example` })).status).toBe(201);
    expect((await call(server, acme.adminToken, 'POST', `${groups}/helpdesk/members`, [{ id: 'night-shift', type: 'group' }])).status).toBe(200);
    expect((await call(server, acme.adminToken, 'POST', `${groups}/night-shift/members`, [{ id: 'nested-user', type: 'user' }])).status).toBe(200);
    const given = await assign({ role: 'user-manager', holderType: 'group', holderId: 'helpdesk', holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status).toBe(201);
    const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'nested-user' });
    const users = `/api/companys/acme-kid/domainNames/acme-kid-domain/users`;
    expect((await call(server, token, 'GET', users)).status).toBe(200);
    expect((await call(server, token, 'GET', `/api/acme/${acme.domainId}/application`)).status).toBe(403);

    expect((await call(server, server.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${given.body.id}`)).status).toBe(200);
    expect((await call(server, token, 'GET', users)).status).toBe(401);
  });

  it('an Owner or an Administrator gives roles, no other role; a role is held over the holder\'s company or below; another tenant cannot see or touch them', async () => {
    await addUser(acme, 'to-promote');
    const body = { role: 'auditor', holderType: 'user', holderId: 'to-promote', holderCompanyId: 'acme', holderDomainId: acme.domainId };
    for (const role of ['user-manager', 'support', 'application-manager', 'auditor']) expect((await assign(body, 'acme', tokens[role])).status, role).toBe(403);
    // an Administrator gives what she holds (the Owner role she does not: tests/server/helpDesk.test.ts)
    const byAdministrator = await assign({ ...body, role: 'support' }, 'acme', acme.adminToken);
    expect(byAdministrator.status, JSON.stringify(byAdministrator.body)).toBe(201);
    expect((await call(server, tokens.administrator, 'DELETE', `/api/companys/acme/roleAssignments/${byAdministrator.body.id}`)).status).toBe(200);
    const given = await assign(body, 'acme', tokens.owner);
    expect(given.status, JSON.stringify(given.body)).toBe(201);
    expect((await assign(body, 'acme', tokens.owner)).status).toBe(409);
    // over root, above the holder: refused; as another tenant: not found
    expect((await assign({ ...body, role: 'support' }, 'root')).status).toBe(400);
    expect((await assign({ ...body, role: 'support' }, 'acme', beta.adminToken)).status).toBe(404);
    expect((await call(server, beta.adminToken, 'GET', '/api/companys/acme/roleAssignments')).status).toBe(404);
    expect((await call(server, beta.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${given.body.id}`)).status).toBe(404);
    expect((await call(server, tokens.support, 'GET', '/api/companys/acme/roleAssignments')).status).toBe(403);
    const listed = await call(server, tokens.auditor, 'GET', `/api/companys/acme/roleAssignments?filter=${encodeURIComponent(JSON.stringify({ holderId: 'to-promote' }))}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([expect.objectContaining({ role: 'auditor', holderName: 'to-promote', companyId: 'acme', domainId: null })]);
    // every change is a record of the holder
    const history = await call(server, server.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: 'to-promote' }))}`);
    // under which role: the Owner's, as the guard found it where she acted
    expect(history.body).toContainEqual(expect.objectContaining({ action: 'addRole', actorUserId: 'as-owner', actorRoles: 'owner' }));
  });

  it('the last Owner of the provider stays; a purged holder takes its roles along', async () => {
    const owners = await call(server, server.adminToken, 'GET', `/api/companys/root/roleAssignments?filter=${encodeURIComponent(JSON.stringify({ role: 'owner', companyId: 'root' }))}`);
    expect(owners.body).toHaveLength(1);
    const refused = await call(server, server.adminToken, 'DELETE', `/api/companys/root/roleAssignments/${owners.body[0].id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/last Owner/);

    await addUser(acme, 'short-lived');
    expect((await assign({ role: 'support', holderType: 'user', holderId: 'short-lived', holderCompanyId: 'acme', holderDomainId: acme.domainId })).status).toBe(201);
    await server.db.query(`DELETE FROM users WHERE company_id = 'acme' AND id = 'short-lived'`);
    expect((await server.db.query(`SELECT 1 FROM role_assignments WHERE holder_id = 'short-lived'`)).rowCount).toBe(0);
  });

  it('the administrators group keeps every right it had; tokens still carry user:admin for any console role', async () => {
    for (const permission of ['users:purge', 'applications:secrets', 'companies:write', 'audit:read']) expect(heldGrants(['administrator'], permission)).toBe(true);
    // she gives and takes the roles she holds; only the Owner role is not hers
    expect(roleGrants('administrator', 'roles:write')).toBe(true);
    expect(roleGrants('administrator', 'roles:owner')).toBe(false);
    expect(roleGrants('owner', 'roles:owner')).toBe(true);
    expect((await call(server, acme.adminToken, 'GET', `/api/companys/acme-kid/domainNames/acme-kid-domain/users`)).status).toBe(200);
    const { rows } = await server.db.query<{ holds: boolean }>(`SELECT holds_console_role('acme', $1, 'as-support') AS holds`, [acme.domainId]);
    expect(rows[0].holds).toBe(true);
  });
});

describe('an upgraded installation', () => {
  it('migration 20 makes the root company\'s administrators its Owners, and every administrator keeps every right', async () => {
    const upgraded = await startServer();
    try {
      const { db } = upgraded;
      const reseller = await createTenant(upgraded, 'upgraded', 'root', 'reseller');
      // the data as the previous version left it: no role assignments at all
      // (the rule that keeps an Owner, migration 31, is told there was none: the previous version had no roles)
      await db.transaction(async (tx) => {
        await tx.query(`SELECT set_config('iam.had_owner', 'false', true)`);
        await tx.query(`DELETE FROM role_assignments`);
      });
      await db.query(`DELETE FROM schema_migrations WHERE id = 20`);
      await migrate(db);
      const { rows } = await db.query(`SELECT company_id, holder_type, holder_id, role, scope_company_id FROM role_assignments`);
      expect(rows).toEqual([{ company_id: 'root', holder_type: 'group', holder_id: 'administrators', role: 'owner', scope_company_id: 'root' }]);
      // the seeded administrator (a member of root's administrators) still gives roles; a reseller's administrator still does everything else
      expect((await call(upgraded, upgraded.adminToken, 'GET', '/api/companys/root/roleAssignments')).status).toBe(200);
      const me = await call(upgraded, reseller.adminToken, 'GET', `/api/me/permissions?companyId=upgraded&domainId=${reseller.domainId}`);
      expect(me.body.roles).toEqual(['administrator']);
      expect(me.body.permissions).toEqual(expect.arrayContaining(['users:purge', 'applications:secrets', 'companies:write', 'groups:write', 'sessions:revoke']));
      expect((await call(upgraded, reseller.adminToken, 'POST', `/api/companys/upgraded/domainNames/${reseller.domainId}/groups`, { name: 'new-one', displayName: 'New', email: 'new@upgraded.example' })).status).toBe(201);
    } finally {
      await upgraded.close();
    }
  }, 60_000);
});
