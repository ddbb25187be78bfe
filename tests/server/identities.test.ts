import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';

/**
 * A user's linked identities (docs/CONSOLE.md, "Connections"): listed with users:read, unlinked with
 * users:write under the containment rule (a User manager never unlinks an Administrator's), audited;
 * another tenant's user is not found. The identities are made here with SQL, as the sign-in makes them.
 */
let server: TestServer;
let acme: Tenant;
let beta: Tenant;
const tokens: Record<string, string> = {};
const users = () => `/api/companys/acme/domainNames/${acme.domainId}/users`;
const identitiesOf = (userId: string) => `${users()}/${userId}/identities`;

async function addUser(userId: string, role?: string) {
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example')`, [acme.domainId, userId]);
  if (role) {
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', $2, $3, 'acme')`, [acme.domainId, userId, role]);
    tokens[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId });
  }
}

async function link(userId: string, connection: { companyId: string; domainId: string; id: string }, subject: string, email: string | null = null) {
  await server.db.query(
    `INSERT INTO user_identities (company_id, domain_id, user_id, connection_company_id, connection_domain_id, connection_id, subject, email, last_used_at)
     VALUES ('acme', $1, $2, $3, $4, $5, $6, $7, now())`,
    [acme.domainId, userId, connection.companyId, connection.domainId, connection.id, subject, email],
  );
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  for (const role of ['support', 'user-manager', 'administrator', 'auditor']) await addUser(`as-${role}`, role);
  await addUser('pat');
  const okta = await call(server, acme.adminToken, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/connections`, {
    id: 'okta', displayName: 'Okta', preset: 'okta', issuer: 'https://acme.okta.com', clientId: 'c',
  });
  expect(okta.status, JSON.stringify(okta.body)).toBe(201);
  // a reseller's connection shared down: its row is root's, the identity is acme's user's
  const shared = await call(server, server.adminToken, 'POST', '/api/companys/root/domainNames/default/connections', {
    id: 'google', displayName: 'Google', preset: 'google', clientId: 'g', sharedWithSubtree: true,
  });
  expect(shared.status, JSON.stringify(shared.body)).toBe(201);
  await link('pat', { companyId: 'acme', domainId: acme.domainId, id: 'okta' }, '00u1/pat', 'pat@acme.example');
  await link('pat', { companyId: 'root', domainId: 'default', id: 'google' }, '1234567890');
  await link('as-administrator', { companyId: 'acme', domainId: acme.domainId, id: 'okta' }, '00u-admin');
}, 120_000);
afterAll(() => server?.close());

describe('linked identities', () => {
  it('lists a user\'s identities with their connection, subject and last use', async () => {
    const listed = await call(server, tokens.support, 'GET', identitiesOf('pat'));
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.headers['content-range']).toBe('identities 0-1/2');
    const byConnection = Object.fromEntries(listed.body.map((identity: { connectionId: string }) => [identity.connectionId, identity]));
    expect(byConnection.okta).toMatchObject({ id: 'okta:00u1/pat', connectionName: 'Okta', protocol: 'oidc', subject: '00u1/pat', email: 'pat@acme.example' });
    expect(byConnection.okta.lastUsedAt).toEqual(expect.any(String));
    expect(byConnection.google).toMatchObject({ id: 'google:1234567890', connectionName: 'Google', protocol: 'oidc', email: null });
    const one = await call(server, tokens.support, 'GET', `${identitiesOf('pat')}?filter=${encodeURIComponent(JSON.stringify({ id: ['okta:00u1/pat'] }))}`);
    expect(one.body.map((identity: { subject: string }) => identity.subject)).toEqual(['00u1/pat']);
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('worker'))).body).toEqual([]);
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('nobody'))).status).toBe(404);
  });

  it('another tenant\'s user is not found (404), to read or to unlink', async () => {
    expect((await call(server, beta.adminToken, 'GET', identitiesOf('pat'))).status).toBe(404);
    expect((await call(server, beta.adminToken, 'DELETE', `${identitiesOf('pat')}/${encodeURIComponent('okta:00u1/pat')}`)).status).toBe(404);
    // beta's own path naming acme's user: no such user there
    expect((await call(server, beta.adminToken, 'GET', `/api/companys/beta/domainNames/${beta.domainId}/users/pat/identities`)).status).toBe(404);
    expect((await call(server, beta.adminToken, 'DELETE', `/api/companys/beta/domainNames/${beta.domainId}/users/pat/identities/${encodeURIComponent('okta:00u1/pat')}`)).status).toBe(404);
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('pat'))).body).toHaveLength(2);
  });

  it('Support and an Auditor read but never unlink (403); a User manager never unlinks an Administrator\'s (containment)', async () => {
    const patOkta = `${identitiesOf('pat')}/${encodeURIComponent('okta:00u1/pat')}`;
    for (const role of ['support', 'auditor']) {
      const refused = await call(server, tokens[role], 'DELETE', patOkta);
      expect(refused.status, role).toBe(403);
      expect(refused.body.message).toContain('users:write');
    }
    const contained = await call(server, tokens['user-manager'], 'DELETE', `${identitiesOf('as-administrator')}/${encodeURIComponent('okta:00u-admin')}`);
    expect(contained.status).toBe(403);
    expect(contained.body.message).toContain('as-administrator');
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('as-administrator'))).body).toHaveLength(1);
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('pat'))).body).toHaveLength(2);
  });

  it('unlinks one identity (a subject with a slash, URL-encoded), once, with an audit record', async () => {
    const url = `${identitiesOf('pat')}/${encodeURIComponent('okta:00u1/pat')}`;
    const unlinked = await call(server, tokens['user-manager'], 'DELETE', url);
    expect(unlinked.status, JSON.stringify(unlinked.body)).toBe(200);
    expect(unlinked.body).toMatchObject({ id: 'okta:00u1/pat', connectionId: 'okta', subject: '00u1/pat' });
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('pat'))).body.map((identity: { id: string }) => identity.id)).toEqual(['google:1234567890']);
    expect((await call(server, acme.adminToken, 'DELETE', url)).status).toBe(404);
    expect((await call(server, acme.adminToken, 'DELETE', `${identitiesOf('pat')}/no-colon`)).status).toBe(400);

    const filter = encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: 'pat', action: 'unlinkIdentity' }));
    const trail = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${filter}`);
    expect(trail.body).toHaveLength(1);
    expect(trail.body[0]).toMatchObject({ actorUserId: 'as-user-manager', changes: { identity: { before: { connectionId: 'okta', connectionName: 'Okta', subject: '00u1/pat' } } } });

    // the shared connection's identity, unlinked by an administrator of acme (the connection stays root's)
    expect((await call(server, tokens.administrator, 'DELETE', `${identitiesOf('pat')}/${encodeURIComponent('google:1234567890')}`)).status).toBe(200);
    expect((await call(server, acme.adminToken, 'GET', identitiesOf('pat'))).body).toEqual([]);
    expect((await server.db.query(`SELECT 1 FROM connections WHERE company_id = 'root' AND id = 'google'`)).rowCount).toBe(1);
  });
});
