import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.js';
import { purgeOldEvents } from '../../server/db/maintenance.js';
import { storable } from '../../server/oauth/signInEvents.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { basicAuth, formAction, injectBrowser, pkce, redirectParams, setPassword } from './oauthHelpers.js';

/**
 * Sign-in events (docs/CONSOLE.md, "Sign-ins and rights"): each outcome at the authorization server
 * is recorded once, with its application, user, address and user agent; recording never changes an
 * answer; the list is tenant-scoped; retention deletes only what is past the limit.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
let app: { client_id: string; client_secret: string };
const REDIRECT = 'http://localhost:3000/callback';
const PASSWORD = 'worker password 1';
const IP = '203.0.113.7';
const AGENT = 'events-test/1.0';
const LIMITS = { failuresPerAccount: 5 };

beforeAll(async () => {
  server = await startServer({ loginLimits: LIMITS });
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
  await setPassword(server, 'acme', 'acme-domain', 'boss', 'boss password 1');
  const created = await call(server, acme.adminToken, 'POST', '/api/application', {
    companyId: 'acme',
    domain: 'acme-domain',
    client_name: 'Mailer',
    app_type: 'web',
    redirect_uris: [REDIRECT],
    refresh_token_rotation: true,
    refresh_reuse_interval: 0,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  app = created.body;
  for (const [settings, scopes] of [
    [{ name: 'Mail', identifier: 'urn:mail', allowSkippingUserConsent: false }, ['mail:send']],
    [{ name: 'Notes', identifier: 'urn:notes', allowOfflineAccess: true }, ['notes:read']],
  ] as const) {
    const api = await call(server, acme.adminToken, 'POST', '/api/api', { companyId: 'acme', domain: 'acme-domain', ...settings });
    expect(api.status, JSON.stringify(api.body)).toBe(201);
    for (const permission of scopes) {
      expect((await call(server, acme.adminToken, 'POST', `/api/api/${api.body.id}/PermissionScopes`, { permission, description: permission })).status).toBe(201);
    }
  }
}, 120_000);
afterAll(() => server?.close());

interface EventRow {
  company_id: string | null;
  domain_id: string | null;
  client_id: string | null;
  user_id: string | null;
  login: string | null;
  outcome: string;
  detail: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** Runs `attempt` and returns the events it recorded. */
async function recorded<T>(attempt: () => Promise<T>): Promise<{ result: T; events: EventRow[] }> {
  const { rows } = await server.db.query<{ last: string | null }>('SELECT max(id)::text AS last FROM signin_events');
  const last = rows[0].last ?? '0';
  const result = await attempt();
  const events = await server.db.query<EventRow>(
    `SELECT company_id, domain_id, client_id, user_id, login, outcome, detail, ip, user_agent FROM signin_events WHERE id > $1::bigint ORDER BY id`,
    [last],
  );
  return { result, events: events.rows };
}

const headers = { 'user-agent': AGENT, 'content-type': 'application/x-www-form-urlencoded' };

function form(path: string, fields: Record<string, string | undefined>, extra: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.set(name, value);
  return server.app.inject({ method: 'POST', url: path, remoteAddress: IP, headers: { ...headers, ...extra }, payload: body.toString() });
}

