import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, postToken } from './oauthHelpers.js';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';

/**
 * The SCIM 2.0 server of a domain (docs/CONSOLE.md, "Provisioning (SCIM)"), against the real
 * server: who may call it (a token of this domain, or client credentials with the scim scope; any
 * other 401), every route, every filter attribute, paging, sorting, attributes, ETags, Bulk, the
 * mapping to the account's columns, what deactivating and deleting do, and containment (a
 * provisioning client never changes an account or a group that carries a console role).
 */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

let server: TestServer;
let acme: Tenant;
let beta: Tenant;
let token: string;
let tokenId: string;
const second = { companyId: 'acme', domainId: 'acme-second' };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
async function scim(method: Method, path: string, body?: unknown, options: { token?: string | null; at?: { companyId: string; domainId: string }; headers?: Record<string, string> } = {}) {
  const at = options.at ?? acme;
  const bearer = options.token === undefined ? token : options.token;
  const response = await server.app.inject({
    method,
    url: `/scim/v2/${at.companyId}/${at.domainId}${path}`,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}), ...options.headers },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, body: json, headers: response.headers };
}
const q = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
const user = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  name: { givenName: 'Given', familyName: 'Family' },
  emails: [{ value: `${userName.replace(/@.*/, '')}@acme.example`, type: 'work', primary: true }],
  active: true,
  ...extra,
});
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });
const row = async (id: string) =>
  (
    await server.db.query<{ username: string; display_name: string; email: string; status: string; blocked_at: Date | null; external_id: string | null; scim_attributes: Record<string, unknown> | null }>(
      `SELECT username, display_name, email, status, blocked_at, external_id, scim_attributes FROM users WHERE company_id = 'acme' AND domain_id = $1 AND id = $2`,
      [acme.domainId, id],
    )
  ).rows[0];
async function newToken(tenant: { companyId: string; domainId: string }, adminToken: string) {
  const created = await call(server, adminToken, 'POST', `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}/scimTokens`, { name: 'test' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; token: string };
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  await server.db.query(`INSERT INTO domains (company_id, id, name, description) VALUES ('acme', 'acme-second', 'acme-second', 'second')`);
  ({ token, id: tokenId } = await newToken(acme, acme.adminToken));
}, 120_000);
afterAll(() => server?.close());

describe('who may call', () => {
  it('anonymous, garbage and a management API token: 401 in SCIM\'s error form', async () => {
    for (const bearer of [null, 'scim_nothing', 'not.a.jwt', acme.adminToken]) {
      const answer = await scim('GET', '/Users', undefined, { token: bearer });
      expect(answer.status, String(bearer)).toBe(401);
      expect(answer.body).toMatchObject({ schemas: [ERROR], status: '401' });
      expect(answer.headers['content-type']).toBe('application/scim+json; charset=utf-8');
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it("a token of one domain is refused at another domain of its company, at another company, and at an unknown one (401, no data)", async () => {
    const created = await scim('POST', '/Users', user('kept@acme.example'));
    expect(created.status).toBe(201);
    for (const at of [second, beta, { companyId: 'nobody', domainId: 'nothing' }]) {
      for (const [method, path] of [['GET', '/Users'], ['GET', `/Users/${created.body.id}`], ['DELETE', `/Users/${created.body.id}`], ['GET', '/ServiceProviderConfig']] as const) {
        const answer = await scim(method, path, undefined, { at });
        expect(answer.status, `${at.domainId} ${method} ${path}`).toBe(401);
        expect(JSON.stringify(answer.body)).not.toContain('kept');
      }
    }
    // and beta's own token at acme
    const betaToken = await newToken(beta, beta.adminToken);
    expect((await scim('GET', '/Users', undefined, { token: betaToken.token })).status).toBe(401);
    expect((await scim('GET', '/Users', undefined, { token: betaToken.token, at: beta })).status).toBe(200);
    expect((await row(created.body.id)).status).toBe('active');
  });

  it('a revoked token: 401 at once', async () => {
    const revocable = await newToken(acme, acme.adminToken);
    expect((await scim('GET', '/Users', undefined, { token: revocable.token })).status).toBe(200);
    await call(server, acme.adminToken, 'DELETE', `/api/companys/acme/domainNames/${acme.domainId}/scimTokens/${revocable.id}`);
    expect((await scim('GET', '/Users', undefined, { token: revocable.token })).status).toBe(401);
  });

  it('client credentials: an application of the domain, for the SCIM base URL as its API, with the scim scope; nothing less', async () => {
    const api = (method: 'POST' | 'PUT', url: string, body: unknown) => call(server, acme.adminToken, method, url, body);
    const baseUrl = `${PUBLIC_URL}/scim/v2/acme/${acme.domainId}`;
    const created = await api('POST', '/api/api', { companyId: 'acme', domain: acme.domainId, name: 'SCIM', identifier: baseUrl });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const permission of ['scim', 'other']) expect((await api('POST', `/api/api/${created.body.id}/PermissionScopes`, { permission, description: permission })).status).toBe(201);
    const machine = await api('POST', '/api/application', { companyId: 'acme', domain: acme.domainId, client_name: 'HR sync', app_type: 'machine', grant_types: ['client_credentials'] });
    expect(machine.status, JSON.stringify(machine.body)).toBe(201);
    const grant = (scope: string) =>
      postToken(server, { grant_type: 'client_credentials', resource: baseUrl, scope }, { authorization: basicAuth(machine.body.client_id, machine.body.client_secret) });

    const good = await grant('scim');
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    // registering the API and the application is not enough: a scim:write holder allows the application
    const notYet = await scim('GET', '/Users', undefined, { token: good.body.access_token });
    expect(notYet.status).toBe(401);
    expect(notYet.body.detail).toMatch(/not allowed to provision this domain/);
    const allowed = await call(server, acme.adminToken, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/scimTokens`, { name: 'HR sync', clientId: machine.body.client_id });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
    expect(allowed.body).toMatchObject({ name: 'HR sync', clientId: machine.body.client_id });
    expect(allowed.body.token).toBeUndefined();
    const listed = await scim('GET', '/Users', undefined, { token: good.body.access_token });
    expect(listed.status).toBe(200);
    const made = await scim('POST', '/Users', user('machine-made@acme.example'), { token: good.body.access_token });
    expect(made.status).toBe(201);
    const { rows } = await server.db.query<{ client: string }>(
      `SELECT actor_client_id AS client FROM audit_events WHERE company_id = 'acme' AND resource_type = 'users' AND resource_id = $1 AND action = 'create'`,
      [made.body.id],
    );
    expect(rows[0].client).toBe(machine.body.client_id);
    const calls = await call(server, acme.adminToken, 'GET', `/api/companys/acme/domainNames/${acme.domainId}/scimCalls`);
    expect(calls.body[0]).toMatchObject({ method: 'POST', status: 201, clientId: machine.body.client_id, tokenId: allowed.body.id });

    // without the scim scope; at another domain (another audience); once the application is deleted
    expect((await scim('GET', '/Users', undefined, { token: (await grant('other')).body.access_token })).status).toBe(401);
    expect((await scim('GET', '/Users', undefined, { token: good.body.access_token, at: second })).status).toBe(401);
    expect((await call(server, acme.adminToken, 'DELETE', `/api/companys/acme/domainNames/${acme.domainId}/scimTokens/${allowed.body.id}`)).status).toBe(200);
    expect((await scim('GET', '/Users', undefined, { token: good.body.access_token })).status).toBe(401);
    expect((await call(server, acme.adminToken, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/scimTokens`, { name: 'again', clientId: machine.body.client_id })).status).toBe(201);
    expect((await scim('GET', '/Users', undefined, { token: good.body.access_token })).status).toBe(200);
    expect((await api('PUT', `/api/application/${machine.body.client_id}`, { status: 'deleted' })).status).toBe(200);
    expect((await scim('GET', '/Users', undefined, { token: good.body.access_token })).status).toBe(401);
  });

  it('an Application manager, who may register APIs and applications, cannot give one the right to provision (403), so gains none', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'app-manager', 'app-manager', 'App manager', 'app-manager@acme.example')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', 'app-manager', 'application-manager', 'acme')`, [acme.domainId]);
    const manager = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'app-manager' });
    const machine = await call(server, manager, 'POST', '/api/application', { companyId: 'acme', domain: acme.domainId, client_name: 'Sneaky sync', app_type: 'machine', grant_types: ['client_credentials'] });
    expect(machine.status, JSON.stringify(machine.body)).toBe(201);
    const allowed = await call(server, manager, 'POST', `/api/companys/acme/domainNames/${acme.domainId}/scimTokens`, { name: 'mine', clientId: machine.body.client_id });
    expect(allowed.status).toBe(403);
    const baseUrl = `${PUBLIC_URL}/scim/v2/acme/${acme.domainId}`;
    const got = await postToken(server, { grant_type: 'client_credentials', resource: baseUrl, scope: 'scim' }, { authorization: basicAuth(machine.body.client_id, machine.body.client_secret) });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect((await scim('POST', '/Users', user('sneaky@acme.example'), { token: got.body.access_token })).status).toBe(401);
  });
});

