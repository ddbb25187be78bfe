import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram as startDataDirProgram, stopProgram } from './program.js';

/**
 * The run contract of the real program (server/main.ts through tsx, as npm start runs it): first-run
 * seeding with a generated password printed once, the console page, graceful SIGTERM, and restarts
 * that keep the data dir (database and signing key) without seeding again. Always the embedded
 * database: this is about DATA_DIR.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-startup-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const startProgram = (extraEnv: NodeJS.ProcessEnv = {}) => startDataDirProgram(dataDir, extraEnv);

async function kidOf(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/jwks`);
  expect(response.status).toBe(200);
  const { keys } = await response.json();
  return keys[0].kid;
}

describe('the server program', () => {
  let firstKid = '';

  it('seeds on first run, printing the generated password once; serves the console page; stops gracefully on SIGTERM', async () => {
    const running = await startProgram();
    try {
      const seedLine = running.output().split('\n').find((line) => line.startsWith('First run:'));
      expect(seedLine, running.output()).toBeDefined();
      expect(seedLine).toMatch(/administrator admin@example\.com, password [A-Za-z0-9]{12,} +\(generated: shown only this once\)/);
      expect(running.output()).toContain(`IAM Console: ${running.baseUrl}`);

      const page = await fetch(`${running.baseUrl}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/<html/i);

      const discovery = await (await fetch(`${running.baseUrl}/.well-known/openid-configuration`)).json();
      expect(discovery.issuer).toBe(running.baseUrl);
      firstKid = await kidOf(running.baseUrl);
    } finally {
      const { code, signal } = await stopProgram(running);
      expect({ code, signal }, running.output()).toEqual({ code: 0, signal: null });
    }
    expect(fs.existsSync(path.join(dataDir, 'signing-key.pem'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'pgdata'))).toBe(true);
  }, 180_000);

  it('keeps its data across a restart: same signing key, no second seeding, no password printed', async () => {
    expect(firstKid).not.toBe('');
    const running = await startProgram();
    try {
      expect(running.output()).not.toContain('First run');
      expect(running.output()).not.toContain('password');
      expect(await kidOf(running.baseUrl)).toBe(firstKid);
      const page = await fetch(`${running.baseUrl}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
    } finally {
      const { code } = await stopProgram(running);
      expect(code, running.output()).toBe(0);
    }
  }, 180_000);

  it('stops promptly when a request is in flight at SIGTERM and its client keeps the connection open', async () => {
    const running = await startProgram();
    const socket = net.connect(Number(new URL(running.baseUrl).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const answered = new Promise((resolve) => socket.once('data', resolve));
    // a sign-in attempt runs bcrypt (tens of milliseconds): the stop begins while it is being answered
    const form = 'email=nobody%40example.com&password=wrong&client_id=iam-console&redirect_uri=x';
    socket.write(
      `POST /oauth/login HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}`,
    );
    await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    running.child.kill('SIGTERM');
    await answered;
    // the client never closes its side; the server must not wait for it (Fastify's keep-alive lasts 72 s)
    const { code } = await stopProgram(running);
    socket.destroy();
    expect(code, running.output()).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 120_000);

  it('exits anyway when the grace period runs out, saying what was still open', async () => {
    const running = await startProgram({ SHUTDOWN_GRACE_SECONDS: '1' });
    const socket = net.connect(Number(new URL(running.baseUrl).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // a request whose body never finishes arriving: its connection is never idle
    socket.write('POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const { code } = await stopProgram(running);
    socket.destroy();
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(running.output()).toMatch(/Shutdown took longer than 1 s: exiting anyway with 1 connection\(s\) still open/);
  }, 120_000);
});
