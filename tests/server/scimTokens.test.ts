import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/ids.js';
import { call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';

/**
 * A domain's SCIM tokens and calls (docs/CONSOLE.md, "Provisioning (SCIM)"): created with
 * scim:write and shown once, kept as a hash, listed with scim:read without the token, revoked (the
 * record stays), audited; another tenant 404, lesser roles 403.
 */

let server: TestServer;
let acme: Tenant;
let beta: Tenant;
const tokens: Record<string, string> = {};
const base = (tenant: Tenant = acme) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;
const scimGet = (token: string, tenant: Tenant = acme) =>
  server.app.inject({ method: 'GET', url: `/scim/v2/${tenant.companyId}/${tenant.domainId}/Users`, headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  for (const role of ['owner', 'administrator', 'support', 'user-manager', 'auditor']) {
    const userId = `as-${role}`;
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example')`, [acme.domainId, userId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', $2, $3, 'acme')`, [acme.domainId, userId, role]);
    tokens[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId });
  }
}, 120_000);
afterAll(() => server?.close());

describe('SCIM tokens', () => {
  it('creates a token shown once, stored as its SHA-256, usable at once; lists it without the token', async () => {
    const created = await call(server, tokens.administrator, 'POST', `${base()}/scimTokens`, { name: 'Entra ID' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Entra ID', createdBy: 'as-administrator', lastUsedAt: null, revokedAt: null });
    expect(created.body.token).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    const { rows } = await server.db.query<{ token_hash: string }>(`SELECT token_hash FROM scim_tokens WHERE company_id = 'acme' AND id = $1`, [created.body.id]);
    expect(rows[0].token_hash).toBe(sha256(created.body.token));
    expect(JSON.stringify(rows)).not.toContain(created.body.token);

    expect((await scimGet(created.body.token)).statusCode).toBe(200);
    const listed = await call(server, tokens.auditor, 'GET', `${base()}/scimTokens`);
    expect(listed.status).toBe(200);
    const item = listed.body.find((token: { id: string }) => token.id === created.body.id);
    expect(item).toMatchObject({ name: 'Entra ID', revokedAt: null });
    expect(item.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
    expect(JSON.stringify(listed.body)).not.toContain(rows[0].token_hash);
    expect(listed.headers['content-range']).toMatch(/^scimTokens /);
  });

  it('updates lastUsedAt at most once a minute', async () => {
    const { body } = await call(server, acme.adminToken, 'POST', `${base()}/scimTokens`, { name: 'busy' });
    await scimGet(body.token);
    const first = (await server.db.query<{ at: Date }>(`SELECT last_used_at AS at FROM scim_tokens WHERE company_id = 'acme' AND id = $1`, [body.id])).rows[0].at;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await scimGet(body.token);
    const second = (await server.db.query<{ at: Date }>(`SELECT last_used_at AS at FROM scim_tokens WHERE company_id = 'acme' AND id = $1`, [body.id])).rows[0].at;
    expect(new Date(second).getTime()).toBe(new Date(first).getTime());
  });

  it('revokes: the token stops working at once, its record stays with revokedAt; both audited', async () => {
    const { body } = await call(server, tokens.owner, 'POST', `${base()}/scimTokens`, { name: 'Okta' });
    expect((await scimGet(body.token)).statusCode).toBe(200);
    const revoked = await call(server, tokens.owner, 'DELETE', `${base()}/scimTokens/${body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    expect(revoked.body.token).toBeUndefined();
    const refused = await scimGet(body.token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    // again: nothing changes, the same record
    const again = await call(server, tokens.owner, 'DELETE', `${base()}/scimTokens/${body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    const listed = await call(server, tokens.owner, 'GET', `${base()}/scimTokens`);
    expect(listed.body.find((token: { id: string }) => token.id === body.id).revokedAt).not.toBeNull();

    const { rows } = await server.db.query<{ action: string; changes: Record<string, unknown>; actor: string }>(
      `SELECT action, changes, actor_user_id AS actor FROM audit_events WHERE company_id = 'acme' AND resource_type = 'scimTokens' AND resource_id = $1 ORDER BY id`,
      [body.id],
    );
    expect(rows.map((row) => row.action)).toEqual(['create', 'revoke']);
    expect(rows[0].actor).toBe('as-owner');
    expect(JSON.stringify(rows)).not.toContain(body.token);
  });

  it('a name is required and bounded (400 naming it); the token is never the caller\'s', async () => {
    for (const payload of [{}, { name: '' }, { name: ' ' }, { name: 'x'.repeat(101) }, { name: 'a', other: 1 }]) {
      const answer = await call(server, acme.adminToken, 'POST', `${base()}/scimTokens`, payload);
      expect(answer.status, JSON.stringify(payload)).toBe(400);
      expect(answer.body.message).toMatch(/name|other/);
    }
    // a token the caller would choose is no input (the answer's field, dropped as react-admin's echoes are): the server makes it
    const chosen = await call(server, acme.adminToken, 'POST', `${base()}/scimTokens`, { name: 'a', token: 'scim_mine' });
    expect(chosen.status).toBe(201);
    expect(chosen.body.token).not.toBe('scim_mine');
  });

  it('lesser roles: Support, User manager and Auditor cannot create or revoke (403); Support and User manager cannot list', async () => {
    const { body } = await call(server, acme.adminToken, 'POST', `${base()}/scimTokens`, { name: 'kept' });
    for (const role of ['support', 'user-manager', 'auditor']) {
      const created = await call(server, tokens[role], 'POST', `${base()}/scimTokens`, { name: 'mine' });
      expect(created.status, role).toBe(403);
      expect(created.body.message).toMatch(/scim:write/);
      expect((await call(server, tokens[role], 'DELETE', `${base()}/scimTokens/${body.id}`)).status, role).toBe(403);
    }
    for (const role of ['support', 'user-manager']) {
      expect((await call(server, tokens[role], 'GET', `${base()}/scimTokens`)).status, role).toBe(403);
      expect((await call(server, tokens[role], 'GET', `${base()}/scimCalls`)).status, role).toBe(403);
    }
    expect((await call(server, acme.userToken, 'POST', `${base()}/scimTokens`, { name: 'x' })).status).toBe(403);
    expect((await call(server, undefined, 'POST', `${base()}/scimTokens`, { name: 'x' })).status).toBe(401);
  });

  it('clientId: an application of this domain, allowed once at a time; no token made; another domain\'s application 400', async () => {
    const app = await call(server, acme.adminToken, 'POST', '/api/application', { companyId: 'acme', domain: acme.domainId, client_name: 'Sync', app_type: 'machine', grant_types: ['client_credentials'] });
    expect(app.status).toBe(201);
    const allowed = await call(server, tokens.owner, 'POST', `${base()}/scimTokens`, { name: 'Sync', clientId: app.body.client_id });
    expect(allowed.status).toBe(201);
    expect(allowed.body).toMatchObject({ name: 'Sync', clientId: app.body.client_id, revokedAt: null });
    expect(allowed.body.token).toBeUndefined();
    const { rows } = await server.db.query(`SELECT token_hash FROM scim_tokens WHERE company_id = 'acme' AND id = $1`, [allowed.body.id]);
    expect(rows[0].token_hash).toBeNull();
    const twice = await call(server, tokens.owner, 'POST', `${base()}/scimTokens`, { name: 'twice', clientId: app.body.client_id });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'scimToken.clientTaken', params: { clientId: app.body.client_id } });
    const other = await call(server, beta.adminToken, 'POST', '/api/application', { companyId: 'beta', domain: beta.domainId, client_name: 'Beta sync', app_type: 'machine', grant_types: ['client_credentials'] });
    for (const clientId of [other.body.client_id, 'nothing-here']) {
      const refused = await call(server, tokens.owner, 'POST', `${base()}/scimTokens`, { name: 'x', clientId });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/clientId/);
      expect(refused.body).toMatchObject({ code: 'scimToken.noApplication', params: { clientId } });
    }
    const audit = await server.db.query(`SELECT changes FROM audit_events WHERE company_id = 'acme' AND resource_type = 'scimTokens' AND resource_id = $1`, [allowed.body.id]);
    expect(audit.rows[0].changes).toMatchObject({ clientId: { after: app.body.client_id } });
    const listed = await call(server, tokens.owner, 'GET', `${base()}/scimTokens`);
    expect(listed.body.find((t: { id: string }) => t.id === allowed.body.id).clientId).toBe(app.body.client_id);
  });

  it("another tenant's tokens and calls: 404, and a token id of another domain is not found here", async () => {
    const { body } = await call(server, beta.adminToken, 'POST', `${base(beta)}/scimTokens`, { name: 'beta' });
    expect(body.token).toBeDefined();
    for (const [method, url] of [
      ['GET', `${base(beta)}/scimTokens`],
      ['POST', `${base(beta)}/scimTokens`],
      ['DELETE', `${base(beta)}/scimTokens/${body.id}`],
      ['GET', `${base(beta)}/scimCalls`],
    ] as const) {
      expect((await call(server, acme.adminToken, method, url, method === 'POST' ? { name: 'x' } : undefined)).status, `${method} ${url}`).toBe(404);
    }
    // beta's token id named under acme's path: not acme's
    expect((await call(server, acme.adminToken, 'DELETE', `${base()}/scimTokens/${body.id}`)).status).toBe(404);
    expect((await scimGet(body.token, beta)).statusCode).toBe(200);
  });

  it('scimCalls: every call recorded (method, path, status, token), never the token or the body; trimmed to the newest 500', async () => {
    const { body } = await call(server, acme.adminToken, 'POST', `${base()}/scimTokens`, { name: 'calls' });
    // (refusals of earlier tests: one a minute is kept, the next test shows)
    await server.db.query(`DELETE FROM scim_calls WHERE company_id = 'acme' AND domain_id = $1 AND token_id IS NULL AND client_id IS NULL`, [acme.domainId]);
    await server.app.inject({
      method: 'POST',
      url: `/scim/v2/acme/${acme.domainId}/Users?x=1`,
      headers: { authorization: `Bearer ${body.token}`, 'content-type': 'application/scim+json' },
      payload: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'secret-person@acme.example' }),
    });
    await server.app.inject({ method: 'GET', url: `/scim/v2/acme/${acme.domainId}/Users`, headers: { authorization: 'Bearer scim_wrong' } });
    await server.app.inject({
      method: 'POST',
      url: `/scim/v2/acme/${acme.domainId}/Bulk`,
      headers: { authorization: `Bearer ${body.token}`, 'content-type': 'application/scim+json' },
      payload: `{"x": "${'y'.repeat(1_100_000)}"}`,
    });
    const listed = await call(server, tokens.auditor, 'GET', `${base()}/scimCalls`);
    expect(listed.status).toBe(200);
    const [tooLarge, refused, created] = listed.body;
    expect(tooLarge).toMatchObject({ method: 'POST', path: `/scim/v2/acme/${acme.domainId}/Bulk`, status: 413 });
    expect(created).toMatchObject({ method: 'POST', path: `/scim/v2/acme/${acme.domainId}/Users`, status: 201, tokenId: body.id, clientId: null });
    expect(refused).toMatchObject({ method: 'GET', status: 401, tokenId: null });
    expect(refused.detail).toMatch(/not a SCIM token of this domain/);
    const all = JSON.stringify(listed.body);
    expect(all).not.toContain(body.token);
    expect(all).not.toContain('secret-person');

    // 600 calls recorded: the newest 500 stay
    await server.db.query(
      `INSERT INTO scim_calls (company_id, domain_id, id, at, method, path, status) SELECT 'acme', $1, 'old' || i, now() - (i || ' seconds')::interval, 'GET', '/x', 200 FROM generate_series(1, 600) i`,
      [acme.domainId],
    );
    await scimGet(body.token);
    const { rows } = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM scim_calls WHERE company_id = 'acme' AND domain_id = $1`, [acme.domainId]);
    expect(rows[0].n).toBe(500);
  });

  it('scimCalls: calls nobody was proved for are kept once a minute, their bodies never read: a flood cannot push real calls out', async () => {
    const { body } = await call(server, acme.adminToken, 'POST', `${base()}/scimTokens`, { name: 'flooded' });
    await scimGet(body.token);
    await server.db.query(`DELETE FROM scim_calls WHERE company_id = 'acme' AND domain_id = $1 AND token_id IS NULL AND client_id IS NULL`, [acme.domainId]);
    for (let i = 0; i < 30; i++) {
      const anonymous = await server.app.inject({ method: 'POST', url: `/scim/v2/acme/${acme.domainId}/Users`, headers: { 'content-type': 'application/scim+json' }, payload: `{"x": "${'y'.repeat(1_100_000)}"}` });
      // refused for who it is, before its (too large) body is read
      expect(anonymous.statusCode).toBe(401);
    }
    const { rows } = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM scim_calls WHERE company_id = 'acme' AND domain_id = $1 AND token_id IS NULL AND client_id IS NULL`,
      [acme.domainId],
    );
    expect(rows[0].n).toBe(1);
    const listed = await call(server, tokens.auditor, 'GET', `${base()}/scimCalls`);
    expect(listed.body.some((row: { tokenId: string | null }) => row.tokenId === body.id)).toBe(true);
  });
});