function loginFields(challenge: string, extra: Record<string, string | undefined> = {}) {
  return {
    email: 'worker@acme.example',
    password: PASSWORD,
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    scope: 'openid',
    state: 's1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

const token = (fields: Record<string, string | undefined>, auth = basicAuth(app.client_id, app.client_secret)) =>
  form('/oauth/token', fields, { authorization: auth });

/** A signed-in worker's code with its verifier. */
async function workerCode(extra: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  const response = await form('/oauth/login', loginFields(challenge, extra));
  const code = redirectParams(response)?.params.code;
  expect(code, `${response.statusCode} ${response.headers.location}`).toBeTruthy();
  return { code: code!, verifier };
}

const ofAcme = { company_id: 'acme', domain_id: 'acme-domain', ip: IP, user_agent: AGENT };

describe('each sign-in outcome is recorded once', () => {
  it('success, wrong password, unknown user', async () => {
    const success = await recorded(() => workerCode());
    expect(success.events).toEqual([
      { ...ofAcme, client_id: app.client_id, user_id: 'worker', login: 'worker@acme.example', outcome: 'success', detail: null },
    ]);

    const wrong = await recorded(() => form('/oauth/login', loginFields(pkce().challenge, { password: 'nope' })));
    expect(redirectParams(wrong.result)?.params.error).toBe('access_denied');
    expect(wrong.events).toEqual([{ ...ofAcme, client_id: app.client_id, user_id: 'worker', login: 'worker@acme.example', outcome: 'wrong_password', detail: null }]);
    // the password is never stored anywhere in the event
    expect(JSON.stringify(wrong.events)).not.toContain('nope');

    const unknown = await recorded(() => form('/oauth/login', loginFields(pkce().challenge, { email: 'nobody@acme.example' })));
    expect(redirectParams(unknown.result)?.params.error).toBe('access_denied');
    expect(unknown.events).toEqual([{ ...ofAcme, client_id: app.client_id, user_id: null, login: 'nobody@acme.example', outcome: 'unknown_user', detail: null }]);
  });

  it('a deleted user: answered like an unknown one, recorded with who she was and why', async () => {
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash, status)
       VALUES ('acme', 'acme-domain', 'gone', 'gone', 'Gone', 'gone@acme.example', NULL, 'deleted')`,
    );
    const gone = await recorded(() => form('/oauth/login', loginFields(pkce().challenge, { email: 'gone@acme.example' })));
    expect(redirectParams(gone.result)?.params).toMatchObject({ error: 'access_denied', error_description: 'Wrong email or password' });
    expect(gone.events).toEqual([
      { ...ofAcme, client_id: app.client_id, user_id: 'gone', login: 'gone@acme.example', outcome: 'unknown_user', detail: 'the account is deleted' },
    ]);
  });

  it('throttled', async () => {
    for (let i = 0; i < LIMITS.failuresPerAccount; i++) {
      expect((await form('/oauth/login', loginFields(pkce().challenge, { email: 'boss@acme.example', password: 'wrong' }))).statusCode).toBe(303);
    }
    const throttled = await recorded(() => form('/oauth/login', loginFields(pkce().challenge, { email: 'boss@acme.example', password: 'boss password 1' })));
    expect(throttled.result.statusCode).toBe(429);
    expect(throttled.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, user_id: 'boss', login: 'boss@acme.example', outcome: 'throttled' }]);
  });

  it('bad client (no tenant when unknown), bad redirect URI', async () => {
    const query = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams({ response_type: 'code', scope: 'openid', ...params })}`;
    const unknown = await recorded(() => server.app.inject({ method: 'GET', url: query({ client_id: 'no-such-app', redirect_uri: REDIRECT }), remoteAddress: IP, headers }));
    expect(unknown.result.statusCode).toBe(400);
    expect(unknown.events).toEqual([{ ...ofAcme, company_id: null, domain_id: null, client_id: 'no-such-app', user_id: null, login: null, outcome: 'bad_client', detail: null }]);

    const redirect = await recorded(() => server.app.inject({ method: 'GET', url: query({ client_id: app.client_id, redirect_uri: 'https://evil.example/cb' }), remoteAddress: IP, headers }));
    expect(redirect.result.statusCode).toBe(400);
    expect(redirect.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, outcome: 'bad_redirect_uri', detail: 'redirect_uri https://evil.example/cb' }]);

    // at the token endpoint: a wrong secret names the application
    const secret = await recorded(() => token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT }, basicAuth(app.client_id, 'wrong')));
    expect(secret.result.statusCode).toBe(401);
    expect(secret.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, user_id: null, outcome: 'bad_client', detail: 'wrong client credentials' }]);
  });

  it('bad PKCE, reused code', async () => {
    const first = await workerCode();
    const pkceFailure = await recorded(() => token({ grant_type: 'authorization_code', code: first.code, redirect_uri: REDIRECT, code_verifier: pkce().verifier }));
    expect(pkceFailure.result.json()).toMatchObject({ error: 'invalid_grant' });
    expect(pkceFailure.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, user_id: 'worker', outcome: 'bad_pkce' }]);

    const second = await workerCode();
    const exchange = () => token({ grant_type: 'authorization_code', code: second.code, redirect_uri: REDIRECT, code_verifier: second.verifier });
    const good = await recorded(exchange);
    expect(good.result.statusCode).toBe(200);
    expect(good.events).toEqual([]);
    const reused = await recorded(exchange);
    expect(reused.result.json()).toMatchObject({ error: 'invalid_grant', error_description: 'the authorization code was already used' });
    expect(reused.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, user_id: 'worker', outcome: 'code_reused' }]);
  });

  it('consent denied', async () => {
    const browser = injectBrowser(server, undefined, { remoteAddress: IP, headers: { 'user-agent': AGENT } });
    const { challenge } = pkce();
    const authorize = new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: REDIRECT, scope: 'openid mail:send', audience: 'urn:mail', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
    const login = await browser.get(`/oauth/authorize?${authorize}`);
    const page = await recorded(() => browser.post(formAction(login.body)!, { email: 'worker@acme.example', password: PASSWORD }));
    expect(page.result.status).toBe(200);
    expect(page.result.body).toContain('mail:send');
    expect(page.events).toMatchObject([{ ...ofAcme, user_id: 'worker', outcome: 'success' }]);
    const denied = await recorded(() => browser.post(formAction(page.result.body)!, { decision: 'deny' }));
    expect(denied.result.location?.searchParams.get('error')).toBe('access_denied');
    expect(denied.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, user_id: 'worker', login: null, outcome: 'consent_denied' }]);
  });

  it('refresh reuse detected', async () => {
    const { code, verifier } = await workerCode({ scope: 'openid offline_access notes:read', audience: 'urn:notes' });
    const tokens = (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).json();
    expect(tokens.refresh_token).toBeTruthy();
    expect((await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).statusCode).toBe(200);
    const reuse = await recorded(() => token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }));
    expect(reuse.result.json()).toMatchObject({ error: 'invalid_grant' });
    expect(reuse.events).toMatchObject([{ ...ofAcme, client_id: app.client_id, user_id: 'worker', outcome: 'refresh_reuse' }]);
  });

  it('a NUL or huge user agent is stored safely', async () => {
    const huge = `agent\u0000${'x'.repeat(20_000)}`;
    const attempt = await recorded(() =>
      server.app.inject({ method: 'POST', url: '/oauth/login', remoteAddress: IP, headers: { ...headers, 'user-agent': huge }, payload: new URLSearchParams(loginFields(pkce().challenge, { password: 'nope' })).toString() }),
    );
    expect(attempt.result.statusCode).toBe(303);
    expect(attempt.events).toHaveLength(1);
    expect(attempt.events[0].user_agent).toBe(`agent${'x'.repeat(495)}`);
    expect(storable('a\u0000b', 10)).toBe('ab');
    // a surrogate pair is never cut in half
    expect(storable('😀😀', 1)).toBe('😀');
  });

  it('a failure to record changes no answer', async () => {
    await server.db.exec('ALTER TABLE signin_events RENAME TO signin_events_away');
    try {
      const wrong = await form('/oauth/login', loginFields(pkce().challenge, { password: 'nope' }));
      expect(redirectParams(wrong)?.params.error).toBe('access_denied');
      // the success records with the grant, in its transaction: the grant and code still stand
      const { code, verifier } = await workerCode();
      expect((await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).statusCode).toBe(200);
      const again = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
      expect(again.json()).toMatchObject({ error: 'invalid_grant', error_description: 'the authorization code was already used' });
      const unknown = await token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT }, basicAuth('nobody', 'x'));
      expect(unknown.statusCode).toBe(401);
    } finally {
      await server.db.exec('ALTER TABLE signin_events_away RENAME TO signin_events');
    }
  });
});

