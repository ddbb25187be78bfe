import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

let server: TestServer;
let tenant: Tenant;
let hash: string;
let otherHash: string;
beforeAll(async () => {
  server = await startServer();
  tenant = await createTenant(server, 'acme');
  hash = await bcrypt.hash('s3cret password', 10);
  otherHash = await bcrypt.hash('another password', 10);
});
afterAll(() => server?.close());

const base = '/api/companys/acme/domainNames/acme-domain/users';
const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, tenant.adminToken, method, url, body);
const user = (username: string, extra: object = {}) => ({
  username,
  displayName: `Name of ${username}`,
  email: `${username}@acme.example`,
  authVerification: hash,
  ...extra,
});
const storedHash = async (userId: string) =>
  (await server.db.query<{ password_hash: string }>(`SELECT password_hash FROM users WHERE company_id = 'acme' AND id = $1`, [userId])).rows[0]?.password_hash;
const ids = (body: { id: string }[]) => body.map((u) => u.id);

describe('users: create and read', () => {
  it('creates a user with a generated id, stores the hash and never returns it', async () => {
    const res = await as('POST', base, user('alice', { notes: 'first' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9]{20}$/), username: 'alice', displayName: 'Name of alice', notes: 'first', email: 'alice@acme.example', status: 'active', blockedAt: null, emailVerified: false, createdAt: expect.any(String), updatedAt: expect.any(String), lastSignInAt: null, groupCount: 0, deletedAt: null, deletedBy: null });
    expect(await storedHash(res.body.id)).toBe(hash);
    const read = await as('GET', `${base}/${res.body.id}`);
    expect(read.body).toEqual(res.body);
    expect(read.text).not.toContain('$2');
    const list = await as('GET', base);
    expect(list.text).not.toContain('authVerification');
    expect(list.text).not.toContain('$2');
  });

  it('keeps a given id, stores null notes as empty text', async () => {
    const res = await as('POST', base, user('bob', { id: 'bob', notes: null }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'bob', notes: '' });
    expect((await as('GET', `${base}/nobody`)).status).toBe(404);
  });

  it('accepts only bcrypt hashes of cost 10 to 14, or no password (an invitation sets it)', async () => {
    const invited = await as('POST', base, user('dora', { authVerification: undefined }));
    expect(invited.status).toBe(201);
    expect(await storedHash(invited.body.id)).toBeNull();
    const costly = (cost: string) => hash.replace(/^\$2b\$\d\d\$/, `$2b$${cost}$`);
    for (const bad of ['plain text password', bcrypt.hashSync('weak', 4), `${hash}x`, hash.replace('$2b$', '$3b$'), costly('15'), costly('31')]) {
      const res = await as('POST', base, user('carol', { authVerification: bad }));
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toContain('authVerification');
    }
    for (const prefix of ['$2a$', '$2y$']) {
      const res = await as('POST', base, user(`carol${prefix[2]}`, { authVerification: hash.replace('$2b$', prefix) }));
      expect(res.status, prefix).toBe(201);
    }
    expect((await as('POST', base, user('carol14', { authVerification: costly('14') }))).status).toBe(201);
    expect((await server.db.query(`SELECT 1 FROM users WHERE username = 'carol'`)).rows).toHaveLength(0);
  });

  it('names the missing or malformed field', async () => {
    for (const field of ['username', 'displayName', 'email']) {
      const res = await as('POST', base, user('dave', { [field]: undefined }));
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    }
    const email = await as('POST', base, user('dave', { email: 'not-an-email' }));
    expect(email.status).toBe(400);
    expect(email.body.message).toContain('email');
    const status = await as('POST', base, user('dave', { status: 'gone' }));
    expect(status.status).toBe(400);
    expect(status.body.message).toContain('status');
  });

  it('refuses a username or email already used in the domain, whatever the case', async () => {
    const name = await as('POST', base, user('ALICE', { email: 'other@acme.example' }));
    expect(name.status).toBe(409);
    expect(name.body.message).toBe('duplicated error: ALICE already exist!');
    const mail = await as('POST', base, user('alice2', { email: 'Alice@ACME.example' }));
    expect(mail.status).toBe(409);
    expect(mail.body.message).toBe('duplicated error: Alice@ACME.example already exist!');
    const id = await as('POST', base, user('bob2', { id: 'bob' }));
    expect(id.status).toBe(409);
    expect(id.body.message).toBe('duplicated error: bob already exist!');
    // another domain may reuse them
    expect((await call(server, server.adminToken, 'POST', '/api/companys/root/domainNames/default/users', user('alice'))).status).toBe(201);
  });
});

