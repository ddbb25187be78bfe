import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, tokenFor, type TestServer } from './helpers.js';

/**
 * The provider's last Owner survives every path (docs/CONSOLE.md, "Roles"): the database refuses
 * any statement that leaves it with no active, unblocked user holding Owner over the root company
 * (migration 31), and the API answers 409 with the reason, whatever the route.
 */
let server: TestServer;
let solo: string;
const root = '/api/companys/root/domainNames/default';

beforeAll(async () => {
  server = await startServer();
  const { db } = server;
  // solo is the only Owner, through the group owners; the seeded administrator is left an Administrator
  await db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('root', 'default', 'solo', 'solo', 'Solo', 'solo@example.com')`);
  expect((await call(server, server.adminToken, 'POST', `${root}/groups`, { name: 'owners', displayName: 'Owners', email: 'owners@example.com' })).status).toBe(201);
  expect((await call(server, server.adminToken, 'POST', `${root}/groups/owners/members`, [{ id: 'solo', type: 'user' }])).status).toBe(200);
  const given = await call(server, server.adminToken, 'POST', '/api/companys/root/roleAssignments', { role: 'owner', holderType: 'group', holderId: 'owners', holderCompanyId: 'root', holderDomainId: 'default' });
  expect(given.status).toBe(201);
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM role_assignments WHERE holder_type = 'user' AND holder_id = 'admin' AND role = 'owner'`);
  expect((await call(server, server.adminToken, 'DELETE', `/api/companys/root/roleAssignments/${rows[0].id}`)).status).toBe(200);
  solo = await tokenFor(server.ctx, { companyId: 'root', domainId: 'default', userId: 'solo' });
}, 120_000);
afterAll(() => server?.close());

const refused = (response: { status: number; body: { message?: string } }) => {
  expect(response.status, response.body.message).toBe(409);
  expect(response.body.message).toMatch(/Owner/);
};

describe('through the API, the only Owner cannot be taken away', () => {
  it('an Administrator cannot block, delete or purge her (she holds more)', async () => {
    expect((await call(server, server.adminToken, 'POST', `${root}/users/solo/block`, {})).status).toBe(403);
    expect((await call(server, server.adminToken, 'PUT', `${root}/users`, [{ id: 'solo', status: 'deleted' }])).status).toBe(403);
    expect((await call(server, server.adminToken, 'DELETE', `${root}/users/solo`)).status).toBe(403);
  });

  it('removing her from the Owner-holding group, emptying it, deleting it, or taking its role back: 409', async () => {
    refused(await call(server, solo, 'DELETE', `${root}/groups/owners/members/solo`));
    refused(await call(server, solo, 'DELETE', `${root}/groups/owners/members`, ['solo']));
    refused(await call(server, solo, 'PUT', `${root}/groups/owners`, { name: 'owners', displayName: 'Owners', email: 'owners@example.com', status: 'deleted' }));
    refused(await call(server, solo, 'PUT', `${root}/groups`, [{ id: 'owners', status: 'deleted' }]));
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM role_assignments WHERE holder_id = 'owners'`);
    refused(await call(server, solo, 'DELETE', `/api/companys/root/roleAssignments/${rows[0].id}`));
    // nothing changed
    const members = await call(server, solo, 'GET', `${root}/groups/owners/members`);
    expect(members.body.map((member: { id: string }) => member.id)).toEqual(['solo']);
  });

  it('with a second Owner the same changes pass', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('root', 'default', 'second', 'second', 'Second', 'second@example.com')`);
    expect((await call(server, solo, 'POST', `${root}/groups/owners/members`, [{ id: 'second', type: 'user' }])).status).toBe(200);
    expect((await call(server, solo, 'POST', `${root}/users/second/block`, {})).status).toBe(200);
    // blocked, she is no Owner any more: solo is the last one again
    refused(await call(server, solo, 'DELETE', `${root}/groups/owners/members/solo`));
    expect((await call(server, solo, 'POST', `${root}/users/second/unblock`, {})).status).toBe(200);
    expect((await call(server, solo, 'DELETE', `${root}/groups/owners/members/second`)).status).toBe(200);
  });
});

describe('in the database, whatever the path', () => {
  const attempt = async (sql: string) => {
    try {
      await server.db.query(sql);
      return 'changed';
    } catch (error) {
      return (error as { code?: string }).code;
    }
  };
  it.each([
    ['block', `UPDATE users SET blocked_at = now() WHERE company_id = 'root' AND id = 'solo'`],
    ['soft delete', `UPDATE users SET status = 'deleted' WHERE company_id = 'root' AND id = 'solo'`],
    ['purge', `DELETE FROM users WHERE company_id = 'root' AND id = 'solo'`],
    ['leave the group', `DELETE FROM group_members WHERE company_id = 'root' AND group_id = 'owners'`],
    ['soft-delete the group', `UPDATE groups SET status = 'deleted' WHERE company_id = 'root' AND id = 'owners'`],
    ['purge the group (drop_holder_roles)', `DELETE FROM groups WHERE company_id = 'root' AND id = 'owners'`],
    ['take the role back', `DELETE FROM role_assignments WHERE role = 'owner'`],
    ['narrow the role to one domain', `UPDATE role_assignments SET scope_domain_id = 'default' WHERE role = 'owner'`],
  ])('%s is refused (IA409)', async (_name, sql) => {
    expect(await attempt(sql)).toBe('IA409');
    const { rows } = await server.db.query(`SELECT provider_has_owner() AS owned`);
    expect(rows[0]).toEqual({ owned: true });
  });

  it('changes that leave an Owner pass', async () => {
    expect(await attempt(`UPDATE users SET status = 'active' WHERE company_id = 'root' AND id = 'solo'`)).toBe('changed');
    expect(await attempt(`UPDATE users SET blocked_at = now() WHERE company_id = 'root' AND id = 'admin'`)).toBe('changed');
    expect(await attempt(`UPDATE users SET blocked_at = NULL WHERE company_id = 'root' AND id = 'admin'`)).toBe('changed');
  });
});
