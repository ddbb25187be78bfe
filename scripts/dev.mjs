#!/usr/bin/env node
// npm run dev: the provider under `tsx watch` on port 8080 (restarts on server/ changes) and the Vite
// dev server (hot reload) on 5173, which proxies /api, /oauth and /.well-known to the provider.
// Open http://localhost:5173. The provider's PUBLIC_URL is the Vite origin, so the console's
// redirect_uri (<PUBLIC_URL>/callback) and the token issuer match what the browser sees.
// Ctrl-C (or either program exiting) stops both.
import { spawn } from 'node:child_process';
import { envWithBin, exitCodeOf, root } from './lib.mjs';

const providerPort = process.env.PORT ?? '8080';
const vitePort = process.env.VITE_PORT ?? '5173';
const publicUrl = process.env.PUBLIC_URL ?? `http://localhost:${vitePort}`;

const children = [
  spawn('tsx', ['watch', '--clear-screen=false', 'server/main.ts'], {
    stdio: 'inherit',
    cwd: root,
    env: envWithBin({ PORT: providerPort, PUBLIC_URL: publicUrl }),
  }),
  spawn('vite', ['--port', vitePort, '--strictPort'], {
    stdio: 'inherit',
    cwd: root,
    env: envWithBin({ PROVIDER_URL: process.env.PROVIDER_URL ?? `http://127.0.0.1:${providerPort}` }),
  }),
];

let exiting = false;
function stopAll(code) {
  if (exiting) return;
  exiting = true;
  process.exitCode = code;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  // tsx watch and vite both exit promptly on SIGTERM; do not hang if one does not
  setTimeout(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    process.exit(code);
  }, 5000).unref();
}

for (const child of children) {
  child.on('error', (error) => {
    console.error(`[dev] ${error.message}`);
    stopAll(1);
  });
  child.on('exit', (code, signal) => stopAll(exiting ? process.exitCode : exitCodeOf(code, signal)));
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stopAll(0));
console.log(`[dev] provider on http://127.0.0.1:${providerPort} (PUBLIC_URL ${publicUrl}); console on http://localhost:${vitePort}`);
