import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../server/db/migrations.js';
import { call, createTenant, startServer, type Tenant, type TestServer, listQuery as q } from './helpers.js';

/**
 * The users list filtered by memberOf alone, in name order, reads the group's members in that order
 * (group_members.member_name, migration 30; NamedFilter.orderedFrom in server/api/list.ts): its
 * pages must be the very rows and order of the list's own way (the same filter with another
 * condition that every user meets), in both directions, with ties on the name, deleted users left
 * out, and the order following renames, additions and removals. Tenancy: the list's company and
 * domain only.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const usersOf = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users`;
const groupsOf = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups`;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  const { db } = server;
  // 60 users, names with ties (every name three times, ids apart), every fourth deleted; a third in "team"
  await db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, status)
     SELECT 'acme', $1, 'u' || lpad(i::text, 2, '0'), 'u' || i, 'Name ' || chr(65 + (i * 7) % 20), 'u' || i || '@acme.example',
            CASE WHEN i % 4 = 0 THEN 'deleted' ELSE 'active' END
     FROM generate_series(1, 60) i`,
    [acme.domainId],
  );
  for (const tenant of [acme, other]) {
    await db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ($1, $2, 'team', 'team', 'Team', 'team@example.com')`, [
      tenant.companyId,
      tenant.domainId,
    ]);
  }
  await db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id)
     SELECT 'acme', $1, 'team', 'user', 'u' || lpad(i::text, 2, '0') FROM generate_series(1, 60) i WHERE i % 3 <> 1`,
    [acme.domainId],
  );
  // a group member (not a user) and another tenant's members in its group of the same id
  await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', $1, 'team', 'group', 'administrators')`, [acme.domainId]);
  await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('other', $1, 'team', 'user', 'boss'), ('other', $1, 'team', 'user', 'worker')`, [
    other.domainId,
  ]);
  // a group of other's alone
  await db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('other', $1, 'theirs', 'theirs', 'Theirs', 'theirs@example.com')`, [other.domainId]);
  await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('other', $1, 'theirs', 'user', 'boss')`, [other.domainId]);
}, 60_000);
afterAll(() => server?.close());

const ids = (body: unknown) => (body as { id: string }[]).map((user) => user.id);

async function page(params: Record<string, unknown>, tenant = acme, token = acme.adminToken) {
  const res = await call(server, token, 'GET', `${usersOf(tenant)}?${q(params)}`);
  return res;
}

/** The list's own way: the same filter with a condition every user meets (two filters: no ordered walk). */
const plainWay = (params: Record<string, unknown>) => ({ ...params, condition: [...[params.condition ?? []].flat(), 'createdAt,>=,1970-01-01T00:00:00Z'] });

/** Every page of the list in both directions, both ways, and the whole list from the database itself. */
async function expectSameAsPlain(group: string) {
  for (const direction of ['ASC', 'DESC']) {
    for (const condition of ['status,!=,deleted', 'status,=,deleted']) {
      const expected = await server.db.query<{ id: string }>(
        `SELECT u.id FROM users u JOIN group_members gm ON gm.company_id = u.company_id AND gm.domain_id = u.domain_id AND gm.member_type = 'user' AND gm.member_id = u.id
         WHERE u.company_id = 'acme' AND u.domain_id = $1 AND gm.group_id = $2 AND (u.status = 'deleted') = $3
         ORDER BY u.display_name ${direction}, u.id ${direction}`,
        [acme.domainId, group, condition === 'status,=,deleted'],
      );
      const all = expected.rows.map((row) => row.id);
      for (const total of [undefined, 'deferred']) {
        for (const range of [[0, 4], [5, 9], [0, 99], [12, 30]]) {
          const params = { filter: { memberOf: group }, sort: ['displayName', direction], range, condition, ...(total ? { total } : {}) };
          const ordered = await page(params);
          const plain = await page(plainWay(params));
          expect(ordered.status).toBe(200);
          expect(ids(ordered.body)).toEqual(all.slice(range[0], range[1] + 1));
          expect(ids(ordered.body)).toEqual(ids(plain.body));
          expect(ordered.headers['content-range']).toBe(plain.headers['content-range']);
        }
      }
    }
  }
}