describe('the list', () => {
  const path = '/api/companys/acme/domainNames/acme-domain/signInEvents';

  it('is read by the tenant administrator only: 404 for another tenant, 403 for a plain user', async () => {
    expect((await call(server, other.adminToken, 'GET', path)).status).toBe(404);
    expect((await call(server, acme.userToken, 'GET', path)).status).toBe(403);
    const own = await call(server, acme.adminToken, 'GET', path);
    expect(own.status).toBe(200);
    // events of an unknown client have no tenant and show nowhere
    expect(own.body.some((event: { clientId: string }) => event.clientId === 'no-such-app')).toBe(false);
    expect((await call(server, other.adminToken, 'GET', '/api/companys/other/domainNames/other-domain/signInEvents')).body).toEqual([]);
  });

  it('filters, sorts newest first and pages', async () => {
    const all = await call(server, acme.adminToken, 'GET', `${path}?range=[0,999]`);
    const total = all.body.length;
    expect(total).toBeGreaterThan(10);
    expect(all.headers['content-range']).toBe(`signInEvents 0-${total - 1}/${total}`);
    const times = all.body.map((event: { occurredAt: string }) => Date.parse(event.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all.body[0]).toMatchObject({ id: expect.any(String), outcome: expect.any(String), ip: IP, userAgent: expect.any(String) });

    const page = await call(server, acme.adminToken, 'GET', `${path}?range=[2,4]`);
    expect(page.headers['content-range']).toBe(`signInEvents 2-4/${total}`);
    expect(page.body.map((event: { id: string }) => event.id)).toEqual(all.body.slice(2, 5).map((event: { id: string }) => event.id));

    const filter = (value: object) => `${path}?range=[0,999]&filter=${encodeURIComponent(JSON.stringify(value))}`;
    const boss = await call(server, acme.adminToken, 'GET', filter({ userId: 'boss' }));
    expect(boss.body.length).toBe(LIMITS.failuresPerAccount + 1);
    expect(boss.body.every((event: { userId: string }) => event.userId === 'boss')).toBe(true);
    const throttled = await call(server, acme.adminToken, 'GET', filter({ outcome: 'throttled', clientId: app.client_id }));
    expect(throttled.body).toHaveLength(1);

    const newest = all.body[0].occurredAt;
    const since = await call(server, acme.adminToken, 'GET', `${path}?range=[0,999]&condition=${encodeURIComponent(`occurredAt,>=,${newest}`)}`);
    expect(since.status).toBe(200);
    expect(since.body.length).toBeGreaterThanOrEqual(1);
    expect(since.body.every((event: { occurredAt: string }) => event.occurredAt >= newest)).toBe(true);
    expect((await call(server, acme.adminToken, 'GET', `${path}?condition=${encodeURIComponent('occurredAt,>=,not a time')}`)).status).toBe(400);
  });
});

describe('retention', () => {
  it('deletes only the events older than the limit, in batches', async () => {
    await server.db.query(
      `INSERT INTO signin_events (occurred_at, company_id, domain_id, client_id, outcome, detail)
       SELECT now() - make_interval(days => d) + interval '1 hour', 'acme', 'acme-domain', 'old', 'success', 'age ' || d FROM generate_series(1, 40) AS d`,
    );
    const deleted = await purgeOldEvents(server.db, 'signin_events', 30, { batch: 3, pauseMs: 0 });
    expect(deleted).toBe(10);
    const { rows } = await server.db.query<{ detail: string }>(`SELECT detail FROM signin_events WHERE client_id = 'old' ORDER BY occurred_at`);
    expect(rows.map((row) => row.detail)).toEqual(Array.from({ length: 30 }, (_, i) => `age ${30 - i}`));
    expect((await server.db.query(`SELECT 1 FROM signin_events WHERE client_id <> 'old'`)).rowCount).toBeGreaterThan(10);
  });

  it('SIGNIN_RETENTION_DAYS: 90 by default, a bad value stops start-up', () => {
    expect(configFromEnv({}).signInRetentionDays).toBe(90);
    expect(configFromEnv({ SIGNIN_RETENTION_DAYS: '7' }).signInRetentionDays).toBe(7);
    for (const bad of ['0', '-1', '1.5', 'ninety', '36501']) {
      expect(() => configFromEnv({ SIGNIN_RETENTION_DAYS: bad })).toThrow(/^SIGNIN_RETENTION_DAYS must be a whole number of days from 1 to 36500/);
    }
  });
});
