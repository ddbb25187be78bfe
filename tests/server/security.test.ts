import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_LIMITS } from '../../server/config.js';
import { DeviceCookies, LoginThrottle } from '../../server/oauth/loginThrottle.js';
import { managementAudience } from '../../server/accounts/tokens.js';
import { call, createTenant, PUBLIC_URL, startServer, type TestServer } from './helpers.js';
import { addApplication, CONSOLE_REDIRECT, consoleCode, consoleLoginFields, pkce, postLogin, redirectParams, setPassword } from './oauthHelpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe('forged access tokens', () => {
  const claims = async () => {
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM oauth_grants WHERE user_id = 'admin' LIMIT 1`);
    return { scope: 'openid email user:admin', company: 'root', domain: 'default', user_id: 'admin', client_id: 'iam-console', gid: rows[0].id };
  };

  it('refuses a token signed by another key that claims our kid, an alg:none token and an HS256 token keyed with our public key', async () => {
    const payload = await claims();
    const { privateKey } = await jose.generateKeyPair('RS256');
    const otherKey = await new jose.SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid: server.ctx.keys.kid, typ: 'at+jwt' })
      .setIssuer(PUBLIC_URL)
      .setAudience(managementAudience(server.ctx))
      .setSubject('admin')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const now = Math.floor(Date.now() / 1000);
    const body = { ...payload, iss: PUBLIC_URL, aud: managementAudience(server.ctx), sub: 'admin', iat: now, exp: now + 3600 };
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const algNone = `${encode({ alg: 'none', typ: 'at+jwt', kid: server.ctx.keys.kid })}.${encode(body)}.`;
    const hs256 = await new jose.SignJWT(body)
      .setProtectedHeader({ alg: 'HS256', kid: server.ctx.keys.kid, typ: 'at+jwt' })
      .sign(new TextEncoder().encode(JSON.stringify(server.ctx.keys.publicJwk)));

    for (const token of [otherKey, algNone, hs256]) {
      expect((await call(server, token, 'GET', '/api/companys/root')).status).toBe(401);
      const userinfo = await call(server, token, 'GET', '/oauth/userinfo');
      expect(userinfo.status).toBe(401);
      expect(userinfo.headers['www-authenticate']).toContain('invalid_token');
    }
    // the same claims signed by our key do work: the refusals above are about the signature
    const genuine = await new jose.SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid: server.ctx.keys.kid, typ: 'at+jwt' })
      .setIssuer(PUBLIC_URL)
      .setAudience(managementAudience(server.ctx))
      .setSubject('admin')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(server.ctx.keys.privateKey);
    expect((await call(server, genuine, 'GET', '/api/companys/root')).status).toBe(200);
  });

  it('answers userinfo without a token with 401 and a Bearer challenge', async () => {
    const response = await call(server, undefined, 'GET', '/oauth/userinfo');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('sign-in pages', () => {
  const authorizeUrl = () =>
    `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`;

  it('cannot be framed and only post to us and the redirect URI origin', async () => {
    const page = await server.app.inject({ method: 'GET', url: authorizeUrl() });
    const login = await postLogin(server, consoleLoginFields(pkce().challenge));
    for (const response of [page, login]) {
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self' http://localhost:8080");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).not.toContain('script-src');
      expect(csp).toContain("default-src 'none'");
    }
  });

  it('never send CORS headers, and OPTIONS is no preflight success', async () => {
    const origin = { origin: 'https://evil.example' };
    const responses = [
      await server.app.inject({ method: 'GET', url: authorizeUrl(), headers: origin }),
      await postLogin(server, consoleLoginFields(pkce().challenge), origin),
      await postLogin(server, consoleLoginFields(pkce().challenge, { password: 'wrong', prompt_origin: 'hosted' }), origin),
    ];
    for (const path of ['/oauth/login', '/oauth/authorize']) {
      const preflight = await server.app.inject({
        method: 'OPTIONS',
        url: path,
        headers: { ...origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.statusCode).toBeGreaterThanOrEqual(400);
      responses.push(preflight);
    }
    for (const response of responses) {
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('security headers', () => {
  it('are on every response, without HSTS over plain http', async () => {
    const code = await consoleCode(server);
    const responses = [
      code.response,
      await server.app.inject({ method: 'GET', url: '/oauth/jwks' }),
      await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' }),
      await server.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'nope' } }),
      await server.app.inject({ method: 'GET', url: '/api/companys/root' }),
      await server.app.inject({ method: 'GET', url: '/no/such/path' }),
      await server.app.inject({ method: 'GET', url: '/oauth/authorize' }),
    ];
    for (const response of responses) {
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('include HSTS, and device cookies are Secure, when the public URL is https', async () => {
    const https = await startServer({ publicUrl: 'https://id.example.com' });
    try {
      const response = await https.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
      expect(response.headers['strict-transport-security']).toContain('max-age=');
      expect(response.json().issuer).toBe('https://id.example.com');
      const login = await postLogin(https, consoleLoginFields(pkce().challenge, { redirect_uri: 'https://id.example.com/callback' }));
      expect(login.statusCode).toBe(303);
      expect(redirectParams(login)!.params.iss).toBe('https://id.example.com');
      expect(String(login.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await https.close();
    }
  });
});

describe('failed sign-in throttling', () => {
  it('counts failures per account and per address in windows; a trusted device skips both limits up to its own', async () => {
    let now = Date.now();
    const limits = { ...DEFAULT_LOGIN_LIMITS, failuresPerAccount: 3, failuresPerAddress: 5, failuresPerDevice: 2, failureWindowSeconds: 60 };
    const throttle = new LoginThrottle(server.db, limits, { now: () => now, purgeChance: 0 });
    const [account, other, ip1, ip2, ip3] = ['account', 'other', 'ip1', 'ip2', 'ip3'].map((name) => `${name}-${crypto.randomUUID()}`);
    const wait = async (...args: [string, string, string?]) => (await throttle.begin(...args)).retryAfter;
    for (let i = 0; i < 3; i++) expect(await wait(account, ip1)).toBe(0);
    expect(await wait(account, ip2)).toBe(60);
    expect(await wait(account, ip1, 'device-1')).toBe(0);
    expect(await wait(other, ip1)).toBe(0);
    // ip1 has now seen 5 failures: anyone else there waits, the trusted device goes on up to its own limit
    expect(await wait(other, ip1)).toBe(60);
    expect(await wait(account, ip1, 'device-1')).toBe(0);
    expect(await wait(account, ip1, 'device-1')).toBe(60);

    now += 30_000;
    expect(await wait(account, ip3)).toBe(30);
    now += 30_000;
    expect(await wait(account, ip3)).toBe(0);
  });

  it('device cookies are signed, bound to one account and expire', () => {
    let now = Date.now();
    const devices = new DeviceCookies(Buffer.from('secret'), false, () => now);
    const cookie = devices.issue('root/default/a@example.com').split(';')[0];
    expect(devices.trusts(`theme=dark; ${cookie}`, 'root/default/a@example.com')).toBe(true);
    expect(devices.trusts(cookie, 'root/default/b@example.com')).toBe(false);
    expect(new DeviceCookies(Buffer.from('other secret'), false, () => now).trusts(cookie, 'root/default/a@example.com')).toBe(false);
    const [name, value] = cookie.split('=');
    const [, expires, signature] = value.split('.');
    const forged = `${name}=${Buffer.from('root/default/b@example.com').toString('base64url')}.${expires}.${signature}`;
    expect(devices.trusts(forged, 'root/default/b@example.com')).toBe(false);
    now += 91 * 24 * 3600 * 1000;
    expect(devices.trusts(cookie, 'root/default/a@example.com')).toBe(false);
  });

  it('answers 429 with Retry-After after 100 failures, yet the owner signs in from a browser that signed in before', async () => {
    const tenant = await createTenant(server, 'throttle-co');
    const redirectUri = 'https://throttle.example/cb';
    await addApplication(server, { id: 'throttle-app', companyId: tenant.companyId, domainId: tenant.domainId, redirectUris: [redirectUri] });
    await setPassword(server, tenant.companyId, tenant.domainId, 'boss', 'the right one');
    await setPassword(server, tenant.companyId, tenant.domainId, 'worker', 'the right one');
    const attempt = (email: string, password: string, cookie?: string) =>
      postLogin(
        server,
        { email, password, client_id: 'throttle-app', redirect_uri: redirectUri, state: 'st', code_challenge: pkce().challenge, code_challenge_method: 'S256' },
        cookie ? { cookie } : {},
      );
    const bossEmail = 'boss@throttle-co.example';

    const earlier = await attempt(bossEmail, 'the right one');
    const setCookie = String(earlier.headers['set-cookie']);
    expect(setCookie).toMatch(/^iam_device=[^;]+; Max-Age=\d+; Path=\/oauth; HttpOnly; SameSite=Lax$/);
    const deviceCookie = setCookie.split(';')[0];
    const workerCookie = String((await attempt('worker@throttle-co.example', 'the right one')).headers['set-cookie']).split(';')[0];

    for (let i = 0; i < 100; i++) {
      const failure = await attempt(i % 2 ? bossEmail : bossEmail.toUpperCase(), `guess ${i}`);
      expect(failure.statusCode).toBe(303);
      expect(redirectParams(failure)!.params.error).toBe('access_denied');
    }
    const limited = await attempt(bossEmail, 'guess 101');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3500);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(limited.body).toContain('Too many failed sign-in attempts');
    // not evaluated: even the right password waits, unless the browser proves an earlier success
    expect((await attempt(bossEmail, 'the right one')).statusCode).toBe(429);
    expect((await attempt(bossEmail, 'the right one', workerCookie)).statusCode).toBe(429);
    expect((await attempt(bossEmail, 'the right one', `${deviceCookie}x`)).statusCode).toBe(429);

    const owner = await attempt(bossEmail, 'the right one', deviceCookie);
    expect(owner.statusCode).toBe(303);
    expect(redirectParams(owner)!.params.code).toBeDefined();
    const ownerTypo = await attempt(bossEmail, 'typo', deviceCookie);
    expect(redirectParams(ownerTypo)!.params.error).toBe('access_denied');
    // other accounts are unaffected
    expect(redirectParams(await attempt('worker@throttle-co.example', 'the right one'))!.params.code).toBeDefined();
  });
});
