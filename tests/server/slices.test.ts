import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rebuildUserSlices, SLICE_ROWS, SLICED_FROM_ROWS } from '../../server/api/userSlices.js';
import { call, createTenant, startServer, type TestServer } from './helpers.js';

// Deep pages of large user lists seek to a maintained slice (server/api/userSlices.ts). Every page
// must be exactly the page plain OFFSET paging gives, before and after any kind of write.

const USERS = 36_000; // above SLICED_FROM_ROWS: 3-4 slices per list
let server: TestServer;
beforeAll(async () => {
  expect(USERS).toBeGreaterThan(SLICED_FROM_ROWS);
  server = await startServer();
  await server.db.query(`INSERT INTO domains (company_id, id, name) VALUES ('root', 'huge', 'huge')`);
  // names repeat (ties broken by id) and are not in id order
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, status)
     SELECT 'root', 'huge', 'u' || i, 'user' || i, 'Name ' || (i * 7919 % 5000), 'user' || i || '@huge.example',
            CASE WHEN i % 9 = 0 THEN 'deleted' ELSE 'active' END
     FROM generate_series(1, $1::int) AS i`,
    [USERS],
  );
});
afterAll(() => server?.close());

const users = '/api/companys/root/domainNames/huge/users';
type Status = 'active' | 'deleted';
const predicate = (status: Status) => (status === 'deleted' ? `status = 'deleted'` : `status <> 'deleted'`);

async function apiPage(status: Status, start: number, size: number, direction: 'ASC' | 'DESC') {
  const condition = status === 'deleted' ? 'status,=,deleted' : 'status,!=,deleted';
  const res = await call(server, server.adminToken, 'GET', `${users}?range=[${start},${start + size - 1}]&sort=["displayName","${direction}"]&condition=${condition}`);
  expect(res.status, res.text).toBe(200);
  return { ids: res.body.map((u: { id: string }) => u.id) as string[], range: String(res.headers['content-range']) };
}

async function offsetPage(status: Status, start: number, size: number, direction: 'ASC' | 'DESC') {
  const { rows } = await server.db.query<{ id: string }>(
    `SELECT id FROM users WHERE company_id = 'root' AND domain_id = 'huge' AND ${predicate(status)}
     ORDER BY display_name ${direction}, id ${direction} LIMIT ${size} OFFSET ${start}`,
  );
  return rows.map((r) => r.id);
}

async function listSize(status: Status) {
  const { rows } = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE domain_id = 'huge' AND ${predicate(status)}`);
  return rows[0].n;
}

/** Each slice's n against the rows really between its first key and the next slice's. */
async function expectSlicesExact(status: Status) {
  const { rows } = await server.db.query<{ lo_name: string; lo_id: string; n: number; real: number }>(
    `SELECT s.lo_name, s.lo_id, s.n::int AS n,
       (SELECT count(*)::int FROM users t WHERE t.company_id = s.company_id AND t.domain_id = s.domain_id AND t.${predicate(status)}
          AND (t.display_name, t.id) >= (s.lo_name, s.lo_id)
          AND (s.next_name IS NULL OR (t.display_name, t.id) < (s.next_name, s.next_id))) AS real
     FROM (SELECT *, lead(lo_name) OVER w AS next_name, lead(lo_id) OVER w AS next_id
           FROM user_slices WHERE company_id = 'root' AND domain_id = 'huge' AND status = $1
           WINDOW w AS (ORDER BY lo_name, lo_id)) s`,
    [status],
  );
  expect(rows.length).toBeGreaterThan(0);
  expect(rows[0]).toMatchObject({ lo_name: '', lo_id: '' });
  expect(rows.map((r) => r.n)).toEqual(rows.map((r) => r.real));
  expect(rows.reduce((sum, r) => sum + r.n, 0)).toBe(await listSize(status));
  return rows;
}

/** Pages at slice edges, the middle, the last page and past the end, both ways, against OFFSET. */
async function expectPagesMatchOffset(status: Status) {
  const size = await listSize(status);
  const starts = [1, SLICE_ROWS - 3, SLICE_ROWS, SLICE_ROWS + 1, 2 * SLICE_ROWS - 10, Math.floor(size / 2), size - 7, size - 1, size, size + 50];
  for (const direction of ['ASC', 'DESC'] as const) {
    for (const start of starts) {
      const page = await apiPage(status, start, 25, direction);
      expect(page.ids, `${status} ${direction} page at ${start}`).toEqual(await offsetPage(status, start, 25, direction));
      expect(page.range, `${status} ${direction} page at ${start}`).toMatch(new RegExp(`/${size}$`));
    }
  }
}