describe('Users', () => {
  it('create: 201 with Location, ETag and the SCIM representation; stored in the account\'s columns', async () => {
    const body = user('bjensen@acme.example', {
      schemas: [USER, ENTERPRISE],
      externalId: 'hr-1001',
      name: { givenName: 'Barbara', familyName: 'Jensen', formatted: 'Ms. Barbara J Jensen' },
      emails: [
        { value: 'home@example.com', type: 'home' },
        { value: 'bjensen@acme.example', type: 'work', primary: true },
      ],
      phoneNumbers: [{ value: '555-555-8377', type: 'work' }],
      title: 'Tour Guide',
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: 'boss' } },
      password: 'never-kept',
    });
    const created = await scim('POST', '/Users', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(created.headers.location).toBe(`${PUBLIC_URL}/scim/v2/acme/${acme.domainId}/Users/${created.body.id}`);
    expect(created.headers.etag).toBe(created.body.meta.version);
    expect(created.body).toMatchObject({
      schemas: [USER, ENTERPRISE],
      userName: 'bjensen@acme.example',
      externalId: 'hr-1001',
      displayName: 'Ms. Barbara J Jensen',
      active: true,
      title: 'Tour Guide',
      phoneNumbers: [{ value: '555-555-8377', type: 'work' }],
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: 'boss' } },
      groups: [],
      meta: { resourceType: 'User', location: created.headers.location },
    });
    expect(created.body.password).toBeUndefined();
    const stored = await row(created.body.id);
    expect(stored).toMatchObject({ username: 'bjensen@acme.example', display_name: 'Ms. Barbara J Jensen', email: 'bjensen@acme.example', status: 'active', blocked_at: null, external_id: 'hr-1001' });
    expect(JSON.stringify(stored.scim_attributes)).not.toContain('never-kept');
    const { rows } = await server.db.query(`SELECT password_hash FROM users WHERE company_id = 'acme' AND id = $1`, [created.body.id]);
    expect(rows[0].password_hash).toBeNull();

    const read = await scim('GET', `/Users/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    expect(read.body).toEqual(created.body);
    expect(read.headers.etag).toBe(created.body.meta.version);
  });

  it('an account made in the console, with @ in its id, is read at its Location', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'pat@home', 'pat-home', 'Pat Home', 'pat@home.example')`, [acme.domainId]);
    const listed = await scim('GET', `/Users${q({ filter: 'userName eq "pat-home"' })}`);
    const resource = listed.body.Resources[0];
    expect(resource).toMatchObject({ id: 'pat@home', emails: [{ value: 'pat@home.example', type: 'work', primary: true }], active: true });
    expect(resource.meta.location).toBe(`${PUBLIC_URL}/scim/v2/acme/${acme.domainId}/Users/pat%40home`);
    expect((await scim('GET', '/Users/pat%40home')).body.id).toBe('pat@home');
    expect((await scim('PATCH', '/Users/pat%40home', patch({ op: 'replace', path: 'displayName', value: 'Pat H.' }))).body.displayName).toBe('Pat H.');
  });

  it('the display name is made from the name when none is given, and the e-mail from the userName when no emails', async () => {
    const created = await scim('POST', '/Users', { schemas: [USER], userName: 'made.up@acme.example', name: { givenName: 'Made', familyName: 'Up' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ displayName: 'Made Up', emails: [{ value: 'made.up@acme.example', primary: true }] });
    expect(await row(created.body.id)).toMatchObject({ display_name: 'Made Up', email: 'made.up@acme.example' });
  });

  it('refuses bad input with 400 naming the attribute, never a 5xx', async () => {
    const cases: [unknown, RegExp][] = [
      [{ schemas: [USER] }, /userName/],
      [user(''), /userName/],
      [{ schemas: [USER], userName: 'no-mail' }, /emails/],
      [user('x@acme.example', { emails: [{ value: 'not an address', primary: true }] }), /emails/],
      [user('x@acme.example', { emails: 'x@y' }), /emails/],
      [user('x@acme.example', { active: 'maybe' }), /active/],
      [user('x@acme.example', { externalId: 7 }), /externalId/],
      [user('x'.repeat(201)), /userName/],
      [user('nul\u0000@acme.example'), /NUL/],
      [user('x@acme.example', { title: 'a\u0000b' }), /invalid/],
      [user('x@acme.example', { blob: 'x'.repeat(40_000) }), /KB/],
      ['{"schemas": [', /JSON/],
      ['[1, 2]', /User/],
    ];
    for (const [body, detail] of cases) {
      const answer = await scim('POST', '/Users', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.schemas).toEqual([ERROR]);
      expect(answer.body.detail).toMatch(detail);
    }
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    expect((await scim('POST', '/Users', deep)).status).toBe(400);
    const huge = await scim('POST', '/Users', JSON.stringify(user('x@acme.example', { blob: 'x'.repeat(1_100_000) })));
    expect(huge.status).toBe(413);
    expect(huge.body.schemas).toEqual([ERROR]);
  });

  it('a userName or e-mail already taken: 409 uniqueness', async () => {
    expect((await scim('POST', '/Users', user('twice@acme.example'))).status).toBe(201);
    const again = await scim('POST', '/Users', user('twice@acme.example'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    expect(again.body.detail).toMatch(/userName|emails/);
    const sameMail = await scim('POST', '/Users', user('other-name', { emails: [{ value: 'twice@acme.example', primary: true }] }));
    expect(sameMail.status).toBe(409);
    expect(sameMail.body.detail).toMatch(/emails/);
  });

  it('PUT replaces; If-Match with the current version passes, an old one is 412', async () => {
    const created = await scim('POST', '/Users', user('replace.me@acme.example', { externalId: 'old', title: 'Old title' }));
    const version = created.body.meta.version;
    const replaced = await scim('PUT', `/Users/${created.body.id}`, user('replaced@acme.example', { displayName: 'Replaced', externalId: 'new' }), { headers: { 'if-match': version } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({ userName: 'replaced@acme.example', displayName: 'Replaced', externalId: 'new' });
    expect(replaced.body.title).toBeUndefined();
    expect(replaced.body.meta.version).not.toBe(version);
    expect(await row(created.body.id)).toMatchObject({ username: 'replaced@acme.example', display_name: 'Replaced', email: 'replaced@acme.example', external_id: 'new' });
    const stale = await scim('PUT', `/Users/${created.body.id}`, user('stale@acme.example'), { headers: { 'if-match': version } });
    expect(stale.status).toBe(412);
    expect(stale.body.schemas).toEqual([ERROR]);
    const stalePatch = await scim('PATCH', `/Users/${created.body.id}`, patch({ op: 'replace', path: 'displayName', value: 'x' }), { headers: { 'if-match': version } });
    expect(stalePatch.status).toBe(412);
    expect((await scim('DELETE', `/Users/${created.body.id}`, undefined, { headers: { 'if-match': version } })).status).toBe(412);
    expect((await row(created.body.id)).username).toBe('replaced@acme.example');
    expect((await scim('PATCH', `/Users/${created.body.id}`, patch({ op: 'replace', path: 'displayName', value: 'Star' }), { headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('PATCH: attributes, the enterprise extension, a mutability refusal and bad operations', async () => {
    const created = await scim('POST', '/Users', user('patched@acme.example'));
    const id = created.body.id;
    const answer = await scim(
      'PATCH',
      `/Users/${id}`,
      patch(
        { op: 'replace', path: 'name.givenName', value: 'Pat' },
        { op: 'add', path: `${ENTERPRISE}:department`, value: 'Sales' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'pat@acme.example' },
        { op: 'add', path: 'nickName', value: 'P' },
      ),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ name: { givenName: 'Pat' }, nickName: 'P', [ENTERPRISE]: { department: 'Sales' }, emails: [{ value: 'pat@acme.example' }] });
    expect(answer.body.schemas).toContain(ENTERPRISE);
    expect(await row(id)).toMatchObject({ email: 'pat@acme.example' });
    // a path-less value naming the whole extension, and another extension kept as sent
    const whole = await scim('PATCH', `/Users/${id}`, patch({ op: 'add', value: { [ENTERPRISE]: { costCenter: '4130' }, 'urn:ietf:params:scim:schemas:extension:custom:2.0:User': { worksiteId: '180' } } }));
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(whole.body[ENTERPRISE]).toEqual({ department: 'Sales', costCenter: '4130' });
    expect(whole.body['urn:ietf:params:scim:schemas:extension:custom:2.0:User']).toEqual({ worksiteId: '180' });
    expect(whole.body.schemas).toEqual([USER, ENTERPRISE, 'urn:ietf:params:scim:schemas:extension:custom:2.0:User']);
    const removed = await scim('PATCH', `/Users/${id}`, patch({ op: 'remove', path: 'nickName' }));
    expect(removed.body.nickName).toBeUndefined();

    expect((await scim('PATCH', `/Users/${id}`, patch({ op: 'add', path: 'groups', value: [{ value: 'x' }] }))).body).toMatchObject({ status: '400', scimType: 'mutability' });
    for (const bad of [
      { Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] },
      patch(),
      patch({ op: 'frobnicate', path: 'displayName', value: 'x' }),
      patch({ path: 'displayName' }),
      patch({ op: 'replace', path: 'userName', value: '' }),
      patch({ op: 'replace', path: 'emails[type eq "work"].value', value: 'not mail' }),
      patch({ op: 'remove' }),
    ]) {
      const refused = await scim('PATCH', `/Users/${id}`, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.schemas).toEqual([ERROR]);
    }
  });

  it('deactivating blocks the account and ends its sessions; active again unblocks', async () => {
    const created = await scim('POST', '/Users', user('leaver@acme.example'));
    const id = created.body.id;
    const signedIn = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: id });
    expect(signedIn).toBeTruthy();
    await server.db.query(`INSERT INTO account_sessions (id, company_id, domain_id, user_id, expires_at) VALUES ('leaver-session', 'acme', $1, $2, now() + interval '1 hour')`, [acme.domainId, id]);
    const live = await server.db.query(`SELECT 1 FROM oauth_grants WHERE company_id = 'acme' AND domain_id = $1 AND user_id = $2 AND revoked_at IS NULL`, [acme.domainId, id]);
    expect(live.rowCount).toBe(1);

    const off = await scim('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'active', value: 'False' }));
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await row(id)).blocked_at).not.toBeNull();
    const after = await server.db.query(`SELECT 1 FROM oauth_grants WHERE company_id = 'acme' AND domain_id = $1 AND user_id = $2 AND revoked_at IS NULL`, [acme.domainId, id]);
    expect(after.rowCount).toBe(0);
    const sessions = await server.db.query(`SELECT 1 FROM account_sessions WHERE company_id = 'acme' AND domain_id = $1 AND user_id = $2`, [acme.domainId, id]);
    expect(sessions.rowCount).toBe(0);
    const { rows } = await server.db.query<{ action: string; client: string; user: string | null }>(
      `SELECT action, actor_client_id AS client, actor_user_id AS user FROM audit_events WHERE company_id = 'acme' AND resource_type = 'users' AND resource_id = $1 ORDER BY id`,
      [id],
    );
    expect(rows.map((r) => r.action)).toEqual(['create', 'block']);
    expect(rows.every((r) => r.client === `scim-token:${tokenId}` && r.user === null)).toBe(true);
    // the console's audit log reads them
    const log = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: id }))}`);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.map((event: { action: string }) => event.action).sort()).toEqual(['block', 'create']);

    // a PUT that does not say active keeps the account blocked
    const { active: _active, ...withoutActive } = off.body;
    expect((await scim('PUT', `/Users/${id}`, withoutActive)).body.active).toBe(false);
    expect((await row(id)).blocked_at).not.toBeNull();
    const on = await scim('PATCH', `/Users/${id}`, patch({ op: 'replace', value: { active: true } }));
    expect(on.body.active).toBe(true);
    expect((await row(id)).blocked_at).toBeNull();
  });

  it('DELETE blocks, ends the sessions and soft-deletes; the user is gone for SCIM (404)', async () => {
    const created = await scim('POST', '/Users', user('deleted@acme.example'));
    const id = created.body.id;
    await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: id });
    const deleted = await scim('DELETE', `/Users/${id}`);
    expect(deleted.status).toBe(204);
    const stored = await row(id);
    expect(stored.status).toBe('deleted');
    expect(stored.blocked_at).not.toBeNull();
    expect((await server.db.query(`SELECT 1 FROM oauth_grants WHERE company_id = 'acme' AND user_id = $1 AND revoked_at IS NULL`, [id])).rowCount).toBe(0);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const answer = await scim(method, `/Users/${id}`, method === 'PUT' ? user('deleted@acme.example') : method === 'PATCH' ? patch({ op: 'replace', path: 'active', value: true }) : undefined);
      expect(answer.status, method).toBe(404);
      expect(answer.body).toMatchObject({ schemas: [ERROR], status: '404' });
    }
    const list = await scim('GET', `/Users${q({ filter: 'userName eq "deleted@acme.example"' })}`);
    expect(list.body.totalResults).toBe(0);
  });

  it("never changes an account that holds a console role: the domain's administrator, an Owner by assignment (403 with a sentence)", async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'an-owner', 'an-owner', 'An Owner', 'owner@acme.example')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', 'an-owner', 'owner', 'acme')`, [acme.domainId]);
    for (const id of ['boss', 'an-owner']) {
      const before = await row(id);
      const seen = await scim('GET', `/Users/${id}`);
      expect(seen.status).toBe(200);
      for (const [method, body] of [
        ['PATCH', patch({ op: 'replace', path: 'active', value: false })],
        ['PUT', { ...seen.body, displayName: 'Taken over', emails: [{ value: 'attacker@evil.example', primary: true }] }],
        ['DELETE', undefined],
      ] as const) {
        const answer = await scim(method, `/Users/${id}`, body);
        expect(answer.status, `${method} ${id}`).toBe(403);
        expect(answer.body).toMatchObject({ schemas: [ERROR], status: '403' });
        expect(answer.body.detail).toMatch(/console role .*never changes/);
      }
      expect(await row(id)).toEqual(before);
    }
  });
});

