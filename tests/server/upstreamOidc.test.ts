import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTotp, encryptSecret } from '../../server/accounts/factors.js';
import { sha256 } from '../../server/ids.js';
import { createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import { addApplication, CONSOLE_REDIRECT, consoleLoginFields, CookieJar, injectBrowser, pkce, postLogin, postToken, setPassword } from './oauthHelpers.js';
import { codeOf, continueUrl, refusalOf, throughIdp } from './upstreamHelpers.js';
import { start as startIdp, type OidcIdp } from '../upstream/oidcIdp.js';
import { isSpecialUseAddress, upstreamFetch } from '../../server/upstream/fetch.js';
import { purgeExpiredUpstream } from '../../server/db/maintenance.js';

/**
 * Signing in with an upstream OpenID Connect IdP (docs/CONSOLE.md, "Connections"), end to end: a
 * second oidc-provider on its own port is the company's IdP; the console's form post and the hosted
 * page send the browser there, its answer comes back to the connection's callback, and the sign-in
 * ends with a code as the password's does. The attacks of the issue are tried: an unverified address
 * of an existing account, a mix-up between two IdPs, a replayed state, a wrong nonce, a private
 * address without ALLOW_PRIVATE_CALLBACKS.
 */

let server: TestServer;
let idp: OidcIdp;
let otherIdp: OidcIdp;
let globex: Tenant;
let acme: Tenant;
const PASSWORD = 'upstream tests password 1';

async function addConnection(target: TestServer, tenant: { companyId: string; domainId: string }, id: string, issuerOf: OidcIdp, extra: { trustEmail?: boolean; mfaFromIdp?: boolean; shared?: boolean; enabled?: boolean } = {}) {
  await target.db.query(
    `INSERT INTO connections (company_id, domain_id, id, display_name, protocol, preset, settings, secret, trust_email, mfa_from_idp, shared_with_subtree, enabled)
     VALUES ($1, $2, $3, $4, 'oidc', 'custom', $5::jsonb, $6, $7, $8, $9, $10)`,
    [
      tenant.companyId,
      tenant.domainId,
      id,
      `IdP ${id}`,
      JSON.stringify({ issuer: issuerOf.issuer, clientId: issuerOf.clientId, scopes: 'openid email profile groups', claimMapping: {} }),
      await encryptSecret(target.db, issuerOf.clientSecret),
      extra.trustEmail ?? true,
      extra.mfaFromIdp ?? false,
      extra.shared ?? false,
      extra.enabled ?? true,
    ],
  );
}

/**
 * The console's sign-in form posted with `fields` (a connection, or an address and no password);
 * the browser goes through the IdP and back. Returns our browser (its cookies), the callback URL
 * reached, and where our server sent it at the end.
 */
async function consoleUpstream(fields: Record<string, string | undefined>, options: { beforeIdp?: () => Promise<void> } = {}) {
  const jar = new CookieJar();
  const { verifier, challenge } = pkce();
  const started = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', ...fields }));
  expect(started.statusCode, started.body.slice(0, 500)).toBe(200);
  jar.keep(started.headers['set-cookie'] as string[] | undefined);
  await options.beforeIdp?.();
  const callback = await throughIdp(continueUrl(started.body));
  const browser = injectBrowser(server, jar);
  const end = await browser.get(callback.slice(PUBLIC_URL.length));
  return { jar, browser, callback, end, verifier };
}

async function userOfSubject(tenant: Tenant, connectionId: string, subject: string) {
  const { rows } = await server.db.query<{ userId: string; lastUsedAt: Date | null }>(
    `SELECT user_id AS "userId", last_used_at AS "lastUsedAt" FROM user_identities WHERE company_id = $1 AND domain_id = $2 AND connection_id = $3 AND subject = $4`,
    [tenant.companyId, tenant.domainId, connectionId, subject],
  );
  return rows[0];
}

async function lastEvent() {
  const { rows } = await server.db.query<{ outcome: string; connectionId: string | null; userId: string | null; companyId: string }>(
    `SELECT outcome, connection_id AS "connectionId", user_id AS "userId", company_id AS "companyId" FROM signin_events ORDER BY id DESC LIMIT 1`,
  );
  return rows[0];
}

beforeAll(async () => {
  [server, idp, otherIdp] = await Promise.all([startServer({ allowPrivateCallbacks: true }), startIdp(), startIdp()]);
  globex = await createTenant(server, 'globex', 'root', 'reseller');
  acme = await createTenant(server, 'acme', 'globex', 'customer');
  for (const tenant of [globex, acme]) await setPassword(server, tenant.companyId, tenant.domainId, 'worker', PASSWORD);
  await server.db.query(`INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ('globex', 'globex-domain', 'engineers', 'engineers', 'Engineers', 'eng@globex.example')`);
  await addConnection(server, globex, 'corp', idp);
  await addConnection(server, globex, 'other', otherIdp);
  await addConnection(server, globex, 'shared', idp, { shared: true });
  await addConnection(server, acme, 'acme-own', idp);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.close(), idp?.close(), otherIdp?.close()]);
});

