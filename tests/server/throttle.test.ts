import crypto from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, DEFAULT_LOGIN_LIMITS, fastifyTrustProxy, parseTrustProxy, type LoginLimits } from '../../server/config.js';
import { addressKey, LoginThrottle } from '../../server/oauth/loginThrottle.js';
import { createTenant, serverOn, startServer, type TestServer } from './helpers.js';
import { addApplication, injectBrowser, pkce, postLogin, redirectParams, setPassword } from './oauthHelpers.js';
import { sharedDatabase } from './twoServers.js';

/**
 * Sign-in throttling (server/oauth/loginThrottle.ts): counters in the database, one key per account
 * however it is named, client addresses only from trusted proxies, trusted devices never locked out,
 * successes limited too.
 */

const LIMITS: Partial<LoginLimits> = {
  failuresPerAccount: 4,
  failuresPerAddress: 6,
  failuresPerDevice: 2,
  failureWindowSeconds: 3600,
  successesPerAccount: 3,
  successesPerAddress: 4,
  successWindowSeconds: 60,
};
const PASSWORD = 'the right one';
const REDIRECT = 'https://throttle.example/cb';

/** A fresh address for each call, so that tests do not share address counters by accident. */
let addressSeq = 0;
const freshAddress = () => {
  addressSeq++;
  return `10.${(addressSeq >> 16) & 255}.${(addressSeq >> 8) & 255}.${addressSeq & 255}`;
};

/**
 * A tenant with an application and two users (boss, worker) whose password is PASSWORD, and an
 * `attempt` that posts the login form as the client at `address` (the servers here trust one proxy
 * hop, so the address is the X-Forwarded-For entry the proxy added).
 */
async function tenant(server: TestServer) {
  const companyId = `t${crypto.randomBytes(4).toString('hex')}`;
  const { domainId } = await createTenant(server, companyId);
  const clientId = `${companyId}-app`;
  await addApplication(server, { id: clientId, companyId, domainId, redirectUris: [REDIRECT] });
  for (const user of ['boss', 'worker']) await setPassword(server, companyId, domainId, user, PASSWORD);
  return {
    boss: `boss@${companyId}.example`,
    worker: `worker@${companyId}.example`,
    attempt: (on: TestServer, login: string, password: string, options: { address?: string; cookie?: string; forwardedFor?: string } = {}) =>
      postLogin(
        on,
        { email: login, password, client_id: clientId, redirect_uri: REDIRECT, state: 'st', code_challenge: pkce().challenge, code_challenge_method: 'S256' },
        { 'x-forwarded-for': options.forwardedFor ?? options.address ?? freshAddress(), ...(options.cookie ? { cookie: options.cookie } : {}) },
      ),
  };
}

/** What a sign-in answer amounts to: 'code', 'denied' (wrong password) or the HTTP status. */
function outcome(response: Awaited<ReturnType<typeof postLogin>>): string | number {
  const params = redirectParams(response)?.params;
  if (response.statusCode === 303 && params?.code) return 'code';
  if (response.statusCode === 303 && params?.error === 'access_denied') return 'denied';
  return response.statusCode;
}

const deviceCookie = (response: Awaited<ReturnType<typeof postLogin>>) => String(response.headers['set-cookie']).split(';')[0];

