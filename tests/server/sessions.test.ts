import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdministrator, call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';
import { agreeToAdministration, basicAuth, pkce, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * Sessions (docs/CONSOLE.md, "Sign-ins and rights"): a sign-in is a session with its address, user
 * agent, first and last use; a token request updates its last use; revoking one ends its refresh
 * tokens and makes its access tokens answer 401 while the user's other sessions keep working; sign
 * out everywhere ends them all; each revocation leaves exactly one audit record, a failed one none;
 * another tenant's administrator finds nothing.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
/** The support administrator of acme who acts on others' sessions (its own session is never touched). */
let support: string;
let app: { client_id: string; client_secret: string };
const REDIRECT = 'http://localhost:3000/callback';
const PASSWORDS = { boss: 'boss password 1', worker: 'worker password 1' };
const AGENT = 'sessions-test/1.0';
const users = '/api/companys/acme/domainNames/acme-domain/users';
const sessionsOf = (userId: string) => `${users}/${userId}/sessions`;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  for (const [userId, password] of Object.entries(PASSWORDS)) await setPassword(server, 'acme', 'acme-domain', userId, password);
  await addAdministrator(server, acme, 'support');
  support = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'support' });
  const created = await call(server, acme.adminToken, 'POST', '/api/application', {
    companyId: 'acme',
    domain: 'acme-domain',
    client_name: 'Mailer',
    app_type: 'web',
    redirect_uris: [REDIRECT],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  app = created.body;
  // (Mailer asks for user:admin: its administrators agreed on the consent page)
  for (const userId of Object.keys(PASSWORDS)) await agreeToAdministration(server, 'acme', 'acme-domain', userId, app.client_id);
}, 120_000);
afterAll(() => server?.close());

const as = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, token = support) => call(server, token, method, url, body);

function form(url: string, fields: Record<string, string>, headers: Record<string, string>, remoteAddress: string) {
  return server.app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

interface Tokens {
  access_token: string;
  refresh_token: string;
  /** The session: the grant id every token of this sign-in carries. */
  sessionId: string;
}

const gidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).gid as string;

/** A password sign-in into Mailer from `ip`, then the code exchange from `exchangeIp` (the application's server). */
async function signIn(userId: keyof typeof PASSWORDS, options: { ip?: string; exchangeIp?: string; agent?: string; scope?: string } = {}): Promise<Tokens> {
  const { verifier, challenge } = pkce();
  const login = await form(
    '/oauth/login',
    {
      email: `${userId}@acme.example`,
      password: PASSWORDS[userId],
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      scope: options.scope ?? 'openid offline_access user:admin',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    },
    { 'user-agent': options.agent ?? AGENT },
    options.ip ?? '198.51.100.1',
  );
  const code = redirectParams(login)?.params.code;
  expect(code, `${login.statusCode} ${login.headers.location}`).toBeTruthy();
  const exchange = await form(
    '/oauth/token',
    { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: verifier },
    { authorization: basicAuth(app.client_id, app.client_secret), 'user-agent': 'mailer-backend/2' },
    options.exchangeIp ?? '192.0.2.10',
  );
  expect(exchange.statusCode, exchange.body).toBe(200);
  const tokens = exchange.json();
  expect(tokens.refresh_token).toBeTruthy();
  return { ...tokens, sessionId: gidOf(tokens.access_token) };
}

