import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL } from './helpers.js';
import { csvOf } from './jobHelpers.js';
import { consoleTokenOver } from './oauthHelpers.js';
import { type Program, startProgram, stopProgram, throwAwayDatabase } from './program.js';

/**
 * An import whose server process is killed (SIGKILL) half way (docs/CONSOLE.md, "Import and
 * export"): the real program on PostgreSQL, killed while its job runs, then started again on the
 * same database; once the dead process's lease lapses the new one goes on from the last committed
 * row, and every row of the file is there exactly once. `npm run test:pg` runs it.
 */
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.runIf(process.env.DATABASE_URL)('an import whose process is killed', () => {
  it('is taken up by the next process after the lease lapses, from the last committed row: no row lost or doubled', async () => {
    const database = await throwAwayDatabase();
    cleanups.push(() => database.drop());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-import-kill-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATABASE_URL: database.url, ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL, LOG_LEVEL: 'error', JOB_LEASE_SECONDS: '3' };
    let program: Program = await startProgram(dataDir, env);
    cleanups.push(() => stopProgram(program));
    const token = await consoleTokenOver(program.baseUrl);
    const jobs = `${program.baseUrl}/api/companys/root/domainNames/default/importJobs`;
    const users = 20_000;
    const file = csvOf(Array.from({ length: users }, (_, i) => ({ id: `k${i}`, email: `k${i}@kill.example`, displayName: `Killed ${i}` })));
    const started = await fetch(`${jobs}?format=csv`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' }, body: file });
    expect(started.status, await started.clone().text()).toBe(201);
    const { id } = (await started.json()) as { id: string };
    const job = async (base: string) => (await (await fetch(`${base}/api/companys/root/domainNames/default/importJobs/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, any>;

    // killed once some batches are committed, well before the end
    for (;;) {
      const now = await job(program.baseUrl);
      if (now.rowsRead >= 1000) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    program.child.kill('SIGKILL');
    await program.exited;

    program = await startProgram(dataDir, env);
    const at = await job(program.baseUrl);
    expect(at.status).toBe('running');
    expect(at.rowsRead).toBeLessThan(users);
    let done: Record<string, any>;
    for (;;) {
      done = await job(program.baseUrl);
      if (!['queued', 'running'].includes(done.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(done).toMatchObject({ status: 'done', rowsRead: users, created: users, failed: 0, skipped: 0 });
    // the maintained count: the administrator and every imported user, once
    const list = await fetch(`${program.baseUrl}/api/companys/root/domainNames/default/users?range=[0,0]`, { headers: { authorization: `Bearer ${token}` } });
    expect(list.headers.get('content-range')).toBe(`users 0-0/${users + 1}`);
  }, 180_000);
});
