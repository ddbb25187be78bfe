import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, tokenFor, type Tenant, type TestServer } from './helpers.js';

let server: TestServer;
let tenant: Tenant;
beforeAll(async () => {
  server = await startServer();
  tenant = await createTenant(server, 'acme');
});
afterAll(() => server?.close());

const base = '/api/companys/acme/domainNames/acme-domain/groups';
const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, tenant.adminToken, method, url, body);
const group = (name: string, extra: object = {}) => ({ name, displayName: `Group ${name}`, email: `${name}@acme.example`, ...extra });
const ids = (body: { id: string }[]) => body.map((g) => g.id);
const members = (groupId: string, query = '') => as('GET', `${base}/${groupId}/members${query}`);
const addUser = (userId: string, displayName: string) =>
  server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', $1, $1, $2, $1 || '@acme.example')`, [
    userId,
    displayName,
  ]);

describe('groups', () => {
  it('creates a group whose id is its name and reads it back', async () => {
    const res = await as('POST', base, group('sales', { notes: 'the sales team' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 'sales', name: 'sales', displayName: 'Group sales', notes: 'the sales team', email: 'sales@acme.example', status: 'active', createdAt: expect.any(String), updatedAt: expect.any(String), memberCount: 0, deletedAt: null, deletedBy: null });
    expect((await as('GET', `${base}/sales`)).body).toEqual(res.body);
    expect((await as('GET', `${base}/ghost`)).status).toBe(404);
  });

  it('refuses duplicates, a differing id and missing or malformed fields', async () => {
    const dup = await as('POST', base, group('SALES'));
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('duplicated error: SALES already exist!');
    expect((await as('POST', base, group('x1', { id: 'x2' }))).body.message).toContain('id');
    for (const field of ['name', 'displayName', 'email']) {
      const res = await as('POST', base, group('nofield', { [field]: undefined }));
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    }
    const email = await as('POST', base, group('bad', { email: 'nope' }));
    expect(email.status).toBe(400);
    expect(email.body.message).toContain('email');
    const name = await as('POST', base, group('with space'));
    expect(name.status).toBe(400);
    expect(name.body.message).toContain('name');
  });

  it('pages, searches and filters by status and ids', async () => {
    for (const name of ['pa', 'pb', 'pc', 'pd']) await as('POST', base, group(name, { displayName: `Pager ${name}` }));
    await as('PUT', base, [{ id: 'pd', status: 'deleted' }]);
    const page = await as('GET', `${base}?range=[0,1]&filter={"q":"pager"}`);
    expect(ids(page.body)).toEqual(['pa', 'pb']);
    expect(page.headers['content-range']).toBe('groups 0-1/4');
    const live = await as('GET', `${base}?condition=status,!=,deleted&filter={"q":"pager"}`);
    expect(ids(live.body)).toEqual(['pa', 'pb', 'pc']);
    expect(ids((await as('GET', `${base}?filter={"status":"deleted"}`)).body)).toEqual(['pd']);
    expect(ids((await as('GET', `${base}?filter={"id":["pc","sales"]}`)).body).sort()).toEqual(['pc', 'sales']);
    expect(ids((await as('GET', `${base}?filter={"q":"sales@acme"}`)).body)).toEqual(['sales']);
  });

  it('updates one group, never its id', async () => {
    const res = await as('PUT', `${base}/sales`, group('sales', { displayName: 'Sales', notes: null }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'sales', name: 'sales', displayName: 'Sales', notes: '', email: 'sales@acme.example', status: 'active', createdAt: expect.any(String), updatedAt: expect.any(String), memberCount: 0, deletedAt: null, deletedBy: null });
    expect((await as('PUT', `${base}/sales`, group('sales', { id: 'pa' }))).status).toBe(400);
    expect((await as('PUT', `${base}/ghost`, group('ghost'))).status).toBe(404);
    // the name is the id: a rename (here onto another group's name) is refused before any clash
    const renamed = await as('PUT', `${base}/sales`, group('PA'));
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toBe('sales: name cannot be changed: it is the group id');
    expect(renamed.body).toMatchObject({ code: 'group.nameChanged', params: { group: 'sales' } });
  });

  it('soft deletes, recovers and purges, all or nothing in bulk', async () => {
    const refused = await as('DELETE', `${base}/pa`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('delete the group first');
    expect(refused.body).toMatchObject({ code: 'group.purgeActive', params: { group: 'pa' } });

    const bulk = await as('PUT', base, [{ id: 'pa', status: 'deleted' }, { id: 'ghost', status: 'deleted' }]);
    expect(bulk.status).toBe(404);
    expect((await as('GET', `${base}/pa`)).body.status).toBe('active');
    const deleted = await as('PUT', base, [{ id: 'pa', status: 'deleted' }, { id: 'pb', status: 'deleted' }]);
    expect(deleted.body.map((g: { status: string }) => g.status)).toEqual(['deleted', 'deleted']);
    const recovered = await as('PUT', base, [{ id: 'pb', status: 'active' }]);
    expect(recovered.body[0]).toMatchObject({ id: 'pb', displayName: 'Pager pb', status: 'active' });

    const mixed = await as('DELETE', base, ['pa', 'pb']);
    expect(mixed.status).toBe(409);
    expect((await as('GET', `${base}/pa`)).status).toBe(200);
    const purged = await as('DELETE', base, ['pa', 'pd']);
    expect(purged.status).toBe(200);
    expect(ids(purged.body)).toEqual(['pa', 'pd']);
    expect((await as('GET', `${base}/pa`)).status).toBe(404);
  });

  it('purging a group also removes it from the groups it belonged to', async () => {
    await as('POST', base, group('inner'));
    await as('POST', `${base}/sales/members`, [{ id: 'inner', type: 'group' }]);
    await as('POST', `${base}/inner/members`, [{ id: 'worker', type: 'user' }]);
    await as('PUT', `${base}/inner`, group('inner', { status: 'deleted' }));
    const one = await as('DELETE', `${base}/inner`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: 'inner', status: 'deleted' });
    expect(ids((await members('sales')).body)).not.toContain('inner');
    expect((await server.db.query(`SELECT 1 FROM group_members WHERE group_id = 'inner' OR member_id = 'inner'`)).rows).toHaveLength(0);
  });

  it('never deletes or purges the administrators group', async () => {
    const soft = await as('PUT', `${base}/administrators`, group('administrators', { status: 'deleted' }));
    expect(soft.status).toBe(409);
    expect(soft.body.message).toContain('administrators');
    const bulk = await as('PUT', base, [{ id: 'pb', status: 'deleted' }, { id: 'administrators', status: 'deleted' }]);
    expect(bulk.status).toBe(409);
    expect((await as('GET', `${base}/pb`)).body.status).toBe('active');
    // Forced into the deleted state behind the API's back: acme's administrators lose their rights
    // (and their sign-ins) at once; the root administrator still cannot purge the group.
    await server.db.query(`UPDATE groups SET status = 'deleted' WHERE company_id = 'acme' AND id = 'administrators'`);
    expect((await as('GET', `${base}/pb`)).status).toBe(401);
    const purge = await call(server, server.adminToken, 'DELETE', `${base}/administrators`);
    await server.db.query(`UPDATE groups SET status = 'active' WHERE company_id = 'acme' AND id = 'administrators'`);
    expect(purge.status).toBe(409);
    tenant = { ...tenant, adminToken: await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'boss' }) };
    expect((await as('GET', `${base}/administrators`)).status).toBe(200);
  });
});

