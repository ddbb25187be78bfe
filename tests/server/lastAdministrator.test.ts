import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepingAnAdministrator } from '../../server/accounts/administrators.js';
import { addAdministrator, call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * No lock-out (docs/CONSOLE.md, "Users" and "Groups"): no write may leave a domain that has an
 * active administrator with none. The tenants' `boss` is the only administrator until a test adds
 * another; the root administrator (a parent company's) makes the changes, so the "you cannot
 * delete yourself" rule is not what refuses them.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const root = (method: Method, url: string, body?: unknown) => call(server, server.adminToken, method, url, body);
const paths = (tenant: Tenant) => {
  const domain = `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;
  return { domain, users: `${domain}/users`, groups: `${domain}/groups`, admins: `${domain}/groups/administrators/members` };
};
const administrators = async (tenant: Tenant) => {
  const answer = await root('GET', `${paths(tenant).domain}/administrators`);
  expect(answer.status).toBe(200);
  return (answer.body as { id: string }[]).map((user) => user.id).sort();
};
const LAST_ADMIN = /no active administrator left/;

/** A tenant whose only administrator is `boss`, through the group `ops` inside administrators. */
async function nestedTenant(companyId: string) {
  const tenant = await createTenant(server, companyId);
  const { groups, admins } = paths(tenant);
  expect((await root('POST', groups, { name: 'ops', displayName: 'Ops', email: 'ops@example.com' })).status).toBe(201);
  expect((await root('POST', `${groups}/ops/members`, [{ id: 'boss', type: 'user' }])).status).toBe(200);
  expect((await root('POST', admins, [{ id: 'ops', type: 'group' }])).status).toBe(200);
  expect((await root('DELETE', `${admins}/boss`)).status).toBe(200);
  expect(await administrators(tenant)).toEqual(['boss']);
  return tenant;
}

describe('the last active administrator of a domain', () => {
  it('cannot be soft-deleted, alone or in a bulk call; the refused call changes nothing', async () => {
    const tenant = await createTenant(server, 'last-soft');
    const { users } = paths(tenant);
    const single = await root('PUT', `${users}/boss`, { username: 'boss', displayName: 'boss', email: 'boss@last-soft.example', status: 'deleted' });
    expect(single.status).toBe(409);
    expect(single.body.message).toMatch(LAST_ADMIN);
    expect(single.body.message).toContain(tenant.domainId);
    const bulk = await root('PUT', users, [{ id: 'worker', status: 'deleted' }, { id: 'boss', status: 'deleted' }]);
    expect(bulk.status).toBe(409);
    expect((await root('GET', `${users}/worker`)).body.status).toBe('active');
    // boss still works
    expect((await call(server, tenant.adminToken, 'GET', users)).status).toBe(200);
  });

  it('can be soft-deleted once there is another one; two administrators cannot both go', async () => {
    const tenant = await createTenant(server, 'last-two');
    await addAdministrator(server, tenant, 'deputy');
    const { users } = paths(tenant);
    expect((await root('PUT', users, [{ id: 'boss', status: 'deleted' }, { id: 'deputy', status: 'deleted' }])).status).toBe(409);
    expect(await administrators(tenant)).toEqual(['boss', 'deputy']);
    expect((await root('PUT', users, [{ id: 'boss', status: 'deleted' }])).status).toBe(200);
    expect(await administrators(tenant)).toEqual(['deputy']);
    expect((await root('PUT', `${users}/deputy`, { username: 'deputy', displayName: 'deputy', email: 'deputy@last-two.example', status: 'deleted' })).status).toBe(409);
  });

  it('cannot be purged (it is active, so delete it first; that is refused)', async () => {
    const tenant = await createTenant(server, 'last-purge');
    const { users } = paths(tenant);
    expect((await root('DELETE', users, ['boss'])).status).toBe(409);
    expect((await root('DELETE', `${users}/boss`)).status).toBe(409);
    expect(await administrators(tenant)).toEqual(['boss']);
  });

  it('cannot be removed from administrators, by either DELETE route', async () => {
    const tenant = await createTenant(server, 'last-member');
    const { admins } = paths(tenant);
    const single = await root('DELETE', `${admins}/boss`);
    expect(single.status).toBe(409);
    expect(single.body.message).toMatch(LAST_ADMIN);
    expect((await root('DELETE', admins, ['boss'])).status).toBe(409);
    expect((await root('DELETE', admins, [{ id: 'boss', type: 'user' }])).status).toBe(409);
    expect(await administrators(tenant)).toEqual(['boss']);
  });

  it('cannot lose the right through a nested group: removed from it, the group taken out, or the group soft-deleted', async () => {
    const tenant = await nestedTenant('last-nested');
    const { groups, admins } = paths(tenant);
    expect((await root('DELETE', `${groups}/ops/members/boss`)).status).toBe(409);
    expect((await root('DELETE', `${admins}/ops?type=group`)).status).toBe(409);
    const soft = await root('PUT', groups, [{ id: 'ops', status: 'deleted' }]);
    expect(soft.status).toBe(409);
    expect(soft.body.message).toMatch(LAST_ADMIN);
    expect((await root('PUT', `${groups}/ops`, { name: 'ops', displayName: 'Ops', email: 'ops@example.com', status: 'deleted' })).status).toBe(409);
    expect(await administrators(tenant)).toEqual(['boss']);
  });

  it('the administrators group itself is never deleted or purged (409)', async () => {
    const tenant = await createTenant(server, 'last-group');
    const { groups } = paths(tenant);
    const soft = await root('PUT', `${groups}/administrators`, { name: 'administrators', displayName: 'Administrators', email: 'admins@example.com', status: 'deleted' });
    expect(soft.status).toBe(409);
    expect(soft.body.message).toContain('administrators');
    expect((await root('DELETE', groups, ['administrators'])).status).toBe(409);
    expect((await root('DELETE', `${groups}/administrators`)).status).toBe(409);
  });

  it('a domain without administrators refuses nothing for that reason', async () => {
    const tenant = await createTenant(server, 'last-none');
    const { domain, users, groups } = paths(tenant);
    // a second domain of the company, with a group and users but nobody in an administrators group
    const other = `/api/companys/${tenant.companyId}/domainNames/spare`;
    expect((await root('POST', `/api/companys/${tenant.companyId}/domainNames`, { name: 'spare', description: 'no admins' })).status).toBe(201);
    expect((await root('GET', `${other}/administrators`)).body).toEqual([]);
    expect((await root('POST', `${other}/groups`, { name: 'crew', displayName: 'Crew', email: 'crew@example.com' })).status).toBe(201);
    const made = await root('POST', `${other}/users`, { username: 'solo', displayName: 'Solo', email: 'solo@example.com', authVerification: '$2b$10$abcdefghijklmnopqrstuuX9YVZl0mSOtRVb8j4UjsqKGmY5Hf0uW' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const solo = made.body.id as string;
    expect((await root('POST', `${other}/groups/crew/members`, [{ id: solo, type: 'user' }])).status).toBe(200);
    expect((await root('DELETE', `${other}/groups/crew/members/${solo}`)).status).toBe(200);
    expect((await root('PUT', `${other}/users`, [{ id: solo, status: 'deleted' }])).status).toBe(200);
    expect((await root('PUT', `${other}/groups`, [{ id: 'crew', status: 'deleted' }])).status).toBe(200);
    // and the first domain's non-administrators come and go freely
    expect((await root('PUT', users, [{ id: 'worker', status: 'deleted' }])).status).toBe(200);
    expect((await root('GET', `${groups}`)).status).toBe(200);
    expect(domain).toContain(tenant.domainId);
  });

  it('two concurrent removals of the two administrators: the second waits for the first, sees it, and is refused', async () => {
    const tenant = await createTenant(server, 'last-race');
    await addAdministrator(server, tenant, 'deputy');
    const { admins } = paths(tenant);
    // The first removal holds its transaction open after its change (boss gone, deputy left) ...
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let changed!: () => void;
    const inside = new Promise<void>((resolve) => (changed = resolve));
    const first = server.db.transaction((tx) =>
      keepingAnAdministrator(tx, tenant.companyId, tenant.domainId, async () => {
        await tx.query(`UPDATE users SET status = 'deleted' WHERE company_id = $1 AND domain_id = $2 AND id = 'boss'`, [tenant.companyId, tenant.domainId]);
        changed();
        await held;
      }),
    );
    await inside;
    // ... while the second takes deputy out of administrators: without the lock it would see boss
    // still active (the first has not committed), pass its check, and both would commit. (Two soft
    // deletes of users would also queue on the domain's user_counts row; a membership change does not.)
    const second = root('DELETE', `${admins}/deputy`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await first;
    const answer = await second;
    expect(answer.status).toBe(409);
    expect(answer.body.message).toMatch(LAST_ADMIN);
    expect(await administrators(tenant)).toEqual(['deputy']);
  });
});

describe('GET …/administrators', () => {
  it("lists the domain's active administrators, direct and nested, without deleted users or deleted groups' members", async () => {
    const tenant = await nestedTenant('admins-list');
    await addAdministrator(server, tenant, 'deputy');
    const { users, groups } = paths(tenant);
    expect((await root('POST', `${groups}/ops/members`, [{ id: 'worker', type: 'user' }])).status).toBe(200);
    const listed = await root('GET', `${paths(tenant).domain}/administrators`);
    expect(listed.body).toEqual([
      { id: 'boss', username: 'boss', displayName: 'boss', email: 'boss@admins-list.example' },
      { id: 'deputy', username: 'deputy', displayName: 'deputy', email: 'deputy@admins-list.example' },
      { id: 'worker', username: 'worker', displayName: 'worker', email: 'worker@admins-list.example' },
    ]);
    expect((await root('PUT', users, [{ id: 'worker', status: 'deleted' }])).status).toBe(200);
    expect(await administrators(tenant)).toEqual(['boss', 'deputy']);
    // ops soft-deleted: boss (only in ops) is no longer an administrator; deputy is
    expect((await root('PUT', groups, [{ id: 'ops', status: 'deleted' }])).status).toBe(200);
    expect(await administrators(tenant)).toEqual(['deputy']);
  });

  it("answers 404 to another tenant's administrator and for an unknown domain; 401 without a token", async () => {
    const tenant = await createTenant(server, 'admins-mine');
    const stranger = await createTenant(server, 'admins-theirs');
    const mine = `${paths(tenant).domain}/administrators`;
    const outsider = await call(server, stranger.adminToken, 'GET', mine);
    expect(outsider.status).toBe(404);
    expect(JSON.stringify(outsider.body)).not.toContain('boss@');
    expect((await root('GET', `/api/companys/${tenant.companyId}/domainNames/nope/administrators`)).status).toBe(404);
    expect((await call(server, '', 'GET', mine)).status).toBe(401);
    expect((await call(server, tenant.userToken, 'GET', mine)).status).toBe(403);
  });
});