describe('Users: lists, filters, paging, sorting, attributes', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    for (const [name, given, family, external, active] of [
      ['alice@list.example', 'Alice', 'Archer', 'L-1', true],
      ['bob@list.example', 'Bob', 'Baker', 'L-2', false],
      ['carol@list.example', 'Carol', 'Cooper', 'L-3', true],
      ['dave@list.example', 'Dave', 'Dyer', 'L-4', true],
    ] as const) {
      const created = await scim('POST', '/Users', { schemas: [USER], userName: name, name: { givenName: given, familyName: family }, emails: [{ value: name, primary: true }], externalId: external, active });
      expect(created.status).toBe(201);
      ids[given] = created.body.id;
    }
  });
  const names = async (params: Record<string, string | number>) => {
    const answer = await scim('GET', `/Users${q(params)}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body.Resources as { userName: string }[]).map((resource) => resource.userName.replace('@list.example', ''));
  };
  const filtered = (filter: string) => names({ filter: `(${filter}) and userName ew "@list.example"`, sortBy: 'userName' });

  it('filters on each attribute it supports, with every operator', async () => {
    expect(await filtered('userName eq "ALICE@list.example"')).toEqual(['alice']);
    expect(await filtered('userName ne "alice@list.example"')).toEqual(['bob', 'carol', 'dave']);
    expect(await filtered('userName sw "c"')).toEqual(['carol']);
    expect(await filtered('userName co "ve@"')).toEqual(['dave']);
    expect(await filtered('userName gt "bob@list.example"')).toEqual(['carol', 'dave']);
    expect(await filtered('userName le "bob@list.example"')).toEqual(['alice', 'bob']);
    expect(await filtered('externalId eq "L-2"')).toEqual(['bob']);
    expect(await filtered('externalId eq "l-2"')).toEqual([]);
    expect(await filtered('emails.value eq "carol@list.example"')).toEqual(['carol']);
    expect(await filtered('emails[value eq "dave@list.example"]')).toEqual(['dave']);
    expect(await filtered('emails co "@list"')).toEqual(['alice', 'bob', 'carol', 'dave']);
    // these were sent without a type; an account made in the console shows its one address as work
    expect(await filtered('emails[type eq "work"]')).toEqual([]);
    const console = await scim('GET', `/Users${q({ filter: 'emails[type eq "work"].value eq "worker@acme.example"' })}`);
    expect(console.body.Resources.map((r: { id: string }) => r.id)).toEqual(['worker']);
    expect(await filtered('active eq false')).toEqual(['bob']);
    expect(await filtered('active ne false')).toEqual(['alice', 'carol', 'dave']);
    expect(await filtered('displayName eq "Carol Cooper"')).toEqual(['carol']);
    expect(await filtered('name.givenName sw "a"')).toEqual(['alice']);
    expect(await filtered('name.familyName ew "er"')).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(await filtered('name.familyName eq "Dyer" or name.givenName eq "Bob"')).toEqual(['bob', 'dave']);
    expect(await filtered('not (name.givenName eq "Bob")')).toEqual(['alice', 'carol', 'dave']);
    expect(await filtered('externalId pr')).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(await filtered(`id eq "${ids.Carol}"`)).toEqual(['carol']);
    expect(await filtered(`urn:ietf:params:scim:schemas:core:2.0:User:userName eq "dave@list.example"`)).toEqual(['dave']);
    expect(await filtered('meta.lastModified gt "2000-01-01T00:00:00Z"')).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(await filtered('meta.created lt "2000-01-01T00:00:00Z"')).toEqual([]);
    // LIKE's own characters are plain text
    expect(await filtered('userName co "%"')).toEqual([]);
    expect(await filtered('userName sw "_"')).toEqual([]);
  });

  it("refuses a filter it cannot answer: 400 invalidFilter naming it", async () => {
    for (const [filter, detail] of [
      ['title eq "x"', /title/],
      ['emails[display eq "work"]', /emails\.display/],
      ['userName eq', /filter/],
      ['userName eq "x" and', /filter/],
      ['active eq "yes"', /active/],
      ['userName eq 3', /userName/],
      ['meta.lastModified gt "yesterday"', /lastModified/],
      ['active gt true', /active/],
      ['userName eq "x") or (1=1', /filter/],
      [Array.from({ length: 60 }, () => 'userName eq "x"').join(' or '), /terms/],
      [`userName eq "${'x'.repeat(2100)}"`, /longer/],
      ['userName eq "a\u0000b"', /filter/],
    ] as const) {
      const answer = await scim('GET', `/Users${q({ filter })}`);
      expect(answer.status, filter.slice(0, 60)).toBe(400);
      expect(answer.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
      expect(answer.body.detail).toMatch(detail);
    }
  });

  it('a filter given twice is refused; an empty one is none', async () => {
    const twice = await scim('GET', '/Users?filter=userName%20eq%20%22a%22&filter=userName%20eq%20%22b%22');
    expect(twice.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    expect((await scim('GET', '/Users?filter=')).status).toBe(200);
  });

  it('pages with startIndex and count (1-based, bounded), and sorts', async () => {
    const all = await scim('GET', `/Users${q({ filter: 'userName ew "@list.example"', sortBy: 'userName' })}`);
    expect(all.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 4, startIndex: 1, itemsPerPage: 4 });
    const page = await scim('GET', `/Users${q({ filter: 'userName ew "@list.example"', sortBy: 'userName', startIndex: 2, count: 2 })}`);
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((r: { userName: string }) => r.userName)).toEqual(['bob@list.example', 'carol@list.example']);
    const zero = await scim('GET', `/Users${q({ filter: 'userName ew "@list.example"', count: 0 })}`);
    expect(zero.body).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
    const below = await scim('GET', `/Users${q({ filter: 'userName ew "@list.example"', startIndex: -5, count: 100_000 })}`);
    expect(below.body).toMatchObject({ startIndex: 1, itemsPerPage: 4 });
    expect((await scim('GET', `/Users${q({ count: 'many' })}`)).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect(await names({ filter: 'userName ew "@list.example"', sortBy: 'name.familyName', sortOrder: 'descending' })).toEqual(['dave', 'carol', 'bob', 'alice']);
    expect(await names({ filter: 'userName ew "@list.example"', sortBy: 'externalId' })).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(await names({ filter: 'userName ew "@list.example"', sortBy: 'meta.created', sortOrder: 'descending' })).toEqual(['dave', 'carol', 'bob', 'alice']);
    expect((await scim('GET', `/Users${q({ sortBy: 'title' })}`)).status).toBe(400);
  });

  it('attributes and excludedAttributes', async () => {
    const only = await scim('GET', `/Users/${ids.Alice}${q({ attributes: 'userName,name.givenName,emails.value' })}`);
    expect(only.body).toEqual({ schemas: [USER], id: ids.Alice, userName: 'alice@list.example', name: { givenName: 'Alice' }, emails: [{ value: 'alice@list.example' }] });
    const without = await scim('GET', `/Users${q({ filter: `id eq "${ids.Alice}"`, excludedAttributes: 'groups,name,meta,id' })}`);
    const resource = without.body.Resources[0];
    expect(resource.id).toBe(ids.Alice);
    expect(resource.groups).toBeUndefined();
    expect(resource.name).toBeUndefined();
    expect(resource.meta).toBeUndefined();
    expect(resource.userName).toBe('alice@list.example');
    const search = await scim('POST', '/Users/.search', { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], filter: 'userName eq "bob@list.example"', attributes: ['userName'] });
    expect(search.status).toBe(200);
    expect(search.body.Resources).toEqual([{ schemas: [USER], id: ids.Bob, userName: 'bob@list.example' }]);
  });
});

describe('Groups', () => {
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    alice = (await scim('POST', '/Users', user('g.alice@acme.example'))).body.id;
    bob = (await scim('POST', '/Users', user('g.bob@acme.example'))).body.id;
  });

  it('create with members, get, list with filters, excludedAttributes=members', async () => {
    const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Tour Guides', externalId: 'grp-1', members: [{ value: alice }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ schemas: [GROUP], displayName: 'Tour Guides', externalId: 'grp-1', members: [{ value: alice, type: 'User', display: 'Given Family' }], meta: { resourceType: 'Group' } });
    expect(created.headers.location).toBe(`${PUBLIC_URL}/scim/v2/acme/${acme.domainId}/Groups/${created.body.id}`);
    const stored = await server.db.query(`SELECT name, display_name, external_id FROM groups WHERE company_id = 'acme' AND domain_id = $1 AND id = $2`, [acme.domainId, created.body.id]);
    expect(stored.rows[0]).toMatchObject({ name: created.body.id, display_name: 'Tour Guides', external_id: 'grp-1' });
    const member = await scim('GET', `/Users/${alice}`);
    expect(member.body.groups).toEqual([{ value: created.body.id, display: 'Tour Guides', type: 'direct', $ref: created.headers.location }]);

    const got = await scim('GET', `/Groups/${created.body.id}${q({ excludedAttributes: 'members' })}`);
    expect(got.body.members).toBeUndefined();
    expect(got.body.displayName).toBe('Tour Guides');
    for (const filter of ['displayName eq "tour guides"', 'externalId eq "grp-1"', `members[value eq "${alice}"]`, `members.value eq "${alice}"`, `members eq "${alice}"`, 'displayName sw "Tour" and meta.lastModified gt "2000-01-01T00:00:00Z"']) {
      const list = await scim('GET', `/Groups${q({ filter })}`);
      expect(list.status, filter).toBe(200);
      expect(list.body.Resources.map((g: { id: string }) => g.id), filter).toEqual([created.body.id]);
    }
    expect((await scim('GET', `/Groups${q({ filter: `members eq "${bob}"` })}`)).body.totalResults).toBe(0);
    expect((await scim('GET', `/Groups${q({ filter: 'owner eq "x"' })}`)).body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    expect((await scim('GET', `/Groups${q({ sortBy: 'members' })}`)).status).toBe(400);
  });

  it('PATCH adds and removes members, renames; PUT replaces the members; DELETE soft-deletes', async () => {
    const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Drivers' });
    const id = created.body.id;
    expect(created.body.members).toEqual([]);
    const added = await scim('PATCH', `/Groups/${id}`, patch({ op: 'add', path: 'members', value: [{ value: alice }, { value: bob }] }));
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([alice, bob].sort());
    const removed = await scim('PATCH', `/Groups/${id}`, patch({ op: 'remove', path: `members[value eq "${alice}"]` }, { op: 'replace', path: 'displayName', value: 'Senior drivers' }));
    expect(removed.body).toMatchObject({ displayName: 'Senior drivers', members: [{ value: bob }] });
    const replaced = await scim('PUT', `/Groups/${id}`, { schemas: [GROUP], displayName: 'Drivers', members: [{ value: alice }] });
    expect(replaced.body).toMatchObject({ displayName: 'Drivers', members: [{ value: alice }] });
    const all = await scim('PATCH', `/Groups/${id}`, patch({ op: 'replace', path: 'members', value: [{ value: bob }] }));
    expect(all.body.members).toMatchObject([{ value: bob }]);
    const stale = await scim('PATCH', `/Groups/${id}`, patch({ op: 'replace', path: 'displayName', value: 'x' }), { headers: { 'if-match': created.body.meta.version } });
    expect(stale.status).toBe(412);

    for (const [body, detail] of [
      [patch({ op: 'add', path: 'members', value: [{ value: 'nobody-here' }] }), /nobody-here/],
      [patch({ op: 'add', path: 'members', value: [{ value: id, type: 'Group' }] }), /itself/],
      [patch({ op: 'replace', path: 'displayName', value: '' }), /displayName/],
      [patch({ op: 'add', path: 'members', value: 'x' }), /members/],
    ] as const) {
      const refused = await scim('PATCH', `/Groups/${id}`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.detail).toMatch(detail);
    }
    expect((await scim('POST', '/Groups', { schemas: [GROUP] })).body).toMatchObject({ status: '400', scimType: 'invalidValue' });

    expect((await scim('DELETE', `/Groups/${id}`)).status).toBe(204);
    expect((await scim('GET', `/Groups/${id}`)).status).toBe(404);
    const { rows } = await server.db.query(`SELECT status FROM groups WHERE company_id = 'acme' AND domain_id = $1 AND id = $2`, [acme.domainId, id]);
    expect(rows[0].status).toBe('deleted');
  });

  it('a group of more than 10,000 members: read without its members, changed by add and remove alone', async () => {
    const big = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Everyone' })).body.id;
    await server.db.query(
      `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) SELECT 'acme', $1, $2, 'user', 'u' || i FROM generate_series(1, 10001) i`,
      [acme.domainId, big],
    );
    const whole = await scim('GET', `/Groups/${big}`);
    expect(whole.body).toMatchObject({ status: '400', scimType: 'tooMany' });
    expect(whole.body.detail).toMatch(/excludedAttributes=members/);
    expect((await scim('GET', `/Groups/${big}?excludedAttributes=members`)).body.displayName).toBe('Everyone');
    expect((await scim('GET', `/Groups${q({ filter: 'displayName eq "Everyone"' })}`)).body.scimType).toBe('tooMany');
    expect((await scim('GET', `/Groups${q({ filter: 'displayName eq "Everyone"', excludedAttributes: 'members' })}`)).body.totalResults).toBe(1);
    const added = await scim('PATCH', `/Groups/${big}`, patch({ op: 'add', path: 'members', value: [{ value: alice }] }, { op: 'remove', path: 'members[value eq "u1"]' }));
    expect(added.status).toBe(200);
    expect(added.body.members).toBeUndefined();
    const { rows } = await server.db.query<{ n: number; alice: boolean; u1: boolean }>(
      `SELECT count(*)::int AS n, bool_or(member_id = $3) AS alice, bool_or(member_id = 'u1') AS u1 FROM group_members WHERE company_id = 'acme' AND domain_id = $1 AND group_id = $2`,
      [acme.domainId, big, alice],
    );
    expect(rows[0]).toEqual({ n: 10001, alice: true, u1: false });
    expect((await scim('PATCH', `/Groups/${big}`, patch({ op: 'replace', path: 'members', value: [] }))).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  it('never changes a group that carries a console role, nor puts members into one, nor moves an account that holds a role (403)', async () => {
    await server.db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('acme', $1, 'auditors', 'auditors', 'Auditors', '')`, [acme.domainId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'group', 'auditors', 'auditor', 'acme')`, [acme.domainId]);
    for (const groupId of ['administrators', 'auditors']) {
      for (const [method, body] of [
        ['PATCH', patch({ op: 'add', path: 'members', value: [{ value: alice }] })],
        ['PATCH', patch({ op: 'replace', path: 'displayName', value: 'Mine now' })],
        ['PUT', { schemas: [GROUP], displayName: 'Mine now', members: [{ value: alice }] }],
        ['DELETE', undefined],
      ] as const) {
        const answer = await scim(method, `/Groups/${groupId}`, body);
        expect(answer.status, `${method} ${groupId}`).toBe(403);
        expect(answer.body.detail).toMatch(/console role/);
      }
    }
    const members = await server.db.query(`SELECT member_id FROM group_members WHERE company_id = 'acme' AND domain_id = $1 AND group_id IN ('administrators', 'auditors')`, [acme.domainId]);
    expect(members.rows.map((r) => r.member_id)).toEqual(['boss']);
    // a group inside the administrators group gives its members the role too
    await server.db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('acme', $1, 'nested-admins', 'nested-admins', 'Nested', '')`, [acme.domainId]);
    await server.db.query(`INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ('acme', $1, 'administrators', 'group', 'nested-admins')`, [acme.domainId]);
    const nested = await scim('PATCH', '/Groups/nested-admins', patch({ op: 'add', path: 'members', value: [{ value: alice }] }));
    expect(nested.status).toBe(403);
    expect((await server.db.query(`SELECT 1 FROM group_members WHERE company_id = 'acme' AND group_id = 'nested-admins'`)).rowCount).toBe(0);
    // the administrator into, or out of, an ordinary group
    const plain = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Plain' });
    const into = await scim('PATCH', `/Groups/${plain.body.id}`, patch({ op: 'add', path: 'members', value: [{ value: 'boss' }] }));
    expect(into.status).toBe(403);
    expect(into.body.detail).toMatch(/user boss holds the console role/);
    expect((await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Sneaky', members: [{ value: 'boss' }] })).status).toBe(403);
    expect((await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Sneakier', members: [{ value: 'administrators', type: 'Group' }] })).status).toBe(403);
  });
});