describe('group members', () => {
  beforeAll(async () => {
    await addUser('m1', 'Member One');
    await addUser('m2', 'Member Two');
    await addUser('m3', 'Member Three');
    await addUser('gone', 'Gone User');
    await server.db.query(`UPDATE users SET status = 'deleted' WHERE company_id = 'acme' AND id = 'gone'`);
    for (const name of ['top', 'middle', 'bottom', 'side']) await as('POST', base, group(name, { displayName: `Team ${name}` }));
  });

  it('adds users and groups, lists them with display names and pages', async () => {
    const res = await as('POST', `${base}/top/members`, [
      { id: 'm1', type: 'user', displayName: 'ignored' },
      { id: 'm2', type: 'user' },
      { id: 'middle', type: 'group' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 'm1', displayName: 'Member One', type: 'user', email: expect.any(String) },
      { id: 'm2', displayName: 'Member Two', type: 'user', email: expect.any(String) },
      { id: 'middle', displayName: 'Team middle', type: 'group', email: expect.any(String) },
    ]);
    const list = await members('top', '?range=[0,1]');
    expect(list.body).toEqual([
      { id: 'm1', displayName: 'Member One', type: 'user', email: expect.any(String) },
      { id: 'm2', displayName: 'Member Two', type: 'user', email: expect.any(String) },
    ]);
    expect(list.headers['content-range']).toBe('members 0-1/3');
    const second = await members('top', '?range=[2,3]');
    expect(second.body).toEqual([{ id: 'middle', displayName: 'Team middle', type: 'group', email: expect.any(String) }]);
    expect(second.headers['content-range']).toBe('members 2-2/3');
    expect(ids((await members('top', '?filter={"type":"group"}')).body)).toEqual(['middle']);
    expect(ids((await members('top', '?filter={"q":"two"}')).body)).toEqual(['m2']);
    const empty = await members('side');
    expect(empty.body).toEqual([]);
    expect(empty.headers['content-range']).toBe('members */0');
    expect((await members('ghost')).status).toBe(404);
  });

  it('lists members and candidates in two statements (access check with the count, then the page), whatever the page size', async () => {
    for (const url of [`${base}/top/members`, `${base}/middle/candidates?type=user`, `${base}/bottom/candidates?type=group`]) {
      const statements = async (range: string) => {
        const before = server.db.stats.queries;
        const res = await as('GET', `${url}${url.includes('?') ? '&' : '?'}range=${range}`);
        expect(res.status).toBe(200);
        expect(res.body.length).toBeGreaterThan(0);
        return server.db.stats.queries - before;
      };
      expect(await statements('[0,0]'), url).toBe(2);
      expect(await statements('[0,99]'), url).toBe(2);
    }
  });

  it('ignores members already there', async () => {
    const again = await as('POST', `${base}/top/members`, [{ id: 'm1', type: 'user' }, { id: 'm3', type: 'user' }]);
    expect(again.status).toBe(200);
    expect(ids(again.body)).toEqual(['m1', 'm3']);
    expect((await members('top')).headers['content-range']).toBe('members 0-3/4');
  });

  it('refuses unknown, deleted or malformed members, all or nothing', async () => {
    const unknown = await as('POST', `${base}/side/members`, [{ id: 'm1', type: 'user' }, { id: 'nobody', type: 'user' }]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('nobody');
    const deleted = await as('POST', `${base}/side/members`, [{ id: 'm1', type: 'user' }, { id: 'gone', type: 'user' }]);
    expect(deleted.status).toBe(400);
    expect(deleted.body.message).toContain('gone');
    expect(deleted.body).toMatchObject({ code: 'member.deletedUser', params: { id: 'gone' } });
    const wrongType = await as('POST', `${base}/side/members`, [{ id: 'm1', type: 'group' }]);
    expect(wrongType.status).toBe(404);
    const badType = await as('POST', `${base}/side/members`, [{ id: 'm1', type: 'robot' }]);
    expect(badType.status).toBe(400);
    expect(badType.body.message).toContain('type');
    expect((await members('side')).body).toEqual([]);
    expect((await as('POST', `${base}/ghost/members`, [{ id: 'm1', type: 'user' }])).status).toBe(404);
  });

  it('refuses a group inside itself, directly or through a cycle', async () => {
    const self = await as('POST', `${base}/top/members`, [{ id: 'top', type: 'group' }]);
    expect(self.status).toBe(400);
    expect(self.body.message).toContain('itself');
    expect(self.body).toMatchObject({ code: 'member.itself', params: { group: 'top' } });
    expect((await as('POST', `${base}/middle/members`, [{ id: 'bottom', type: 'group' }])).status).toBe(200);
    // top > middle > bottom: bottom may not take in top or middle
    for (const container of ['top', 'middle']) {
      const cycle = await as('POST', `${base}/bottom/members`, [{ id: 'm1', type: 'user' }, { id: container, type: 'group' }]);
      expect(cycle.status, container).toBe(400);
      expect(cycle.body.message).toContain('cycle');
      expect(cycle.body).toMatchObject({ code: 'member.cycle', params: { container: expect.any(String), group: 'bottom' } });
    }
    expect((await members('bottom')).body).toEqual([]);
    expect((await as('POST', `${base}/bottom/members`, [{ id: 'side', type: 'group' }])).status).toBe(200);
  });

  it('offers candidates: active, not members, never the group itself or a group containing it', async () => {
    const users = await as('GET', `${base}/top/candidates?type=user&filter={"q":"member"}`);
    expect(users.status).toBe(200);
    expect(users.body).toEqual([]); // m1, m2, m3 are all in top; gone is deleted
    const middleUsers = await as('GET', `${base}/middle/candidates?filter={"q":"member"}&range=[0,1]`);
    expect(middleUsers.body).toEqual([
      { id: 'm1', displayName: 'Member One', email: 'm1@acme.example', type: 'user' },
      { id: 'm3', displayName: 'Member Three', email: 'm3@acme.example', type: 'user' },
    ]);
    expect(middleUsers.headers['content-range']).toBe('candidates 0-1/3');

    const groupsFor = async (groupId: string) => ids((await as('GET', `${base}/${groupId}/candidates?type=group&range=[0,99]`)).body).sort();
    // bottom is inside middle inside top: none of them can go into bottom; side is already in bottom
    expect(await groupsFor('bottom')).toEqual(['administrators', 'pb', 'pc', 'sales']);
    expect(await groupsFor('top')).toEqual(['administrators', 'bottom', 'pb', 'pc', 'sales', 'side']);
    expect((await as('GET', `${base}/ghost/candidates`)).status).toBe(404);
    expect((await as('GET', `${base}/top/candidates?type=robot`)).status).toBe(400);
  });

  it('removes one member, with a type when a user and a group share the id', async () => {
    const removed = await as('DELETE', `${base}/top/members/m3`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: 'm3', displayName: 'Member Three', type: 'user', email: expect.any(String) });
    expect((await as('DELETE', `${base}/top/members/m3`)).status).toBe(404);

    await addUser('side', 'A user called side');
    await as('POST', `${base}/top/members`, [{ id: 'side', type: 'user' }, { id: 'side', type: 'group' }]);
    const ambiguous = await as('DELETE', `${base}/top/members/side`);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.message).toContain('type');
    const typed = await as('DELETE', `${base}/top/members/side?type=group`);
    expect(typed.body).toEqual({ id: 'side', displayName: 'Team side', type: 'group', email: expect.any(String) });
    expect((await members('top', '?filter={"id":["side"]}')).body).toEqual([{ id: 'side', displayName: 'A user called side', type: 'user', email: expect.any(String) }]);
  });

  it('removes a list of members all or nothing', async () => {
    const withUnknown = await as('DELETE', `${base}/top/members`, ['m1', 'nobody']);
    expect(withUnknown.status).toBe(404);
    expect(withUnknown.body.message).toContain('nobody');
    expect((await members('top')).headers['content-range']).toBe('members 0-3/4');
    const removed = await as('DELETE', `${base}/top/members`, ['m1', { id: 'middle', type: 'group' }]);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual([
      { id: 'm1', displayName: 'Member One', type: 'user', email: expect.any(String) },
      { id: 'middle', displayName: 'Team middle', type: 'group', email: expect.any(String) },
    ]);
    expect(ids((await members('top')).body)).toEqual(['side', 'm2']);
  });
});