describe('signing in through an OpenID Connect IdP', () => {
  it('the first sign-in provisions the person into the connection\'s domain, with her groups; the second finds her again', async () => {
    idp.setAccount({ sub: 'ann-1', email: 'Ann@corp.example', email_verified: true, name: 'Ann Upstream', groups: ['Engineers', 'Unknown group'], amr: ['pwd'] });
    const first = await consoleUpstream({ company: 'globex', connection: 'corp' });
    const code = codeOf(first.end);
    expect(code, `${first.end.status} ${first.end.path} ${first.end.body.slice(0, 300)}`).toBeTruthy();
    // the IdP was asked with state, nonce and PKCE
    const asked = idp.requests.at(-1)!;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('nonce')).toBeTruthy();
    expect(asked.get('state')).toBeTruthy();

    const identity = await userOfSubject(globex, 'corp', 'ann-1');
    expect(identity?.lastUsedAt).toBeTruthy();
    const { rows } = await server.db.query(`SELECT display_name, email, email_verified, password_hash FROM users WHERE company_id = 'globex' AND domain_id = 'globex-domain' AND id = $1`, [identity.userId]);
    expect(rows[0]).toEqual({ display_name: 'Ann Upstream', email: 'ann@corp.example', email_verified: true, password_hash: null });
    const groups = await server.db.query(`SELECT group_id FROM group_members WHERE company_id = 'globex' AND member_type = 'user' AND member_id = $1`, [identity.userId]);
    expect(groups.rows).toEqual([{ group_id: 'engineers' }]);
    // the sign-in event names the connection
    expect(await lastEvent()).toMatchObject({ outcome: 'success', connectionId: 'corp', userId: identity.userId, companyId: 'globex' });

    const tokens = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: first.verifier });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.user).toMatchObject({ id: identity.userId, email: 'ann@corp.example' });

    const second = await consoleUpstream({ company: 'globex', connection: 'corp' });
    expect(codeOf(second.end)).toBeTruthy();
    expect((await userOfSubject(globex, 'corp', 'ann-1')).userId).toBe(identity.userId);
    const count = await server.db.query(`SELECT count(*)::int AS n FROM users WHERE lower(email) = 'ann@corp.example'`);
    expect(count.rows[0]).toEqual({ n: 1 });
  });

  it('an address the IdP says is unverified never links to the existing account that holds it', async () => {
    idp.setAccount({ sub: 'mallory', email: 'worker@globex.example', email_verified: false, name: 'Not the worker' });
    const { end } = await consoleUpstream({ company: 'globex', connection: 'corp' });
    expect(refusalOf(end)).toContain('has not verified that address');
    expect(end.location?.searchParams.get('state')).toBe('state-123');
    expect(await userOfSubject(globex, 'corp', 'mallory')).toBeUndefined();
    expect(await lastEvent()).toMatchObject({ outcome: 'upstream_not_linked', connectionId: 'corp', userId: 'worker' });
  });

  it('a verified address of an existing account is linked only after her password', async () => {
    idp.setAccount({ sub: 'worker-at-idp', email: 'worker@globex.example', email_verified: true, name: 'Worker' });
    const { end, browser } = await consoleUpstream({ company: 'globex', connection: 'corp' });
    expect(end.status).toBe(200);
    expect(end.path).toBe('/oauth/upstream/link');
    expect(end.body).toContain('Link your account');
    expect(await userOfSubject(globex, 'corp', 'worker-at-idp')).toBeUndefined();

    const wrong = await browser.post('/oauth/upstream/link', { password: 'not her password' });
    expect(wrong.status).toBe(401);
    expect(await userOfSubject(globex, 'corp', 'worker-at-idp')).toBeUndefined();

    const right = await browser.post('/oauth/upstream/link', { password: PASSWORD });
    expect(codeOf(right), `${right.status} ${right.path}`).toBeTruthy();
    expect((await userOfSubject(globex, 'corp', 'worker-at-idp'))?.userId).toBe('worker');

    // from now on the IdP alone signs her in
    const again = await consoleUpstream({ company: 'globex', connection: 'corp' });
    expect(codeOf(again.end)).toBeTruthy();
    expect(await lastEvent()).toMatchObject({ outcome: 'success', connectionId: 'corp', userId: 'worker' });
  });

  it('a blocked account stays refused whatever the IdP says', async () => {
    idp.setAccount({ sub: 'blocked-one', email: 'blocked@corp.example', email_verified: true, name: 'Soon blocked' });
    expect(codeOf((await consoleUpstream({ company: 'globex', connection: 'corp' })).end)).toBeTruthy();
    const { userId } = await userOfSubject(globex, 'corp', 'blocked-one');
    await server.db.query(`UPDATE users SET blocked_at = now() WHERE company_id = 'globex' AND domain_id = 'globex-domain' AND id = $1`, [userId]);
    const { end } = await consoleUpstream({ company: 'globex', connection: 'corp' });
    expect(refusalOf(end)).toContain('blocked');
    expect(codeOf(end)).toBeNull();
    expect(await lastEvent()).toMatchObject({ outcome: 'blocked', connectionId: 'corp', userId });
  });

  it('the domain\'s second factor is asked, unless the connection trusts the IdP\'s multi-factor sign-in and it says so', async () => {
    idp.setAccount({ sub: 'mfa-person', email: 'mfa@corp.example', email_verified: true, name: 'Has a factor', amr: ['pwd'] });
    expect(codeOf((await consoleUpstream({ company: 'globex', connection: 'corp' })).end)).toBeTruthy();
    const { userId } = await userOfSubject(globex, 'corp', 'mfa-person');
    await addTotp(server.db, { companyId: 'globex', domainId: 'globex-domain', id: userId } as never, 'JBSWY3DPEHPK3PXP', 1, 'app');

    const asked = await consoleUpstream({ company: 'globex', connection: 'corp' });
    expect(asked.end.path).toBe('/oauth/steps');
    expect(asked.end.body).toContain('Second factor');

    await server.db.query(`UPDATE connections SET mfa_from_idp = true WHERE company_id = 'globex' AND id = 'corp'`);
    try {
      // the switch alone is not enough: the IdP must say it asked for more than a password
      expect((await consoleUpstream({ company: 'globex', connection: 'corp' })).end.path).toBe('/oauth/steps');
      idp.setAccount({ sub: 'mfa-person', email: 'mfa@corp.example', email_verified: true, name: 'Has a factor', amr: ['pwd', 'mfa'] });
      expect(codeOf((await consoleUpstream({ company: 'globex', connection: 'corp' })).end)).toBeTruthy();
    } finally {
      await server.db.query(`UPDATE connections SET mfa_from_idp = false WHERE company_id = 'globex' AND id = 'corp'`);
    }
  });
});

