import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer, listQuery as q } from './helpers.js';

/**
 * total=deferred on the lists (docs/CONSOLE.md, "Data provider conventions"; docs/DECISIONS.md,
 * "Deferred list totals"): the page without counting its matches, `*` while more rows follow,
 * the exact total when the page reaches the end, maintained counts unchanged, and the guard's
 * access check as strict as with a counted total.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const users = () => `/api/companys/acme/domainNames/${acme.domainId}/users`;
const contentRange = (headers: Record<string, unknown>) => String(headers['content-range']);

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  // 40 users of acme in the group "team" (with boss and worker from createTenant: 42 users)
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
     SELECT 'acme', $1, 'm' || lpad(i::text, 2, '0'), 'm' || i, 'Member ' || lpad(i::text, 2, '0'), 'm' || i || '@acme.example' FROM generate_series(1, 40) i`,
    [acme.domainId],
  );
  await server.db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('acme', $1, 'team', 'team', 'Team', 'team@acme.example')`, [acme.domainId]);
  await server.db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
     SELECT 'acme', $1, 'team', 'user', 'm' || lpad(i::text, 2, '0') FROM generate_series(1, 40) i`,
    [acme.domainId],
  );
  for (const name of ['Shop', 'Batch', 'Portal']) {
    const created = await call(server, acme.adminToken, 'POST', `/api/acme/${acme.domainId}/application`, { client_name: name });
    expect(created.status).toBe(201);
  }
}, 60_000);
afterAll(() => server?.close());

const list = (params: Record<string, unknown>, token = acme.adminToken, path = users()) =>
  call(server, token, 'GET', `${path}?${q({ condition: 'status,!=,deleted', ...params })}`);

describe('the count of a group\'s members (counted from the group)', () => {
  it('counts the live members in the list\'s own company and domain, capped then estimated', async () => {
    const { db } = server;
    // another tenant's group of the same name, and a deleted member of acme's
    await db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('other', $1, 'team', 'team', 'Team', 'team@other.example')`, [other.domainId]);
    await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('other', $1, 'team', 'user', 'boss'), ('other', $1, 'team', 'user', 'worker')`, [other.domainId]);
    await db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email, status) VALUES ('acme', $1, 'gone', 'gone', 'Gone', 'gone@acme.example', 'deleted')`, [acme.domainId]);
    await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', $1, 'team', 'user', 'gone'), ('acme', $1, 'team', 'group', 'administrators')`, [acme.domainId]);
    const live = await list({ filter: { memberOf: 'team' }, range: [0, 0] });
    expect(contentRange(live.headers)).toBe('users 0-0/40');
    const deleted = await call(server, acme.adminToken, 'GET', `${users()}?${q({ filter: { memberOf: 'team' }, condition: 'status,=,deleted' })}`);
    expect(contentRange(deleted.headers)).toBe('users 0-0/1');
    const whole = await call(server, acme.adminToken, 'GET', `${users()}?${q({ filter: { memberOf: 'team' }, range: [0, 0] })}`);
    expect(contentRange(whole.headers)).toBe('users 0-0/41');
    // with another filter the list's own way
    const both = await list({ filter: { memberOf: 'team', q: 'Member 1' }, range: [0, 0] });
    expect(contentRange(both.headers)).toBe('users 0-0/10');

    // past 1,000 members: counted to 1,001, then the planner's estimate (never less)
    await db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('acme', $1, 'big', 'big', 'Big', 'big@acme.example')`, [acme.domainId]);
    await db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
       SELECT 'acme', $1, 'b' || i, 'b' || i, 'Big ' || i, 'b' || i || '@acme.example' FROM generate_series(1, 1100) i`,
      [acme.domainId],
    );
    await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) SELECT 'acme', $1, 'big', 'user', 'b' || i FROM generate_series(1, 1100) i`, [acme.domainId]);
    const big = await list({ filter: { memberOf: 'big' }, range: [0, 0] });
    expect(Number(contentRange(big.headers).split('/')[1])).toBeGreaterThanOrEqual(1001);
    await db.query(`DELETE FROM group_members WHERE company_id = 'acme' AND group_id = 'big'`);
    await db.query(`DELETE FROM groups WHERE company_id = 'acme' AND id = 'big'`);
    await db.query(`DELETE FROM users WHERE company_id = 'acme' AND id ~ '^b[0-9]+$'`);
  });
});

describe('total=deferred', () => {
  it('answers * and exactly the page when more rows match than a page holds', async () => {
    const res = await list({ filter: { memberOf: 'team' }, range: [0, 24], sort: ['displayName', 'ASC'], total: 'deferred' });
    expect(res.status).toBe(200);
    expect(contentRange(res.headers)).toBe('users 0-24/*');
    expect(res.body).toHaveLength(25);
    expect(res.body[0].displayName).toBe('Member 01');
    expect(res.body[24].displayName).toBe('Member 25');
    // the guard's column that rides in the page statement is not answered
    expect(Object.keys(res.body[0]).filter((key) => key.startsWith('__'))).toEqual([]);
    // the same page without it: counted
    const counted = await list({ filter: { memberOf: 'team' }, range: [0, 24], sort: ['displayName', 'ASC'] });
    expect(contentRange(counted.headers)).toBe('users 0-24/40');
    expect(counted.body).toEqual(res.body);
    // the console's follow-up for "of N"
    const total = await list({ filter: { memberOf: 'team' }, range: [0, 0] });
    expect(contentRange(total.headers)).toBe('users 0-0/40');
  });

  it('answers the exact total when the page reaches the end', async () => {
    const last = await list({ filter: { memberOf: 'team' }, range: [25, 49], sort: ['displayName', 'ASC'], total: 'deferred' });
    expect(contentRange(last.headers)).toBe('users 25-39/40');
    expect(last.body).toHaveLength(15);
    // exactly a page's worth to the end: no row past it, so the total is known
    const exact = await list({ filter: { memberOf: 'team' }, range: [20, 39], total: 'deferred' });
    expect(contentRange(exact.headers)).toBe('users 20-39/40');
    const none = await list({ filter: { memberOf: 'nobody' }, total: 'deferred' });
    expect(none.status).toBe(200);
    expect(contentRange(none.headers)).toBe('users */0');
    // a page past the end is counted as without it
    const past = await list({ filter: { memberOf: 'team' }, range: [100, 124], total: 'deferred' });
    expect(contentRange(past.headers)).toBe('users */40');
  });

  it('leaves a status-only list on its maintained count', async () => {
    const res = await list({ range: [0, 9], sort: ['displayName', 'ASC'], total: 'deferred' });
    expect(res.status).toBe(200);
    expect(contentRange(res.headers)).toBe('users 0-9/42');
    expect(res.body).toHaveLength(10);
    const deep = await list({ range: [30, 39], sort: ['displayName', 'ASC'], total: 'deferred' });
    expect(contentRange(deep.headers)).toBe('users 30-39/42');
  });

  it('refuses any other value of total with a 400 naming it', async () => {
    for (const value of ['exact', '', 'DEFERRED']) {
      const res = await list({ filter: { memberOf: 'team' }, total: value });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/total/);
    }
    const twice = await call(server, acme.adminToken, 'GET', `${users()}?total=deferred&total=deferred`);
    expect(twice.status).toBe(400);
    expect(twice.body.message).toMatch(/total/);
    const csv = await call(server, acme.adminToken, 'GET', `${users()}/export.csv?total=later`);
    expect(csv.status).toBe(400);
    expect(csv.body.message).toMatch(/total/);
  });

  it('keeps the access check: another tenant gets 404, a lesser role 403', async () => {
    for (const params of [{ filter: { memberOf: 'team' }, total: 'deferred' }, { total: 'deferred' }, { filter: { memberOf: 'team' }, range: [100, 124], total: 'deferred' }]) {
      const foreign = await list(params, other.adminToken);
      expect(foreign.status).toBe(404);
      expect(foreign.headers['content-range']).toBeUndefined();
      const lesser = await list(params, acme.userToken);
      expect(lesser.status).toBe(403);
      expect(lesser.headers['content-range']).toBeUndefined();
    }
    const groups = await list({ total: 'deferred' }, other.adminToken, `/api/companys/acme/domainNames/${acme.domainId}/groups`);
    expect(groups.status).toBe(404);
    const apps = await call(server, acme.userToken, 'GET', `/api/acme/${acme.domainId}/application?total=deferred`);
    expect(apps.status).toBe(403);
    const csv = await call(server, other.adminToken, 'GET', `${users()}/export.csv?total=deferred`);
    expect(csv.status).toBe(404);
    const query = await call(server, acme.userToken, 'QUERY', users(), { filter: { memberOf: 'team' }, total: 'deferred' });
    expect(query.status).toBe(403);
  });

  it('is accepted by the export, getMany, QUERY and the groups and applications lists', async () => {
    const csv = await call(server, acme.adminToken, 'GET', `${users()}/export.csv?${q({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', total: 'deferred', columns: 'id' })}`);
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\r\n')).toHaveLength(41);

    const many = await call(server, acme.adminToken, 'GET', `${users()}?${q({ filter: { id: ['m01', 'm02', 'm03'] }, total: 'deferred' })}`);
    expect(many.status).toBe(200);
    expect(contentRange(many.headers)).toBe('users 0-2/3');

    const query = await call(server, acme.adminToken, 'QUERY', users(), { filter: { memberOf: 'team' }, range: [0, 9], total: 'deferred' });
    expect(query.status).toBe(200);
    expect(contentRange(query.headers)).toBe('users 0-9/*');
    expect(query.body).toHaveLength(10);

    const groups = `/api/companys/acme/domainNames/${acme.domainId}/groups`;
    const someGroups = await call(server, acme.adminToken, 'GET', `${groups}?${q({ range: [0, 0], sort: ['name', 'ASC'], total: 'deferred' })}`);
    expect(someGroups.status).toBe(200);
    expect(contentRange(someGroups.headers)).toBe('groups 0-0/*');
    const allGroups = await call(server, acme.adminToken, 'GET', `${groups}?${q({ range: [0, 24], total: 'deferred' })}`);
    expect(contentRange(allGroups.headers)).toBe('groups 0-1/2');

    const apps = `/api/acme/${acme.domainId}/application`;
    const someApps = await call(server, acme.adminToken, 'GET', `${apps}?${q({ range: [0, 1], total: 'deferred' })}`);
    expect(someApps.status).toBe(200);
    expect(someApps.body).toHaveLength(2);
    expect(String(someApps.headers['content-range'])).toMatch(/ 0-1\/\*$/);
    const allApps = await call(server, acme.adminToken, 'GET', `${apps}?${q({ range: [0, 24], total: 'deferred' })}`);
    expect(String(allApps.headers['content-range'])).toMatch(/ 0-2\/3$/);

    // every kind of list: its own statement with the guard's column riding in it
    const domainPath = `/api/companys/acme/domainNames/${acme.domainId}`;
    for (const path of [`${domainPath}/groups/team/members`, '/api/companys/acme/auditEvents', `${domainPath}/signInEvents`, '/api/companys/acme/domainNames', `/api/acme/${acme.domainId}/api`]) {
      const res = await call(server, acme.adminToken, 'GET', `${path}?${q({ range: [0, 0], total: 'deferred' })}`);
      expect(res.status, path).toBe(200);
      expect(String(res.headers['content-range']), path).toMatch(/^\w+ (0-0|\*)\/(\*|\d+)$/);
      if (Array.isArray(res.body) && res.body[0]) expect(Object.keys(res.body[0]).filter((key) => key.startsWith('__')), path).toEqual([]);
    }
  });
});