describe('memberOf in name order', () => {
  it('reads the same pages as the plain filtered list, both ways, ties and deleted users included', async () => {
    await expectSameAsPlain('team');
    const first = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 4] });
    // 40 members, of whom 10 deleted: 30 live (counted), and the first page in name order
    expect(first.headers['content-range']).toBe('users 0-4/30');
    const deferred = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 4], total: 'deferred' });
    expect(deferred.headers['content-range']).toBe('users 0-4/*');
    const end = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [25, 40], total: 'deferred' });
    expect(end.headers['content-range']).toBe('users 25-29/30');
    // the default sort (none named) is the name order too
    const unnamed = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted' });
    expect(ids(unnamed.body)).toEqual(ids((await page(plainWay({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted' }))).body));
  });

  it('follows a rename, a user added and one taken out', async () => {
    const before = ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body);
    const last = before[before.length - 1];
    const { body: user } = await call(server, acme.adminToken, 'GET', `${usersOf(acme)}/${last}`);
    const renamed = await call(server, acme.adminToken, 'PUT', `${usersOf(acme)}/${last}`, { ...user, displayName: 'Aaron First' });
    expect(renamed.status).toBe(200);
    const after = ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body);
    expect(after[0]).toBe(last);
    // renamed in the database too (the trigger, not the API)
    await server.db.query(`UPDATE users SET display_name = 'Zed Last' WHERE company_id = 'acme' AND domain_id = $1 AND id = $2`, [acme.domainId, last]);
    expect(ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body).at(-1)).toBe(last);
    await expectSameAsPlain('team');

    // u01 (not a member, i % 3 = 1) added through the API, then taken out
    const added = await call(server, acme.adminToken, 'POST', `${groupsOf(acme)}/team/members`, [{ id: 'u01', type: 'user' }]);
    expect(added.status).toBe(200);
    expect(ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body)).toContain('u01');
    await expectSameAsPlain('team');
    const removed = await call(server, acme.adminToken, 'DELETE', `${groupsOf(acme)}/team/members/u01?type=user`);
    expect(removed.status).toBe(200);
    expect(ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body)).not.toContain('u01');
    await expectSameAsPlain('team');

    // a deleted member leaves the live list and comes back on recovery
    const member = ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 0] })).body)[0];
    expect((await call(server, acme.adminToken, 'PUT', usersOf(acme), [{ id: member, status: 'deleted' }])).status).toBe(200);
    expect(ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body)).not.toContain(member);
    await expectSameAsPlain('team');
  });

  it('keeps the member name in step (a user created after a membership naming her id), and the page reads it', async () => {
    const { db } = server;
    await db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', $1, 'team', 'user', 'late')`, [acme.domainId]);
    await db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'late', 'late', 'Aardvark', 'late@acme.example')`, [acme.domainId]);
    const { rows } = await db.query<{ member_name: string | null; member_type: string }>(
      `SELECT member_type, member_name FROM group_members WHERE company_id = 'acme' AND domain_id = $1 AND group_id = 'team' AND member_id IN ('late', 'administrators')`,
      [acme.domainId],
    );
    expect(rows.find((row) => row.member_type === 'user')?.member_name).toBe('Aardvark');
    expect(rows.find((row) => row.member_type === 'group')?.member_name).toBeNull();
    expect(ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 0] })).body)).toEqual(['late']);
    // every user membership carries its user's name
    const drift = await db.query(
      `SELECT 1 FROM group_members gm JOIN users u ON u.company_id = gm.company_id AND u.domain_id = gm.domain_id AND u.id = gm.member_id
       WHERE gm.member_type = 'user' AND gm.member_name IS DISTINCT FROM u.display_name`,
    );
    expect(drift.rows).toEqual([]);
    // the page walks the memberships' names (the ordered path is the one taken): a name made wrong
    // by hand moves the member, and the plain way does not follow
    const live = { filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] };
    const last = ids((await page(live)).body).at(-1);
    await db.query(`UPDATE group_members SET member_name = '' WHERE company_id = 'acme' AND domain_id = $1 AND group_id = 'team' AND member_id = $2`, [acme.domainId, last]);
    expect(ids((await page(live)).body)[0]).toBe(last);
    expect(ids((await page(plainWay(live))).body).at(-1)).toBe(last);
    await db.query(
      `UPDATE group_members gm SET member_name = u.display_name FROM users u
       WHERE u.company_id = gm.company_id AND u.domain_id = gm.domain_id AND u.id = gm.member_id AND gm.company_id = 'acme' AND gm.domain_id = $1 AND gm.member_id = $2`,
      [acme.domainId, last],
    );
    await expectSameAsPlain('team');
  });

  it('migration 30 backfills the names of memberships made before it, and runs again harmlessly', async () => {
    const { db } = server;
    await db.query(`UPDATE group_members SET member_name = NULL`);
    await db.query(`DELETE FROM schema_migrations WHERE id = 30`);
    await migrate(db);
    const missing = await db.query(`SELECT 1 FROM group_members WHERE member_type = 'user' AND member_name IS NULL AND company_id = 'acme'`);
    expect(missing.rows).toEqual([]);
    await expectSameAsPlain('team');
  });
});

describe('concurrent writes (PostgreSQL)', () => {
  it.runIf(process.env.DATABASE_URL)('a rename committed while a membership is being added reaches it', async () => {
    const { db } = server;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const didInsert = new Promise<void>((resolve) => (inserted = resolve));
    // u07 is in no group (i % 3 = 1)
    const adding = db.transaction(async (tx) => {
      await tx.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', $1, 'team', 'user', 'u07')`, [acme.domainId]);
      inserted();
      await held;
    });
    await didInsert;
    const renaming = db.query(`UPDATE users SET display_name = 'Racer' WHERE company_id = 'acme' AND domain_id = $1 AND id = 'u07'`, [acme.domainId]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await adding;
    await renaming;
    const { rows } = await db.query<{ member_name: string }>(
      `SELECT member_name FROM group_members WHERE company_id = 'acme' AND domain_id = $1 AND group_id = 'team' AND member_type = 'user' AND member_id = 'u07'`,
      [acme.domainId],
    );
    expect(rows).toEqual([{ member_name: 'Racer' }]);
    await expectSameAsPlain('team');
  });
});

