import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await server.db.query(`INSERT INTO domains (company_id, id, name) VALUES ('root', 'big', 'big')`);
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, status)
     SELECT 'root', 'big', 'u' || i, 'user' || i, 'User ' || lpad(i::text, 5, '0'), 'user' || i || '@big.example',
            CASE WHEN i % 10 = 0 THEN 'deleted' ELSE 'active' END
     FROM generate_series(1, 12000) AS i`,
  );
});
afterAll(() => server?.close());

const users = '/api/companys/root/domainNames/big/users';
const total = async (query: string) => {
  const res = await call(server, server.adminToken, 'GET', `${users}?${query}`);
  expect(res.status).toBe(200);
  return Number(res.headers['content-range']!.toString().split('/')[1]);
};

describe('list totals', () => {
  it('are exact past 10,000 rows when only status filters apply (maintained counts)', async () => {
    expect(await total('condition=status,!=,deleted')).toBe(10800);
    expect(await total('filter={"status":"deleted"}')).toBe(1200);
    expect(await total('')).toBe(12000);
  });

  it('follow soft delete, recover, purge and bulk SQL writes', async () => {
    const soft = await call(server, server.adminToken, 'PUT', `${users}/u1`, { username: 'user1', displayName: 'User 00001', email: 'user1@big.example', status: 'deleted' });
    expect(soft.status).toBe(200);
    expect(await total('condition=status,!=,deleted')).toBe(10799);
    expect(await total('condition=status,=,deleted')).toBe(1201);
    expect((await call(server, server.adminToken, 'DELETE', `${users}/u1`)).status).toBe(200);
    expect(await total('condition=status,=,deleted')).toBe(1200);
    await server.db.query(`UPDATE users SET status = 'active' WHERE domain_id = 'big' AND id IN ('u10', 'u20')`);
    expect(await total('condition=status,!=,deleted')).toBe(10801);
  });

  it('are exact up to 10,000 matches and estimated above for other filters', async () => {
    const exact = (
      await server.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM users WHERE domain_id = 'big' AND status <> 'deleted' AND (display_name || ' ' || username || ' ' || email) ILIKE '%user1%'`,
      )
    ).rows[0].n;
    expect(exact).toBeGreaterThan(1000);
    expect(await total('filter={"q":"user1"}&condition=status,!=,deleted')).toBe(exact);
    expect(await total(`filter=${encodeURIComponent(JSON.stringify({ username: 'user2' }))}`)).toBe(1);
    expect(await total('filter={"q":"big.example"}')).toBeGreaterThan(10_000);
  });

  it('pages deep with the deferred join and keeps the order', async () => {
    const res = await call(server, server.adminToken, 'GET', `${users}?range=[5000,5004]&sort=["displayName","ASC"]&condition=status,!=,deleted`);
    expect(res.headers['content-range']).toBe('users 5000-5004/10801');
    const names = res.body.map((u: { displayName: string }) => u.displayName);
    expect(names).toEqual([...names].sort());
    expect(names).toHaveLength(5);
  });

  it('refuses malformed list parameters with a 400 naming them', async () => {
    for (const [query, word] of [
      ['range=[5,1]', 'range'],
      ['range=nope', 'range'],
      ['range=[0,5000]', 'range'],
      ['sort=["password_hash","ASC"]', 'sort'],
      ['sort=["displayName","SIDEWAYS"]', 'sort'],
      ['filter=[1]', 'filter'],
      ['filter={"nope":1}', 'nope'],
      ['condition=status', 'condition'],
      ['condition=status,~,x', 'condition'],
      ['condition=secret,=,x', 'secret'],
    ]) {
      const res = await call(server, server.adminToken, 'GET', `${users}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toContain(word);
    }
  });
});

describe('deep pages of lists without slices', () => {
  // lists of one status sorted by name seek to a maintained slice (tests/server/slices.test.ts);
  // the others skip index entries with a deferred join, and give what plain OFFSET gives
  for (const order of ['ASC', 'DESC']) {
    it(`give the rows plain offsets give (every user, by name ${order}; by e-mail)`, async () => {
      for (const [sort, orderBy] of [['displayName', `display_name ${order}, id ${order}`], ['email', `email ${order}, id ${order}`]]) {
        const res = await call(server, server.adminToken, 'GET', `${users}?range=[7010,7019]&sort=["${sort}","${order}"]`);
        expect(res.status).toBe(200);
        const expected = await server.db.query<{ id: string }>(
          `SELECT id FROM users WHERE company_id = 'root' AND domain_id = 'big' ORDER BY ${orderBy} LIMIT 10 OFFSET 7010`,
        );
        expect(res.body.map((row: { id: string }) => row.id)).toEqual(expected.rows.map((row) => row.id));
      }
    });
  }
});

describe('fields: a screen asks only for what it shows', () => {
  it('answers the fields asked for and the id, on live, deleted and deep pages, GET and QUERY alike', async () => {
    const page = await call(server, server.adminToken, 'GET', `${users}?range=[0,2]&sort=["displayName","ASC"]&condition=status,!=,deleted&fields=email,displayName`);
    expect(page.status).toBe(200);
    expect(page.headers['content-range']).toMatch(/^users 0-2\/\d+$/);
    for (const user of page.body) expect(Object.keys(user).sort()).toEqual(['displayName', 'email', 'id']);
    const whole = await call(server, server.adminToken, 'GET', `${users}?range=[0,2]&sort=["displayName","ASC"]&condition=status,!=,deleted`);
    expect(page.body).toEqual(whole.body.map((user: Record<string, unknown>) => ({ id: user.id, displayName: user.displayName, email: user.email })));
    expect(Object.keys(whole.body[0])).toEqual(expect.arrayContaining(['groupCount', 'lastSignInAt', 'deletedBy']));
    // a deep page (slices or the deferred join) and the deleted list with the fields only deleted records have
    const deep = await call(server, server.adminToken, 'GET', `${users}?range=[6000,6001]&sort=["displayName","ASC"]&condition=status,!=,deleted&fields=username`);
    expect(deep.body.map((user: object) => Object.keys(user).sort())).toEqual([['id', 'username'], ['id', 'username']]);
    const deleted = await call(server, server.adminToken, 'GET', `${users}?range=[0,0]&condition=status,=,deleted&fields=deletedAt, status`);
    expect(Object.keys(deleted.body[0]).sort()).toEqual(['deletedAt', 'id', 'status']);
    const asQuery = await call(server, server.adminToken, 'QUERY', users, { range: [0, 2], sort: ['displayName', 'ASC'], condition: 'status,!=,deleted', fields: 'email' });
    expect(asQuery.status).toBe(200);
    expect(asQuery.body).toEqual(whole.body.map((user: Record<string, unknown>) => ({ id: user.id, email: user.email })));
  });

  it('refuses an unknown field with a 400 naming it, and a list whose rows are reshaped answers whole records only', async () => {
    const unknown = await call(server, server.adminToken, 'GET', `${users}?fields=email,password`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('fields: unknown field "password"');
    expect(unknown.body).toMatchObject({ code: 'list.unknownField', params: { where: 'fields', field: 'password' } });
    const proto = await call(server, server.adminToken, 'GET', `${users}?fields=__proto__`);
    expect(proto.status).toBe(400);
    // the write-only password hash is no field of the record
    const hash = await call(server, server.adminToken, 'GET', `${users}?fields=authVerification`);
    expect(hash.status).toBe(400);
    const audit = await call(server, server.adminToken, 'GET', `/api/companys/root/auditEvents?fields=action`);
    expect(audit.status).toBe(400);
    expect(audit.body.message).toContain('fields');
    // empty: the whole records
    const empty = await call(server, server.adminToken, 'GET', `${users}?range=[0,0]&fields=`);
    expect(empty.status).toBe(200);
    expect(Object.keys(empty.body[0])).toContain('groupCount');
  });

  it("does not widen what the caller reaches: another tenant's list stays 404 or 403 with fields", async () => {
    await call(server, server.adminToken, 'POST', '/api/companys', { id: 'fieldsco', name: 'Fields Co' });
    const other = await call(server, server.adminToken, 'GET', `/api/companys/fieldsco/domainNames/big/users?fields=email`);
    expect([403, 404]).toContain(other.status);
  });
});
