import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.js';
import { startMaintenance, type MaintenanceStep } from '../../server/db/maintenance.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * The audit trail (docs/CONSOLE.md, "History and audit log"): every kind of write of the management
 * API leaves exactly one record per record changed, with the caller and the diff (never a secret),
 * in the same transaction (a write that fails leaves none); a company's log is read by the
 * administrators of its subtree only.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const BCRYPT = '$2a$10$abcdefghijklmnopqrstuuQ5Qdf1k1z8Fhd2Ci5TSGl9dy9bAKqJe';
const BCRYPT_2 = '$2a$10$zyxwvutsrqponmlkjihgfeQ5Qdf1k1z8Fhd2Ci5TSGl9dy9bAKqJe';
const base = '/api/companys/acme/domainNames/acme-domain';

beforeAll(async () => {
  server = await startServer();
  // acme sells to others: it may have child companies
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  other = await createTenant(server, 'other', 'root', 'customer');
}, 60_000);
afterAll(() => server?.close());

const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, acme.adminToken, method, url, body);

interface Row {
  company_id: string;
  domain_id: string | null;
  resource_type: string;
  resource_id: string;
  action: string;
  changes: Record<string, Record<string, unknown>>;
  actor_user_id: string | null;
  actor_company_id: string | null;
  actor_domain_id: string | null;
  actor_client_id: string | null;
  actor_ip: string | null;
}

const lastId = async () => Number((await server.db.query<{ id: string | null }>('SELECT max(id)::text AS id FROM audit_events')).rows[0].id ?? 0);

/** Runs a write and answers it with the records it left, oldest first. */
async function recorded(write: () => Promise<{ status: number; body: any }>, expectedStatus: number) {
  const before = await lastId();
  const response = await write();
  expect(response.status, JSON.stringify(response.body)).toBe(expectedStatus);
  const { rows } = await server.db.query<Row>('SELECT * FROM audit_events WHERE id > $1 ORDER BY id', [before]);
  return { response, rows };
}

/** Exactly one record, of this resource and action. */
async function oneRecord(write: () => Promise<{ status: number; body: any }>, expectedStatus: number, resourceType: string, action: string) {
  const { response, rows } = await recorded(write, expectedStatus);
  expect(rows.map((row) => `${row.resource_type} ${row.action}`)).toEqual([`${resourceType} ${action}`]);
  return { response, row: rows[0] };
}

const user = (username: string, extra: object = {}) => ({ username, displayName: `Name of ${username}`, email: `${username}@acme.example`, authVerification: BCRYPT, ...extra });
/** The same without a password: an update that leaves the password alone. */
const userKeepingPassword = (username: string, extra: object = {}) => ({ ...user(username, extra), authVerification: undefined });

