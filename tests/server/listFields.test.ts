import v8 from 'node:v8';
import vm from 'node:vm';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer, listQuery as q } from './helpers.js';
import { consoleLoginFields, pkce, postLogin, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * Fields, filters and the CSV export of the lists (docs/CONSOLE.md, "Fields, filters and CSV export
 * of the lists"): each new field and filter, the sorts, the 400 for a filter no index serves, the
 * export's rows, quoting and tenancy, and its memory at 200,000 users.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const PASSWORD = 'list fields password 1';
const domainPath = () => `/api/companys/acme/domainNames/${acme.domainId}`;
const users = () => `${domainPath()}/users`;
const ids = (body: { id: string }[]) => body.map((row) => row.id);

/** Rows of a CSV answer (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\r' && body[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      (row = []), (cell = ''), i++;
    } else cell += c;
  }
  return rows;
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  const { db } = server;
  // boss and worker come from createTenant; these have known times, domains and states
  await db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, created_at, last_sign_in_at, blocked_at, email_verified, notes) VALUES
      ('acme', $1, 'ann', 'ann', 'Ann Old', 'ann@Globex.com', now() - interval '40 days', now() - interval '2 days', NULL, true, ''),
      ('acme', $1, 'bob', 'bob', 'Bob New', 'bob@globex.com', now() - interval '2 days', NULL, NULL, false, ''),
      ('acme', $1, 'cat', 'cat', 'Cat Blocked', 'cat@initech.com', now() - interval '3 days', now() - interval '1 hour', now(), true, ''),
      ('acme', $1, 'dan', 'dan', '=HYPERLINK("http://evil")', 'dan@initech.com', now() - interval '10 days', NULL, NULL, false, 'says "hi", then
leaves')`,
    [acme.domainId],
  );
  await db.query(`UPDATE users SET created_at = now() - interval '100 days' WHERE company_id = 'acme' AND id IN ('boss', 'worker')`);
  await db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('acme', $1, 'sales', 'sales', 'Sales', 'sales@acme.example')`,
    [acme.domainId],
  );
  await db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES
      ('acme', $1, 'sales', 'user', 'ann'), ('acme', $1, 'sales', 'user', 'cat'), ('acme', $1, 'sales', 'group', 'administrators')`,
    [acme.domainId],
  );
  await setPassword(server, 'acme', acme.domainId, 'boss', PASSWORD);
}, 60_000);
afterAll(() => server?.close());

async function list(params: Record<string, unknown>, token = acme.adminToken) {
  return call(server, token, 'GET', `${users()}?${q({ condition: 'status,!=,deleted', ...params })}`);
}

describe('users: fields', () => {
  it('shows createdAt, updatedAt, lastSignInAt, groupCount and, for a live user, no deletedAt', async () => {
    const ann = await call(server, acme.adminToken, 'GET', `${users()}/ann`);
    expect(ann.status).toBe(200);
    expect(ann.body).toMatchObject({ lastSignInAt: expect.any(String), groupCount: 1, deletedAt: null, deletedBy: null, emailVerified: true });
    expect(Date.now() - Date.parse(ann.body.createdAt)).toBeGreaterThan(39 * 86400_000);
    expect(Date.parse(ann.body.updatedAt)).not.toBeNaN();
    expect((await call(server, acme.adminToken, 'GET', `${users()}/bob`)).body).toMatchObject({ lastSignInAt: null, groupCount: 0 });
  });

  it('lastSignInAt is set by a successful sign-in, and written again only after a minute', async () => {
    const before = (await call(server, acme.adminToken, 'GET', `${users()}/boss`)).body;
    expect(before.lastSignInAt).toBeNull();
    const signIn = async () => {
      const { challenge } = pkce();
      const response = await postLogin(server, consoleLoginFields(challenge, { email: 'boss@acme.example', password: PASSWORD, company: 'acme' }));
      expect(redirectParams(response)?.params.code).toBeTruthy();
    };
    await signIn();
    const first = (await call(server, acme.adminToken, 'GET', `${users()}/boss`)).body.lastSignInAt;
    expect(Date.now() - Date.parse(first)).toBeLessThan(60_000);
    await signIn();
    expect((await call(server, acme.adminToken, 'GET', `${users()}/boss`)).body.lastSignInAt).toBe(first);
    // a minute later it moves
    await server.db.query(`UPDATE users SET last_sign_in_at = now() - interval '2 minutes' WHERE company_id = 'acme' AND id = 'boss'`);
    await signIn();
    expect(Date.parse((await call(server, acme.adminToken, 'GET', `${users()}/boss`)).body.lastSignInAt)).toBeGreaterThan(Date.parse(first) - 1);
    // a wrong password sets nothing
    await server.db.query(`UPDATE users SET last_sign_in_at = NULL WHERE company_id = 'acme' AND id = 'boss'`);
    const { challenge } = pkce();
    await postLogin(server, consoleLoginFields(challenge, { email: 'boss@acme.example', password: 'wrong password 1', company: 'acme' }));
    expect((await call(server, acme.adminToken, 'GET', `${users()}/boss`)).body.lastSignInAt).toBeNull();
    // the maintained total is not moved by these updates
    const total = (await list({ range: [0, 0] })).headers['content-range'];
    expect(total).toBe('users 0-0/6');
  });

  it('a soft-deleted user says when and by whom; a recovered one says nothing', async () => {
    const worker = (await call(server, acme.adminToken, 'GET', `${users()}/worker`)).body;
    const deleted = await call(server, acme.adminToken, 'PUT', `${users()}/worker`, { username: worker.username, displayName: worker.displayName, email: worker.email, status: 'deleted' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const read = (await call(server, acme.adminToken, 'GET', `${users()}/worker`)).body;
    expect(read).toMatchObject({ status: 'deleted', deletedBy: 'boss' });
    expect(Date.now() - Date.parse(read.deletedAt)).toBeLessThan(60_000);
    const listed = await call(server, acme.adminToken, 'GET', `${users()}?${q({ condition: 'status,=,deleted' })}`);
    expect(listed.body).toEqual([expect.objectContaining({ id: 'worker', deletedBy: 'boss' })]);
    await call(server, acme.adminToken, 'PUT', `${users()}/worker`, { ...worker, status: 'active' });
    expect((await call(server, acme.adminToken, 'GET', `${users()}/worker`)).body).toMatchObject({ deletedAt: null, deletedBy: null });
  });
});

describe('users: filters and sorts', () => {
  it('neverSignedIn, inNoGroup, memberOf, emailDomain, blocked, emailVerified', async () => {
    await server.db.query(`UPDATE users SET last_sign_in_at = NULL WHERE company_id = 'acme' AND id = 'boss'`);
    const filtered = async (filter: Record<string, unknown>) => {
      const response = await list({ filter, sort: ['displayName', 'ASC'] });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return ids(response.body).sort();
    };
    expect(await filtered({ neverSignedIn: true })).toEqual(['bob', 'boss', 'dan', 'worker']);
    expect(await filtered({ neverSignedIn: false })).toEqual(['ann', 'cat']);
    expect(await filtered({ inNoGroup: true })).toEqual(['bob', 'dan', 'worker']);
    expect(await filtered({ inNoGroup: false })).toEqual(['ann', 'boss', 'cat']);
    // direct members only: boss is in sales through administrators, not directly
    expect(await filtered({ memberOf: 'sales' })).toEqual(['ann', 'cat']);
    expect(await filtered({ memberOf: 'nonexistent' })).toEqual([]);
    expect(await filtered({ emailDomain: 'GLOBEX.com' })).toEqual(['ann', 'bob']);
    expect(await filtered({ emailDomain: '@initech.com' })).toEqual(['cat', 'dan']);
    expect(await filtered({ blocked: true })).toEqual(['cat']);
    expect(await filtered({ blocked: false })).toEqual(['ann', 'bob', 'boss', 'dan', 'worker']);
    expect(await filtered({ emailVerified: true })).toEqual(['ann', 'cat']);
    expect(await filtered({ neverSignedIn: true, inNoGroup: true, emailDomain: 'globex.com' })).toEqual(['bob']);
    // a value of the wrong type is a 400 naming the filter
    const wrong = await list({ filter: { neverSignedIn: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/neverSignedIn/);
    expect((await list({ filter: { memberOf: 5 } })).status).toBe(400);
  });

  it('date ranges through conditions; a value that is not a time is a 400', async () => {
    const week = new Date(Date.now() - 7 * 86400_000).toISOString();
    const recent = await list({ condition: ['status,!=,deleted', `createdAt,>=,${week}`] });
    expect(ids(recent.body).sort()).toEqual(['bob', 'cat']);
    const older = await list({ condition: ['status,!=,deleted', `createdAt,<,${week}`, `createdAt,>=,${new Date(Date.now() - 50 * 86400_000).toISOString()}`] });
    expect(ids(older.body).sort()).toEqual(['ann', 'dan']);
    // created in the last 7 days and never signed in: the support question of the issue
    const question = await list({ condition: ['status,!=,deleted', `createdAt,>=,${week}`], filter: { neverSignedIn: true } });
    expect(ids(question.body)).toEqual(['bob']);
    const signedInToday = await list({ condition: ['status,!=,deleted', `lastSignInAt,>=,${new Date(Date.now() - 86400_000).toISOString()}`] });
    expect(ids(signedInToday.body)).toEqual(['cat']);
    const bad = await list({ condition: ['status,!=,deleted', 'createdAt,>=,last tuesday'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/createdAt must be a time/);
  });

  it('sorts by createdAt and lastSignInAt (never signed in sorts as the oldest)', async () => {
    // boss and worker were created at the same moment: the id breaks the tie
    expect(ids((await list({ sort: ['createdAt', 'DESC'] })).body)).toEqual(['bob', 'cat', 'dan', 'ann', 'worker', 'boss']);
    expect(ids((await list({ sort: ['createdAt', 'ASC'] })).body)).toEqual(['boss', 'worker', 'ann', 'dan', 'cat', 'bob']);
    const recentFirst = ids((await list({ sort: ['lastSignInAt', 'DESC'] })).body);
    expect(recentFirst.slice(0, 2)).toEqual(['cat', 'ann']);
    expect(recentFirst.slice(2).sort()).toEqual(['bob', 'boss', 'dan', 'worker']);
  });

  it('a field no index serves is not offered: 400 naming it', async () => {
    for (const [params, name] of [
      [{ filter: { updatedAt: '2026-01-01T00:00:00Z' } }, 'updatedAt'],
      [{ sort: ['groupCount', 'DESC'] }, 'groupCount'],
      [{ sort: ['deletedAt', 'DESC'] }, 'deletedAt'],
      [{ condition: ['status,!=,deleted', 'updatedAt,>=,2026-01-01T00:00:00Z'] }, 'updatedAt'],
      [{ condition: ['status,!=,deleted', 'blockedAt,>=,2026-01-01T00:00:00Z'] }, 'blockedAt'],
    ] as const) {
      const response = await list(params as Record<string, unknown>);
      expect(response.status, name).toBe(400);
      expect(response.body.message).toContain(`"${name}" (no index serves it`);
    }
  });

  it('another tenant gets 404; lists take pages of 100 rows', async () => {
    expect((await list({ filter: { neverSignedIn: true } }, other.adminToken)).status).toBe(404);
    const page = await list({ range: [0, 99] });
    expect(page.status).toBe(200);
  });
});

describe('other lists: fields and filters', () => {
  it('groups show their direct member count; members their e-mail', async () => {
    const groups = await call(server, acme.adminToken, 'GET', `${domainPath()}/groups?${q({ condition: 'status,!=,deleted' })}`);
    expect(groups.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'sales', memberCount: 3, deletedAt: null }), expect.objectContaining({ id: 'administrators', memberCount: 1 })]));
    expect((await call(server, acme.adminToken, 'GET', `${domainPath()}/groups?${q({ sort: ['memberCount', 'DESC'] })}`)).status).toBe(400);
    const members = await call(server, acme.adminToken, 'GET', `${domainPath()}/groups/sales/members`);
    expect(members.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'ann', email: 'ann@Globex.com' }), expect.objectContaining({ id: 'administrators', type: 'group', email: 'admins@example.com' })]));
  });

  it('groups: no members, created in a range, sorted by created time; another tenant 404', async () => {
    await server.db.query(
      `INSERT INTO groups (company_id, domain_id, id, name, display_name, email, created_at) VALUES ('acme', $1, 'empty', 'empty', 'Empty', 'empty@acme.example', now() - interval '3 days')`,
      [acme.domainId],
    );
    await server.db.query(`UPDATE groups SET created_at = now() - interval '30 days' WHERE company_id = 'acme' AND id IN ('sales', 'administrators')`);
    const groups = (params: Record<string, unknown>, token = acme.adminToken) =>
      call(server, token, 'GET', `${domainPath()}/groups?${q({ condition: 'status,!=,deleted', ...params })}`);
    expect(ids((await groups({ filter: { noMembers: true } })).body)).toEqual(['empty']);
    expect(ids((await groups({ filter: { noMembers: false } })).body).sort()).toEqual(['administrators', 'sales']);
    const recent = await groups({ condition: ['status,!=,deleted', `createdAt,>=,${new Date(Date.now() - 7 * 86_400_000).toISOString()}`] });
    expect(ids(recent.body)).toEqual(['empty']);
    expect(ids((await groups({ sort: ['createdAt', 'DESC'] })).body)[0]).toBe('empty');
    expect((await groups({ condition: ['status,!=,deleted', 'createdAt,>=,yesterday'] })).status).toBe(400);
    expect((await groups({ filter: { noMembers: 'maybe' } })).status).toBe(400);
    expect((await groups({ filter: { noMembers: true } }, other.adminToken)).status).toBe(404);
  });

  it('applications by type and grant type, APIs by signing algorithm, companies by type', async () => {
    const base = `/api/acme/${acme.domainId}`;
    for (const [name, type, grants] of [
      ['Machine One', 'machine', ['client_credentials']],
      ['Web One', 'web', ['authorization_code', 'refresh_token']],
    ] as const) {
      const created = await call(server, acme.adminToken, 'POST', '/api/application', { client_name: name, app_type: type, grant_types: grants, domain: acme.domainId, companyId: 'acme' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const machines = await call(server, acme.adminToken, 'GET', `${base}/application?${q({ filter: { grantType: 'client_credentials' } })}`);
    expect(machines.body.map((app: { client_name: string }) => app.client_name)).toEqual(['Machine One']);
    const web = await call(server, acme.adminToken, 'GET', `${base}/application?${q({ filter: { app_type: 'web' } })}`);
    expect(web.body.map((app: { client_name: string }) => app.client_name)).toEqual(['Web One']);
    expect(web.body[0]).toMatchObject({ grant_types: ['authorization_code', 'refresh_token'], deletedAt: null });

    for (const [name, signingAlgorithm] of [['Orders', 'RS256'], ['Legacy', 'HS256']]) {
      const created = await call(server, acme.adminToken, 'POST', '/api/api', { name, identifier: `https://${name.toLowerCase()}.acme.example`, signingAlgorithm, domain: acme.domainId, companyId: 'acme' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const hs = await call(server, acme.adminToken, 'GET', `${base}/api?${q({ filter: { signingAlgorithm: 'HS256' } })}`);
    expect(hs.body.map((api: { name: string }) => api.name)).toEqual(['Legacy']);

    const customers = await call(server, server.adminToken, 'GET', `/api/companys/root/childCompanys?${q({ filter: { type: 'customer' }, sort: ['type', 'ASC'] })}`);
    expect(ids(customers.body).sort()).toEqual(['acme', 'other']);
  });
});

describe('CSV export', () => {
  it('writes the filtered list with the chosen columns and labels, quoted and defused', async () => {
    const url = `${users()}/export.csv?${q({ condition: 'status,!=,deleted', filter: { inNoGroup: true }, sort: ['displayName', 'ASC'] })}&columns=id,displayName,notes,lastSignInAt,groupCount&labels=${encodeURIComponent(JSON.stringify(['ID', 'Name', 'Notes, free text', 'Last sign-in', 'Groups']))}`;
    const response = await server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${acme.adminToken}` } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="users.csv"');
    expect(response.body.startsWith('\uFEFFID,Name,"Notes, free text",Last sign-in,Groups\r\n')).toBe(true);
    const rows = parseCsv(response.body);
    expect(rows.slice(1).map((row) => row[0]).sort()).toEqual(['bob', 'dan', 'worker']);
    const dan = rows.find((row) => row[0] === 'dan')!;
    expect(dan).toEqual(['dan', '\'=HYPERLINK("http://evil")', 'says "hi", then\nleaves', '', '0']);
    // the raw text: the formula cell is quoted because of its quotes, prefixed inside
    expect(response.body).toContain('dan,"\'=HYPERLINK(""http://evil"")","says ""hi"", then\nleaves",,0\r\n');
  });

  it('default columns are every field; bad columns, labels and filters are 400s before any row', async () => {
    const all = await server.app.inject({ method: 'GET', url: `${users()}/export.csv?condition=status,!=,deleted`, headers: { authorization: `Bearer ${acme.adminToken}` } });
    expect(parseCsv(all.body)[0]).toEqual(['id', 'username', 'displayName', 'notes', 'email', 'status', 'blockedAt', 'emailVerified', 'createdAt', 'updatedAt', 'lastSignInAt', 'groupCount', 'deletedAt', 'deletedBy']);
    for (const query of ['columns=id,password', 'columns=id,displayName&labels=["one"]', 'labels=nope', 'filter={"updatedAt":"x"}', 'condition=createdAt,>=,soon', 'sort=["nope","ASC"]']) {
      const response = await call(server, acme.adminToken, 'GET', `${users()}/export.csv?${query}`);
      expect(response.status, query).toBe(400);
    }
  });

  it('pages through the whole list: the rows and order of the list, at every sort, across pages of 1000', async () => {
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, created_at, last_sign_in_at)
       SELECT 'acme', $1, 'bulk' || i, 'bulk' || i, 'Bulk ' || (i % 37), 'bulk' || i || '@bulk.example', now() - (i % 500) * interval '1 minute',
              CASE WHEN i % 3 = 0 THEN NULL ELSE now() - (i % 7) * interval '1 hour' END
       FROM generate_series(1, 2500) AS i`,
      [acme.domainId],
    );
    for (const [sort, filter] of [
      [['displayName', 'ASC'], {}],
      [['createdAt', 'DESC'], {}],
      [['lastSignInAt', 'ASC'], {}],
      [['lastSignInAt', 'DESC'], { emailDomain: 'bulk.example' }],
      // 838 rows: an exact total
      [['id', 'DESC'], { neverSignedIn: true }],
    ] as const) {
      const params = { condition: 'status,!=,deleted', sort, filter };
      const listed: string[] = [];
      let total = 0;
      for (let start = 0; ; start += 1000) {
        const page = await list({ ...params, range: [start, start + 999] });
        expect(page.status).toBe(200);
        total = Number(page.headers['content-range']?.toString().split('/')[1]);
        listed.push(...ids(page.body));
        if (page.body.length < 1000) break;
      }
      const exported = await server.app.inject({ method: 'GET', url: `${users()}/export.csv?${q(params)}&columns=id`, headers: { authorization: `Bearer ${acme.adminToken}` } });
      const rows = parseCsv(exported.body).slice(1).map((row) => row[0]);
      expect(rows.length, JSON.stringify(sort)).toBe(listed.length);
      // totals of filtered lists are exact up to 1000 (list.ts FILTERED_COUNT_LIMIT), of the others up to 10,000
      if (total <= 1000) expect(rows.length).toBe(total);
      expect(new Set(rows).size).toBe(rows.length);
      if (sort[0] === 'displayName' || sort[0] === 'id') expect(rows).toEqual(listed);
      else expect([...rows].sort()).toEqual([...listed].sort());
    }
  });

  it('every list has one: groups, members, applications, APIs, audit, sign-in events, sessions, companies', async () => {
    const base = `/api/acme/${acme.domainId}`;
    for (const path of [
      `${domainPath()}/groups`,
      `${domainPath()}/groups/sales/members`,
      `${base}/application`,
      `${base}/api`,
      '/api/companys/acme/auditEvents',
      `${domainPath()}/signInEvents`,
      '/api/companys/root/childCompanys',
      '/api/companys/acme/domainNames',
    ]) {
      const token = path.startsWith('/api/companys/root') ? server.adminToken : acme.adminToken;
      const list = await call(server, token, 'GET', path);
      expect(list.status, path).toBe(200);
      const total = Number(list.headers['content-range']?.toString().split('/')[1]);
      const exported = await call(server, token, 'GET', `${path}/export.csv`);
      expect(exported.status, `${path}: ${exported.text.slice(0, 200)}`).toBe(200);
      expect(parseCsv(exported.text).length - 1, path).toBe(total);
    }
    const audit = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents/export.csv?${q({ filter: { action: 'delete' } })}&columns=resourceId,action,changes`);
    expect(parseCsv(audit.text).slice(1)).toEqual([['worker', 'delete', expect.stringContaining('"status":{"after":"deleted","before":"active"}')]]);
  });

  it('tenancy: another tenant 404, a role that cannot read the list 403, no token 401', async () => {
    expect((await call(server, other.adminToken, 'GET', `${users()}/export.csv`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'GET', '/api/companys/acme/auditEvents/export.csv')).status).toBe(404);
    expect((await call(server, undefined, 'GET', `${users()}/export.csv`)).status).toBe(401);
    expect((await call(server, acme.userToken, 'GET', `${users()}/export.csv`)).status).toBe(403);
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'appman', 'appman', 'App Manager', 'appman@acme.example')`, [acme.domainId]);
    const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role: 'application-manager', holderType: 'user', holderId: 'appman', holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status).toBe(201);
    const appman = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'appman' });
    const refused = await call(server, appman, 'GET', `${users()}/export.csv`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/users:read/);
    expect((await call(server, appman, 'GET', `${domainPath()}/signInEvents/export.csv`)).status).toBe(403);
    expect((await call(server, appman, 'GET', `/api/acme/${acme.domainId}/application/export.csv`)).status).toBe(200);
  });
});

describe('CSV export at 200,000 users', () => {
  it('streams them with flat memory', async () => {
    const { db } = server;
    await db.query(`INSERT INTO domains (company_id, id, name, description) VALUES ('acme', 'big', 'big', 'export test')`);
    const seeded = Date.now();
    await db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, created_at)
       SELECT 'acme', 'big', 'u' || i, 'user' || i, 'User ' || i, 'user' || i || '@big.example', now() - i * interval '1 second'
       FROM generate_series(1, 200000) AS i`,
    );
    const seedSeconds = (Date.now() - seeded) / 1000;
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (server.app.server.address() as { port: number }).port;
    // the live heap, not garbage waiting for a collection: collect before each sample
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const mb = (n: number) => Math.round(n / 1048576);
    const sample = () => ({ heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss });
    const before = sample();
    const during: { heap: number; rss: number }[] = [];
    const started = Date.now();
    const { lines, bytes } = await new Promise<{ lines: number; bytes: number }>((resolve, reject) => {
      const url = `http://127.0.0.1:${port}/api/companys/acme/domainNames/big/users/export.csv?condition=status,!=,deleted&columns=id,displayName,email,createdAt`;
      http.get(url, { headers: { authorization: `Bearer ${acme.adminToken}` } }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}`));
        let count = 0;
        let size = 0;
        let chunks = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
          if (++chunks % 20 === 0) {
            gc();
            during.push(sample());
          }
        });
        response.on('end', () => resolve({ lines: count, bytes: size }));
        response.on('error', reject);
      }).on('error', reject);
    });
    const seconds = (Date.now() - started) / 1000;
    gc();
    const after = sample();
    const peak = during.reduce((a, b) => ({ heap: Math.max(a.heap, b.heap), rss: Math.max(a.rss, b.rss) }), before);
    console.log(
      `export of 200,000 users (seeded in ${seedSeconds.toFixed(1)} s): ${lines - 1} rows, ${mb(bytes)} MB in ${seconds.toFixed(1)} s; ` +
        `heapUsed before ${mb(before.heap)} MB, peak during ${mb(peak.heap)} MB, after ${mb(after.heap)} MB; ` +
        `rss before ${mb(before.rss)} MB, peak during ${mb(peak.rss)} MB, after ${mb(after.rss)} MB (${during.length} samples)`,
    );
    expect(lines - 1).toBe(200000);
    // Flat: the heap of the last third of the download is no higher than that of the first third
    // (garbage between collections aside), and far below the rows as objects (~200 MB) or the CSV
    // held as strings (twice its bytes)
    const third = Math.floor(during.length / 3);
    const highest = (samples: { heap: number }[]) => Math.max(...samples.map((s) => s.heap));
    expect(highest(during.slice(-third)) - highest(during.slice(0, third))).toBeLessThan(16 * 1048576);
    expect(peak.heap - before.heap).toBeLessThan(64 * 1048576);
  }, 600_000);
});