describe('enrolment', () => {
  it("a domain that requires a second factor asks a new person to enrol one, unless the connection trusts the IdP's multi-factor sign-in and it says so", async () => {
    await server.db.query(`DELETE FROM domain_policies WHERE company_id = 'globex' AND domain_id = 'globex-domain'`);
    await server.db.query(`INSERT INTO domain_policies (company_id, domain_id, mfa) VALUES ('globex', 'globex-domain', 'required')`);
    try {
      idp.setAccount({ sub: 'enrol-person', email: 'enrol@corp.example', email_verified: true, name: 'No factor yet', amr: ['pwd', 'mfa'] });
      const asked = await consoleUpstream({ company: 'globex', connection: 'corp' });
      expect(asked.end.path).toBe('/oauth/steps');
      expect(asked.end.body).toContain('Add a second factor');
      await server.db.query(`UPDATE connections SET mfa_from_idp = true WHERE company_id = 'globex' AND id = 'corp'`);
      expect(codeOf((await consoleUpstream({ company: 'globex', connection: 'corp' })).end)).toBeTruthy();
      // her own required action still asks it
      const { userId } = await userOfSubject(globex, 'corp', 'enrol-person');
      await server.db.query(`UPDATE users SET required_actions = ARRAY['enrol-mfa'] WHERE company_id = 'globex' AND domain_id = 'globex-domain' AND id = $1`, [userId]);
      expect((await consoleUpstream({ company: 'globex', connection: 'corp' })).end.body).toContain('Add a second factor');
    } finally {
      await server.db.query(`UPDATE connections SET mfa_from_idp = false WHERE company_id = 'globex' AND id = 'corp'`);
      await server.db.query(`DELETE FROM domain_policies WHERE company_id = 'globex' AND domain_id = 'globex-domain'`);
    }
  });
});