describe('on one server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ trustProxy: 1, loginLimits: LIMITS });
  });
  afterAll(() => server?.close());

  it('counts the email and the username of one account on one counter, and unknown names too', async () => {
    const { boss, worker, attempt } = await tenant(server);
    const username = boss.split('@')[0];
    for (let i = 0; i < 4; i++) expect(outcome(await attempt(server, i % 2 ? boss : username.toUpperCase(), `guess ${i}`))).toBe('denied');
    const blocked = await attempt(server, ` ${boss.toUpperCase()} `, PASSWORD);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3500);
    expect(blocked.body).toContain('Too many failed sign-in attempts. Try again in 60 minutes.');
    expect(outcome(await attempt(server, username, PASSWORD))).toBe(429);
    // another account of the domain is not affected
    expect(outcome(await attempt(server, worker, PASSWORD))).toBe('code');
    // probing a name nobody has is throttled the same way
    for (let i = 0; i < 4; i++) expect(outcome(await attempt(server, 'Nobody@Nowhere.example', `guess ${i}`))).toBe('denied');
    expect(outcome(await attempt(server, 'nobody@nowhere.example', 'guess'))).toBe(429);
  });

  it('keys the address on what the trusted proxy saw: rotating the leftmost X-Forwarded-For does not reset it', async () => {
    const { attempt } = await tenant(server);
    const seen = '203.0.113.9';
    // distinct unknown names, so only the address counter can fill up
    const spoofed = (i: number, address = seen) =>
      attempt(server, `probe-${i}@nowhere.example`, 'guess', { forwardedFor: `${crypto.randomInt(1, 224)}.${crypto.randomInt(256)}.0.${i % 256}, ${address}` });
    for (let i = 0; i < 6; i++) expect(outcome(await spoofed(i))).toBe('denied');
    const blocked = await spoofed(6);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3500);
    // the next address over is its own counter
    expect(outcome(await spoofed(7, '203.0.113.10'))).toBe('denied');
  });

  it('lets a browser that signed in before sign in with the right password while its address and its account are blocked', async () => {
    const { boss, worker, attempt } = await tenant(server);
    const home = freshAddress();
    const earlier = await attempt(server, boss, PASSWORD, { address: home });
    expect(outcome(earlier)).toBe('code');
    const bossDevice = deviceCookie(earlier);
    expect(bossDevice).toMatch(/^iam_device=/);
    const workerDevice = deviceCookie(await attempt(server, worker, PASSWORD, { address: home }));

    // an attacker at `cafe` blocks the account (4 failures) and then the address (6)
    const cafe = freshAddress();
    for (let i = 0; i < 4; i++) expect(outcome(await attempt(server, boss, `guess ${i}`, { address: cafe }))).toBe('denied');
    for (let i = 0; i < 2; i++) expect(outcome(await attempt(server, `x${i}@nowhere.example`, 'guess', { address: cafe }))).toBe('denied');
    const refused = await attempt(server, boss, PASSWORD, { address: cafe });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(outcome(await attempt(server, boss, PASSWORD))).toBe(429); // the account, from anywhere
    expect(outcome(await attempt(server, worker, PASSWORD, { address: cafe }))).toBe(429); // the address, for any account
    expect(outcome(await attempt(server, boss, PASSWORD, { address: cafe, cookie: workerDevice }))).toBe(429); // another account's cookie
    expect(outcome(await attempt(server, boss, PASSWORD, { address: cafe, cookie: `${bossDevice}x` }))).toBe(429); // a forged one

    // the owner's own browser: signed in, at the blocked address, on the blocked account
    expect(outcome(await attempt(server, boss, PASSWORD, { address: cafe, cookie: bossDevice }))).toBe('code');
    expect(outcome(await attempt(server, worker, PASSWORD, { address: cafe, cookie: workerDevice }))).toBe('code');

    // a stolen device cookie buys few guesses: past 2 failures it is a stranger again
    for (let i = 0; i < 2; i++) expect(outcome(await attempt(server, worker, `guess ${i}`, { address: cafe, cookie: workerDevice }))).toBe('denied');
    expect(outcome(await attempt(server, worker, PASSWORD, { address: cafe, cookie: workerDevice }))).toBe(429);
    // elsewhere it still counts as a stranger (the account itself is not blocked)
    expect(outcome(await attempt(server, worker, PASSWORD, { cookie: workerDevice }))).toBe('code');
  });

  it('limits successful sign-ins per address and per account', async () => {
    const { boss, worker, attempt } = await tenant(server);
    const office = freshAddress();
    for (const login of [boss, boss, worker, worker]) expect(outcome(await attempt(server, login, PASSWORD, { address: office }))).toBe('code');
    const limited = await attempt(server, boss, PASSWORD, { address: office });
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body).toContain('Too many sign-ins in a short time. Try again in');
    expect(limited.headers.location).toBeUndefined();
    expect(limited.headers['set-cookie']).toBeUndefined();
    // worker has 2 of 3 sign-ins left for the minute, from another address
    expect(outcome(await attempt(server, worker, PASSWORD))).toBe('code');
    expect(outcome(await attempt(server, worker, PASSWORD))).toBe(429);
  });

  it('counts atomically: 50 concurrent attempts count exactly 50, and no more than the limit have their password checked', async () => {
    const throttle = new LoginThrottle(server.db, { ...DEFAULT_LOGIN_LIMITS, failuresPerAccount: 10, failuresPerAddress: 1000 }, { purgeChance: 0 });
    const key = `concurrent-${crypto.randomUUID()}`;
    const counts = await Promise.all(Array.from({ length: 50 }, () => throttle.add([{ kind: 'failed-account', key }], 60)));
    expect(counts.map(([c]) => c.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const { rows } = await server.db.query<{ n: number }>(`SELECT n FROM login_attempts WHERE kind = 'failed-account' AND key = $1`, [key]);
    expect(rows).toEqual([{ n: 50 }]);

    const account = `burst-${crypto.randomUUID()}`;
    const attempts = await Promise.all(Array.from({ length: 50 }, (_, i) => throttle.begin(account, `burst-address-${i}`)));
    expect(attempts.filter((a) => a.retryAfter === 0)).toHaveLength(10);
  });

  it('takes a right password’s attempt back, and purges expired counters in small batches', async () => {
    let now = Date.now();
    const throttle = new LoginThrottle(server.db, { ...DEFAULT_LOGIN_LIMITS, failureWindowSeconds: 60, successWindowSeconds: 60 }, { now: () => now, purgeChance: 0 });
    const [account, address] = [`refund-${crypto.randomUUID()}`, `refund-${crypto.randomUUID()}`];
    const count = async (kind: string, key: string) =>
      (await server.db.query<{ n: number }>(`SELECT n FROM login_attempts WHERE kind = $1 AND key = $2`, [kind, key])).rows[0]?.n;
    await throttle.begin(account, address);
    expect(await throttle.succeeded(await throttle.begin(account, address), account, address)).toBe(0);
    expect(await count('failed-account', account)).toBe(1);
    expect(await count('failed-address', address)).toBe(1);
    expect(await count('signed-in-account', account)).toBe(1);

    now += 61_000;
    const later = `refund-later-${crypto.randomUUID()}`;
    await throttle.add([{ kind: 'failed-account', key: later }], 60);
    expect(await throttle.purge()).toBeGreaterThanOrEqual(4);
    expect(await count('failed-account', account)).toBeUndefined();
    expect(await count('signed-in-address', address)).toBeUndefined();
    expect(await count('failed-account', later)).toBe(1);
  });
});

