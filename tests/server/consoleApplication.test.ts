import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planGrant } from '../../server/oauth/grants.js';
import { managementAudience } from '../../server/accounts/tokens.js';
import { seedFirstRun } from '../../server/seed.js';
import { call, createTenant, PUBLIC_URL, startServer, type TestServer, tokenFor } from './helpers.js';
import { consoleLoginFields, pkce, postLogin, redirectParams } from './oauthHelpers.js';

/**
 * The console application is the provider's own door (docs/CONSOLE.md, "Applications"): its
 * sign-in settings follow PUBLIC_URL and nobody changes them through the management API; its name
 * and description are an Owner's; it is never deleted, purged or given a secret; and no other
 * application receives the management API's user:admin without the consent page.
 */
let server: TestServer;
const tokens: Record<string, string> = {};
const CONSOLE = '/api/application/iam-console';

async function holder(role: string) {
  const userId = `as-${role}`;
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('root', 'default', $1, $1, $1, $1 || '@root.example')`, [userId]);
  const given = await call(server, server.adminToken, 'POST', '/api/companys/root/roleAssignments', { role, holderType: 'user', holderId: userId, holderCompanyId: 'root', holderDomainId: 'default' });
  expect(given.status, JSON.stringify(given.body)).toBe(201);
  return tokenFor(server.ctx, { companyId: 'root', domainId: 'default', userId });
}

beforeAll(async () => {
  server = await startServer();
  tokens.owner = server.adminToken;
  tokens.administrator = await holder('administrator');
  tokens['application-manager'] = await holder('application-manager');
}, 120_000);
afterAll(() => server?.close());

/** Changes an attacker would make to receive the console's codes, or to weaken how it signs in. */
const DOOR_CHANGES: Record<string, unknown> = {
  redirect_uris: [`${PUBLIC_URL}/callback`, 'https://evil.example/cb'],
  client_logout_uri: ['https://evil.example/'],
  allowed_web_orgins: ['https://evil.example'],
  grant_types: ['authorization_code', 'refresh_token'],
  // the client type: web would make it a confidential client, where PKCE is not required
  app_type: 'web',
  backchannel_logout_uri: 'https://evil.example/logout',
  audience: 'https://evil.example/api',
  client_uri: 'https://evil.example',
  id_token_expiration: 999999,
};

describe("the console application's sign-in settings", () => {
  it.each(['application-manager', 'administrator', 'owner'])('%s: every change answers 400 naming the field, and nothing is stored', async (role) => {
    for (const [field, value] of Object.entries(DOOR_CHANGES)) {
      const response = await call(server, tokens[role], 'PUT', CONSOLE, { [field]: value });
      expect(response.status, `${field}: ${response.text}`).toBe(400);
      expect(response.body.message).toMatch(new RegExp(`^${field}: the console application's`));
      expect(response.body).toMatchObject({ code: 'application.consoleLocked', params: { field } });
      // a list update too (the console's soft delete and recover use it)
      const listed = await call(server, tokens[role], 'PUT', '/api/application', [{ id: 'iam-console', [field]: value }]);
      expect(listed.status, `${field} (list): ${listed.text}`).toBe(400);
    }
    const stored = (await call(server, tokens.owner, 'GET', CONSOLE)).body;
    expect(stored).toMatchObject({
      redirect_uris: [`${PUBLIC_URL}/callback`],
      client_logout_uri: [`${PUBLIC_URL}/`],
      allowed_web_orgins: [PUBLIC_URL],
      grant_types: ['authorization_code'],
      app_type: 'SPA',
      backchannel_logout_uri: '',
      audience: `${PUBLIC_URL}/api`,
    });
  });

  it('the whole record sent back as stored is no change (the console form sends whole records)', async () => {
    const { id, client_id, domain, companyId, deletedAt, deletedBy, ...record } = (await call(server, tokens.owner, 'GET', CONSOLE)).body;
    for (const role of ['application-manager', 'administrator', 'owner']) {
      const response = await call(server, tokens[role], 'PUT', CONSOLE, record);
      expect(response.status, `${role}: ${response.text}`).toBe(200);
    }
  });

  it('an Owner changes its name and description; an Administrator or Application manager gets 403 naming the Owner role', async () => {
    for (const role of ['administrator', 'application-manager']) {
      const refused = await call(server, tokens[role], 'PUT', CONSOLE, { client_name: 'Renamed by someone' });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.message).toContain('Owner role');
      expect(refused.body).toMatchObject({ code: 'application.consoleOwner', params: { fields: 'client_name' } });
    }
    const renamed = await call(server, tokens.owner, 'PUT', CONSOLE, { client_name: 'Our console', description: 'ours' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ client_name: 'Our console', description: 'ours' });
  });

  it('is never deleted, purged or given a secret, by anyone', async () => {
    for (const role of ['application-manager', 'administrator', 'owner']) {
      expect((await call(server, tokens[role], 'PUT', CONSOLE, { status: 'deleted' })).status).toBe(400);
      const purged = await call(server, tokens[role], 'DELETE', CONSOLE);
      expect(purged.status).toBe(400);
      expect(purged.body).toMatchObject({ code: 'application.consolePurge', params: { id: 'iam-console' } });
      const rotated = await call(server, tokens[role], 'POST', `${CONSOLE}/secret`, {});
      expect(rotated.status, rotated.text).toBe(400);
      expect(rotated.body.message).toContain('console');
      expect(rotated.body).toMatchObject({ code: 'secret.consolePublic', params: { id: 'iam-console' } });
    }
    const { rows } = await server.db.query<{ status: string; hash: string | null }>(`SELECT status, client_secret_hash AS hash FROM applications WHERE id = 'iam-console'`);
    expect(rows[0]).toEqual({ status: 'active', hash: null });
  });

  it("no application takes the console's client id, in any company", async () => {
    const acme = await createTenant(server, 'door-acme');
    const response = await call(server, acme.adminToken, 'POST', `/api/door-acme/${acme.domainId}/application`, { client_name: 'Fake console', client_id: 'iam-console' });
    expect(response.status).toBe(409);
  });

  it('follows PUBLIC_URL at every start: a changed URL, and settings changed behind the API, come back in line', async () => {
    await server.db.query(`UPDATE applications SET redirect_uris = '["https://evil.example/cb"]', grant_types = '["authorization_code","refresh_token"]' WHERE id = 'iam-console'`);
    const moved = 'https://iam.example.test';
    await seedFirstRun(server.db, { ...server.ctx.config, publicUrl: moved });
    const read = async () => (await server.db.query(`SELECT redirect_uris, client_logout_uri, allowed_web_orgins, grant_types, audience, client_name FROM applications WHERE id = 'iam-console'`)).rows[0];
    expect(await read()).toMatchObject({ redirect_uris: [`${moved}/callback`], client_logout_uri: [`${moved}/`], allowed_web_orgins: [moved], grant_types: ['authorization_code'], audience: `${moved}/api` });
    await seedFirstRun(server.db, server.ctx.config);
    // its name is the Owner's, kept
    expect(await read()).toMatchObject({ redirect_uris: [`${PUBLIC_URL}/callback`], client_name: 'Our console' });
  });
});

