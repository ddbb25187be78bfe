import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript of the build
import { compressDir } from '../../scripts/compress.mjs';
import { startServer, type TestServer } from './helpers.js';

/**
 * The built console as the server sends it (docs/PERFORMANCE.md, "Sign-in to dashboard"): the
 * brotli or gzip copy made at build time when the browser accepts it, the file itself otherwise;
 * hashed assets cached for good.
 */
let server: TestServer;
let dir: string;
const SCRIPT = `export const greeting = ${JSON.stringify('hello '.repeat(500))};\n`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  fs.writeFileSync(path.join(dir, 'assets', 'app-0a1b2c.js'), SCRIPT);
  expect(compressDir(dir)).toBe(2);
  server = await startServer({ consoleDir: dir });
}, 120_000);
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the built console', () => {
  it('is sent compressed as the browser accepts, and as it is to one that accepts nothing', async () => {
    const br = await server.app.inject({ method: 'GET', url: '/assets/app-0a1b2c.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toContain('javascript');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);
    expect(br.rawPayload.length).toBeLessThan(SCRIPT.length / 5);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const gzip = await server.app.inject({ method: 'GET', url: '/assets/app-0a1b2c.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);

    const plain = await server.app.inject({ method: 'GET', url: '/assets/app-0a1b2c.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
  });
});