describe('several servers, and restarts', () => {
  it.skipIf(!process.env.DATABASE_URL)('shares the counters of two servers on one PostgreSQL database', async () => {
    const shared = await sharedDatabase();
    const one = await serverOn(await shared.open(), { trustProxy: 1, loginLimits: LIMITS });
    const two = await serverOn(await shared.open(), { trustProxy: 1, loginLimits: LIMITS });
    try {
      const { boss, attempt } = await tenant(one);
      for (let i = 0; i < 4; i++) expect(outcome(await attempt(i % 2 ? one : two, boss, `guess ${i}`))).toBe('denied');
      expect(outcome(await attempt(one, boss, PASSWORD))).toBe(429);
      expect(outcome(await attempt(two, boss, PASSWORD))).toBe(429);
    } finally {
      await one.close();
      await two.close();
      await shared.drop();
    }
  });

  it('keeps the counters across a restart', async () => {
    const shared = await sharedDatabase();
    try {
      const before = await serverOn(await shared.open(), { trustProxy: 1, loginLimits: LIMITS });
      const { boss, attempt } = await tenant(before);
      for (let i = 0; i < 4; i++) expect(outcome(await attempt(before, boss, `guess ${i}`))).toBe('denied');
      expect(outcome(await attempt(before, boss, PASSWORD))).toBe(429);
      await before.close();

      const after = await serverOn(await shared.open(), { trustProxy: 1, loginLimits: LIMITS });
      try {
        const blocked = await attempt(after, boss, PASSWORD);
        expect(blocked.statusCode).toBe(429);
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3500);
      } finally {
        await after.close();
      }
    } finally {
      await shared.drop();
    }
  });
});

