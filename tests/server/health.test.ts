import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLog, startServer, type TestServer } from './helpers.js';

/**
 * What operators and browsers ask of every server (docs/OPERATIONS.md, "Health" and "Logs"):
 * liveness and readiness without authentication, the icon of the server's own pages, and one log
 * line per request. (The readiness of a server whose PostgreSQL is down: databaseRestart.test.ts.)
 */
let server: TestServer;
const { lines, stream } = capturedLog();

beforeAll(async () => {
  server = await startServer({}, { logger: { level: 'info', stream } });
}, 120_000);
afterAll(() => server?.close());

describe('health endpoints', () => {
  it('/healthz and /readyz answer without a token, never cached', async () => {
    const live = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  it('/readyz says not ready, with Retry-After, when the database does not answer', async () => {
    const { db } = server.app.ctx;
    const query = db.query;
    db.query = (() => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))) as typeof db.query;
    try {
      const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBeTruthy();
      expect(ready.json().message).toContain('ECONNREFUSED');
    } finally {
      db.query = query;
    }
  });
});

describe('the favicon', () => {
  it('is served at /favicon.ico and named by the hosted pages', async () => {
    const icon = await server.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toContain('image/svg+xml');
    expect(icon.body).toContain('<svg');
    const page = await server.app.inject({ method: 'GET', url: '/account', headers: { accept: 'text/html' } });
    expect(page.body).toContain('<link rel="icon" href="/favicon.ico"');
  });
});

describe('the request log', () => {
  it('writes one line per request: method, path without its query, status, time and request id', async () => {
    lines.length = 0;
    await server.app.inject({ method: 'GET', url: '/healthz?probe=1' });
    await server.app.inject({ method: 'GET', url: '/api/companys/root/domainNames?token=SECRET' });
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 30, msg: 'request', method: 'GET', path: '/healthz', status: 200, reqId: expect.any(String), ms: expect.any(Number) });
    expect(logged[1]).toMatchObject({ path: '/api/companys/root/domainNames', status: 401 });
    expect(lines.join('')).not.toContain('SECRET');
  });
});
