// Shared helpers of the run scripts (npm start, dev, test:pg, test:e2e). Plain Node, no dependencies.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');

/** The environment with the project's node_modules/.bin first on PATH (as npm scripts have it). */
export function envWithBin(extra = {}) {
  return { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
}

/**
 * V8 options of the provider's processes. A young generation of 64 MB semi-spaces instead of Node's
 * 16: with 50 requests in flight, the objects of requests not yet answered no longer outgrow it, so
 * scavenges stop promoting them to the old generation (whose collections cost a GET of one record on
 * the embedded database a third of its time in about half the runs; docs/PERFORMANCE.md). A value of
 * the operator's in NODE_OPTIONS wins.
 */
export function serverNodeOptions(env = process.env) {
  return /--max-semi-space-size\b/.test(env.NODE_OPTIONS ?? '') ? [] : ['--max-semi-space-size=64'];
}

/** Command line that runs the provider with tsx: one node process, so signals reach the server itself. */
export function serverCommand() {
  return [process.execPath, [...serverNodeOptions(), '--import', 'tsx', path.join(root, 'server', 'main.ts')]];
}

function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

/**
 * Why the console must be (re)built, or null when dist/ is current or there is nothing to build
 * yet (no src/ or no index.html: the server then serves a placeholder page).
 */
export function buildReason() {
  if (!fs.existsSync(path.join(root, 'src')) || !fs.existsSync(path.join(root, 'index.html'))) return null;
  const built = path.join(root, 'dist', 'index.html');
  if (!fs.existsSync(built)) return 'dist/index.html is missing';
  const builtAt = fs.statSync(built).mtimeMs;
  const inputs = ['src', 'public', 'index.html', 'vite.config.ts'].map((p) => path.join(root, p));
  if (inputs.some((p) => newestMtime(p) > builtAt)) return 'sources changed since the last build';
  return null;
}

/** Builds the console with `vite build` when needed; throws when the build fails. */
export async function buildConsoleIfNeeded() {
  const reason = buildReason();
  if (!reason) {
    if (!fs.existsSync(path.join(root, 'index.html'))) console.log('[start] no console sources yet (index.html missing): skipping the build');
    return;
  }
  console.log(`[start] building the console (${reason}) ...`);
  const code = await run('vite', ['build'], { env: envWithBin() });
  if (code !== 0) throw new Error(`vite build failed (exit code ${code})`);
  const { compressDir } = await import('./compress.mjs');
  compressDir(path.join(root, 'dist'));
}

/** Runs a command with inherited stdio; resolves with its exit code (128 + n when killed by a signal). */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', cwd: root, ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(exitCodeOf(code, signal)));
  });
}

export function exitCodeOf(code, signal) {
  if (code !== null) return code;
  const number = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal] ?? 1;
  return 128 + number;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