describe('tenancy', () => {
  it('matches memberships of the list\'s own company and domain only', async () => {
    // other's group id, asked on acme's list: nothing of other's
    const theirs = await page({ filter: { memberOf: 'theirs' }, condition: 'status,!=,deleted' });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual([]);
    const theirsDeferred = await page({ filter: { memberOf: 'theirs' }, condition: 'status,!=,deleted', total: 'deferred', sort: ['displayName', 'DESC'] });
    expect(theirsDeferred.body).toEqual([]);
    // the same group id in both tenants: each list its own members
    const acmeTeam = ids((await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', range: [0, 99] })).body);
    expect(acmeTeam).not.toContain('boss');
    const otherTeam = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', total: 'deferred' }, other, other.adminToken);
    expect(ids(otherTeam.body).sort()).toEqual(['boss', 'worker']);
  });

  it('another tenant\'s administrator gets 404, a user without the right 403', async () => {
    const foreign = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', total: 'deferred' }, acme, other.adminToken);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('u0');
    const counted = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted' }, acme, other.adminToken);
    expect(counted.status).toBe(404);
    const lesser = await page({ filter: { memberOf: 'team' }, condition: 'status,!=,deleted', total: 'deferred' }, acme, acme.userToken);
    expect(lesser.status).toBe(403);
  });
});