describe('users: lists', () => {
  beforeAll(async () => {
    for (const name of ['pa', 'pb', 'pc', 'pd', 'pe']) await as('POST', base, user(name, { id: name, displayName: `Pager ${name}` }));
    await as('PUT', base, [{ id: 'pd', status: 'deleted' }, { id: 'pe', status: 'deleted' }]);
  });

  it('pages with Content-Range and sorts', async () => {
    const page = await as('GET', `${base}?range=[0,1]&sort=["displayName","ASC"]&filter={"q":"pager"}`);
    expect(ids(page.body)).toEqual(['pa', 'pb']);
    expect(page.headers['content-range']).toBe('users 0-1/5');
    const last = await as('GET', `${base}?range=[4,6]&sort=["displayName","ASC"]&filter={"q":"pager"}`);
    expect(ids(last.body)).toEqual(['pe']);
    expect(last.headers['content-range']).toBe('users 4-4/5');
    const desc = await as('GET', `${base}?range=[0,0]&sort=["displayName","DESC"]&filter={"q":"pager"}`);
    expect(ids(desc.body)).toEqual(['pe']);
  });

  it('searches display name, username and email', async () => {
    expect(ids((await as('GET', `${base}?filter={"q":"name of BOB"}`)).body)).toEqual(['bob']);
    expect(ids((await as('GET', `${base}?filter={"q":"pb"}`)).body)).toEqual(['pb']);
    expect(ids((await as('GET', `${base}?filter={"q":"bob@acme"}`)).body)).toEqual(['bob']);
  });

  it('filters by status with a condition or a filter, and by ids', async () => {
    const live = await as('GET', `${base}?condition=status,!=,deleted&filter={"q":"pager"}`);
    expect(ids(live.body)).toEqual(['pa', 'pb', 'pc']);
    expect(live.headers['content-range']).toBe('users 0-2/3');
    const deleted = await as('GET', `${base}?filter={"status":"deleted"}`);
    expect(ids(deleted.body)).toEqual(['pd', 'pe']);
    const many = await as('GET', `${base}?filter={"id":["pc","bob","ghost"]}`);
    expect(ids(many.body).sort()).toEqual(['bob', 'pc']);
    const bad = await as('GET', `${base}?condition=password_hash,=,x`);
    expect(bad.status).toBe(400);
  });
});