describe('Bulk and discovery', () => {
  it('Bulk: a user and a group that names it by bulkId, in order; a failure reported per operation', async () => {
    const answer = await scim('POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [
        { method: 'POST', path: '/Users', bulkId: 'u1', data: user('bulk.one@acme.example') },
        { method: 'POST', path: '/Groups', bulkId: 'g1', data: { schemas: [GROUP], displayName: 'Bulk group', members: [{ type: 'User', value: 'bulkId:u1' }] } },
        { method: 'PATCH', path: '/Users/bulkId:u1', data: patch({ op: 'replace', path: 'displayName', value: 'Bulk One' }) },
        { method: 'POST', path: '/Users', bulkId: 'u2', data: { schemas: [USER] } },
        { method: 'DELETE', path: '/Groups/bulkId:nothing' },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [user1, group1, patched, bad, dangling] = answer.body.Operations;
    expect(user1).toMatchObject({ method: 'POST', bulkId: 'u1', status: '201' });
    expect(user1.location).toMatch(/\/Users\/[A-Za-z0-9]{20}$/);
    expect(group1).toMatchObject({ bulkId: 'g1', status: '201' });
    expect(patched.status).toBe('200');
    expect(bad).toMatchObject({ bulkId: 'u2', status: '400', response: { scimType: 'invalidValue' } });
    expect(dangling.status).toBe('409');
    const group = await scim('GET', group1.location.replace(/^.*\/Groups/, '/Groups'));
    const userId = user1.location.split('/').pop();
    expect(group.body.members).toMatchObject([{ value: userId }]);
    expect((await scim('GET', `/Users/${userId}`)).body.displayName).toBe('Bulk One');
  });

  it('Bulk: a group before the user it names waits for it; two groups naming each other are both made, each a member of the other; results in the request order', async () => {
    const answer = await scim('POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [
        { method: 'POST', path: '/Groups', bulkId: 'early', data: { schemas: [GROUP], displayName: 'Named before its member', members: [{ type: 'User', value: 'bulkId:late' }] } },
        { method: 'PATCH', path: '/Users/bulkId:late', data: patch({ op: 'replace', path: 'displayName', value: 'Late Comer' }) },
        { method: 'POST', path: '/Users', bulkId: 'late', data: user('late.comer@acme.example') },
        { method: 'POST', path: '/Groups', bulkId: 'ping', data: { schemas: [GROUP], displayName: 'Ping', members: [{ type: 'Group', value: 'bulkId:pong' }] } },
        { method: 'POST', path: '/Groups', bulkId: 'pong', data: { schemas: [GROUP], displayName: 'Pong', members: [{ type: 'Group', value: 'bulkId:ping' }] } },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [early, patched, late, ping, pong] = answer.body.Operations;
    expect([early.bulkId, patched.method, late.bulkId, ping.bulkId, pong.bulkId]).toEqual(['early', 'PATCH', 'late', 'ping', 'pong']);
    expect(late).toMatchObject({ status: '201' });
    expect(early).toMatchObject({ status: '201' });
    expect(patched.status).toBe('200');
    const userId = late.location.split('/').pop();
    const group = await scim('GET', early.location.replace(/^.*\/Groups/, '/Groups'));
    expect(group.body.members).toMatchObject([{ value: userId }]);
    expect((await scim('GET', `/Users/${userId}`)).body.displayName).toBe('Late Comer');
    // the cycle: Ping is created without Pong, Pong with Ping, then Pong is added to Ping
    expect(ping).toMatchObject({ status: '201' });
    expect(pong).toMatchObject({ status: '201' });
    const pingId = ping.location.split('/').pop();
    const pongId = pong.location.split('/').pop();
    expect((await scim('GET', `/Groups/${pingId}`)).body.members).toMatchObject([{ value: pongId }]);
    expect((await scim('GET', `/Groups/${pongId}`)).body.members).toMatchObject([{ value: pingId }]);
  });

  it('Bulk: a cycle through a user (a user naming a group that lists it) is not resolved: both answer 409', async () => {
    const answer = await scim('POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [
        { method: 'POST', path: '/Users', bulkId: 'who', data: { ...user('who.knows@acme.example'), displayName: 'bulkId:team' } },
        { method: 'POST', path: '/Groups', bulkId: 'team', data: { schemas: [GROUP], displayName: 'Team', members: [{ type: 'User', value: 'bulkId:who' }] } },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [who, team] = answer.body.Operations;
    // the user runs first and fails on the group it names; the group then names a user never created
    expect(who).toMatchObject({ status: '409', response: { scimType: 'invalidValue' } });
    expect(team.status).toBe('409');
  });

  it('Bulk: failOnErrors stops; more than maxOperations is 413; a body that is no bulk request 400', async () => {
    const stopped = await scim('POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      failOnErrors: 1,
      Operations: [
        { method: 'POST', path: '/Users', bulkId: 'a', data: { schemas: [USER] } },
        { method: 'POST', path: '/Users', bulkId: 'b', data: user('not.made@acme.example') },
      ],
    });
    expect(stopped.body.Operations).toHaveLength(1);
    expect((await scim('GET', `/Users${q({ filter: 'userName eq "not.made@acme.example"' })}`)).body.totalResults).toBe(0);
    const many = await scim('POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: Array.from({ length: 101 }, (_, i) => ({ method: 'DELETE', path: `/Users/x${i}` })),
    });
    expect(many.status).toBe(413);
    expect(many.body.schemas).toEqual([ERROR]);
    expect((await scim('POST', '/Bulk', { Operations: [] })).status).toBe(400);
    const nested = await scim('POST', '/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [{ method: 'POST', path: '/Bulk', bulkId: 'x', data: {} }] });
    expect(nested.body.Operations[0].status).toBe('400');
  });

  it('ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: true, maxOperations: 100, maxPayloadSize: 1048576 },
      filter: { supported: true, maxResults: 1000 },
      changePassword: { supported: false },
      sort: { supported: true },
      etag: { supported: true },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body.Resources.map((t: { id: string }) => t.id)).toEqual(['User', 'Group']);
    expect(types.body.Resources[0].schemaExtensions).toEqual([{ schema: ENTERPRISE, required: false }]);
    expect((await scim('GET', '/ResourceTypes/Group')).body.endpoint).toBe('/Groups');
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER, GROUP, ENTERPRISE]);
    const enterprise = await scim('GET', `/Schemas/${ENTERPRISE}`);
    expect(enterprise.body.attributes.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['employeeNumber', 'department', 'manager']));
    expect((await scim('GET', '/Schemas/urn:nothing')).status).toBe(404);
    expect((await scim('GET', '/Nothing')).body).toMatchObject({ schemas: [ERROR], status: '404' });
    expect((await scim('DELETE', '/ServiceProviderConfig')).status).toBe(405);
    expect((await server.app.inject({ method: 'GET', url: '/scim/v2/acme' })).statusCode).toBe(404);
    expect((await scim('GET', '/Users/..%2F..%2Fapi')).status).toBe(404);
  });
});