describe('tenancy', () => {
  it('another tenant\'s connection cannot be used (404); a shared one serves its company\'s subtree only', async () => {
    const { challenge } = pkce();
    const foreign = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'globex', connection: 'acme-own' }));
    expect(foreign.statusCode).toBe(404);
    // globex's own (not shared) connection is not offered to its customer acme
    const unshared = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'acme', connection: 'corp' }));
    expect(unshared.statusCode).toBe(404);
    // the shared one is not offered above globex
    const above = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'root', connection: 'shared' }));
    expect(above.statusCode).toBe(404);

    // the shared one provisions into the domain whose sign-in used it (acme), not the connection's
    idp.setAccount({ sub: 'acme-person', email: 'person@acme-corp.example', email_verified: true, name: 'Acme Person' });
    const { end } = await consoleUpstream({ company: 'acme', connection: 'shared' });
    expect(codeOf(end)).toBeTruthy();
    const { rows } = await server.db.query(`SELECT company_id, domain_id FROM user_identities WHERE connection_id = 'shared' AND subject = 'acme-person'`);
    expect(rows).toEqual([{ company_id: 'acme', domain_id: 'acme-domain' }]);

    const listed = await server.app.inject({ method: 'GET', url: '/oauth/upstream/connections?company=acme' });
    expect(listed.json().map((one: { id: string }) => one.id).sort()).toEqual(['acme-own', 'shared']);
    expect(JSON.stringify(listed.json())).not.toContain('secret');
  });
});