describe('users: update', () => {
  it('changes fields and keeps the password when no authVerification is sent', async () => {
    const res = await as('PUT', `${base}/bob`, { id: 'bob', username: 'robert', displayName: 'Robert', notes: 'renamed', email: 'robert@acme.example', status: 'active' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'bob', username: 'robert', displayName: 'Robert', notes: 'renamed', email: 'robert@acme.example', status: 'active', blockedAt: null, emailVerified: false, createdAt: expect.any(String), updatedAt: expect.any(String), lastSignInAt: null, groupCount: 0, deletedAt: null, deletedBy: null });
    expect(await storedHash('bob')).toBe(hash);
    const changed = await as('PUT', `${base}/bob`, { ...res.body, authVerification: otherHash });
    expect(changed.body).toEqual({ ...res.body, updatedAt: expect.any(String) });
    expect(await storedHash('bob')).toBe(otherHash);
    const weak = await as('PUT', `${base}/bob`, { ...res.body, authVerification: 'password' });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toContain('authVerification');
    expect(weak.body).toMatchObject({ code: 'password.hashCost', params: { min: 10, max: 14 } });
    expect(await storedHash('bob')).toBe(otherHash);
  });

  it('refuses another id, an unknown user, missing fields and duplicates', async () => {
    const record = (await as('GET', `${base}/bob`)).body;
    expect((await as('PUT', `${base}/bob`, { ...record, id: 'pa' })).body.message).toContain('id');
    expect((await as('PUT', `${base}/ghost`, { ...record, id: undefined })).status).toBe(404);
    const missing = await as('PUT', `${base}/bob`, { username: 'robert', email: 'robert@acme.example' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('displayName');
    const dup = await as('PUT', `${base}/bob`, { ...record, email: 'PA@acme.example' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('duplicated error: PA@acme.example already exist!');
  });
});

describe('users: soft delete, recover, purge', () => {
  it('purges only a soft-deleted user, and removes their memberships', async () => {
    await as('POST', base, user('eve', { id: 'eve' }));
    await server.db.query(
      `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', 'acme-domain', 'administrators', 'user', 'eve')`,
    );
    const refused = await as('DELETE', `${base}/eve`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('delete the user first');

    const record = (await as('GET', `${base}/eve`)).body;
    const deleted = await as('PUT', `${base}/eve`, { ...record, status: 'deleted' });
    expect(deleted.body.status).toBe('deleted');
    const recovered = await as('PUT', `${base}/eve`, { ...record, status: 'active' });
    expect(recovered.body.status).toBe('active');
    await as('PUT', `${base}/eve`, { ...record, status: 'deleted' });

    const purged = await as('DELETE', `${base}/eve`);
    expect(purged.status).toBe(200);
    // deleted: when and by whom, from the audit trail (listFields.ts)
    expect(purged.body).toEqual({ ...record, status: 'deleted', updatedAt: expect.any(String), deletedAt: expect.any(String), deletedBy: 'boss' });
    expect((await as('GET', `${base}/eve`)).status).toBe(404);
    const memberships = await server.db.query(`SELECT 1 FROM group_members WHERE member_id = 'eve'`);
    expect(memberships.rows).toHaveLength(0);
  });

  it('bulk soft delete and recover are all or nothing', async () => {
    const res = await as('PUT', base, [{ id: 'pa', status: 'deleted' }, { id: 'pb', status: 'deleted' }]);
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: string; status: string }) => [u.id, u.status])).toEqual([['pa', 'deleted'], ['pb', 'deleted']]);
    expect(res.body[0]).toMatchObject({ username: 'pa', displayName: 'Pager pa', email: 'pa@acme.example' });

    const withUnknown = await as('PUT', base, [{ id: 'pa', status: 'active' }, { id: 'ghost', status: 'active' }]);
    expect(withUnknown.status).toBe(404);
    expect(withUnknown.body.message).toContain('ghost');
    const withDuplicate = await as('PUT', base, [{ id: 'pa', status: 'active' }, { id: 'pc', email: 'pb@acme.example' }]);
    expect(withDuplicate.status).toBe(409);
    expect((await as('GET', `${base}/pa`)).body.status).toBe('deleted');

    const recovered = await as('PUT', base, [{ id: 'pa', status: 'active' }]);
    expect(recovered.body[0].status).toBe('active');
  });

  it('bulk purge is all or nothing', async () => {
    const withActive = await as('DELETE', base, ['pd', 'pa']);
    expect(withActive.status).toBe(409);
    expect(withActive.body.message).toContain('pa');
    const withUnknown = await as('DELETE', base, ['pd', 'ghost']);
    expect(withUnknown.status).toBe(404);
    expect((await as('GET', `${base}/pd`)).status).toBe(200);
    const purged = await as('DELETE', base, ['pd', 'pe']);
    expect(purged.status).toBe(200);
    expect(ids(purged.body)).toEqual(['pd', 'pe']);
    expect((await as('GET', `${base}?filter={"id":["pd","pe"]}`)).body).toEqual([]);
  });

  it('an administrator cannot delete or purge themselves', async () => {
    const me = (await as('GET', `${base}/boss`)).body;
    const soft = await as('PUT', `${base}/boss`, { ...me, status: 'deleted' });
    expect(soft.status).toBe(400);
    expect(soft.body.message).toContain('yourself');
    const bulk = await as('PUT', base, [{ id: 'pa', status: 'deleted' }, { id: 'boss', status: 'deleted' }]);
    expect(bulk.status).toBe(400);
    expect((await as('GET', `${base}/pa`)).body.status).toBe('active');
    const purge = await as('DELETE', `${base}/boss`);
    expect(purge.status).toBe(400);
    expect(purge.body.message).toContain('yourself');
    expect((await as('GET', `${base}/boss`)).body.status).toBe('active');
  });
});

describe('users: tenancy', () => {
  it('answers 404 outside the caller\'s subtree and 403 to non-administrators', async () => {
    const reseller = await createTenant(server, 'reseller1');
    const sibling = await createTenant(server, 'sibling1');
    const child = await createTenant(server, 'child1', 'reseller1', 'customer');
    const target = '/api/companys/reseller1/domainNames/reseller1-domain/users';
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['GET', target],
      ['GET', `${target}/worker`],
      ['POST', target, user('intruder')],
      ['PUT', `${target}/worker`, { username: 'worker', displayName: 'x', email: 'w@x.io' }],
      ['PUT', target, [{ id: 'worker', status: 'deleted' }]],
      ['DELETE', `${target}/worker`],
      ['DELETE', target, ['worker']],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(server, sibling.adminToken, method, url, body)).status, `sibling ${method} ${url}`).toBe(404);
      expect((await call(server, child.adminToken, method, url, body)).status, `child ${method} ${url}`).toBe(404);
      expect((await call(server, reseller.userToken, method, url, body)).status, `user ${method} ${url}`).toBe(403);
    }
    // a domain of another company under a company the caller may reach is still 404
    expect((await call(server, reseller.adminToken, 'GET', '/api/companys/reseller1/domainNames/child1-domain/users')).status).toBe(404);
    expect((await call(server, reseller.adminToken, 'GET', '/api/companys/child1/domainNames/child1-domain/users')).status).toBe(200);
    expect((await call(server, server.adminToken, 'GET', `${target}/worker`)).body.status).toBe('active');
  });
});