describe('user:admin outside the console', () => {
  it("an Application manager's own application does not get the Owner's user:admin without her consent", async () => {
    const created = await call(server, tokens['application-manager'], 'POST', '/api/root/default/application', { client_name: 'Lookalike', redirect_uris: ['http://localhost:9999/cb'] });
    expect(created.status, created.text).toBe(201);
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { client_id: created.body.client_id, redirect_uri: 'http://localhost:9999/cb' }));
    const answer = redirectParams(response)!.params;
    expect(answer.code).toBeUndefined();
    expect(answer.error).toBe('consent_required');
  });

  it('the console is known by its stored company, domain and client id, never by the id alone', async () => {
    const user = { id: 'admin', companyId: 'root', domainId: 'default' };
    const plan = (client: Record<string, unknown>) =>
      planGrant(server.db, {
        client: { self_registered: false, grantTypeAllowed: () => false, ...client },
        user,
        scope: 'openid user:admin',
        resource: managementAudience(server.ctx),
        managementApi: managementAudience(server.ctx),
        consoleClientId: 'iam-console',
      });
    const console = await plan({ clientId: 'iam-console', company_id: 'root', domain_id: 'default' });
    expect(console).toMatchObject({ resourceScopes: ['user:admin'], consentNeeded: false });
    // the console's id with another tenant (a console id configured after the first run, taken elsewhere)
    const elsewhere = await plan({ clientId: 'iam-console', company_id: 'door-acme', domain_id: 'door-acme-domain' });
    expect(elsewhere.consentNeeded).toBe(true);
    const selfRegistered = await plan({ clientId: 'iam-console', company_id: 'root', domain_id: 'default', self_registered: true });
    expect(selfRegistered.resourceScopes).toEqual([]);
  });
});
