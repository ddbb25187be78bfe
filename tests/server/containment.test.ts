import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldGrants, permissionsOf, ROLE_IDS } from '../../server/api/roles.js';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * Containment (docs/CONSOLE.md, "Roles"): nobody acts on, or gives, more than they hold. A lesser
 * role cannot join a role-giving group, take over an account above hers, or change a group that
 * carries a role; the same role, or a greater one, can. Every route that writes a principal is found
 * in the OpenAPI document (x-acts-on-principals) and tried by every role against a target holding
 * every role.
 */
let server: TestServer;
let acme: Tenant;
let beta: Tenant;
/** A caller per role over acme's subtree. */
const callers: Record<string, string> = {};
let hash: string;

async function addUser(tenant: { companyId: string; domainId: string }, userId: string) {
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@' || $1 || '.example')`, [
    tenant.companyId,
    tenant.domainId,
    userId,
  ]);
}

async function addGroup(tenant: Tenant, groupId: string) {
  const created = await call(server, server.adminToken, 'POST', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups`, { name: groupId, displayName: groupId, email: `${groupId}@x.example` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

async function assign(role: string, holderType: 'user' | 'group', holderId: string, tenant: Tenant, scope: { companyId: string; domainId?: string } = { companyId: tenant.companyId }) {
  const given = await call(server, server.adminToken, 'POST', `/api/companys/${scope.companyId}/roleAssignments`, {
    role,
    holderType,
    holderId,
    holderCompanyId: tenant.companyId,
    holderDomainId: tenant.domainId,
    ...(scope.domainId ? { domainId: scope.domainId } : {}),
  });
  expect(given.status, JSON.stringify(given.body)).toBe(201);
}

/** Does holding `role` give everything `other` gives? */
const contains = (role: string, other: string) => permissionsOf([other]).every((permission) => heldGrants([role], permission));

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  hash = await bcrypt.hash('a new password nobody knows', 10);
  for (const role of ROLE_IDS) {
    await addUser(acme, `as-${role}`);
    await assign(role, 'user', `as-${role}`, acme);
    callers[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: `as-${role}` });
  }
}, 180_000);
afterAll(() => server?.close());

const domainPath = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;

describe('joining a group that gives a role is giving a role', () => {
  it('a User manager of the root company cannot join root/default administrators, and her token gains nothing', async () => {
    await addUser({ companyId: 'root', domainId: 'default' }, 'root-um');
    const root = { companyId: 'root', domainId: 'default', adminToken: server.adminToken } as Tenant;
    await assign('user-manager', 'user', 'root-um', root);
    const token = await tokenFor(server.ctx, { companyId: 'root', domainId: 'default', userId: 'root-um' });
    const joined = await call(server, token, 'POST', '/api/companys/root/domainNames/default/groups/administrators/members', [{ id: 'root-um', type: 'user' }]);
    expect(joined.status).toBe(403);
    expect(joined.body.message).toMatch(/gives a role to its members/);
    const created = await call(server, token, 'POST', `/api/acme/${acme.domainId}/application`, { client_name: 'mine', redirect_uris: ['https://evil.example/cb'] });
    expect(created.status).toBe(403);
    // nor by adding a group she made into administrators
    expect((await call(server, token, 'POST', '/api/companys/root/domainNames/default/groups', { name: 'mine', displayName: 'Mine', email: 'mine@x.example' })).status).toBe(201);
    expect((await call(server, token, 'POST', '/api/companys/root/domainNames/default/groups/mine/members', [{ id: 'root-um', type: 'user' }])).status).toBe(200);
    expect((await call(server, token, 'POST', '/api/companys/root/domainNames/default/groups/administrators/members', [{ id: 'mine', type: 'group' }])).status).toBe(403);
  });

  it("a company's User manager, and one scoped to a domain, cannot join the company's administrators", async () => {
    const company = await call(server, callers['user-manager'], 'POST', `${domainPath(acme)}/groups/administrators/members`, [{ id: 'as-user-manager', type: 'user' }]);
    expect(company.status).toBe(403);
    await addUser(acme, 'domain-um');
    await assign('user-manager', 'user', 'domain-um', acme, { companyId: 'acme', domainId: acme.domainId });
    const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'domain-um' });
    expect((await call(server, token, 'POST', `${domainPath(acme)}/groups/administrators/members`, [{ id: 'domain-um', type: 'user' }])).status).toBe(403);
    const me = await call(server, token, 'GET', `/api/me/permissions?companyId=acme&domainId=${acme.domainId}`);
    expect(me.body.roles).toEqual(['user-manager']);
  });

  it('a group holding Owner is a role too: a User manager cannot join it, empty it or rename it; an Owner can', async () => {
    await addGroup(acme, 'owners');
    await assign('owner', 'group', 'owners', acme);
    const um = callers['user-manager'];
    expect((await call(server, um, 'POST', `${domainPath(acme)}/groups/owners/members`, [{ id: 'as-user-manager', type: 'user' }])).status).toBe(403);
    expect((await call(server, callers.owner, 'POST', `${domainPath(acme)}/groups/owners/members`, [{ id: 'as-support', type: 'user' }])).status).toBe(200);
    expect((await call(server, um, 'DELETE', `${domainPath(acme)}/groups/owners/members/as-support`)).status).toBe(403);
    expect((await call(server, um, 'PUT', `${domainPath(acme)}/groups/owners`, { name: 'owners', displayName: 'Renamed', email: 'owners@x.example' })).status).toBe(403);
    expect((await call(server, um, 'PUT', `${domainPath(acme)}/groups`, [{ id: 'owners', status: 'deleted' }])).status).toBe(403);
    // as-support now holds Owner through the group: a User manager no longer contains her
    expect((await call(server, um, 'POST', `${domainPath(acme)}/users/as-support/block`, {})).status).toBe(403);
    expect((await call(server, callers.owner, 'DELETE', `${domainPath(acme)}/groups/owners/members/as-support`)).status).toBe(200);
    expect((await call(server, um, 'POST', `${domainPath(acme)}/users/as-support/unlock`, {})).status).toBe(200);
  });

  it('an Administrator adds to administrators people she contains (she gives a role she holds), never to a group carrying Owner; she manages plain groups', async () => {
    const admin = callers.administrator;
    expect((await call(server, admin, 'POST', `${domainPath(acme)}/groups/administrators/members`, [{ id: 'as-support', type: 'user' }])).status).toBe(200);
    expect((await call(server, admin, 'DELETE', `${domainPath(acme)}/groups/administrators/members/as-support`)).status).toBe(200);
    // giving Owner through the group that carries it is giving Owner: hers to give only if she held it
    const refused = await call(server, admin, 'POST', `${domainPath(acme)}/groups/owners/members`, [{ id: 'as-support', type: 'user' }]);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/group owners: it holds the Owner role over company acme/);
    // nor takes an Owner's membership away
    expect((await call(server, callers.owner, 'POST', `${domainPath(acme)}/groups/owners/members`, [{ id: 'as-support', type: 'user' }])).status).toBe(200);
    expect((await call(server, admin, 'DELETE', `${domainPath(acme)}/groups/owners/members/as-support`)).status).toBe(403);
    expect((await call(server, callers.owner, 'DELETE', `${domainPath(acme)}/groups/owners/members/as-support`)).status).toBe(200);
    await addGroup(acme, 'plain');
    expect((await call(server, admin, 'POST', `${domainPath(acme)}/groups/plain/members`, [{ id: 'as-support', type: 'user' }])).status).toBe(200);
    expect((await call(server, callers['user-manager'], 'DELETE', `${domainPath(acme)}/groups/plain/members/as-support`)).status).toBe(200);
  });
});

describe('account takeover of someone above you', () => {
  const targets = ['administrator', 'owner'];
  it.each(targets)('a User manager cannot take over an %s: password, address, factors, required actions, sessions, links', async (role) => {
    const id = `takeover-${role}`;
    await addUser(acme, id);
    await assign(role, 'user', id, acme);
    const um = callers['user-manager'];
    const base = `${domainPath(acme)}/users/${id}`;
    const attempts: [string, string, unknown][] = [
      ['POST', `${base}/password`, { authVerification: hash }],
      ['PUT', base, { username: id, displayName: id, email: 'mine@evil.example' }],
      ['PUT', `${domainPath(acme)}/users`, [{ id, authVerification: hash }]],
      ['DELETE', `${base}/factors`, undefined],
      ['PUT', `${base}/requiredActions`, { requiredActions: ['enrol-mfa'] }],
      ['POST', `${base}/signOutEverywhere`, {}],
      ['POST', `${base}/sendResetLink`, {}],
      ['POST', `${base}/block`, {}],
      ['POST', `${domainPath(acme)}/users/block`, { ids: [id] }],
      ['PUT', `${domainPath(acme)}/users`, [{ id, status: 'deleted' }]],
    ];
    for (const [method, url, body] of attempts) {
      const response = await call(server, um, method as never, url, body);
      expect(response.status, `${method} ${url}: ${response.text}`).toBe(403);
      expect(response.body.message).toMatch(new RegExp(`${id}.*(Owner|Administrator)`));
    }
    const { rows } = await server.db.query<{ email: string; password_hash: string | null; blocked_at: Date | null }>(`SELECT email, password_hash, blocked_at FROM users WHERE company_id = 'acme' AND id = $1`, [id]);
    expect(rows[0]).toEqual({ email: `${id}@acme.example`, password_hash: null, blocked_at: null });
  });

  it('Support cannot block the Owner; an Administrator cannot block, delete or purge the Owner; an Owner can block an Owner', async () => {
    await addUser(acme, 'second-owner');
    await assign('owner', 'user', 'second-owner', acme);
    expect((await call(server, callers.support, 'POST', `${domainPath(acme)}/users/second-owner/block`, {})).status).toBe(403);
    expect((await call(server, callers.administrator, 'POST', `${domainPath(acme)}/users/second-owner/block`, {})).status).toBe(403);
    expect((await call(server, callers.administrator, 'PUT', `${domainPath(acme)}/users`, [{ id: 'second-owner', status: 'deleted' }])).status).toBe(403);
    expect((await call(server, callers.administrator, 'DELETE', `${domainPath(acme)}/users/second-owner`)).status).toBe(403);
    expect((await call(server, callers.owner, 'POST', `${domainPath(acme)}/users/second-owner/block`, {})).status).toBe(200);
    expect((await call(server, callers.owner, 'POST', `${domainPath(acme)}/users/second-owner/unblock`, {})).status).toBe(200);
  });

  it('a bulk action stops at the first account above the caller and changes none', async () => {
    await addUser(acme, 'plain-user');
    const refused = await call(server, callers.support, 'POST', `${domainPath(acme)}/users/block`, { ids: ['plain-user', 'as-administrator'] });
    expect(refused.status).toBe(403);
    const { rows } = await server.db.query(`SELECT id FROM users WHERE company_id = 'acme' AND blocked_at IS NOT NULL AND id IN ('plain-user', 'as-administrator')`);
    expect(rows).toEqual([]);
    expect((await call(server, callers.support, 'POST', `${domainPath(acme)}/users/block`, { ids: ['plain-user'] })).status).toBe(200);
  });

  it("a role held over another company counts: acme's User manager cannot reset a root user who is Owner over acme", async () => {
    // a root user holding Owner over acme is out of acme's reach anyway (404: not in its subtree)
    await addUser({ companyId: 'root', domainId: 'default' }, 'root-over-acme');
    await assign('owner', 'user', 'root-over-acme', { companyId: 'root', domainId: 'default', adminToken: server.adminToken } as Tenant, { companyId: 'acme' });
    expect((await call(server, callers['user-manager'], 'POST', '/api/companys/root/domainNames/default/users/root-over-acme/password', { authVerification: hash })).status).toBe(404);
    // and a root User manager (over root's subtree) does not hold Owner over acme
    await addUser({ companyId: 'root', domainId: 'default' }, 'root-um2');
    await assign('user-manager', 'user', 'root-um2', { companyId: 'root', domainId: 'default', adminToken: server.adminToken } as Tenant);
    const token = await tokenFor(server.ctx, { companyId: 'root', domainId: 'default', userId: 'root-um2' });
    const refused = await call(server, token, 'POST', '/api/companys/root/domainNames/default/users/root-over-acme/password', { authVerification: hash });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/Owner role over company acme/);
  });

  it('another tenant cannot act on acme at all (404), whatever its role', async () => {
    expect((await call(server, beta.adminToken, 'POST', `${domainPath(acme)}/users/as-support/block`, {})).status).toBe(404);
    expect((await call(server, beta.adminToken, 'POST', `${domainPath(acme)}/groups/administrators/members`, [{ id: 'as-support', type: 'user' }])).status).toBe(404);
  });
});

interface Operation {
  'x-permission'?: string;
  'x-acts-on-principals'?: boolean;
}

/** A body the route accepts for this target, so that only containment (or the permission) can refuse it. */
function sample(method: string, path: string, target: { id: string; type: 'user' | 'group' }): { url: string; body?: unknown } | undefined {
  const tail = path.replace('/api/companys/{companyId}/domainNames/{domainId}', '');
  const id = target.id;
  const fill = (url: string) =>
    `${domainPath(acme)}${url.replace('{userId}', id).replace('{groupId}', target.type === 'group' ? id : 'plain').replace('{memberId}', id).replace('{sessionId}', 'none').replace('{factorId}', 'none').replace('{identityId}', 'none:none')}`;
  const table: Record<string, unknown> = {
    'PUT /users/{userId}': { username: id, displayName: id, email: `${id}@acme.example` },
    'PUT /users': [{ id, displayName: id }],
    'DELETE /users/{userId}': undefined,
    'DELETE /users': [id],
    'POST /users/{userId}/unlock': {},
    'POST /users/{userId}/block': {},
    'POST /users/{userId}/unblock': {},
    'POST /users/{userId}/password': { authVerification: hash },
    'PUT /users/{userId}/requiredActions': { requiredActions: [] },
    'POST /users/{userId}/sendResetLink': {},
    'POST /users/{userId}/sendInvitation': {},
    'POST /users/{userId}/sendVerification': {},
    'DELETE /users/{userId}/factors': undefined,
    'DELETE /users/{userId}/factors/{factorId}': undefined,
    'DELETE /users/{userId}/identities/{identityId}': undefined,
    'DELETE /users/{userId}/sessions/{sessionId}': undefined,
    'DELETE /users/{userId}/sessions': ['none'],
    'POST /users/{userId}/signOutEverywhere': {},
    'POST /users/block': { ids: [id] },
    'POST /users/unblock': { ids: [id] },
    'POST /users/signOutEverywhere': { ids: [id] },
    'POST /users/sendResetLink': { ids: [id] },
    'PUT /groups/{groupId}': { name: id, displayName: id, email: `${id}@x.example` },
    'PUT /groups': [{ id, displayName: id }],
    'DELETE /groups/{groupId}': undefined,
    'DELETE /groups': [id],
    'POST /groups/{groupId}/members': [{ id, type: 'user' }],
    'DELETE /groups/{groupId}/members/{memberId}': undefined,
    'DELETE /groups/{groupId}/members': [id],
    'POST /groups/{groupId}/permissions': [{ apiId: 'none', permission: 'none' }],
    'DELETE /groups/{groupId}/permissions': [{ apiId: 'none', permission: 'none' }],
  };
  const key = `${method} ${tail}`;
  if (!(key in table)) return undefined;
  // a route on a group acts on the group; a members route on the member (a user), in a plain group
  const onGroup = tail.startsWith('/groups') && !tail.includes('/members');
  if (onGroup !== (target.type === 'group')) return { url: '' };
  return { url: fill(tail), body: table[key] };
}

describe('the containment matrix, from the OpenAPI document', () => {
  const principalRoutes = () => {
    const document = server.app.swagger() as { paths: Record<string, Record<string, Operation>> };
    return Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation['x-acts-on-principals'])
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, permission: operation['x-permission']! })),
    );
  };

  it('every route that writes a principal is in the matrix', () => {
    const routes = principalRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(28);
    const missing = routes.filter((route) => sample(route.method, route.path, { id: 'x', type: 'user' }) === undefined).map((route) => `${route.method} ${route.path}`);
    expect(missing).toEqual([]);
  });

  it('each role against a target holding each role: 403 exactly when the target holds more', async () => {
    await call(server, server.adminToken, 'POST', `${domainPath(acme)}/groups`, { name: 'plain', displayName: 'plain', email: 'plain@x.example' });
    // a user and a group holding each role
    for (const role of ROLE_IDS) {
      await addUser(acme, `t-${role}`);
      await assign(role, 'user', `t-${role}`, acme);
      await call(server, server.adminToken, 'POST', `${domainPath(acme)}/groups`, { name: `tg-${role}`, displayName: role, email: `tg-${role}@x.example` });
      await assign(role, 'group', `tg-${role}`, acme);
    }
    const failures: string[] = [];
    const routes = principalRoutes();
    // refusals first (they change nothing), then what must pass
    for (const expectRefusal of [true, false]) {
      for (const callerRole of ROLE_IDS) {
        for (const targetRole of ROLE_IDS) {
          if (contains(callerRole, targetRole) === expectRefusal) continue;
          for (const route of routes) {
            if (route.permission !== 'any' && !heldGrants([callerRole], route.permission)) continue; // the guard's 403, tested in roles.test.ts
            for (const type of ['user', 'group'] as const) {
              const request = sample(route.method, route.path, { id: type === 'user' ? `t-${targetRole}` : `tg-${targetRole}`, type });
              if (!request?.url) continue;
              const response = await call(server, callers[callerRole], route.method as never, request.url, request.body);
              const label = `${callerRole} -> ${type} holding ${targetRole}: ${route.method} ${request.url} ${response.status}`;
              if (response.status >= 500) failures.push(label);
              else if (expectRefusal && response.status !== 403) failures.push(`${label}, expected 403`);
              else if (!expectRefusal && response.status === 403 && !/gives a role to its members/.test(response.body.message)) failures.push(`${label}: ${response.body.message}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

describe('the rights the console greys its controls from', () => {
  it("says why a User manager may not change administrators' members or act on an Administrator; an Owner may", async () => {
    const group = await call(server, callers['user-manager'], 'GET', `${domainPath(acme)}/groups/administrators/rights`);
    expect(group.status).toBe(200);
    expect(group.body).toMatchObject({ mayActOn: false, membership: { givesRoles: true, allowed: false } });
    expect(group.body.membership.reason).toMatch(/roles:write/);
    const user = await call(server, callers['user-manager'], 'GET', `${domainPath(acme)}/users/as-administrator/rights`);
    expect(user.body).toEqual({ mayActOn: false, reason: expect.stringMatching(/Administrator role/) });
    expect((await call(server, callers['user-manager'], 'GET', `${domainPath(acme)}/users/as-support/rights`)).body).toEqual({ mayActOn: true, reason: null });
    expect((await call(server, callers.owner, 'GET', `${domainPath(acme)}/groups/administrators/rights`)).body).toEqual({
      mayActOn: true,
      reason: null,
      membership: { givesRoles: true, allowed: true, reason: null },
    });
  });

  it('another tenant gets 404, a role without the read permission 403, an unknown id 404', async () => {
    expect((await call(server, beta.adminToken, 'GET', `${domainPath(acme)}/users/as-owner/rights`)).status).toBe(404);
    expect((await call(server, callers['application-manager'], 'GET', `${domainPath(acme)}/users/as-owner/rights`)).status).toBe(403);
    expect((await call(server, callers.owner, 'GET', `${domainPath(acme)}/groups/nope/rights`)).status).toBe(404);
  });
});

describe('deleting a company or a domain deletes its people: the same rule', () => {
  it("an Administrator cannot purge a domain or a company where someone holds more than she does; an Owner can", async () => {
    // a second domain of acme where a user holds Owner over acme
    const spare = await call(server, server.adminToken, 'POST', '/api/companys/acme/domainNames', { name: 'spare', description: 'spare' });
    expect(spare.status, JSON.stringify(spare.body)).toBe(201);
    await addUser({ companyId: 'acme', domainId: 'spare' }, 'spare-owner');
    await assign('owner', 'user', 'spare-owner', { companyId: 'acme', domainId: 'spare', adminToken: server.adminToken } as Tenant);
    const refused = await call(server, callers.administrator, 'DELETE', '/api/companys/acme/domainNames/spare');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/spare-owner.*Owner/);
    expect((await server.db.query(`SELECT 1 FROM users WHERE company_id = 'acme' AND id = 'spare-owner'`)).rows).toHaveLength(1);
    expect((await call(server, callers.owner, 'DELETE', '/api/companys/acme/domainNames/spare')).status).toBe(200);

    // a customer of acme whose own Owner holds more than acme's Administrator
    const kid = await createTenant(server, 'acme-kid', 'acme', 'customer');
    await addUser(kid, 'kid-owner');
    await assign('owner', 'user', 'kid-owner', kid);
    const company = await call(server, callers.administrator, 'DELETE', '/api/companys/acme-kid');
    expect(company.status).toBe(403);
    expect((await server.db.query(`SELECT 1 FROM companies WHERE id = 'acme-kid'`)).rows).toHaveLength(1);
    expect((await call(server, callers.owner, 'DELETE', '/api/companys/acme-kid')).status).not.toBe(403);
  });
});