describe('each write kind: one record with the caller and the diff', () => {
  let userId: string;

  it('user: create, update, password change (hidden), soft delete, recover, purge', async () => {
    const created = await oneRecord(() => as('POST', `${base}/users`, user('jane')), 201, 'users', 'create');
    userId = created.response.body.id;
    expect(created.row).toMatchObject({
      company_id: 'acme',
      domain_id: 'acme-domain',
      resource_id: userId,
      actor_user_id: 'boss',
      actor_company_id: 'acme',
      actor_client_id: 'iam-console',
      actor_ip: '127.0.0.1',
    });
    expect(created.row.changes).toEqual({
      id: { after: userId },
      username: { after: 'jane' },
      // the generated subject (the sub of her tokens), recorded once
      subject: { after: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      display_name: { after: 'Name of jane' },
      email: { after: 'jane@acme.example' },
      notes: { after: '' },
      status: { after: 'active' },
      password_hash: { hidden: true },
      // the account's state (docs/CONSOLE.md, "Account states")
      email_verified: { after: false },
      required_actions: { after: [] },
    });
    expect(JSON.stringify(created.row)).not.toContain(BCRYPT);

    // a new password in an update is set as the Set password action sets it: a record of its own (hidden)
    const updated = await recorded(() => as('PUT', `${base}/users/${userId}`, user('jane', { displayName: 'Jane Doe', authVerification: BCRYPT_2 })), 200);
    expect(updated.rows.map((row) => `${row.resource_type} ${row.action}`)).toEqual(['users update', 'users setPassword']);
    expect(updated.rows[0].changes).toEqual({ display_name: { before: 'Name of jane', after: 'Jane Doe' } });
    expect(updated.rows[1].changes).toMatchObject({ password_hash: { hidden: true } });
    expect(JSON.stringify(updated.rows)).not.toContain(BCRYPT_2.slice(7));

    const deleted = await oneRecord(() => as('PUT', `${base}/users/${userId}`, userKeepingPassword('jane', { displayName: 'Jane Doe', status: 'deleted' })), 200, 'users', 'delete');
    expect(deleted.row.changes).toEqual({ status: { before: 'active', after: 'deleted' } });
    const recovered = await oneRecord(() => as('PUT', `${base}/users`, [{ id: userId, ...userKeepingPassword('jane', { displayName: 'Jane Doe', status: 'active' }) }]), 200, 'users', 'recover');
    expect(recovered.row.changes).toEqual({ status: { before: 'deleted', after: 'active' } });
    await as('PUT', `${base}/users/${userId}`, userKeepingPassword('jane', { displayName: 'Jane Doe', status: 'deleted' }));
    const purged = await oneRecord(() => as('DELETE', `${base}/users/${userId}`), 200, 'users', 'purge');
    // what was deleted, field by field (the password's hash only as "there was one")
    expect(purged.row.changes).toMatchObject({ username: { before: 'jane' }, display_name: { before: 'Jane Doe' }, password_hash: { hidden: true } });
  });

  it('an update that changes nothing records nothing', async () => {
    const created = await as('POST', `${base}/users`, user('same'));
    const { rows } = await recorded(() => as('PUT', `${base}/users/${created.body.id}`, userKeepingPassword('same')), 200);
    expect(rows).toEqual([]);
  });

  it("purging a user who is in a group records the purge and the group's lost member", async () => {
    const id = (await as('POST', `${base}/users`, user('leaver'))).body.id;
    await as('POST', `${base}/groups`, { name: 'left', displayName: 'Left', email: 'left@acme.example' });
    await as('POST', `${base}/groups/left/members`, [{ id, type: 'user' }]);
    await as('PUT', `${base}/users/${id}`, userKeepingPassword('leaver', { status: 'deleted' }));
    const { rows } = await recorded(() => as('DELETE', `${base}/users/${id}`), 200);
    expect(rows.map((row) => [row.resource_type, row.resource_id, row.action])).toEqual([
      ['groups', 'left', 'removeMember'],
      ['users', id, 'purge'],
    ]);
  });

  it('a bulk write: one record per record changed', async () => {
    const ids: string[] = [];
    for (const name of ['bulk1', 'bulk2', 'bulk3']) ids.push((await as('POST', `${base}/users`, user(name))).body.id);
    const { rows } = await recorded(() => as('PUT', `${base}/users`, ids.map((id, i) => ({ id, ...user(`bulk${i + 1}`, { status: 'deleted' }) }))), 200);
    expect(rows.map((row) => [row.resource_id, row.action])).toEqual(ids.map((id) => [id, 'delete']));
  });

  it('group: create, update, members added and removed, permissions granted and taken back, purge (its members with it)', async () => {
    await oneRecord(() => as('POST', `${base}/groups`, { name: 'editors', displayName: 'Editors', email: 'editors@acme.example' }), 201, 'groups', 'create');
    const renamed = await oneRecord(
      () => as('PUT', `${base}/groups/editors`, { name: 'editors', displayName: 'The editors', email: 'editors@acme.example' }),
      200,
      'groups',
      'update',
    );
    expect(renamed.row.changes).toEqual({ display_name: { before: 'Editors', after: 'The editors' } });

    const member = (await as('POST', `${base}/users`, user('member'))).body.id;
    const added = await oneRecord(() => as('POST', `${base}/groups/editors/members`, [{ id: member, type: 'user' }]), 200, 'groups', 'addMember');
    expect(added.row).toMatchObject({ resource_id: 'editors', changes: { member: { after: { type: 'user', id: member } } } });
    const removed = await oneRecord(() => as('DELETE', `${base}/groups/editors/members/${member}?type=user`), 200, 'groups', 'removeMember');
    expect(removed.row.changes).toEqual({ member: { before: { type: 'user', id: member } } });

    const api = (await as('POST', '/api/acme/acme-domain/api', { name: 'Orders', identifier: 'urn:orders' })).body;
    await as('POST', `/api/api/${api.id}/PermissionScopes`, { permission: 'read:orders', description: 'Read' });
    const granted = await oneRecord(() => as('POST', `${base}/groups/editors/permissions`, [{ apiId: api.id, permission: 'read:orders' }]), 200, 'groups', 'addPermission');
    expect(granted.row.changes).toEqual({ permission: { after: { apiId: api.id, scopeId: expect.any(String), permission: 'read:orders' } } });
    await oneRecord(() => as('DELETE', `${base}/groups/editors/permissions`, [{ apiId: api.id, permission: 'read:orders' }]), 200, 'groups', 'removePermission');

    await as('POST', `${base}/groups/editors/members`, [{ id: member, type: 'user' }]);
    await oneRecord(() => as('PUT', `${base}/groups/editors`, { name: 'editors', displayName: 'The editors', email: 'editors@acme.example', status: 'deleted' }), 200, 'groups', 'delete');
    // the memberships go with the group (a cascade): the purge is the one record
    await oneRecord(() => as('DELETE', `${base}/groups/editors`), 200, 'groups', 'purge');
  });

  it('application: create, update, secret rotation (hidden), soft delete, recover, purge', async () => {
    const created = await oneRecord(
      () => as('POST', '/api/acme/acme-domain/application', { client_name: 'Mailer', app_type: 'web', redirect_uris: ['https://mail.example/cb'] }),
      201,
      'applications',
      'create',
    );
    const app = created.response.body;
    expect(created.row.changes).toMatchObject({ client_name: { after: 'Mailer' }, redirect_uris: { after: ['https://mail.example/cb'] }, client_secret_hash: { hidden: true } });
    expect(JSON.stringify(created.row)).not.toContain(app.client_secret);

    const updated = await oneRecord(() => as('PUT', `/api/application/${app.id}`, { redirect_uris: ['https://mail.example/cb', 'https://mail.example/cb2'] }), 200, 'applications', 'update');
    expect(updated.row.changes).toEqual({ redirect_uris: { before: ['https://mail.example/cb'], after: ['https://mail.example/cb', 'https://mail.example/cb2'] } });

    const rotated = await oneRecord(() => as('POST', `/api/application/${app.id}/secret`, { graceSeconds: 60 }), 200, 'applications', 'rotateSecret');
    expect(rotated.row.changes).toMatchObject({ client_secret_hash: { hidden: true }, previous_secret_hash: { hidden: true } });
    expect(JSON.stringify(rotated.row)).not.toContain(rotated.response.body.client_secret);

    await oneRecord(() => as('PUT', `/api/application/${app.id}`, { status: 'deleted' }), 200, 'applications', 'delete');
    await oneRecord(() => as('PUT', '/api/application', [{ id: app.id, status: 'active' }]), 200, 'applications', 'recover');
    await as('PUT', `/api/application/${app.id}`, { status: 'deleted' });
    await oneRecord(() => as('DELETE', `/api/application/${app.id}`), 200, 'applications', 'purge');
  });

  it('API: create, update to HS256 (the signing secret hidden), permission scopes added, changed and removed, soft delete, purge', async () => {
    const created = await oneRecord(() => as('POST', '/api/acme/acme-domain/api', { name: 'Billing', identifier: 'urn:billing' }), 201, 'apis', 'create');
    const api = created.response.body;
    const switched = await oneRecord(() => as('PUT', `/api/api/${api.id}`, { signingAlgorithm: 'HS256' }), 200, 'apis', 'update');
    expect(switched.row.changes).toEqual({ signing_algorithm: { before: 'RS256', after: 'HS256' }, signing_secret: { hidden: true } });
    expect(JSON.stringify(switched.row)).not.toContain(switched.response.body.signingSecret);

    const scope = await oneRecord(() => as('POST', `/api/api/${api.id}/PermissionScopes`, { permission: 'pay', description: 'Pay' }), 201, 'apis', 'addScope');
    expect(scope.row).toMatchObject({ resource_id: api.id, company_id: 'acme', domain_id: 'acme-domain', changes: { scope: { after: { permission: 'pay', description: 'Pay' } } } });
    const scopeId = scope.response.body.id;
    const changed = await oneRecord(() => as('PUT', `/api/api/${api.id}/PermissionScopes/${scopeId}`, { description: 'Pay invoices' }), 200, 'apis', 'updateScope');
    expect(changed.row.changes).toMatchObject({ scope: { before: { description: 'Pay' }, after: { description: 'Pay invoices' } } });
    await oneRecord(() => as('DELETE', `/api/api/${api.id}/PermissionScopes/${scopeId}`), 200, 'apis', 'removeScope');

    await oneRecord(() => as('PUT', `/api/api/${api.id}`, { status: 'deleted' }), 200, 'apis', 'delete');
    await oneRecord(() => as('DELETE', `/api/api/${api.id}`), 200, 'apis', 'purge');
  });

  it('domain: create, update, primary switch (recorded on both domains), delete', async () => {
    const created = await oneRecord(() => as('POST', '/api/companys/acme/domainNames', { name: 'second', description: 'Second' }), 201, 'domains', 'create');
    expect(created.row).toMatchObject({ company_id: 'acme', domain_id: 'second', resource_id: 'second' });
    const described = await oneRecord(() => as('PUT', '/api/companys/acme/domainNames/second', { name: 'second', description: 'The second' }), 200, 'domains', 'update');
    expect(described.row.changes).toEqual({ description: { before: 'Second', after: 'The second' } });

    const { rows } = await recorded(() => as('PUT', '/api/companys/acme/domainNames/second', { name: 'second', description: 'The second', primary: true }), 200);
    expect(rows.map((row) => [row.resource_id, row.action, row.changes])).toEqual([
      ['acme-domain', 'update', { is_primary: { before: true, after: false } }],
      ['second', 'setPrimary', { is_primary: { before: false, after: true } }],
    ]);
    await as('PUT', '/api/companys/acme/domainNames/acme-domain', { name: 'acme-domain', description: 'test', primary: true });
    await oneRecord(() => as('DELETE', '/api/companys/acme/domainNames/second'), 200, 'domains', 'delete');
  });

  it("company: a child company's create, update and delete are kept in its parent's log", async () => {
    const created = await oneRecord(
      () => as('POST', '/api/companys', { name: 'acme-eu', displayName: 'Acme EU', description: 'Europe', parent: 'acme' }),
      201,
      'companies',
      'create',
    );
    expect(created.row).toMatchObject({ company_id: 'acme', domain_id: null, resource_id: 'acme-eu' });
    expect(created.row.changes).not.toHaveProperty('ancestors');
    const updated = await oneRecord(
      () => as('PUT', '/api/companys/acme-eu', { name: 'acme-eu', displayName: 'Acme Europe', description: 'Europe' }),
      200,
      'companies',
      'update',
    );
    expect(updated.row).toMatchObject({ company_id: 'acme', changes: { display_name: { before: 'Acme EU', after: 'Acme Europe' } } });
    // its domain's records are its own (cascaded rows are part of the company's delete)
    await as('POST', '/api/companys/acme-eu/domainNames', { name: 'eu', description: 'EU' });
    await oneRecord(() => as('DELETE', '/api/companys/acme-eu'), 200, 'companies', 'delete');
  });
});

describe("a parent company's administrator working in a child company (company switch)", () => {
  it("is recorded in the child's log, named with their own company", async () => {
    const { row } = await oneRecord(() => call(server, server.adminToken, 'POST', `${base}/users`, user('from-root')), 201, 'users', 'create');
    expect(row).toMatchObject({ company_id: 'acme', domain_id: 'acme-domain', actor_company_id: 'root', actor_domain_id: 'default' });
    const history = await as('GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: row.resource_id }))}`);
    // acme's administrator sees an operator of root by company and domain only (auditActors.test.ts)
    expect(history.body).toMatchObject([{ action: 'create', actorUserId: null, actorCompanyId: 'root', actorDomainId: 'default', actorClientId: null, actorIp: null }]);
  });
});

describe('no record without its change', () => {
  it('a write refused by a rule leaves no record', async () => {
    await as('POST', `${base}/users`, user('taken'));
    expect((await recorded(() => as('POST', `${base}/users`, user('taken')), 409)).rows).toEqual([]);
  });

  it('a bulk write that fails on its last record leaves no record of the earlier ones', async () => {
    const id = (await as('POST', `${base}/users`, user('first-of-two'))).body.id;
    const { rows } = await recorded(
      () => as('PUT', `${base}/users`, [{ id, ...user('first-of-two', { status: 'deleted' }) }, { id: 'no-such-user', ...user('ghost', { status: 'deleted' }) }]),
      404,
    );
    expect(rows).toEqual([]);
    expect((await as('GET', `${base}/users/${id}`)).body.status).toBe('active');
  });

  it('writes outside the management API (start-up seed, test fixtures) are not recorded', async () => {
    const before = await lastId();
    await server.db.query(`UPDATE users SET notes = 'by hand' WHERE company_id = 'acme' AND id = 'boss'`);
    expect(await lastId()).toBe(before);
  });
});

describe('reading the log', () => {
  it('lists the company log newest first with the API field names, filtered by resource, action, actor and time', async () => {
    const id = (await as('POST', `${base}/users`, user('listed'))).body.id;
    await as('PUT', `${base}/users/${id}`, user('listed', { displayName: 'Listed' }));
    const history = await as('GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: id }))}`);
    expect(history.status).toBe(200);
    expect(history.headers['content-range']).toBe('auditEvents 0-1/2');
    expect(history.body.map((record: { action: string }) => record.action)).toEqual(['update', 'create']);
    expect(history.body[0]).toEqual({
      id: expect.any(String),
      occurredAt: expect.any(String),
      domainId: 'acme-domain',
      resourceType: 'users',
      resourceId: id,
      action: 'update',
      changes: { displayName: { before: 'Name of listed', after: 'Listed' } },
      actorUserId: 'boss',
      actorCompanyId: 'acme',
      actorDomainId: 'acme-domain',
      actorClientId: 'iam-console',
      actorIp: '127.0.0.1',
      // a member of acme's administrators group
      actorRoles: 'administrator',
    });

    const filter = encodeURIComponent(JSON.stringify({ action: 'update', actorUserId: 'boss' }));
    const since = encodeURIComponent(`occurredAt,>=,${new Date(Date.now() - 60_000).toISOString()}`);
    const updates = await as('GET', `/api/companys/acme/auditEvents?filter=${filter}&condition=${since}&range=[0,999]`);
    expect(updates.status).toBe(200);
    expect(updates.body.length).toBeGreaterThan(0);
    expect(updates.body.every((record: { action: string }) => record.action === 'update')).toBe(true);
    const future = encodeURIComponent(`occurredAt,>=,${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect((await as('GET', `/api/companys/acme/auditEvents?condition=${future}`)).body).toEqual([]);
  });

  it('names what a list may not filter by, and survives hostile filters', async () => {
    // the changes, and fields no index leads with (a rare value would read the whole log)
    for (const field of ['changes', 'actorCompanyId', 'actorClientId', 'actorIp']) {
      const bad = await as('GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ [field]: 'x' }))}`);
      expect(bad.status, field).toBe(400);
      expect(bad.body.message).toContain(field);
    }
    for (const value of ['__proto__', 'a\u0000b', 'x'.repeat(10_000)]) {
      const res = await as('GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: value }))}`);
      expect(res.status, value.slice(0, 20)).toBeLessThan(500);
    }
    const proto = await as('GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent('{"__proto__": {"action": "x"}}')}`);
    expect(proto.status).toBeLessThan(500);
  });

  it("another tenant's administrator cannot read the log; an ancestor's can; an ordinary user cannot", async () => {
    expect((await call(server, other.adminToken, 'GET', '/api/companys/acme/auditEvents')).status).toBe(404);
    expect((await call(server, acme.userToken, 'GET', '/api/companys/acme/auditEvents')).status).toBe(403);
    expect((await call(server, acme.adminToken, 'GET', '/api/companys/root/auditEvents')).status).toBe(404);
    const fromRoot = await call(server, server.adminToken, 'GET', '/api/companys/acme/auditEvents');
    expect(fromRoot.status).toBe(200);
    expect(fromRoot.body.length).toBeGreaterThan(0);
    // the other tenant's own log holds nothing of acme's
    const own = await call(server, other.adminToken, 'GET', '/api/companys/other/auditEvents?range=[0,999]');
    expect(own.status).toBe(200);
    expect(own.body.filter((record: { actorCompanyId: string }) => record.actorCompanyId === 'acme')).toEqual([]);
  });
});

describe('retention', () => {
  it('the background maintenance deletes the records past AUDIT_RETENTION_DAYS (and sign-in events past theirs), nothing younger', async () => {
    await server.db.query(
      `INSERT INTO audit_events (occurred_at, company_id, resource_type, resource_id, action, changes)
       SELECT now() - make_interval(days => d) + interval '1 hour', 'acme', 'users', 'aged', 'update', jsonb_build_object('age', d)
       FROM generate_series(1, 50) AS d`,
    );
    const before = (await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE resource_id <> 'aged'`)).rows[0].n;
    const steps: MaintenanceStep[] = [];
    const stop = startMaintenance(server.db, { auditRetentionDays: 20, signInRetentionDays: 90, firstAfterMs: 0, checkEveryMs: 60_000, onStep: (step) => steps.push(step) });
    try {
      await expect.poll(() => steps.map((step) => step.sql).join('\n'), { timeout: 10_000 }).toContain('DELETE FROM audit_events (30 rows past 20 days)');
    } finally {
      stop();
    }
    const { rows } = await server.db.query<{ age: number }>(`SELECT (changes ->> 'age')::int AS age FROM audit_events WHERE resource_id = 'aged' ORDER BY 1`);
    expect(rows.map((row) => row.age)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // the records of this test run are all younger: untouched
    expect((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE resource_id <> 'aged'`)).rows[0].n).toBe(before);
  });

  it('AUDIT_RETENTION_DAYS: 365 by default, a bad value stops start-up', () => {
    expect(configFromEnv({}).auditRetentionDays).toBe(365);
    expect(configFromEnv({ AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
    for (const bad of ['0', '-1', '2.5', 'a year', '36501']) {
      expect(() => configFromEnv({ AUDIT_RETENTION_DAYS: bad })).toThrow(/^AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 36500/);
    }
  });
});
