import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';

/**
 * Bulk account actions from the users list (docs/CONSOLE.md, "Bulk actions"): all or none, one
 * audit record per changed user, another tenant 404 and a lesser role 403.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
const base = () => `/api/companys/acme/domainNames/${acme.domainId}/users`;
const people = ['p1', 'p2', 'p3'];

const historyOf = async (userId: string) =>
  (await server.db.query<{ action: string }>(`SELECT action FROM audit_events WHERE company_id = 'acme' AND resource_type = 'users' AND resource_id = $1 ORDER BY id`, [userId])).rows.map((row) => row.action);
const blocked = async () =>
  (await server.db.query<{ id: string }>(`SELECT id FROM users WHERE company_id = 'acme' AND blocked_at IS NOT NULL ORDER BY id`)).rows.map((row) => row.id);

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  for (const userId of people) {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example')`, [acme.domainId, userId]);
  }
}, 60_000);
afterAll(() => server?.close());

describe('bulk block and unblock', () => {
  it('blocks every listed user in one transaction, each recorded; unblock likewise', async () => {
    const tokens = await Promise.all(people.map((userId) => tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId, scope: 'openid' })));
    const answer = await call(server, acme.adminToken, 'POST', `${base()}/block`, { ids: people });
    expect(answer.status).toBe(200);
    expect(answer.body.changed.sort()).toEqual(people);
    expect(await blocked()).toEqual(people);
    for (const userId of people) expect(await historyOf(userId)).toEqual(['block']);
    const live = await server.db.query(`SELECT 1 FROM oauth_grants WHERE company_id = 'acme' AND user_id = ANY ($1::text[]) AND revoked_at IS NULL`, [people]);
    expect(live.rows).toEqual([]);
    expect(tokens).toHaveLength(3);

    // already blocked: nothing changes and nothing is recorded again
    expect((await call(server, acme.adminToken, 'POST', `${base()}/block`, { ids: ['p1'] })).body.changed).toEqual([]);
    const unblock = await call(server, acme.adminToken, 'POST', `${base()}/unblock`, { ids: ['p1', 'p2'] });
    expect(unblock.body.changed.sort()).toEqual(['p1', 'p2']);
    expect(await blocked()).toEqual(['p3']);
    expect(await historyOf('p1')).toEqual(['block', 'unblock']);
    await call(server, acme.adminToken, 'POST', `${base()}/unblock`, { ids: ['p3'] });
  });

  it('is all or none: an unknown id, yourself or the last administrator changes nobody', async () => {
    const unknown = await call(server, acme.adminToken, 'POST', `${base()}/block`, { ids: ['p1', 'nobody'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('nobody');
    const self = await call(server, acme.adminToken, 'POST', `${base()}/block`, { ids: ['p1', 'boss'] });
    expect(self.status).toBe(400);
    expect(self.body.message).toContain('yourself');
    expect(self.body).toMatchObject({ code: 'user.blockSelf', params: { field: 'ids' } });
    expect(await blocked()).toEqual([]);
    // a User manager may not block the administrator: she holds less (containment, 403) and nobody changes
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'deputy', 'deputy', 'deputy', 'deputy@acme.example')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', 'deputy', 'user-manager', 'acme')`, [acme.domainId]);
    const deputy = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'deputy' });
    const last = await call(server, deputy, 'POST', `${base()}/block`, { ids: ['p1', 'boss'] });
    expect(last.status).toBe(403);
    expect(last.body.message).toContain('boss');
    expect(await blocked()).toEqual([]);
  });

  it('validates the list', async () => {
    for (const bad of [{}, { ids: [] }, { ids: ['p1', 'p1'] }, { ids: [''] }, { ids: ['p1'], extra: 1 }]) {
      const answer = await call(server, acme.adminToken, 'POST', `${base()}/block`, bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
    }
  });
});

describe('bulk sign out and reset links', () => {
  it('ends every session of the listed users, one record each for those signed in', async () => {
    await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'p2', scope: 'openid' });
    const answer = await call(server, acme.adminToken, 'POST', `${base()}/signOutEverywhere`, { ids: ['p2', 'p3'] });
    expect(answer.status).toBe(200);
    expect(answer.body.changed).toContain('p2');
    expect((await historyOf('p2')).at(-1)).toBe('signOutEverywhere');
  });

  it('queues one reset link per user in the outbox, all or none', async () => {
    const before = (await server.db.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE company_id = 'acme'`)).rows[0] as { n: number };
    const refused = await call(server, acme.adminToken, 'POST', `${base()}/sendResetLink`, { ids: ['p1', 'nobody'] });
    expect(refused.status).toBe(404);
    expect(((await server.db.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE company_id = 'acme'`)).rows[0] as { n: number }).n).toBe(before.n);
    const sent = await call(server, acme.adminToken, 'POST', `${base()}/sendResetLink`, { ids: ['p1', 'p2'] });
    expect(sent.status).toBe(200);
    const messages = await server.db.query<{ recipient: string }>(`SELECT recipient FROM mail_outbox WHERE company_id = 'acme' ORDER BY id DESC LIMIT 2`);
    expect(messages.rows.map((row) => row.recipient).sort()).toEqual(['p1@acme.example', 'p2@acme.example']);
    expect((await historyOf('p1')).at(-1)).toBe('sendResetLink');
  });
});

describe('who may', () => {
  it('another tenant gets 404 and a role without the permission 403', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'auditor', 'auditor', 'auditor', 'auditor@acme.example')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', 'auditor', 'auditor', 'acme')`, [acme.domainId]);
    const auditor = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'auditor' });
    for (const action of ['block', 'unblock', 'signOutEverywhere', 'sendResetLink']) {
      expect((await call(server, other.adminToken, 'POST', `${base()}/${action}`, { ids: ['p1'] })).status, action).toBe(404);
      expect((await call(server, auditor, 'POST', `${base()}/${action}`, { ids: ['p1'] })).status, action).toBe(403);
    }
    expect(await blocked()).toEqual([]);
  });
});
