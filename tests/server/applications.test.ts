import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/ids.js';
import { call, createTenant, startServer, tokenFor, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const ALPHANUMERIC_32 = /^[A-Za-z0-9]{32}$/;
const newApp = (client_name: string, extra: object = {}) => ({ client_name, domain: 'default', companyId: 'root', ...extra });
const as = (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => call(server, token, method, url, body);
const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => as(server.adminToken, method, url, body);

async function storedHash(clientId: string) {
  const { rows } = await server.db.query<{ client_secret_hash: string }>('SELECT client_secret_hash FROM applications WHERE id = $1', [clientId]);
  return rows[0]?.client_secret_hash;
}

async function applicationCount() {
  const { rows } = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM applications');
  return rows[0].n;
}

describe('applications: create', () => {
  it('answers 404, not 500, for an empty id in a list PUT (found by the fuzz test)', async () => {
    const res = await admin('PUT', '/api/application', [{ id: '' }]);
    expect(res.status).toBe(404);
  });

  it('gives a machine-to-machine application client_credentials by default, and keeps an explicit choice', async () => {
    const machine = await admin('POST', '/api/application', newApp('Nightly batch', { app_type: 'machine' }));
    expect(machine.status).toBe(201);
    expect(machine.body.grant_types).toEqual(['client_credentials']);
    const chosen = await admin('POST', '/api/application', newApp('Chosen grants', { app_type: 'web', grant_types: ['authorization_code'] }));
    expect(chosen.body.grant_types).toEqual(['authorization_code']);
  });

  it('applies the default values of docs/CONSOLE.md, "Constants", shows the generated secret once and stores only its hash', async () => {
    const res = await admin('POST', '/api/application', newApp('Shop', { redirect_uris: ['https://shop.example/callback'] }));
    expect(res.status).toBe(201);
    const { client_secret, ...app } = res.body;
    expect(client_secret).toMatch(ALPHANUMERIC_32);
    expect(app.client_id).toMatch(ALPHANUMERIC_32);
    expect(app).toEqual({
      id: app.client_id,
      client_id: app.client_id,
      client_name: 'Shop',
      domain: 'default',
      companyId: 'root',
      description: '',
      logo_uri: '',
      app_type: 'SPA',
      client_uri: '',
      backchannel_logout_uri: '',
      client_logout_uri: [],
      redirect_uris: ['https://shop.example/callback'],
      allowed_web_orgins: [],
      id_token_expiration: 36000,
      refresh_token_rotation: false,
      refresh_reuse_interval: 0,
      refresh_absolute_expiration: false,
      refresh_absolute_lifetime: 31557600,
      grant_types: ['authorization_code', 'refresh_token'],
      audience: '',
      status: 'active',
      deletedAt: null,
      deletedBy: null,
    });
    expect(await storedHash(app.client_id)).toBe(sha256(client_secret));

    const read = await admin('GET', `/api/application/${app.client_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(app);
    const list = await admin('GET', '/api/root/default/application');
    expect(list.body.find((a: { id: string }) => a.id === app.client_id)).toEqual(app);
    expect(list.text).not.toContain('secret');
  });

  it('keeps the client_id and client_secret the console generated, and refuses a duplicate client_id', async () => {
    const clientId = 'A'.repeat(16) + 'b'.repeat(16);
    const secret = 'S3cr3t'.repeat(5) + 'xy';
    const res = await admin('POST', '/api/root/default/application', { client_name: 'Console made', client_id: clientId, client_secret: secret, app_type: 'web' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: clientId, client_id: clientId, client_secret: secret, app_type: 'web', domain: 'default', companyId: 'root' });
    expect(await storedHash(clientId)).toBe(sha256(secret));

    const again = await admin('POST', '/api/root/default/application', { client_name: 'Other name', client_id: clientId });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(`application id "${clientId}" is not available: choose another`);
  });

  it('generates the client_id and secret when the form sends them empty', async () => {
    const res = await admin('POST', '/api/application', newApp('Blank ids', { client_id: '', client_secret: '' }));
    expect(res.status).toBe(201);
    expect(res.body.client_id).toMatch(ALPHANUMERIC_32);
    expect(res.body.client_secret).toMatch(ALPHANUMERIC_32);
    expect(await storedHash(res.body.client_id)).toBe(sha256(res.body.client_secret));
    expect((await admin('POST', '/api/application', newApp('Short secret', { client_secret: 'tooshort' }))).body.message).toContain('client_secret');
  });

  it('refuses a client name already used in the domain, whatever its case, but not in another domain', async () => {
    await admin('POST', '/api/application', newApp('Billing'));
    const dup = await admin('POST', '/api/application', newApp('BILLING'));
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('duplicated error: BILLING already exist!');
    await server.db.query(`INSERT INTO domains (company_id, id, name) VALUES ('root', 'second', 'second')`);
    expect((await admin('POST', '/api/application', newApp('Billing', { domain: 'second' }))).status).toBe(201);
  });

  it('names the missing or malformed field in a 400', async () => {
    const cases: [object, string][] = [
      [{ domain: 'default', companyId: 'root' }, 'client_name'],
      [{ client_name: 'x', companyId: 'root' }, 'domain'],
      [{ client_name: 'x', domain: 'default' }, 'companyId'],
      [newApp('x', { client_id: 'short' }), 'client_id'],
      [newApp('x', { client_id: 'has spaces in it ok' }), 'client_id'],
      [newApp('x', { app_type: 'desktop' }), 'app_type'],
      [newApp('x', { grant_types: ['authorization_code', 'magic'] }), 'grant_types'],
      [newApp('x', { id_token_expiration: 0 }), 'id_token_expiration'],
      [newApp('x', { client_uri: 'javascript:alert(1)' }), 'client_uri'],
    ];
    for (const [body, field] of cases) {
      const res = await admin('POST', '/api/application', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    const named = await admin('POST', '/api/application', newApp('x', { id: 'abcdefgh1', client_id: 'abcdefgh2' }));
    expect(named.status).toBe(400);
  });
});

describe('applications: URI rules', () => {
  const refused: [string, object, string][] = [
    ['http on a public host', { redirect_uris: ['http://shop.example/cb'] }, 'http://shop.example/cb'],
    ['a fragment', { redirect_uris: ['https://shop.example/cb#top'] }, 'fragment'],
    ['a relative URI', { redirect_uris: ['/callback'] }, 'absolute'],
    ['a custom scheme outside native apps', { redirect_uris: ['com.example.app:/cb'] }, 'native'],
    ['a javascript: URI even for native apps', { app_type: 'native', redirect_uris: ['javascript:alert(1)'] }, 'javascript:'],
    ['credentials in the URI', { redirect_uris: ['https://user:pw@shop.example/cb'] }, 'credentials'],
    ['http logout URI on a public host', { client_logout_uri: ['http://shop.example/bye'] }, 'client_logout_uri'],
    ['a path in a web origin', { allowed_web_orgins: ['https://shop.example/app'] }, 'allowed_web_orgins'],
    ['a custom scheme as web origin', { app_type: 'native', allowed_web_orgins: ['com.example.app:'] }, 'allowed_web_orgins'],
  ];
  for (const [what, extra, mention] of refused) {
    it(`refuses ${what} with a 400 naming the field and the URI, storing nothing`, async () => {
      const before = await applicationCount();
      const res = await admin('POST', '/api/application', newApp('uri test', extra));
      expect(res.status).toBe(400);
      const [field, [uri]] = Object.entries(extra).find(([key]) => key !== 'app_type') as [string, string[]];
      expect(res.body.message).toContain(field);
      expect(res.body.message).toContain(uri);
      expect(res.body.message).toContain(mention);
      expect(await applicationCount()).toBe(before);
    });
  }

  it('gives each refusal its code with the field, the URI and the scheme it names, for the console to translate', async () => {
    const cases: [object, string, object][] = [
      [{ redirect_uris: ['http://shop.example/cb'] }, 'application.uri.httpNotLoopback', { field: 'redirect_uris', value: 'http://shop.example/cb' }],
      [{ redirect_uris: ['com.example.app:/cb'] }, 'application.uri.customScheme', { field: 'redirect_uris', value: 'com.example.app:/cb', scheme: 'com.example.app:' }],
      [{ app_type: 'native', redirect_uris: ['javascript:alert(1)'] }, 'application.uri.unsafeScheme', { field: 'redirect_uris', value: 'javascript:alert(1)', scheme: 'javascript:' }],
      [{ allowed_web_orgins: ['https://shop.example/app'] }, 'application.uri.notBareOrigin', { field: 'allowed_web_orgins', value: 'https://shop.example/app' }],
      [{ app_type: 'native', backchannel_logout_uri: 'com.example.app:/logout' }, 'application.uri.endpointScheme', { field: 'backchannel_logout_uri', value: 'com.example.app:/logout' }],
      [{ client_uri: 'ftp://shop.example/' }, 'application.webUri', { field: 'client_uri', value: 'ftp://shop.example/' }],
    ];
    for (const [extra, code, params] of cases) {
      const res = await admin('POST', '/api/application', newApp('coded', extra));
      expect(res.status, code).toBe(400);
      expect(res.body, code).toMatchObject({ code, params });
    }
  });

  it('accepts loopback http, https, native custom schemes; drops blank lines and stores origins canonically', async () => {
    const web = await admin('POST', '/api/application', newApp('Loopback', {
      redirect_uris: ['http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb', ' https://shop.example/cb?x=1 ', ''],
      client_logout_uri: ['https://shop.example/'],
      allowed_web_orgins: ['https://Shop.Example:443/', 'http://localhost:3000'],
    }));
    expect(web.status).toBe(201);
    expect(web.body.redirect_uris).toEqual(['http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb', 'https://shop.example/cb?x=1']);
    expect(web.body.allowed_web_orgins).toEqual(['https://shop.example', 'http://localhost:3000']);

    const native = await admin('POST', '/api/application', newApp('Phone', { app_type: 'native', redirect_uris: ['com.example.app:/oauth2redirect'] }));
    expect(native.status).toBe(201);
    // turning it into a SPA re-judges the stored URIs
    const toSpa = await admin('PUT', `/api/application/${native.body.id}`, { app_type: 'SPA' });
    expect(toSpa.status).toBe(400);
    expect(toSpa.body.message).toContain('redirect_uris');
  });
});

describe('applications: back-channel logout URI and device code grant', () => {
  it('sets, reads, changes and clears backchannel_logout_uri, refusing what the URI rules refuse', async () => {
    const created = await admin('POST', '/api/application', newApp('Back-channel', {
      app_type: 'web',
      backchannel_logout_uri: ' https://shop.example/oidc/backchannel?tenant=1 ',
    }));
    expect(created.status).toBe(201);
    expect(created.body.backchannel_logout_uri).toBe('https://shop.example/oidc/backchannel?tenant=1');
    const id = created.body.id;
    expect((await admin('GET', `/api/application/${id}`)).body.backchannel_logout_uri).toBe('https://shop.example/oidc/backchannel?tenant=1');
    const { rows } = await server.db.query<{ uri: string }>('SELECT backchannel_logout_uri AS uri FROM applications WHERE id = $1', [id]);
    expect(rows[0].uri).toBe('https://shop.example/oidc/backchannel?tenant=1');

    const loopback = await admin('PUT', `/api/application/${id}`, { backchannel_logout_uri: 'http://localhost:4000/logout' });
    expect(loopback.status).toBe(200);
    expect(loopback.body.backchannel_logout_uri).toBe('http://localhost:4000/logout');

    const refused: [string, string][] = [
      ['http://shop.example/logout', 'must use https'],
      ['https://shop.example/logout#x', 'fragment'],
      ['/logout', 'absolute'],
      ['https://user:pw@shop.example/logout', 'credentials'],
      ['com.example.app:/logout', 'http or https'],
      ['javascript:alert(1)', 'http or https'],
    ];
    for (const [uri, mention] of refused) {
      for (const res of [
        await admin('PUT', `/api/application/${id}`, { backchannel_logout_uri: uri }),
        await admin('POST', '/api/application', newApp('Refused back-channel', { app_type: 'native', backchannel_logout_uri: uri })),
      ]) {
        expect(res.status, uri).toBe(400);
        expect(res.body.message).toContain('backchannel_logout_uri');
        expect(res.body.message).toContain(uri);
        expect(res.body.message).toContain(mention);
      }
    }
    const tooLong = await admin('PUT', `/api/application/${id}`, { backchannel_logout_uri: `https://shop.example/${'x'.repeat(2000)}` });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toContain('body/backchannel_logout_uri');
    expect((await admin('GET', `/api/application/${id}`)).body.backchannel_logout_uri).toBe('http://localhost:4000/logout');

    const cleared = await admin('PUT', `/api/application/${id}`, { backchannel_logout_uri: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.backchannel_logout_uri).toBe('');
  });

  it('accepts the device_code grant type and documents both in the OpenAPI description', async () => {
    const device = await admin('POST', '/api/application', newApp('Television', { app_type: 'native', grant_types: ['device_code'] }));
    expect(device.status).toBe(201);
    expect(device.body.grant_types).toEqual(['device_code']);
    const changed = await admin('PUT', `/api/application/${device.body.id}`, { grant_types: ['device_code', 'refresh_token'] });
    expect(changed.status).toBe(200);
    expect((await admin('GET', `/api/application/${device.body.id}`)).body.grant_types).toEqual(['device_code', 'refresh_token']);

    type Schema = { properties: Record<string, { type?: string; description?: string; items?: { enum?: string[] } }> };
    type Operation = { requestBody: { content: { 'application/json': { schema: Schema } } }; responses: Record<string, { content: { 'application/json': { schema: Schema } } }> };
    const doc = server.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
    const put = doc.paths['/api/application/{id}'].put;
    const body = put.requestBody.content['application/json'].schema.properties;
    expect(body.backchannel_logout_uri.type).toBe('string');
    expect(body.backchannel_logout_uri.description).toMatch(/logout token/);
    expect(body.grant_types.items?.enum).toContain('device_code');
    expect(put.responses['200'].content['application/json'].schema.properties).toHaveProperty('backchannel_logout_uri');
  });
});

describe('applications: lists', () => {
  it('pages a domain, a company and the whole subtree with Content-Range, condition and filter', async () => {
    const t = await createTenant(server, 'listco');
    await server.db.query(`INSERT INTO domains (company_id, id, name) VALUES ('listco', 'extra', 'extra')`);
    for (const name of ['alpha', 'bravo', 'charlie', 'delta']) {
      expect((await as(t.adminToken, 'POST', `/api/listco/listco-domain/application`, { client_name: name })).status).toBe(201);
    }
    await as(t.adminToken, 'POST', '/api/listco/extra/application', { client_name: 'echo' });

    const page1 = await as(t.adminToken, 'GET', '/api/listco/listco-domain/application?range=[0,1]&sort=["client_name","ASC"]');
    expect(page1.status).toBe(200);
    expect(page1.body.map((a: { client_name: string }) => a.client_name)).toEqual(['alpha', 'bravo']);
    expect(page1.headers['content-range']).toBe('application 0-1/4');
    const page2 = await as(t.adminToken, 'GET', '/api/listco/listco-domain/application?range=[2,3]&sort=["client_name","ASC"]');
    expect(page2.body.map((a: { client_name: string }) => a.client_name)).toEqual(['charlie', 'delta']);
    expect(page2.headers['content-range']).toBe('application 2-3/4');

    const company = await as(t.adminToken, 'GET', '/api/listco/application?sort=["client_name","DESC"]');
    expect(company.body.map((a: { client_name: string }) => a.client_name)).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);

    // the subtree list of this tenant sees only its own five
    const subtree = await as(t.adminToken, 'GET', '/api/application');
    expect(subtree.headers['content-range']).toBe('application 0-4/5');

    const charlie = company.body.find((a: { client_name: string }) => a.client_name === 'charlie');
    await as(t.adminToken, 'PUT', `/api/application/${charlie.id}`, { status: 'deleted' });
    const live = await as(t.adminToken, 'GET', '/api/application?condition=status,!=,deleted&sort=["client_name","ASC"]');
    expect(live.body.map((a: { client_name: string }) => a.client_name)).toEqual(['alpha', 'bravo', 'delta', 'echo']);
    const deleted = await as(t.adminToken, 'GET', '/api/listco/listco-domain/application?condition=status,=,deleted');
    expect(deleted.body.map((a: { id: string }) => a.id)).toEqual([charlie.id]);

    // the search covers the random client ids too: a word of five letters, not three, cannot turn up in one by chance
    const filtered = await server.app.inject({
      method: 'GET',
      url: `/api/application?filter=${encodeURIComponent(JSON.stringify({ domain: 'listco-domain', companyId: 'listco', q: 'DELTA' }))}`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(filtered.json().map((a: { client_name: string }) => a.client_name)).toEqual(['delta']);

    const ids = company.body.slice(0, 2).map((a: { id: string }) => a.id);
    const many = await as(t.adminToken, 'GET', `/api/application?filter=${encodeURIComponent(JSON.stringify({ id: ids }))}`);
    expect(many.body.map((a: { id: string }) => a.id).sort()).toEqual([...ids].sort());

    expect((await as(t.adminToken, 'GET', '/api/application?condition=nope,=,1')).status).toBe(400);
  });
});

describe('applications: update, soft delete, recover, purge', () => {
  it('updates settings with a full body, ignoring client_secret and refusing identity changes', async () => {
    const created = (await admin('POST', '/api/application', newApp('Editable'))).body;
    const { client_secret, ...app } = created;
    const hash = await storedHash(app.id);
    const res = await admin('PUT', `/api/application/${app.id}`, { ...app, description: 'changed', client_secret: 'x'.repeat(32), refresh_token_rotation: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...app, description: 'changed', refresh_token_rotation: true });
    expect(await storedHash(app.id)).toBe(hash);
    expect(client_secret).toBeDefined();

    const idChange = await admin('PUT', `/api/application/${app.id}`, { ...app, client_id: 'somethingelse' });
    expect(idChange.status).toBe(400);
    expect(idChange.body.code).toBe('application.clientIdFixed');
    expect((await admin('PUT', `/api/application/${app.id}`, { ...app, domain: 'second' })).status).toBe(400);
    expect((await admin('PUT', `/api/application/${app.id}`, { ...app, client_name: 'SHOP' })).body.message).toBe('duplicated error: SHOP already exist!');
    expect((await admin('PUT', '/api/application/nosuchapp1', { description: 'x' })).status).toBe(404);
  });

  it('purges only what was soft-deleted first, and recovers', async () => {
    const app = (await admin('POST', '/api/application', newApp('Lifecycle'))).body;
    const refused = await admin('DELETE', `/api/application/${app.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('active');
    expect(refused.body).toMatchObject({ code: 'application.activePurge', params: { name: 'Lifecycle' } });

    expect((await admin('PUT', `/api/application/${app.id}`, { status: 'deleted' })).body.status).toBe('deleted');
    expect((await admin('PUT', `/api/application/${app.id}`, { status: 'active' })).body.status).toBe('active');
    await admin('PUT', `/api/application/${app.id}`, { status: 'deleted' });

    const purged = await admin('DELETE', `/api/application/${app.id}`);
    expect(purged.status).toBe(200);
    expect(purged.body).toMatchObject({ id: app.id, client_name: 'Lifecycle', status: 'deleted' });
    expect((await admin('GET', `/api/application/${app.id}`)).status).toBe(404);
  });

  it('signs out the sessions of an application when it is deleted', async () => {
    const app = (await admin('POST', '/api/application', newApp('Session app'))).body;
    const token = await tokenFor(server.ctx, { companyId: 'root', domainId: 'default', userId: 'admin', clientId: app.id });
    expect((await as(token, 'GET', '/api/companys/root')).status).toBe(200);
    await admin('PUT', `/api/application/${app.id}`, { status: 'deleted' });
    expect((await as(token, 'GET', '/api/companys/root')).status).toBe(401);
  });

  it('never deletes the console application itself', async () => {
    const soft = await admin('PUT', '/api/application/iam-console', { status: 'deleted' });
    expect(soft.status).toBe(400);
    expect(soft.body.message).toContain('console');
    expect(soft.body).toMatchObject({ code: 'application.consoleDelete', params: { id: 'iam-console' } });
    expect((await admin('DELETE', '/api/application/iam-console')).status).toBe(400);
    expect((await admin('DELETE', '/api/application', ['iam-console'])).status).toBe(400);
    const read = await admin('GET', '/api/application/iam-console');
    expect(read.body).toMatchObject({ status: 'active', client_name: 'IAM Console', redirect_uris: ['http://localhost:8080/callback'] });
    // other settings stay editable
    expect((await admin('PUT', '/api/application/iam-console', { description: 'ours' })).body.description).toBe('ours');
  });

  it('updates a list all or nothing', async () => {
    const a = (await admin('POST', '/api/application', newApp('Bulk A'))).body;
    const b = (await admin('POST', '/api/application', newApp('Bulk B'))).body;
    const clash = await admin('PUT', '/api/application', [
      { id: a.id, description: 'first' },
      { id: b.id, client_name: 'Bulk A' },
    ]);
    expect(clash.status).toBe(409);
    expect((await admin('GET', `/api/application/${a.id}`)).body.description).toBe('');

    const ok = await admin('PUT', '/api/application', [
      { id: a.id, status: 'deleted' },
      { id: b.id, status: 'deleted' },
    ]);
    expect(ok.status).toBe(200);
    expect(ok.body.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([[a.id, 'deleted'], [b.id, 'deleted']]);
  });

  it('purges a list all or nothing', async () => {
    const a = (await admin('POST', '/api/application', newApp('Purge A'))).body;
    const b = (await admin('POST', '/api/application', newApp('Purge B'))).body;
    await admin('PUT', `/api/application/${a.id}`, { status: 'deleted' });

    expect((await admin('DELETE', '/api/application', [a.id, b.id])).status).toBe(409);
    expect((await admin('DELETE', '/api/application', [a.id, 'nosuchapp1'])).status).toBe(404);
    expect((await admin('GET', `/api/application/${a.id}`)).status).toBe(200);

    await admin('PUT', `/api/application/${b.id}`, { status: 'deleted' });
    const purged = await admin('DELETE', '/api/application', [a.id, b.id]);
    expect(purged.status).toBe(200);
    expect(purged.body.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect((await admin('GET', `/api/application/${b.id}`)).status).toBe(404);
  });
});

describe('applications: tenancy', () => {
  it('answers 404 to a sibling or child administrator on every route, and 403 to a plain user', async () => {
    const right = await createTenant(server, 'right');
    const left = await createTenant(server, 'left');
    const child = await createTenant(server, 'right-kid', 'right', 'customer');
    const target = (await as(right.adminToken, 'POST', '/api/right/right-domain/application', { client_name: 'Right app' })).body;
    const deletedTarget = (await as(right.adminToken, 'POST', '/api/right/right-domain/application', { client_name: 'Right old', status: 'deleted' })).body;
    expect(deletedTarget.status).toBe('deleted');

    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['GET', '/api/right/right-domain/application'],
      ['POST', '/api/right/right-domain/application', { client_name: 'Intruder' }],
      ['GET', '/api/right/application'],
      ['GET', `/api/application/${target.id}`],
      ['PUT', `/api/application/${target.id}`, { description: 'hacked' }],
      ['PUT', `/api/application/${deletedTarget.id}`, { status: 'active' }],
      ['DELETE', `/api/application/${deletedTarget.id}`],
      ['POST', '/api/application', { client_name: 'Intruder', companyId: 'right', domain: 'right-domain' }],
      ['PUT', '/api/application', [{ id: target.id, description: 'hacked' }]],
      ['DELETE', '/api/application', [deletedTarget.id]],
    ];
    for (const outsider of [left, child]) {
      for (const [method, url, body] of routes) {
        const res = await as(outsider.adminToken, method, url, body);
        expect(res.status, `${method} ${url} by ${outsider.companyId}`).toBe(404);
      }
      const mine = await as(outsider.adminToken, 'GET', `/api/application?filter=${encodeURIComponent(JSON.stringify({ companyId: 'right' }))}`);
      expect(mine.body).toEqual([]);
    }
    for (const [method, url, body] of routes) {
      expect((await as(right.userToken, method, url, body)).status, `${method} ${url} by a plain user`).toBe(403);
    }
    expect((await as(right.userToken, 'GET', '/api/application')).status).toBe(403);

    // nothing changed, and the parent does reach into its child tenant
    expect((await as(right.adminToken, 'GET', `/api/application/${target.id}`)).body).toMatchObject({ description: '', status: 'active' });
    expect((await as(right.adminToken, 'GET', `/api/application/${deletedTarget.id}`)).body.status).toBe('deleted');
    const inChild = await as(right.adminToken, 'POST', '/api/application', { client_name: 'For the kid', companyId: 'right-kid', domain: 'right-kid-domain' });
    expect(inChild.status).toBe(201);
    expect((await as(child.adminToken, 'GET', `/api/application/${inChild.body.id}`)).status).toBe(200);
    expect((await as(right.adminToken, 'GET', '/api/right-kid/application')).body).toHaveLength(1);
    // and a body naming a domain that does not exist in an allowed company is a 404 too
    expect((await as(right.adminToken, 'POST', '/api/application', { client_name: 'x', companyId: 'right', domain: 'nope' })).status).toBe(404);
  });
});
