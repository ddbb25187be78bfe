import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAdministrator } from '../../server/accounts/accounts.js';
import { findActiveApi, userPermissions } from '../../server/oauth/resources.js';
import { call, createTenant, startServer, tokenFor, type Tenant, type TestServer } from './helpers.js';

/**
 * Group membership is one SQL function, member_groups (migration 13). On a nested group graph (a
 * diamond, a chain, a group deleted in the middle) the administrator check (the sign-in's
 * user:admin, the guard's api_access), RBAC's token scopes and the member cycle check all give the
 * answer that function gives, and so does the administrators list (its one deliberate second walk,
 * downwards: server/api/administrators.ts).
 */
let server: TestServer;
let tenant: Tenant;
let apiId: string;
const USERS = ['boss', 'worker', 'alice', 'carol', 'dave', 'erin'];
const GROUPS = ['administrators', 'ops', 'team', 'crew', 'top', 'lone'];
/** What each group holds of the RBAC API (granted directly). */
const GRANTS: Record<string, string[]> = { ops: ['read'], top: ['audit'], lone: ['write'], crew: ['list'] };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const root = (method: Method, url: string, body?: unknown) => call(server, server.adminToken, method, url, body);
const domainPath = () => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;

/** The one function: the groups `id` is in, active ones only or all. */
async function memberGroups(type: 'user' | 'group', id: string, activeOnly: boolean): Promise<string[]> {
  const { rows } = await server.db.query<{ g: string }>(`SELECT g FROM member_groups($1, $2, $3, $4, $5) g ORDER BY g`, [
    tenant.companyId,
    tenant.domainId,
    type,
    id,
    activeOnly,
  ]);
  return rows.map((row) => row.g);
}

async function directMembers(groupId: string): Promise<string[]> {
  const { rows } = await server.db.query<{ id: string }>(
    `SELECT member_id AS id FROM group_members WHERE company_id = $1 AND domain_id = $2 AND group_id = $3 AND member_type = 'group'`,
    [tenant.companyId, tenant.domainId, groupId],
  );
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  server = await startServer();
  tenant = await createTenant(server, 'mesh');
  const groups = `${domainPath()}/groups`;
  for (const userId of USERS.filter((id) => id !== 'boss' && id !== 'worker')) {
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@mesh.example')`,
      [tenant.companyId, tenant.domainId, userId],
    );
  }
  for (const name of GROUPS.filter((id) => id !== 'administrators')) {
    expect((await root('POST', groups, { name, displayName: name, email: `${name}@mesh.example` })).status).toBe(201);
  }
  // administrators ∋ ops ∋ team ∋ crew ∋ alice, and ops ∋ crew too (a diamond); top ∋ team (a
  // second way up from team); lone ∋ erin; team ∋ carol; crew ∋ lone
  const edges: [string, 'user' | 'group', string][] = [
    ['administrators', 'group', 'ops'],
    ['ops', 'group', 'team'],
    ['ops', 'group', 'crew'],
    ['team', 'group', 'crew'],
    ['top', 'group', 'team'],
    ['crew', 'user', 'alice'],
    ['team', 'user', 'carol'],
    ['lone', 'user', 'erin'],
    ['crew', 'group', 'lone'],
  ];
  for (const [group, type, id] of edges) expect((await root('POST', `${groups}/${group}/members`, [{ id, type }])).status).toBe(200);

  const api = await root('POST', `/api/${tenant.companyId}/${tenant.domainId}/api`, { name: 'Mesh', identifier: 'urn:mesh', RBAC: true });
  expect(api.status).toBe(201);
  apiId = api.body.id;
  for (const permission of ['read', 'write', 'audit', 'list']) {
    expect((await root('POST', `/api/api/${apiId}/PermissionScopes`, { permission })).status).toBe(201);
  }
  for (const [group, permissions] of Object.entries(GRANTS)) {
    const refs = permissions.map((permission) => ({ apiId, permission }));
    expect((await root('POST', `${groups}/${group}/permissions`, refs)).status).toBe(200);
  }
});
afterAll(() => server?.close());