describe('groups and members: tenancy', () => {
  it('answers 404 outside the caller\'s subtree and 403 to non-administrators', async () => {
    const reseller = await createTenant(server, 'reseller1');
    const sibling = await createTenant(server, 'sibling1');
    const child = await createTenant(server, 'child1', 'reseller1', 'customer');
    const target = '/api/companys/reseller1/domainNames/reseller1-domain/groups';
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['GET', target],
      ['GET', `${target}/administrators`],
      ['POST', target, group('intruders')],
      ['PUT', `${target}/administrators`, group('administrators')],
      ['PUT', target, [{ id: 'administrators', displayName: 'x' }]],
      ['DELETE', `${target}/administrators`],
      ['DELETE', target, ['administrators']],
      ['GET', `${target}/administrators/members`],
      ['POST', `${target}/administrators/members`, [{ id: 'worker', type: 'user' }]],
      ['DELETE', `${target}/administrators/members/boss`],
      ['DELETE', `${target}/administrators/members`, ['boss']],
      ['GET', `${target}/administrators/candidates`],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(server, sibling.adminToken, method, url, body)).status, `sibling ${method} ${url}`).toBe(404);
      expect((await call(server, child.adminToken, method, url, body)).status, `child ${method} ${url}`).toBe(404);
      expect((await call(server, reseller.userToken, method, url, body)).status, `user ${method} ${url}`).toBe(403);
    }
    const admins = await call(server, reseller.adminToken, 'GET', `${target}/administrators/members`);
    expect(admins.body).toEqual([{ id: 'boss', displayName: 'boss', type: 'user', email: expect.any(String) }]);
    expect(ids((await call(server, reseller.adminToken, 'GET', `${target}/administrators/candidates`)).body)).toEqual(['worker']);
  });
});
