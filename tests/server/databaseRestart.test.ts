import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { startCluster } from '../../scripts/pgCluster.mjs';
import { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL } from './helpers.js';
import { consoleTokenOver } from './oauthHelpers.js';
import { freePort, type Program, startProgram, stopProgram } from './program.js';

/**
 * A database restart under load (docs/OPERATIONS.md, "Database connections"): the real program on a
 * PostgreSQL cluster of this test's own, restarted ten times (`pg_ctl restart -m fast`, which ends
 * every connection with 57P01) while twenty clients write and read. No process exits; every failed
 * request is a 503 with Retry-After, never a bare 500; the service is back within a second of the
 * database; every write it acknowledged is there. /readyz says not ready while the database is down.
 * `npm run test:pg` runs it (the machine has PostgreSQL's binaries there).
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const passwordHash = bcrypt.hashSync('a password for restart users', 10);

describe.runIf(process.env.DATABASE_URL)('PostgreSQL restarted under load', () => {
  it('ten restarts: no process exits, every failure a 503 with Retry-After, back within a second, no acknowledged write lost', async () => {
    const cluster = await startCluster();
    cleanups.push(() => cluster.stop());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-restart-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const program: Program = await startProgram(dataDir, { DATABASE_URL: cluster.url, ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL, PORT: String(await freePort()), LOG_LEVEL: 'error' });
    cleanups.push(async () => void (await stopProgram(program)));
    const token = await consoleTokenOver(program.baseUrl);
    const users = `${program.baseUrl}/api/companys/root/domainNames/default/users`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const acknowledged: string[] = [];
    const failures: string[] = [];
    let served = 0;
    let lastSuccessAt = 0;
    let running = true;
    let made = 0;
    const client = async (n: number) => {
      while (running) {
        const write = n % 2 === 0;
        const id = `r${n}x${made++}`;
        const response = await fetch(write ? users : `${users}?range=[0,9]`, write ? { method: 'POST', headers, body: JSON.stringify({ id, username: id, displayName: id, email: `${id}@restart.example`, authVerification: passwordHash }) } : { headers }).catch(
          (error: Error) => ({ status: 0, headers: new Headers(), text: async () => error.message }),
        );
        const body = await response.text();
        if (response.status === 200 || response.status === 201) {
          served++;
          lastSuccessAt = Date.now();
          if (write) acknowledged.push(id);
        } else if (response.status !== 503 || !response.headers.get('retry-after')) failures.push(`${response.status} ${body.slice(0, 200)}`);
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const clients = Array.from({ length: 20 }, (_, n) => client(n));

    const backAfter: number[] = [];
    for (let round = 0; round < 10; round++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      cluster.restart();
      const up = Date.now();
      // the first request answered after the database is back
      while (lastSuccessAt < up && Date.now() - up < 10_000) await new Promise((resolve) => setTimeout(resolve, 10));
      backAfter.push(lastSuccessAt - up);
      expect(program.child.exitCode, program.output()).toBeNull();
    }

    // /readyz: not ready while the database is down, ready again once it is back
    expect((await fetch(`${program.baseUrl}/readyz`)).status).toBe(200);
    cluster.halt();
    const down = await fetch(`${program.baseUrl}/readyz`);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBeTruthy();
    expect((await fetch(`${program.baseUrl}/healthz`)).status).toBe(200);
    cluster.start();
    running = false;
    await Promise.all(clients);
    expect((await fetch(`${program.baseUrl}/readyz`)).status).toBe(200);

    expect(program.child.exitCode, program.output()).toBeNull();
    expect(failures).toEqual([]);
    expect(served).toBeGreaterThan(100);
    expect(Math.max(...backAfter), `back after ${backAfter.join(', ')} ms`).toBeLessThan(1000);
    // every acknowledged write survived
    const stored = new Set<string>();
    for (let start = 0; ; start += 1000) {
      const page = await fetch(`${users}?range=[${start},${start + 999}]`, { headers });
      const rows = (await page.json()) as { id: string }[];
      for (const row of rows) stored.add(row.id);
      if (rows.length < 1000) break;
    }
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    console.log(`database restarts: ${served} requests served, ${acknowledged.length} writes acknowledged, back after ${backAfter.join(', ')} ms`);
  }, 180_000);
});
