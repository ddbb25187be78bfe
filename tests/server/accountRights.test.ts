import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { mintAccessToken } from './mintToken.js';
import { addAdministrator, call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { agreeToAdministration, pkce, postLogin, postToken, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * Rights follow the account, now (docs/CONSOLE.md, "Sign-ins and rights"): a change that takes a
 * right away revokes, in its own transaction, every sign-in that depended on it; the next API call
 * with an earlier access token answers 401 and a refresh is refused.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const REDIRECT = 'http://localhost:3999/cb';
const PASSWORD = 'a long enough password';
const root = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, server.adminToken, method, url, body);

/** A public client of the tenant's domain that may refresh; sign-ins through it reach the management API. */
async function addRefreshingClient(tenant: Tenant) {
  const clientId = `${tenant.companyId}-app`;
  await server.db.query(
    `INSERT INTO applications (id, company_id, domain_id, client_name, app_type, redirect_uris, grant_types)
     VALUES ($1, $2, $3, $1, 'SPA', $4, '["authorization_code","refresh_token"]') ON CONFLICT DO NOTHING`,
    [clientId, tenant.companyId, tenant.domainId, JSON.stringify([REDIRECT])],
  );
  return clientId;
}

/** A real sign-in (form post, code, token exchange) asking for user:admin and a refresh token. */
async function signIn(tenant: Tenant, userId: string) {
  const clientId = await addRefreshingClient(tenant);
  await setPassword(server, tenant.companyId, tenant.domainId, userId, PASSWORD);
  await agreeToAdministration(server, tenant.companyId, tenant.domainId, userId, clientId);
  const { verifier, challenge } = pkce();
  const login = await postLogin(server, {
    email: `${userId}@${tenant.companyId}.example`,
    password: PASSWORD,
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid user:admin offline_access',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const code = redirectParams(login)?.params.code;
  expect(code, String(login.headers.location ?? login.body)).toBeTruthy();
  const tokens = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  expect(tokens.body.scope.split(' ')).toContain('user:admin');
  expect(tokens.body.refresh_token).toBeTruthy();
  return { clientId, access: tokens.body.access_token as string, refresh: tokens.body.refresh_token as string, idToken: tokens.body.id_token as string };
}

const apiStatus = async (tenant: Tenant, token: string) => (await call(server, token, 'GET', `/api/companys/${tenant.companyId}`)).status;
const refresh = (clientId: string, token: string) => postToken(server, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
/** Is the sign-in behind this access token (its gid) still live in the database? */
const grantLive = async (accessToken: string) => {
  const { gid } = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()) as { gid: string };
  const { rows } = await server.db.query<{ live: boolean }>(`SELECT revoked_at IS NULL AS live FROM oauth_grants WHERE id = $1`, [gid]);
  return rows[0]?.live === true;
};

/**
 * Sets up a tenant whose administrator `boss` has signed in for real: the token and refresh work.
 * A second administrator, `deputy`, lets boss lose the right (the last one cannot: lastAdministrator.test.ts).
 */
async function signedInTenant(companyId: string) {
  const tenant = await createTenant(server, companyId);
  await addAdministrator(server, tenant, 'deputy');
  const session = await signIn(tenant, 'boss');
  expect(await apiStatus(tenant, session.access)).toBe(200);
  return { tenant, session };
}

async function expectRevoked(tenant: Tenant, session: { clientId: string; access: string; refresh: string }) {
  expect(await grantLive(session.access)).toBe(false);
  expect(await apiStatus(tenant, session.access)).toBe(401);
  const refused = await refresh(session.clientId, session.refresh);
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('invalid_grant');
}

describe('rights follow the account', () => {
  it('a refresh works while the account keeps its rights', async () => {
    const { session } = await signedInTenant('rights-ok');
    const again = await refresh(session.clientId, session.refresh);
    expect(again.status).toBe(200);
    expect(again.body.scope.split(' ')).toContain('user:admin');
  });

  it('removal from administrators revokes at once: access token 401, refresh refused, no way back into the group', async () => {
    const { tenant, session } = await signedInTenant('rights-demoted');
    const removed = await root('DELETE', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups/administrators/members/boss`);
    expect(removed.status).toBe(200);
    await expectRevoked(tenant, session);
    // the old token cannot put its owner back
    const back = await call(server, session.access, 'POST', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups/administrators/members`, [
      { id: 'boss', type: 'user' },
    ]);
    expect(back.status).toBe(401);
  });

  it('losing administrators through a nested group (member removed, group soft-deleted) revokes too', async () => {
    for (const how of ['remove', 'soft-delete'] as const) {
      const tenant = await createTenant(server, `rights-nested-${how}`);
      const base = `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups`;
      expect((await root('POST', base, { name: 'ops', displayName: 'Ops', email: 'ops@example.com' })).status).toBe(201);
      expect((await root('POST', `${base}/administrators/members`, [{ id: 'ops', type: 'group' }])).status).toBe(200);
      expect((await root('POST', `${base}/ops/members`, [{ id: 'worker', type: 'user' }])).status).toBe(200);
      const session = await signIn(tenant, 'worker');
      expect(await apiStatus(tenant, session.access)).toBe(200);
      if (how === 'remove') expect((await root('DELETE', `${base}/ops/members/worker`)).status).toBe(200);
      else expect((await root('PUT', `${base}/ops`, { name: 'ops', displayName: 'Ops', email: 'ops@example.com', status: 'deleted' })).status).toBe(200);
      await expectRevoked(tenant, session);
      // boss, a direct member, keeps everything
      expect(await apiStatus(tenant, tenant.adminToken)).toBe(200);
    }
  });

  it('a write that fails revokes nothing (the revocation is part of the change)', async () => {
    const { tenant, session } = await signedInTenant('rights-rollback');
    const failed = await root('DELETE', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups/administrators/members`, ['boss', 'nobody']);
    expect(failed.status).toBe(404);
    expect(await apiStatus(tenant, session.access)).toBe(200);
    expect((await refresh(session.clientId, session.refresh)).status).toBe(200);
  });

  it('soft delete revokes; recovering the user does not revive the old tokens', async () => {
    const { tenant, session } = await signedInTenant('rights-deleted');
    const users = `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users`;
    expect((await root('PUT', users, [{ id: 'boss', status: 'deleted' }])).status).toBe(200);
    await expectRevoked(tenant, session);
    expect((await root('PUT', users, [{ id: 'boss', status: 'active' }])).status).toBe(200);
    expect(await apiStatus(tenant, session.access)).toBe(401);
    expect((await refresh(session.clientId, session.refresh)).body.error).toBe('invalid_grant');
    // a fresh sign-in works again
    const fresh = await signIn(tenant, 'boss');
    expect(await apiStatus(tenant, fresh.access)).toBe(200);
  });

  it('a password reset by someone else ends every sign-in; changing your own keeps only the session you do it from', async () => {
    const { tenant, session } = await signedInTenant('rights-password');
    const user = `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/users/boss`;
    const body = { username: 'boss', displayName: 'boss', email: 'boss@rights-password.example' };
    const reset = await root('PUT', user, { ...body, authVerification: await bcrypt.hash('reset by root', 10) });
    expect(reset.status).toBe(200);
    await expectRevoked(tenant, session);

    const first = await signIn(tenant, 'boss');
    const second = await signIn(tenant, 'boss');
    const own = await call(server, second.access, 'PUT', user, { ...body, authVerification: await bcrypt.hash('my own new one', 10) });
    expect(own.status).toBe(200);
    expect(await apiStatus(tenant, second.access)).toBe(200);
    expect(await apiStatus(tenant, first.access)).toBe(401);
    // changing other fields leaves sign-ins alone
    expect((await call(server, second.access, 'PUT', user, { ...body, notes: 'hello' })).status).toBe(200);
    expect(await apiStatus(tenant, second.access)).toBe(200);
  });

  it('deleting the company revokes the sign-ins made in it', async () => {
    const { tenant, session } = await signedInTenant('rights-gone');
    expect((await root('DELETE', `/api/companys/${tenant.companyId}`)).status).toBe(200);
    expect(await apiStatus(tenant, session.access)).toBe(401);
    expect((await refresh(session.clientId, session.refresh)).status).toBe(401); // its application went with it
    const { rows } = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM oauth_grants WHERE company_id = $1 AND revoked_at IS NULL`, [
      tenant.companyId,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('the guard checks membership when a token is used, not only when it was issued', async () => {
    const tenant = await createTenant(server, 'rights-use-time');
    // a token that claims user:admin for someone who is not an administrator (as if issued before a change)
    const forged = await mintAccessToken(server.ctx, { companyId: tenant.companyId, domainId: tenant.domainId, userId: 'worker', scope: 'openid user:admin', keepScope: true });
    expect(await apiStatus(tenant, forged)).toBe(401);
  });

  it('a refresh never returns user:admin to an account that lost it, even if its grant was left live', async () => {
    const { tenant, session } = await signedInTenant('rights-refresh');
    // take the membership away behind the triggers' back, as a restore of old data might
    await server.db.transaction(async (tx) => {
      await tx.query(`ALTER TABLE group_members DISABLE TRIGGER group_members_revoke_admin`);
      await tx.query(`DELETE FROM group_members WHERE company_id = $1 AND member_id = 'boss'`, [tenant.companyId]);
      await tx.query(`ALTER TABLE group_members ENABLE TRIGGER group_members_revoke_admin`);
    });
    expect(await grantLive(session.access)).toBe(true);
    const refused = await refresh(session.clientId, session.refresh);
    expect(refused.status).toBe(400);
    expect(refused.body.error_description).toContain('no longer an administrator');
    expect(await apiStatus(tenant, session.access)).toBe(401);
  });

  it('end session with the ID token revokes the sign-in (what the console does on sign-out)', async () => {
    const { tenant, session } = await signedInTenant('rights-logout');
    const out = await server.app.inject({
      method: 'POST',
      url: '/oauth/logout',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ id_token_hint: session.idToken, client_id: session.clientId }).toString(),
    });
    expect(out.statusCode).toBe(200);
    await expectRevoked(tenant, session);
  });
});

describe('tenancy rules live in the server', () => {
  const company = (name: string, extra: object = {}) => ({ name, displayName: name, description: `about ${name}`, ...extra });

  it('a customer administrator cannot change their own company type, so cannot create children', async () => {
    const reseller = await createTenant(server, 'type-reseller');
    const customer = await createTenant(server, 'type-customer', 'type-reseller', 'customer');
    const promote = await call(server, customer.adminToken, 'PUT', '/api/companys/type-customer', company('type-customer', { type: 'reseller' }));
    expect(promote.status).toBe(403);
    expect(promote.body.message).toMatch(/^type: /);
    const child = await call(server, customer.adminToken, 'POST', '/api/companys', company('type-grandchild', { parent: 'type-customer' }));
    expect(child.status).toBe(400);
    expect((await call(server, customer.adminToken, 'GET', '/api/companys/type-customer')).body.type).toBe('customer');
    // other fields of one's own company stay editable
    const described = await call(server, customer.adminToken, 'PUT', '/api/companys/type-customer', company('type-customer', { description: 'new words' }));
    expect(described.status).toBe(200);

    // an administrator of the parent may change it
    const byParent = await call(server, reseller.adminToken, 'PUT', '/api/companys/type-customer', company('type-customer', { type: 'reseller' }));
    expect(byParent.status).toBe(200);
    expect(byParent.body.type).toBe('reseller');
  });

  it('a company with children cannot become a customer; a reseller directly under root keeps its type; the name is the id', async () => {
    await createTenant(server, 'type-parent', 'type-reseller', 'reseller');
    await createTenant(server, 'type-child', 'type-parent', 'customer');
    const orphaning = await root('PUT', '/api/companys/type-parent', company('type-parent', { type: 'customer' }));
    expect(orphaning.status).toBe(409);
    expect(orphaning.body.message).toContain('child companies');
    const topReseller = await root('PUT', '/api/companys/type-reseller', company('type-reseller', { type: 'customer' }));
    expect(topReseller.status).toBe(409);
    const renamed = await root('PUT', '/api/companys/type-child', company('type-renamed'));
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toContain('name');
  });

  it('the delete rules behind the console\'s disabled buttons hold in the server', async () => {
    const tenant = await createTenant(server, 'delete-rules');
    // not the root company, not your own company, not your own domain
    expect((await root('DELETE', '/api/companys/root')).status).toBe(400);
    expect((await call(server, tenant.adminToken, 'DELETE', `/api/companys/${tenant.companyId}`)).status).toBe(400);
    expect((await call(server, tenant.adminToken, 'DELETE', '/api/companys', [tenant.companyId])).status).toBe(400);
    expect((await call(server, tenant.adminToken, 'DELETE', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`)).status).toBe(400);
    // an API's or application's domain never changes
    const apiBody = { companyId: tenant.companyId, domain: tenant.domainId, name: 'Rules API', identifier: 'https://rules.example/api' };
    const api = await call(server, tenant.adminToken, 'POST', '/api/api', apiBody);
    expect(api.status).toBe(201);
    await call(server, tenant.adminToken, 'POST', `/api/companys/${tenant.companyId}/domainNames`, { name: 'second', description: 'two' });
    const moved = await call(server, tenant.adminToken, 'PUT', `/api/api/${api.body.id}`, { ...api.body, domain: 'second' });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toMatch(/^domain: /);
  });

  it('group and domain names are their ids and cannot be changed', async () => {
    const tenant = await createTenant(server, 'names-locked');
    const group = await root('PUT', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/groups/administrators`, {
      name: 'admins2',
      displayName: 'A',
      email: 'a@example.com',
    });
    expect(group.status).toBe(400);
    const domain = await root('PUT', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`, { name: 'other', description: 'd' });
    expect(domain.status).toBe(400);
  });
});

describe('no existence oracle across tenants', () => {
  it('a taken company, client or API id answers the same whether it is in the caller\'s subtree or another tenant\'s', async () => {
    const a = await createTenant(server, 'oracle-a');
    const b = await createTenant(server, 'oracle-b');
    const as = (tenant: Tenant, method: 'POST', url: string, body: unknown) => call(server, tenant.adminToken, method, url, body);
    // records of tenant a
    expect((await as(a, 'POST', '/api/companys', { name: 'oracle-a-child', displayName: 'x', description: 'x', parent: 'oracle-a' })).status).toBe(201);
    const appA = await as(a, 'POST', '/api/application', { companyId: 'oracle-a', domain: a.domainId, client_id: 'oracleAppId', client_name: 'App A', app_type: 'SPA' });
    expect(appA.status, JSON.stringify(appA.body)).toBe(201);
    const apiA = await as(a, 'POST', '/api/api', { companyId: 'oracle-a', domain: a.domainId, id: 'oracleApiId', name: 'API A', identifier: 'https://a.example/api' });
    expect(apiA.status, JSON.stringify(apiA.body)).toBe(201);

    const attempts = [
      (t: Tenant) => as(t, 'POST', '/api/companys', { name: 'oracle-a-child', displayName: 'x', description: 'x', parent: t.companyId }),
      (t: Tenant) => as(t, 'POST', '/api/application', { companyId: t.companyId, domain: t.domainId, client_id: 'oracleAppId', client_name: `App ${t.companyId}`, app_type: 'SPA' }),
      (t: Tenant) => as(t, 'POST', '/api/api', { companyId: t.companyId, domain: t.domainId, id: 'oracleApiId', name: `API ${t.companyId}`, identifier: `https://${t.companyId}.example/api` }),
    ];
    for (const attempt of attempts) {
      const own = await attempt(a);
      const other = await attempt(b);
      expect(other.status).toBe(409);
      expect(other.body).toEqual(own.body);
      expect(other.body.message).toMatch(/is not available: choose another$/);
      expect(other.body.message).not.toMatch(/already exist/);
    }
    // and nothing of a's became readable to b
    expect((await call(server, b.adminToken, 'GET', '/api/application/oracleAppId')).status).toBe(404);
  });
});
