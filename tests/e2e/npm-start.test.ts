import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../server/program';

/**
 * `npm start` as a supervisor runs it (README, "Run"): a signal sent to the npm process itself stops
 * the whole server, and so does npm being killed outright. Here, not in the server project, because
 * npm start builds the console when dist/ is missing, and `npm run test:e2e` has just built it.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

async function npmStart() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-npm-start-'));
  dirs.push(dataDir);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: path.join(dataDir, 'data'), LOG_LEVEL: 'warn', ADMIN_PASSWORD: 'Npm-Start-123!' };
  for (const name of ['DATABASE_URL', 'PUBLIC_URL', 'SIGNING_KEY', 'WEB_CONCURRENCY']) delete env[name];
  const npm = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npm.stdout.on('data', (chunk) => (output += chunk));
  npm.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
  const deadline = Date.now() + 110_000;
  while (!output.includes('IAM Console:')) {
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { npm, exited, url: `http://127.0.0.1:${port}/.well-known/openid-configuration`, output: () => output };
}

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (response) => response.ok,
    () => false,
  );

/** Polls until nothing answers on the server's port; false if something still does after `ms`. */
async function stopsAnswering(url: string, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await answers(url))) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops the whole server on ${signal} sent to the npm process itself`, async () => {
      const started = await npmStart();
      expect(await answers(started.url)).toBe(true);
      started.npm.kill(signal);
      await started.exited;
      // npm waits for what it started: once it has exited, the server has too (port and DATA_DIR free)
      expect(await answers(started.url), started.output()).toBe(false);
    });
  }

  it('stops the server when npm itself is killed outright (kill -9)', async () => {
    const started = await npmStart();
    started.npm.kill('SIGKILL');
    await started.exited;
    expect(await stopsAnswering(started.url, 15_000), started.output()).toBe(true);
  });
});