describe('configuration', () => {
  it('reads TRUST_PROXY as hops or proxy addresses, and refuses anything else', () => {
    expect(parseTrustProxy(undefined)).toBeUndefined();
    expect(parseTrustProxy('false')).toBeUndefined();
    expect(parseTrustProxy('true')).toBe(1);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.5,::1, fd00::/8,loopback')).toEqual(['10.0.0.0/8', '192.168.1.5', '::1', 'fd00::/8', 'loopback']);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.1,', 'proxy.example', '1.5', '101']) {
      expect(() => configFromEnv({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
  });

  it('takes the client address from the trusted proxies only', async () => {
    const ipWith = async (trust: string | undefined, forwardedFor: string) => {
      const app = Fastify({ trustProxy: fastifyTrustProxy(parseTrustProxy(trust)) });
      app.get('/', async (request) => request.ip);
      const response = await app.inject({ method: 'GET', url: '/', headers: { 'x-forwarded-for': forwardedFor } });
      await app.close();
      return response.body;
    };
    // inject's peer is 127.0.0.1; the client spoofed the leftmost entry
    const header = '6.6.6.6, 203.0.113.9, 10.1.2.3';
    expect(await ipWith(undefined, header)).toBe('127.0.0.1');
    expect(await ipWith('1', header)).toBe('10.1.2.3');
    expect(await ipWith('true', header)).toBe('10.1.2.3');
    expect(await ipWith('2', header)).toBe('203.0.113.9');
    expect(await ipWith('127.0.0.1, 10.0.0.0/8', header)).toBe('203.0.113.9');
    expect(await ipWith('10.0.0.0/8', header)).toBe('127.0.0.1');
  });

  it('reads the limits from LOGIN_* variables, with defaults, and refuses bad values', () => {
    expect(configFromEnv({}).loginLimits).toEqual(DEFAULT_LOGIN_LIMITS);
    expect(configFromEnv({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '5', LOGIN_SUCCESS_WINDOW_SECONDS: '30' }).loginLimits).toMatchObject({
      failuresPerAccount: 5,
      successWindowSeconds: 30,
      failuresPerAddress: DEFAULT_LOGIN_LIMITS.failuresPerAddress,
    });
    for (const [name, value] of [
      ['LOGIN_MAX_FAILURES_PER_ADDRESS', '0'],
      ['LOGIN_MAX_SUCCESSES_PER_ACCOUNT', 'ten'],
      ['LOGIN_FAILURE_WINDOW_SECONDS', '99999999'],
      ['LOGIN_MAX_FAILURES_PER_DEVICE', '-1'],
    ]) {
      expect(() => configFromEnv({ [name]: value })).toThrow(name);
    }
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped one as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
  });
});

describe('device user codes (RFC 8628 5.1)', () => {
  it('wrong codes count against the address like failed sign-ins; past the limit the page answers 429 before checking any code', async () => {
    const server = await startServer({ loginLimits: { failuresPerAddress: 3 } });
    try {
      const browser = injectBrowser(server, undefined, { remoteAddress: '198.51.100.77' });
      const guess = async (userCode: string) => {
        const page = await browser.get('/oauth/device');
        const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
        if (!xsrf) return page;
        return browser.post('/oauth/device', { xsrf, user_code: userCode });
      };
      for (let i = 0; i < 3; i++) {
        const wrong = await guess('BCDF-GHJK');
        expect(wrong.status).toBe(200);
        expect(wrong.body).toContain('The code is not valid');
      }
      const refused = await guess('BCDF-GHJK');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.body).toContain('Too many wrong codes');
      // another address is not held up
      const elsewhere = injectBrowser(server, undefined, { remoteAddress: '198.51.100.78' });
      expect((await elsewhere.get('/oauth/device')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
