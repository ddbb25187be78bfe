import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * The guard remembers the roles a sign-in holds at a place with the rights version they were found at
 * (migration 34) and computes them again as soon as anything that decides rights changes: an
 * assignment, a membership, a group's status, the company tree. Each change is seen on the very next
 * call, in either direction.
 */
let server: TestServer;
let acme: Tenant;
let token: string;
const users = () => `/api/companys/acme/domainNames/${acme.domainId}/users`;
const groups = () => `/api/companys/acme/domainNames/${acme.domainId}/groups`;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'sam', 'sam', 'Sam', 'sam@acme.example')`, [acme.domainId]);
}, 60_000);
afterAll(() => server?.close());

const assign = (body: Record<string, unknown>) =>
  call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { holderCompanyId: 'acme', holderDomainId: acme.domainId, ...body });
const version = async () => Number((await server.db.query<{ version: string }>(`SELECT version FROM rights_version`)).rows[0].version);

describe('roles found once per change of rights', () => {
  it('a role given, changed through a group, the group deleted and recovered: each seen on the next call', async () => {
    const support = await assign({ role: 'support', holderType: 'user', holderId: 'sam' });
    expect(support.status).toBe(201);
    // (a console token carries user:admin only for someone who holds a role when it is issued)
    token = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'sam' });
    // read twice: the second call goes by the remembered roles
    expect((await call(server, token, 'GET', users())).status).toBe(200);
    expect((await call(server, token, 'GET', users())).status).toBe(200);
    expect((await call(server, token, 'POST', groups(), { name: 'ops', displayName: 'Ops', email: 'ops@acme.example' })).status).toBe(403);

    // User manager through a group: sam joins it; the next call may write groups
    expect((await call(server, server.adminToken, 'POST', groups(), { name: 'managers', displayName: 'Managers', email: 'm@acme.example' })).status).toBe(201);
    expect((await assign({ role: 'user-manager', holderType: 'group', holderId: 'managers' })).status).toBe(201);
    expect((await call(server, token, 'POST', groups(), { name: 'ops', displayName: 'Ops', email: 'ops@acme.example' })).status).toBe(403);
    const before = await version();
    expect((await call(server, server.adminToken, 'POST', `${groups()}/managers/members`, [{ id: 'sam', type: 'user' }])).status).toBe(200);
    expect(await version()).toBeGreaterThan(before);
    expect((await call(server, token, 'POST', groups(), { name: 'ops', displayName: 'Ops', email: 'ops@acme.example' })).status).toBe(201);

    // the group soft-deleted: its role is gone on the next call; recovered: back
    expect((await call(server, server.adminToken, 'PUT', groups(), [{ id: 'managers', status: 'deleted' }])).status).toBe(200);
    expect((await call(server, token, 'POST', groups(), { name: 'ops2', displayName: 'Ops 2', email: 'ops2@acme.example' })).status).toBe(403);
    expect((await call(server, server.adminToken, 'PUT', groups(), [{ id: 'managers', status: 'active' }])).status).toBe(200);
    expect((await call(server, token, 'POST', groups(), { name: 'ops2', displayName: 'Ops 2', email: 'ops2@acme.example' })).status).toBe(201);
  });

  it('the last role taken back: refused on the next call, and stays refused', async () => {
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM role_assignments WHERE company_id = 'acme' AND (holder_id = 'sam' OR holder_id = 'managers')`);
    expect((await call(server, token, 'GET', users())).status).toBe(200);
    expect((await call(server, server.adminToken, 'DELETE', '/api/companys/acme/roleAssignments', rows.map((row) => row.id))).status).toBe(200);
    expect((await call(server, token, 'GET', users())).status).toBe(401);
  });

  it('a change made straight in SQL is seen too (the triggers bump the version whatever the path)', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'kim', 'kim', 'Kim', 'kim@acme.example')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', 'kim', 'user-manager', 'acme')`, [acme.domainId]);
    const kim = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'kim' });
    expect((await call(server, kim, 'POST', groups(), { name: 'k1', displayName: 'K1', email: 'k1@acme.example' })).status).toBe(201);
    expect((await call(server, kim, 'POST', groups(), { name: 'k2', displayName: 'K2', email: 'k2@acme.example' })).status).toBe(201);
    await server.db.query(`UPDATE role_assignments SET role = 'support' WHERE holder_id = 'kim'`);
    expect((await call(server, kim, 'POST', groups(), { name: 'k3', displayName: 'K3', email: 'k3@acme.example' })).status).toBe(403);
  });
});
