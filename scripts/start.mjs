#!/usr/bin/env node
// npm start: builds the console when dist/ is missing or older than its sources, then runs the
// provider (server/main.ts through tsx) with this process's stdio and environment. SIGTERM/SIGINT
// are forwarded so the server shuts down gracefully; exits with the server's exit code.
import { spawn } from 'node:child_process';
import { buildConsoleIfNeeded, exitCodeOf, root, serverCommand } from './lib.mjs';

try {
  await buildConsoleIfNeeded();
} catch (error) {
  console.error(`[start] ${error.message}`);
  process.exit(1);
}

const [node, args] = serverCommand();
const child = spawn(node, args, { stdio: 'inherit', cwd: root, env: process.env });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  // The terminal sends Ctrl-C to the whole process group; forwarding again is harmless (the server ignores a second signal).
  process.on(signal, () => child.kill(signal));
}
// package.json runs this with `exec`, so a signal sent to `npm start` reaches this process (npm
// forwards it; a shell in between would die without passing it on). If whoever started us dies
// without a signal (kill -9), we are re-parented: stop the server rather than leave it running.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) child.kill('SIGTERM');
}, 1000).unref();
child.on('error', (error) => {
  console.error(`[start] could not start the server: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(exitCodeOf(code, signal)));
