/**
 * Every error of the management API carries a stable code and what its sentence names, beside the
 * English message that stays as it was (docs/CONSOLE.md, "Errors and messages"): the console
 * translates the code, logs and scripts read the message.
 */
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorAnswer } from '../../server/errors.js';
import { call, createTenant, startServer, tokenFor, type Tenant, type TestServer } from './helpers.js';

let server: TestServer;
let acme: Tenant;
let hash: string;
beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme');
  hash = await bcrypt.hash('s3cret password', 10);
});
afterAll(() => server?.close());

const users = '/api/companys/acme/domainNames/acme-domain/users';
const user = (username: string, extra: object = {}) => ({ username, displayName: `Name of ${username}`, email: `${username}@acme.example`, authVerification: hash, ...extra });

/** A user of acme's domain holding `role` over acme, signed in. */
async function holderOf(role: string, userId: string): Promise<string> {
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', $1, $1, $1, $1 || '@acme.example')`, [userId]);
  const given = await call(server, acme.adminToken, 'POST', '/api/companys/acme/roleAssignments', {
    role,
    holderType: 'user',
    holderId: userId,
    holderCompanyId: 'acme',
    holderDomainId: 'acme-domain',
  });
  expect(given.status).toBe(201);
  return tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId });
}

describe('error codes of the management API', () => {
  it('a schema validation: its keyword as a code, the field named, the message unchanged', async () => {
    const format = await call(server, acme.adminToken, 'POST', users, user('zoe', { email: 'not an address' }));
    expect(format.status).toBe(400);
    expect(format.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'body/email must match format "idn-email"',
      code: 'validation.format',
      params: { field: 'email', format: 'idn-email' },
    });

    const { username: _, ...nameless } = user('zoe');
    const required = await call(server, acme.adminToken, 'POST', users, nameless);
    expect(required.body).toMatchObject({ statusCode: 400, message: "body must have required property 'username'", code: 'validation.required', params: { field: 'username' } });

    const long = await call(server, acme.adminToken, 'POST', users, user('zoe', { displayName: 'x'.repeat(5000) }));
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('validation.tooLong');
    expect(long.body.params).toEqual({ field: 'displayName', limit: expect.any(Number) });
    expect(long.body.message).toMatch(/^body\/displayName must NOT have more than \d+ characters$/);
  });

  it('a missing permission: permission.missing with the permission and the roles that give it', async () => {
    const auditor = await holderOf('auditor', 'reader');
    const refused = await call(server, auditor, 'POST', users, user('zoe'));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('permission.missing');
    expect(refused.body.params).toEqual({ permission: 'users:write', roles: expect.stringContaining('Administrator') });
    expect(refused.body.params.roles).toContain('Owner');
    expect(refused.body.message).toMatch(/^Your role does not allow users:write here: it needs the Owner, .* role\.$/);
  });

  it('a lesser role aimed at a higher-ranked account: containment.higher naming it', async () => {
    const manager = await holderOf('user-manager', 'manager');
    const refused = await call(server, manager, 'DELETE', `${users}/boss`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'containment.higher', params: { id: 'boss', role: 'Administrator', place: 'acme' } });
    expect(refused.body.message).toMatch(/^You cannot act on user boss: it holds the Administrator role over company acme/);
  });

  it('not found: not_found with what was looked for; another tenant the same', async () => {
    const missing = await call(server, acme.adminToken, 'GET', `${users}/ghost`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'not_found', params: { what: expect.any(String) } });
    expect(missing.body.message).toBe(`${missing.body.params.what} not found`);
    const other = await call(server, acme.adminToken, 'GET', '/api/companys/root/domainNames/default/users/admin');
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('not_found');
    const route = await call(server, acme.adminToken, 'GET', '/api/nothing/here?x=1');
    expect(route.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Route GET /api/nothing/here not found', code: 'not_found', params: { what: 'Route GET /api/nothing/here' } });
  });

  it('a duplicate: duplicate with the name that clashed, the wording unchanged', async () => {
    expect((await call(server, acme.adminToken, 'POST', users, user('alice'))).status).toBe(201);
    const again = await call(server, acme.adminToken, 'POST', users, user('ALICE'));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ statusCode: 409, error: 'Conflict', message: 'duplicated error: ALICE already exist!', code: 'duplicate', params: { name: 'ALICE' } });
  });

  it("database-level refusals: the database's own errors become codes", async () => {
    const refusal = async (sql: string) => {
      try {
        await server.db.query(sql);
      } catch (error) {
        return errorAnswer(error);
      }
      throw new Error('the statement was accepted');
    };
    expect(await refusal(`INSERT INTO companies (id, name, display_name, type, parent, ancestors) VALUES ('acme', 'acme', 'acme', 'reseller', 'root', ARRAY['root','acme'])`)).toEqual({
      status: 409,
      message: 'duplicated error: record already exist!',
      code: 'duplicate_record',
    });
    expect(await refusal(`INSERT INTO domains (company_id, id, name, description) VALUES ('nowhere', 'd', 'd', 'x')`)).toMatchObject({ status: 400, code: 'reference_missing' });
    expect(await refusal(`SELECT 'not a number'::int`)).toMatchObject({ status: 400, code: 'invalid_value' });
    // the provider's last Owner, kept by the database (IA409), over the API
    const owners = await server.db.query<{ id: string }>(`SELECT id FROM role_assignments WHERE role = 'owner' AND company_id = 'root'`);
    expect(owners.rows).toHaveLength(1);
    const last = await call(server, server.adminToken, 'DELETE', `/api/companys/root/roleAssignments/${owners.rows[0].id}`);
    expect(last.status).toBe(409);
    expect(last.body).toMatchObject({ code: 'last_owner', message: expect.stringContaining('last Owner') });
  });

  it('413 and 4xx without a specific code: the code of their status', async () => {
    const big = await server.app.inject({
      method: 'POST',
      url: users,
      headers: { authorization: `Bearer ${acme.adminToken}`, 'content-type': 'application/json' },
      payload: `{"username":"${'x'.repeat(3 * 1024 * 1024)}"}`,
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
    const noToken = await call(server, undefined, 'GET', users);
    expect(noToken.status).toBe(401);
    expect(noToken.body.code).toBe('unauthorized');
  });
});