describe('attacks', () => {
  /** Starts a console sign-in at `connection` and goes through the IdP, stopping at the callback it sends back. */
  async function callbackOf(connection: string) {
    const jar = new CookieJar();
    const { challenge } = pkce();
    const started = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'globex', connection }));
    jar.keep(started.headers['set-cookie'] as string[] | undefined);
    return { jar, callback: new URL(await throughIdp(continueUrl(started.body))) };
  }

  it('a code and state from one IdP presented at another connection\'s callback are refused (mix-up), and spent', async () => {
    idp.setAccount({ sub: 'ann-1', email: 'ann@corp.example', email_verified: true, name: 'Ann Upstream' });
    const { jar, callback } = await callbackOf('corp');
    expect(callback.pathname).toBe('/oauth/upstream/globex/globex-domain/corp/callback');
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);
    const browser = injectBrowser(server, jar);
    const mixedUp = await browser.get(`/oauth/upstream/globex/globex-domain/other/callback${callback.search}`);
    expect(mixedUp.status).toBe(400);
    expect(mixedUp.location).toBeUndefined();
    // the state was spent by the attempt: the right callback refuses it now too
    expect((await browser.get(`${callback.pathname}${callback.search}`)).status).toBe(400);
  });

  it('a state is good once', async () => {
    const { jar, callback } = await callbackOf('corp');
    const browser = injectBrowser(server, jar);
    expect(codeOf(await browser.get(`${callback.pathname}${callback.search}`))).toBeTruthy();
    const replayed = await browser.get(`${callback.pathname}${callback.search}`);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toContain('expired, was already used');
  });

  it('two sign-ins started in one browser (two tabs) both come back', async () => {
    const jar = new CookieJar();
    const callbacks: URL[] = [];
    for (let tab = 0; tab < 2; tab++) {
      const { challenge } = pkce();
      const started = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'globex', connection: 'corp' }));
      jar.keep(started.headers['set-cookie'] as string[] | undefined);
      callbacks.push(new URL(await throughIdp(continueUrl(started.body))));
    }
    const browser = injectBrowser(server, jar);
    for (const callback of callbacks.reverse()) expect(codeOf(await browser.get(`${callback.pathname}${callback.search}`))).toBeTruthy();
  });

  it('the answer is refused in a browser other than the one that started the sign-in', async () => {
    const { callback } = await callbackOf('corp');
    const elsewhere = await injectBrowser(server).get(`${callback.pathname}${callback.search}`);
    expect(refusalOf(elsewhere)).toContain('another browser');
    expect(codeOf(elsewhere)).toBeNull();
  });

  it('an ID token whose nonce is not the flow\'s is refused', async () => {
    const { end } = await consoleUpstream(
      { company: 'globex', connection: 'corp' },
      { beforeIdp: async () => void (await server.db.query(`UPDATE upstream_flows SET payload = jsonb_set(payload, '{nonce}', '"another-nonce"') WHERE purpose = 'sign-in'`)) },
    );
    expect(refusalOf(end)).toMatch(/nonce/i);
    expect(codeOf(end)).toBeNull();
    expect(await lastEvent()).toMatchObject({ outcome: 'upstream_failed', connectionId: 'corp' });
  });

  it('a secret this server cannot open is a 400 with a sentence, never a 5xx', async () => {
    await addConnection(server, globex, 'unopened', idp);
    await server.db.query(`UPDATE connections SET secret = 'v1.AAAA.AAAA.AAAA' WHERE company_id = 'globex' AND id = 'unopened'`);
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'globex', connection: 'unopened' }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('cannot be opened');
  });

  it('private, loopback, link-local and mapped addresses are special-use; public ones are not', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect(isSpecialUseAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '140.82.112.3', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isSpecialUseAddress(address), address).toBe(false);
  });

  it('the upstream fetch refuses a private address, by number or by a name resolving to one, unless allowed', async () => {
    for (const url of [`${idp.issuer}/.well-known/openid-configuration`, idp.issuer.replace('127.0.0.1', 'localhost')]) {
      await expect(upstreamFetch(false)(url)).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('private or local address') });
    }
    await expect(upstreamFetch(false)('file:///etc/passwd')).rejects.toMatchObject({ statusCode: 400 });
    expect((await upstreamFetch(true)(`${idp.issuer}/.well-known/openid-configuration`)).status).toBe(200);
  });

  it("an address starting upstream sign-ins past its successful sign-ins' limit gets a 429 with Retry-After, before any flow is stored", async () => {
    const limited = await startServer({ allowPrivateCallbacks: true, loginLimits: { successesPerAddress: 2 } });
    try {
      await addConnection(limited, { companyId: 'root', domainId: 'default' }, 'limited', idp);
      const start = () => postLogin(limited, consoleLoginFields(pkce().challenge, { email: undefined, password: '', company: 'root', connection: 'limited' }));
      expect((await start()).statusCode).toBe(200);
      expect((await start()).statusCode).toBe(200);
      const refused = await start();
      expect(refused.statusCode).toBe(429);
      expect(refused.body).toContain('Too many sign-ins started from your network');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const { rows } = await limited.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM upstream_flows WHERE connection_id = 'limited'`);
      expect(rows[0].n).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('an issuer on a private address is refused without ALLOW_PRIVATE_CALLBACKS: a 400 with a sentence', async () => {
    const strict = await startServer();
    try {
      await addConnection(strict, { companyId: 'root', domainId: 'default' }, 'local', idp);
      const { challenge } = pkce();
      const response = await postLogin(strict, consoleLoginFields(challenge, { email: undefined, password: '', company: 'root', connection: 'local' }));
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('private or local address');
    } finally {
      await strict.close();
    }
  });
});

describe('housekeeping', () => {
  it('expired upstream flows and SAML assertion ids are purged with the other expired rows', async () => {
    await server.db.query(
      `INSERT INTO upstream_flows (id, company_id, domain_id, connection_id, purpose, payload, expires_at) VALUES ('old-flow', 'globex', 'globex-domain', 'corp', 'sign-in', '{}', now() - interval '1 minute'), ('live-flow', 'globex', 'globex-domain', 'corp', 'sign-in', '{}', now() + interval '1 minute')`,
    );
    await server.db.query(`INSERT INTO saml_assertions_seen (id, expires_at) VALUES ('old-assertion', now() - interval '1 minute')`);
    expect(await purgeExpiredUpstream(server.db)).toBeGreaterThanOrEqual(2);
    const left = await server.db.query(`SELECT id FROM upstream_flows WHERE id IN ('old-flow', 'live-flow') UNION ALL SELECT id FROM saml_assertions_seen WHERE id = 'old-assertion'`);
    expect(left.rows).toEqual([{ id: 'live-flow' }]);
  });
});

describe('routing', () => {
  it('identifier-first: an address of a claimed, verified e-mail domain and no password goes to its IdP, with login_hint', async () => {
    await server.db.query(
      `INSERT INTO connection_email_domains (company_id, domain_id, email_domain, connection_id, verification_token, verified_at) VALUES ('globex', 'globex-domain', 'corp.example', 'corp', 't', now())`,
    );
    await server.db.query(
      `INSERT INTO connection_email_domains (company_id, domain_id, email_domain, connection_id, verification_token) VALUES ('globex', 'globex-domain', 'unproved.example', 'corp', 't')`,
    );
    idp.setAccount({ sub: 'ann-1', email: 'ann@corp.example', email_verified: true, name: 'Ann Upstream' });
    const { end } = await consoleUpstream({ company: 'globex', email: 'ann@corp.example' });
    expect(codeOf(end)).toBeTruthy();
    expect(idp.requests.at(-1)!.get('login_hint')).toBe('ann@corp.example');
    // an unverified claim routes nowhere: the password path answers as before
    const { challenge } = pkce();
    const unproved = await postLogin(server, consoleLoginFields(challenge, { company: 'globex', email: 'someone@unproved.example', password: '' }));
    expect(unproved.statusCode).toBe(303);
    expect(unproved.headers.location).toContain('error=access_denied');
  });

  it('the hosted sign-in page shows the domain\'s connections, and the `connection` parameter skips it', async () => {
    await addApplication(server, { id: 'globex-app', companyId: 'globex', domainId: 'globex-domain', redirectUris: ['https://app.globex.example/cb'] });
    const { challenge } = pkce();
    const authorize = `/oauth/authorize?${new URLSearchParams({ client_id: 'globex-app', redirect_uri: 'https://app.globex.example/cb', response_type: 'code', scope: 'openid email', state: 's1', code_challenge: challenge, code_challenge_method: 'S256' })}`;
    const jar = new CookieJar();
    const browser = injectBrowser(server, jar);
    const page = await browser.get(authorize);
    expect(page.status).toBe(200);
    const link = /<a class="connection" href="([^"]+)">Sign in with IdP corp<\/a>/.exec(page.body)?.[1];
    expect(link, page.body).toBeTruthy();
    expect(page.body).not.toContain('IdP acme-own');

    idp.setAccount({ sub: 'ann-1', email: 'ann@corp.example', email_verified: true, name: 'Ann Upstream' });
    const started = await server.app.inject({ method: 'GET', url: unescape(link!), headers: { cookie: jar.header() } });
    expect(started.statusCode).toBe(303);
    const toInteraction = new URL(started.headers.location as string, PUBLIC_URL);
    const atIdp = await server.app.inject({ method: 'GET', url: `${toInteraction.pathname}${toInteraction.search}`, headers: { cookie: jar.header() } });
    jar.keep(atIdp.headers['set-cookie'] as string[] | undefined);
    expect(atIdp.statusCode).toBe(303);
    const callback = await throughIdp(atIdp.headers.location as string);
    const end = await browser.get(callback.slice(PUBLIC_URL.length));
    expect(end.location?.origin).toBe('https://app.globex.example');
    expect(end.location?.searchParams.get('code')).toBeTruthy();
    expect(await lastEvent()).toMatchObject({ outcome: 'success', connectionId: 'corp' });

    // `connection` in the authorization request: straight to the IdP, no page
    const direct = await injectBrowser(server).get(`${authorize}&connection=corp`);
    expect(direct.location?.origin).toBe(idp.issuer);

    // identifier-first on the hosted page too: the claimed address and no password, on to the IdP with the hint
    const typedJar = new CookieJar();
    const typed = await injectBrowser(server, typedJar).get(authorize);
    const typedUid = /\/oauth\/interaction\/([^/"]+)\/login/.exec(typed.body)?.[1];
    expect(typed.body).not.toMatch(/name="password"[^>]*required/);
    const posted = await server.app.inject({
      method: 'POST',
      url: `/oauth/interaction/${typedUid}/login`,
      headers: { cookie: typedJar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: 'ann@corp.example', password: '' }).toString(),
    });
    expect(posted.statusCode).toBe(200);
    const onward = new URL(continueUrl(posted.body));
    expect(onward.origin).toBe(idp.issuer);
    expect(onward.searchParams.get('login_hint')).toBe('ann@corp.example');

    // another tenant's connection, started from this application's sign-in page: 404
    const otherJar = new CookieJar();
    const other = await injectBrowser(server, otherJar).get(authorize);
    const uid = /\/oauth\/interaction\/([^/"]+)\/login/.exec(other.body)?.[1];
    expect(uid).toBeTruthy();
    const foreign = await server.app.inject({ method: 'GET', url: `/oauth/interaction/${uid}/upstream/acme/acme-domain/acme-own`, headers: { cookie: otherJar.header() } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.headers.location).toBeUndefined();
  });

  it('a test ticket runs the flow and ends on the mapped claims, provisioning nobody', async () => {
    const ticket = 'a-test-ticket-of-enough-length-0123456789abcdef';
    await server.db.query(
      `INSERT INTO upstream_flows (id, company_id, domain_id, connection_id, purpose, payload, expires_at) VALUES ($1, 'globex', 'globex-domain', 'corp', 'test-ticket', '{}', now() + interval '5 minutes')`,
      [sha256(ticket)],
    );
    idp.setAccount({ sub: 'tested-only', email: 'tested@corp.example', email_verified: true, name: 'Tested Person', groups: ['Engineers'] });
    const jar = new CookieJar();
    const started = await server.app.inject({ method: 'GET', url: `/oauth/upstream/globex/globex-domain/corp/start?ticket=${ticket}` });
    expect(started.statusCode).toBe(303);
    jar.keep(started.headers['set-cookie'] as string[] | undefined);
    const callback = await throughIdp(started.headers.location as string);
    const page = await injectBrowser(server, jar).get(callback.slice(PUBLIC_URL.length));
    expect(page.status).toBe(200);
    expect(page.body).toContain('tested-only');
    expect(page.body).toContain('tested@corp.example');
    expect(page.body).toContain('Engineers');
    const { rows } = await server.db.query(`SELECT 1 FROM users WHERE email = 'tested@corp.example'`);
    expect(rows).toEqual([]);
    // the ticket is spent
    expect((await server.app.inject({ method: 'GET', url: `/oauth/upstream/globex/globex-domain/corp/start?ticket=${ticket}` })).statusCode).toBe(400);
  });
});