function refresh(tokens: Tokens, ip = '192.0.2.10') {
  return form('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { authorization: basicAuth(app.client_id, app.client_secret) }, ip);
}

/** What the access token gets from the management API: 200 while its session is live, 401 once revoked. */
const apiStatus = async (tokens: Tokens) => (await call(server, tokens.access_token, 'GET', '/api/companys/acme')).status;

const listed = async (userId: string) => {
  const response = await as('GET', `${sessionsOf(userId)}?range=[0,999]`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { id: string; [field: string]: unknown }[];
};

interface AuditRow {
  company_id: string;
  domain_id: string | null;
  resource_type: string;
  resource_id: string;
  action: string;
  changes: Record<string, unknown>;
  actor_user_id: string | null;
}

/** Runs `act` and returns the audit records it left. */
async function audited<T>(act: () => Promise<T>): Promise<{ result: T; records: AuditRow[] }> {
  const last = (await server.db.query<{ id: string | null }>('SELECT max(id)::text AS id FROM audit_events')).rows[0].id ?? '0';
  const result = await act();
  const { rows } = await server.db.query<AuditRow>(
    'SELECT company_id, domain_id, resource_type, resource_id, action, changes, actor_user_id FROM audit_events WHERE id > $1::bigint ORDER BY id',
    [last],
  );
  return { result, records: rows };
}

const revoked = async (sessionId: string) =>
  (await server.db.query<{ revoked: boolean }>('SELECT revoked_at IS NOT NULL AS revoked FROM oauth_grants WHERE id = $1', [sessionId])).rows[0].revoked;

describe('a session records where and when it was made and used', () => {
  it('a sign-in: its address and user agent, first and last use; the code exchange is a use', async () => {
    const before = Date.now();
    const tokens = await signIn('worker', { ip: '198.51.100.7', exchangeIp: '192.0.2.44', agent: 'Firefox/130 (test)', scope: 'openid offline_access' });
    const session = (await listed('worker')).find((row) => row.id === tokens.sessionId);
    expect(session).toEqual({
      id: tokens.sessionId,
      clientId: app.client_id,
      clientName: 'Mailer',
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      ip: '198.51.100.7',
      lastIp: '192.0.2.44',
      userAgent: 'Firefox/130 (test)',
      scope: 'openid offline_access',
    });
    const createdAt = Date.parse(session!.createdAt as string);
    const lastUsedAt = Date.parse(session!.lastUsedAt as string);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(lastUsedAt).toBeGreaterThanOrEqual(createdAt);
    expect(lastUsedAt).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('a refresh moves the last use and address, never the sign-in', async () => {
    const tokens = await signIn('worker', { ip: '198.51.100.8', scope: 'openid offline_access' });
    await server.db.query(`UPDATE oauth_grants SET last_used_at = now() - interval '20 minutes' WHERE id = $1`, [tokens.sessionId]);
    const [aged] = (await listed('worker')).filter((row) => row.id === tokens.sessionId);
    const refreshed = await refresh(tokens, '192.0.2.99');
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const [now] = (await listed('worker')).filter((row) => row.id === tokens.sessionId);
    expect(Date.parse(now.lastUsedAt as string) - Date.parse(aged.lastUsedAt as string)).toBeGreaterThan(19 * 60_000);
    expect(now).toMatchObject({ ip: '198.51.100.8', lastIp: '192.0.2.99', userAgent: AGENT, createdAt: aged.createdAt });
  });

  it('a hostile user agent is stored safely (no NUL, at most 500 characters)', async () => {
    const tokens = await signIn('worker', { agent: `agent\u0000${'x'.repeat(20_000)}`, scope: 'openid offline_access' });
    const session = (await listed('worker')).find((row) => row.id === tokens.sessionId);
    expect(session?.userAgent).toBe(`agent${'x'.repeat(495)}`);
  });
});

describe('the live rule', () => {
  it('lists a grant while a token of it may be valid or it holds a spendable refresh token; not when revoked', async () => {
    const ids = { recent: 'live-recent', old: 'live-old', refreshable: 'live-refresh', rotated: 'live-rotated', api: 'live-api', revoked: 'live-revoked' };
    await server.db.query(
      `INSERT INTO oauth_grants (id, client_id, company_id, domain_id, user_id, scope, resource, created_at, last_used_at, revoked_at) VALUES
       ($1, $7, 'acme', 'acme-domain', 'worker', 'openid', NULL, now() - interval '3 hours', now() - interval '30 minutes', NULL),
       ($2, $7, 'acme', 'acme-domain', 'worker', 'openid', NULL, now() - interval '3 hours', now() - interval '2 hours', NULL),
       ($3, $7, 'acme', 'acme-domain', 'worker', 'openid', NULL, now() - interval '3 hours', now() - interval '2 hours', NULL),
       ($4, $7, 'acme', 'acme-domain', 'worker', 'openid', NULL, now() - interval '3 hours', now() - interval '2 hours', NULL),
       ($5, $7, 'acme', 'acme-domain', 'worker', 'openid', 'urn:live', now() - interval '3 hours', now() - interval '2 hours', NULL),
       ($6, $7, 'acme', 'acme-domain', 'worker', 'openid', NULL, now() - interval '3 hours', now(), now())`,
      [ids.recent, ids.old, ids.refreshable, ids.rotated, ids.api, ids.revoked, app.client_id],
    );
    await server.db.query(
      `INSERT INTO oidc_payloads (model, id, payload, grant_id, expires_at, consumed_at) VALUES
       ('RefreshToken', 'live-1', '{}', $1, now() + interval '1 day', NULL), ('RefreshToken', 'live-2', '{}', $2, now() + interval '1 day', now() - interval '1 hour')`,
      [ids.refreshable, ids.rotated],
    );
    // an API whose tokens (confidential application) live a day
    const api = await call(server, acme.adminToken, 'POST', '/api/api', { companyId: 'acme', domain: 'acme-domain', name: 'Live', identifier: 'urn:live' });
    expect(api.status, JSON.stringify(api.body)).toBe(201);

    const shown = () => listed('worker').then((rows) => Object.entries(ids).filter(([, id]) => rows.some((row) => row.id === id)).map(([name]) => name));
    expect(await shown()).toEqual(['recent', 'refreshable', 'api']);

    // the application's absolute lifetime ends the refresh token family
    await server.db.query(`UPDATE applications SET refresh_absolute_expiration = true, refresh_absolute_lifetime = 3600 WHERE id = $1`, [app.client_id]);
    try {
      expect(await shown()).toEqual(['recent', 'api']);
    } finally {
      await server.db.query(`UPDATE applications SET refresh_absolute_expiration = false WHERE id = $1`, [app.client_id]);
    }
    // an API token of a public application lives token_expiration_browser (2 hours by default)
    await server.db.query(`UPDATE apis SET token_expiration_browser = 3600 WHERE identifier = 'urn:live'`);
    await server.db.query(`UPDATE applications SET app_type = 'SPA' WHERE id = $1`, [app.client_id]);
    try {
      expect(await shown()).toEqual(['recent', 'refreshable']);
    } finally {
      await server.db.query(`UPDATE applications SET app_type = 'web' WHERE id = $1`, [app.client_id]);
    }
    await server.db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = ANY ($1)`, [Object.values(ids)]);
  });

  it('sorts most recently used first by default, pages, filters and sorts by other fields', async () => {
    const all = await listed('worker');
    expect(all.length).toBeGreaterThanOrEqual(3);
    const times = all.map((row) => Date.parse(row.lastUsedAt as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const page = await as('GET', `${sessionsOf('worker')}?range=[1,2]`);
    expect(page.headers['content-range']).toBe(`sessions 1-2/${all.length}`);
    expect(page.body.map((row: { id: string }) => row.id)).toEqual(all.slice(1, 3).map((row) => row.id));
    const filter = encodeURIComponent(JSON.stringify({ clientId: app.client_id, ip: '198.51.100.8' }));
    const filtered = await as('GET', `${sessionsOf('worker')}?filter=${filter}&sort=${encodeURIComponent('["createdAt","ASC"]')}`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.length).toBe(1);
    expect((await as('GET', `${sessionsOf('worker')}?sort=${encodeURIComponent('["revokedAt","ASC"]')}`)).status).toBe(400);
  });
});

describe('revoking', () => {
  it('one session: its access token answers 401 and its refresh token is refused; the other session keeps working; one audit record', async () => {
    const first = await signIn('boss');
    const second = await signIn('boss');
    expect(await apiStatus(first)).toBe(200);
    expect(await apiStatus(second)).toBe(200);

    const { result, records } = await audited(() => as('DELETE', `${sessionsOf('boss')}/${first.sessionId}`));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body).toMatchObject({ id: first.sessionId, clientId: app.client_id, clientName: 'Mailer', ip: '198.51.100.1', userAgent: AGENT });
    expect(records).toEqual([
      {
        company_id: 'acme',
        domain_id: 'acme-domain',
        resource_type: 'users',
        resource_id: 'boss',
        action: 'revokeSession',
        changes: { session: { before: first.sessionId } },
        actor_user_id: 'support',
      },
    ]);

    expect(await apiStatus(first)).toBe(401);
    const refused = await refresh(first);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await apiStatus(second)).toBe(200);
    expect((await refresh(second)).statusCode).toBe(200);
    const ids = (await listed('boss')).map((row) => row.id);
    expect(ids).toContain(second.sessionId);
    expect(ids).not.toContain(first.sessionId);

    // already revoked: 404, and nothing recorded
    const again = await audited(() => as('DELETE', `${sessionsOf('boss')}/${first.sessionId}`));
    expect(again.result.status).toBe(404);
    expect(again.result.body.message).toBe(`session ${first.sessionId} not found`);
    expect(again.records).toEqual([]);
  });

  it("404 for an unknown session and for another user's session, which stays live", async () => {
    const tokens = await signIn('worker', { scope: 'openid offline_access' });
    for (const url of [`${sessionsOf('worker')}/no-such-session`, `${sessionsOf('boss')}/${tokens.sessionId}`, `${sessionsOf('nobody')}/${tokens.sessionId}`]) {
      const { result, records } = await audited(() => as('DELETE', url));
      expect(result.status, url).toBe(404);
      expect(records).toEqual([]);
    }
    expect(await revoked(tokens.sessionId)).toBe(false);
    expect((await refresh(tokens)).statusCode).toBe(200);
  });

  it('a list of sessions (deleteMany): all of them, one audit record; all or nothing', async () => {
    const [a, b, c] = [await signIn('worker', { scope: 'openid offline_access' }), await signIn('worker', { scope: 'openid offline_access' }), await signIn('worker', { scope: 'openid offline_access' })];

    const failed = await audited(() => as('DELETE', sessionsOf('worker'), [c.sessionId, 'no-such-session']));
    expect(failed.result.status).toBe(404);
    expect(failed.result.body.message).toBe('session no-such-session not found');
    expect(failed.records).toEqual([]);
    expect(await revoked(c.sessionId)).toBe(false);

    const { result, records } = await audited(() => as('DELETE', sessionsOf('worker'), [b.sessionId, a.sessionId, b.sessionId]));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.map((row: { id: string }) => row.id)).toEqual([b.sessionId, a.sessionId]);
    expect(records).toMatchObject([{ resource_type: 'users', resource_id: 'worker', action: 'revokeSession', changes: { sessions: { before: [b.sessionId, a.sessionId] } } }]);
    for (const tokens of [a, b]) expect((await refresh(tokens)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(c)).statusCode).toBe(200);
  });

  it('sign out everywhere: every session of the user ends, dormant ones too; answers how many were live; one audit record', async () => {
    const first = await signIn('boss');
    const second = await signIn('boss');
    // a dormant grant: not listed, not counted, but revoked too
    await server.db.query(
      `INSERT INTO oauth_grants (id, client_id, company_id, domain_id, user_id, scope, last_used_at) VALUES ('dormant', $1, 'acme', 'acme-domain', 'boss', 'openid', now() - interval '1 day')`,
      [app.client_id],
    );
    const live = await listed('boss');
    // both sign-ins, an earlier one, and the session of the tenant's administrator token (boss too)
    expect(live.length).toBeGreaterThanOrEqual(3);
    expect(live.map((row) => row.id)).not.toContain('dormant');

    const { result, records } = await audited(() => as('POST', `${users}/boss/signOutEverywhere`));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body).toEqual({ revoked: live.length });
    expect(records).toMatchObject([{ resource_type: 'users', resource_id: 'boss', action: 'signOutEverywhere', changes: { sessions: { before: live.length } }, actor_user_id: 'support' }]);

    expect(await listed('boss')).toEqual([]);
    for (const tokens of [first, second]) {
      expect(await apiStatus(tokens)).toBe(401);
      expect((await refresh(tokens)).json()).toMatchObject({ error: 'invalid_grant' });
    }
    expect((await call(server, acme.adminToken, 'GET', '/api/companys/acme')).status).toBe(401);
    expect(await revoked('dormant')).toBe(true);
    // the support administrator's own session was never touched
    expect((await as('GET', '/api/companys/acme')).status).toBe(200);

    // again, as the console sends it (JSON, empty body): nothing left to end, still one record of the call
    const again = await audited(() =>
      server.app.inject({
        method: 'POST',
        url: `${users}/boss/signOutEverywhere`,
        headers: { authorization: `Bearer ${support}`, 'content-type': 'application/json' },
        payload: '',
      }),
    );
    expect(again.result.statusCode, again.result.body).toBe(200);
    expect(again.result.json()).toEqual({ revoked: 0 });
    expect(again.records).toHaveLength(1);
    // a body with anything in it is refused, naming the field (server/inputChecks.ts), and does nothing
    const extra = await audited(() => as('POST', `${users}/boss/signOutEverywhere`, { everything: false }));
    expect(extra.result.status).toBe(400);
    expect(extra.result.body.message).toBe('body/everything is not a field of this resource');
    expect(extra.records).toHaveLength(0);
  });
});

describe('tenancy and hostile input', () => {
  it("another tenant's administrator finds nothing (404), a plain user is refused (403), an unknown user is 404", async () => {
    const tokens = await signIn('worker', { scope: 'openid offline_access' });
    const requests: [method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown][] = [
      ['GET', sessionsOf('worker')],
      ['DELETE', `${sessionsOf('worker')}/${tokens.sessionId}`],
      ['DELETE', sessionsOf('worker'), [tokens.sessionId]],
      ['POST', `${users}/worker/signOutEverywhere`],
    ];
    for (const [method, url, body] of requests) {
      const { result, records } = await audited(() => as(method, url, body, other.adminToken));
      expect(result.status, `${method} ${url}`).toBe(404);
      expect(records).toEqual([]);
      expect((await as(method, url, body, acme.userToken)).status, `${method} ${url}`).toBe(403);
    }
    // nor through its own path, where a user of the same id lives
    const own = '/api/companys/other/domainNames/other-domain/users/worker/sessions';
    expect((await as('DELETE', `${own}/${tokens.sessionId}`, undefined, other.adminToken)).status).toBe(404);
    expect((await as('DELETE', own, [tokens.sessionId], other.adminToken)).status).toBe(404);
    const theirs = await as('GET', own, undefined, other.adminToken);
    expect(theirs.status).toBe(200);
    expect(theirs.body.map((row: { id: string }) => row.id)).not.toContain(tokens.sessionId);
    expect(await revoked(tokens.sessionId)).toBe(false);

    for (const [method, url] of [['GET', sessionsOf('nobody')], ['POST', `${users}/nobody/signOutEverywhere`]] as const) {
      const { result, records } = await audited(() => as(method, url));
      expect(result.status, `${method} ${url}`).toBe(404);
      expect(result.body.message).toBe('user nobody not found');
      expect(records).toEqual([]);
    }
    // a user without live sessions is an empty list
    expect(await listed('support')).toHaveLength(1);
    await addAdministrator(server, acme, 'idle');
    expect(await listed('idle')).toEqual([]);
  });

  it('hostile ids (NUL, __proto__, 10 kB) are 4xx, never 5xx, and record nothing', async () => {
    const long = 'a'.repeat(10_000);
    const ids = ['%00', 'a%00b', '__proto__', 'constructor', long, '..', '%2e%2e'];
    for (const id of ids) {
      const requests: [method: 'GET' | 'POST' | 'DELETE', url: string][] = [
        ['GET', sessionsOf(id)],
        ['DELETE', `${sessionsOf('worker')}/${id}`],
        ['DELETE', `${sessionsOf(id)}/x`],
        ['POST', `${users}/${id}/signOutEverywhere`],
      ];
      for (const [method, url] of requests) {
        const { result, records } = await audited(() => as(method, url));
        expect(result.status, `${method} ${url.slice(0, 120)}`).toBeGreaterThanOrEqual(400);
        expect(result.status, `${method} ${url.slice(0, 120)}`).toBeLessThan(500);
        expect(records).toEqual([]);
      }
    }
    for (const body of [['a\u0000b'], ['__proto__'], [long], [{ id: 'x' }], [], 'x', { ids: ['x'] }, Array.from({ length: 1001 }, (_, i) => `s${i}`)]) {
      const { result, records } = await audited(() => as('DELETE', sessionsOf('worker'), body));
      expect(result.status, JSON.stringify(body).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(result.status, JSON.stringify(body).slice(0, 80)).toBeLessThan(500);
      expect(records).toEqual([]);
    }
    const filter = encodeURIComponent(JSON.stringify({ ['__proto__']: 'x' }));
    expect((await as('GET', `${sessionsOf('worker')}?filter=${filter}`)).status).toBe(400);
    expect((await as('GET', `${sessionsOf('worker')}?filter=${encodeURIComponent(JSON.stringify({ ip: 'a\u0000b' }))}`)).status).toBe(400);
  });
});
