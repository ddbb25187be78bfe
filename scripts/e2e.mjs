#!/usr/bin/env node
// npm run test:e2e [-- vitest args]: builds the console if needed, starts the provider on a free port
// with a fresh temporary DATA_DIR (embedded PGlite), waits until it answers, runs the `e2e` vitest
// project (Chromium through playwright-core) against it, then stops the server and removes the dir.
// Exits with vitest's exit code.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildConsoleIfNeeded, envWithBin, freePort, root, run, serverCommand, sleep } from './lib.mjs';

const chromium = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  console.error(`[e2e] Chromium not found at ${chromium}. Install it (Debian: apt-get install -y chromium) or set E2E_CHROMIUM.`);
  process.exit(1);
}

try {
  await buildConsoleIfNeeded();
} catch (error) {
  console.error(`[e2e] ${error.message}`);
  process.exit(1);
}

const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Admin-Pass-123!';
const port = await freePort();
// the provider's mail server: tests that read mail start an SMTP receiver there (E2E_SMTP_PORT); meanwhile a send is recorded as failed
const smtpPort = await freePort();
const baseUrl = `http://localhost:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-e2e-'));
const logFile = path.join(dataDir, 'server.log');
const log = fs.openSync(logFile, 'a');

const serverEnv = { ...process.env };
delete serverEnv.DATABASE_URL; // always a fresh embedded database
delete serverEnv.SIGNING_KEY;
Object.assign(serverEnv, {
  HOST: '127.0.0.1',
  PORT: String(port),
  DATA_DIR: path.join(dataDir, 'data'),
  PUBLIC_URL: baseUrl,
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  // the browser tests' upstream identity providers listen on loopback (tests/upstream)
  ALLOW_PRIVATE_CALLBACKS: '1',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
});
const [node, args] = serverCommand();
const server = spawn(node, args, { cwd: root, env: serverEnv, stdio: ['ignore', log, log] });
let serverExited = false;
server.on('exit', () => (serverExited = true));

async function stopServer() {
  if (!serverExited) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  fs.closeSync(log);
}

function showServerLog() {
  const text = fs.readFileSync(logFile, 'utf8').trim();
  if (text) console.error(`[e2e] server log (${logFile}):\n${text.split('\n').slice(-40).join('\n')}`);
}

async function waitUntilUp(timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (serverExited) return false;
    try {
      const response = await fetch(`${baseUrl}/.well-known/openid-configuration`);
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  return false;
}

let code = 1;
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (interrupted = true));
try {
  console.log(`[e2e] starting the server at ${baseUrl} (DATA_DIR ${serverEnv.DATA_DIR}) ...`);
  if (!(await waitUntilUp())) {
    console.error('[e2e] the server did not come up');
    showServerLog();
  } else if (!interrupted) {
    code = await run('vitest', ['run', '--project', 'e2e', ...process.argv.slice(2)], {
      env: envWithBin({ E2E_BASE_URL: baseUrl, E2E_ADMIN_EMAIL: ADMIN_EMAIL, E2E_ADMIN_PASSWORD: ADMIN_PASSWORD, E2E_CHROMIUM: chromium, E2E_SMTP_PORT: String(smtpPort) }),
    });
    if (code !== 0) showServerLog();
  }
} finally {
  await stopServer();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