/** Every reader of membership against member_groups, for every user and every pair of groups. */
async function expectOneAnswer() {
  const client = { id: 'mesh-client', companyId: tenant.companyId, domainId: tenant.domainId, audience: '' } as never;
  const api = (await findActiveApi(server.db, client, 'urn:mesh'))!;
  const expectedAdmins: string[] = [];
  for (const userId of USERS) {
    const groups = await memberGroups('user', userId, true);
    const admin = groups.includes('administrators');
    if (admin) expectedAdmins.push(userId);
    // the administrator check, and what the guard makes of it on a call
    expect(await isAdministrator(server.db, tenant.companyId, tenant.domainId, userId), userId).toBe(admin);
    const token = await tokenFor(server.ctx, { companyId: tenant.companyId, domainId: tenant.domainId, userId });
    expect((await call(server, token, 'GET', `/api/companys/${tenant.companyId}`)).status, userId).toBe(admin ? 200 : 403);
    // RBAC: the permissions a token for the API carries, and its scope
    const held = [...new Set(groups.flatMap((group) => GRANTS[group] ?? []))].sort();
    // (the authorization server limits a token's API scopes to these: server/oauth/provider.ts)
    expect(await userPermissions(server.db, tenant.companyId, tenant.domainId, userId, api.id), userId).toEqual(held);
  }
  // the administrators list walks down from the group: the same users
  const listed = await root('GET', `${domainPath()}/administrators`);
  expect(listed.body.map((user: { id: string }) => user.id).sort()).toEqual(expectedAdmins.sort());

  // the cycle check: adding X to Y is refused exactly when X already contains Y, deleted groups included
  const { rows: live } = await server.db.query<{ id: string }>(`SELECT id FROM groups WHERE company_id = $1 AND domain_id = $2 AND status = 'active'`, [
    tenant.companyId,
    tenant.domainId,
  ]);
  for (const target of GROUPS) {
    const containers = await memberGroups('group', target, false);
    const candidates = await root('GET', `${domainPath()}/groups/${target}/candidates?type=group&range=[0,99]`);
    expect(candidates.status).toBe(200);
    const members = await directMembers(target);
    const expected = live.map((row) => row.id).filter((id) => id !== target && !containers.includes(id) && !members.includes(id));
    expect(candidates.body.map((group: { id: string }) => group.id).sort(), target).toEqual(expected.sort());
    for (const container of containers.filter((id) => live.some((row) => row.id === id))) {
      const refused = await root('POST', `${domainPath()}/groups/${target}/members`, [{ id: container, type: 'group' }]);
      expect(refused.status, `${container} into ${target}`).toBe(400);
      expect(refused.body.message).toContain('cycle');
    }
  }
  return expectedAdmins;
}

describe('member_groups, the one membership walk', () => {
  it('gives the admin check, RBAC scopes, the administrators list and the cycle check one answer on a nested graph', async () => {
    expect(await memberGroups('user', 'alice', true)).toEqual(['administrators', 'crew', 'ops', 'team', 'top']);
    expect(await memberGroups('user', 'erin', true)).toEqual(['administrators', 'crew', 'lone', 'ops', 'team', 'top']);
    expect((await expectOneAnswer()).sort()).toEqual(['alice', 'boss', 'carol', 'erin']);
  });

  it('a deleted group passes nothing on, but still counts for cycles (it may be recovered)', async () => {
    // ops deleted: alice, carol and erin are administrators through ops only, so no longer; boss still is
    const groups = `${domainPath()}/groups`;
    expect((await root('PUT', `${groups}/ops`, { name: 'ops', displayName: 'ops', email: 'ops@mesh.example', status: 'deleted' })).status).toBe(200);
    expect(await memberGroups('user', 'alice', true)).toEqual(['crew', 'team', 'top']);
    expect(await memberGroups('group', 'crew', false)).toEqual(['administrators', 'ops', 'team', 'top']);
    expect(await expectOneAnswer()).toEqual(['boss']);
    // top reaches crew only through team; team deleted too: adding top into crew is still a cycle
    expect((await root('PUT', `${groups}/team`, { name: 'team', displayName: 'team', email: 'team@mesh.example', status: 'deleted' })).status).toBe(200);
    expect(await memberGroups('user', 'alice', true)).toEqual(['crew']);
    expect(await expectOneAnswer()).toEqual(['boss']);
    const refused = await root('POST', `${groups}/crew/members`, [{ id: 'top', type: 'group' }]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('cycle');
    // recovered: the rights come back with the group
    for (const name of ['ops', 'team']) {
      expect((await root('PUT', `${groups}/${name}`, { name, displayName: name, email: `${name}@mesh.example`, status: 'active' })).status).toBe(200);
    }
    expect((await expectOneAnswer()).sort()).toEqual(['alice', 'boss', 'carol', 'erin']);
  });
});