describe('user list slices', () => {
  it('are cut as soon as a large list is first shown, one walk, with exact counts', async () => {
    expect((await server.db.query(`SELECT 1 FROM user_slices WHERE domain_id = 'huge'`)).rowCount).toBe(0);
    await apiPage('active', 0, 25, 'ASC'); // the console opens every list on its first page
    await apiPage('deleted', 0, 25, 'ASC'); // 4,000 deleted: too small to slice
    await vi.waitFor(async () => expect((await server.db.query(`SELECT 1 FROM user_slices WHERE domain_id = 'huge'`)).rowCount).toBeGreaterThan(0), { timeout: 10_000, interval: 200 });
    const slices = await expectSlicesExact('active');
    expect(slices).toHaveLength(Math.ceil((await listSize('active')) / SLICE_ROWS));
    expect((await server.db.query(`SELECT 1 FROM user_slices WHERE domain_id = 'huge' AND status = 'deleted'`)).rowCount).toBe(0);
  });

  it('give every deep page exactly what OFFSET paging gives, ascending and descending', async () => {
    await expectPagesMatchOffset('active');
    await expectPagesMatchOffset('deleted'); // no slices: the same SQL still pages exactly
  });

  it('stay exact through creates, renames, soft deletes, recovers, purges, bulk SQL and a deleted list crossing the threshold', async () => {
    const token = server.adminToken;
    const authVerification = await bcrypt.hash('a password', 10);
    for (let i = 0; i < 5; i++) {
      const created = await call(server, token, 'POST', users, { username: `new${i}`, displayName: `Name ${1000 * i}`, email: `new${i}@huge.example`, authVerification });
      expect(created.status, created.text).toBe(201);
    }
    // renames across slices, soft delete (active -> deleted), recover (deleted -> active), purge
    const rename = async (id: string, displayName: string) => {
      const record = (await call(server, token, 'GET', `${users}/${id}`)).body;
      const res = await call(server, token, 'PUT', `${users}/${id}`, { ...record, displayName });
      expect(res.status, res.text).toBe(200);
    };
    await rename('u1', 'AAA first now');
    await rename('u2', 'zzz last now');
    const statuses = await call(server, token, 'PUT', users, [{ id: 'u3', status: 'deleted' }, { id: 'u4', status: 'deleted' }, { id: 'u9', status: 'active' }]);
    expect(statuses.status, statuses.text).toBe(200);
    const purge = await call(server, token, 'DELETE', users, ['u18', 'u27']);
    expect(purge.status, purge.text).toBe(200);
    // bulk SQL: 30,000 more deleted users take the deleted list over the threshold; 2,000 renamed
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, status)
       SELECT 'root', 'huge', 'd' || i, 'deleted' || i, 'Gone ' || i, 'deleted' || i || '@huge.example', 'deleted' FROM generate_series(1, 30000) AS i`,
    );
    await server.db.query(`UPDATE users SET display_name = 'Moved ' || id WHERE domain_id = 'huge' AND id LIKE 'u1%' AND status <> 'deleted' AND length(id) = 5`);
    await expectSlicesExact('active');
    await expectPagesMatchOffset('active');

    await apiPage('deleted', 25, 25, 'ASC'); // a page past the first looks at the slices every time
    await vi.waitFor(async () => expect((await server.db.query(`SELECT 1 FROM user_slices WHERE domain_id = 'huge' AND status = 'deleted'`)).rowCount).toBeGreaterThan(0), { timeout: 10_000, interval: 200 });
    await expectSlicesExact('deleted');
    await expectPagesMatchOffset('deleted');
  });

  it('are cut again when writes make one slice too large', async () => {
    const before = await expectSlicesExact('active');
    // 25,000 users whose names all fall into one slice
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
       SELECT 'root', 'huge', 'p' || i, 'packed' || i, 'Name 1 packed ' || i, 'packed' || i || '@huge.example' FROM generate_series(1, 25000) AS i`,
    );
    const lopsided = await expectSlicesExact('active');
    expect(Math.max(...lopsided.map((s) => s.n))).toBeGreaterThan(2 * SLICE_ROWS);
    expect(lopsided).toHaveLength(before.length);
    await apiPage('active', 25, 25, 'ASC');
    await vi.waitFor(async () => {
      const { rows } = await server.db.query<{ largest: number }>(`SELECT max(n)::int AS largest FROM user_slices WHERE domain_id = 'huge' AND status = 'active'`);
      expect(rows[0].largest).toBeLessThanOrEqual(SLICE_ROWS);
    }, { timeout: 10_000, interval: 200 });
    await expectSlicesExact('active');
    await expectPagesMatchOffset('active');
  });

  it('are per domain: another tenant\'s large list has its own slices and pages', async () => {
    const acme = await createTenant(server, 'acme');
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
       SELECT 'acme', 'acme-domain', 'a' || i, 'acme' || i, 'Name ' || (i % 300), 'acme' || i || '@acme.example' FROM generate_series(1, 31000) AS i`,
    );
    await rebuildUserSlices(server.db, 'acme', 'acme-domain', 'active');
    const acmeUsers = `/api/companys/acme/domainNames/acme-domain/users`;
    const res = await call(server, acme.adminToken, 'GET', `${acmeUsers}?range=[20000,20004]&sort=["displayName","ASC"]&condition=status,!=,deleted`);
    expect(res.status).toBe(200);
    const { rows } = await server.db.query<{ id: string }>(
      `SELECT id FROM users WHERE company_id = 'acme' AND domain_id = 'acme-domain' AND status <> 'deleted' ORDER BY display_name, id LIMIT 5 OFFSET 20000`,
    );
    expect(res.body.map((u: { id: string }) => u.id)).toEqual(rows.map((r) => r.id));
    // root's slices are untouched, and acme's administrator cannot page root's list
    await expectSlicesExact('active');
    expect((await call(server, acme.adminToken, 'GET', `${users}?range=[20000,20004]`)).status).toBe(404);
  });
});
