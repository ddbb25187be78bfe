#!/usr/bin/env node
// Usage: node scripts/with-postgres.mjs <command...>
// Starts a throw-away PostgreSQL cluster (temp dir, 127.0.0.1 on a random port, trust auth), creates
// the database `iam`, runs the command with DATABASE_URL pointing at it, then stops the cluster and
// removes the dir. Exits with the command's exit code. As root, the cluster runs as `nobody`
// (PostgreSQL refuses to run as root).
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { envWithBin, exitCodeOf, root } from './lib.mjs';
import { startCluster } from './pgCluster.mjs';

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error('usage: node scripts/with-postgres.mjs <command...>   (e.g. vitest run --project server)');
  process.exit(2);
}

let cluster;
try {
  cluster = await startCluster();
} catch (error) {
  console.error(`[with-postgres] ${error.message}`);
  if (error.logFile && fs.existsSync(error.logFile)) console.error(fs.readFileSync(error.logFile, 'utf8').split('\n').slice(-20).join('\n'));
  process.exit(1);
}
const databaseUrl = cluster.url;
console.log(`[with-postgres] PostgreSQL ${cluster.version} at ${databaseUrl} (user ${cluster.user})`);

/** Lines of the server log that explain lost connections (crashes, kills, memory), for CI output. */
function reportServerTrouble() {
  if (!fs.existsSync(cluster.logFile)) return;
  const trouble = fs
    .readFileSync(cluster.logFile, 'utf8')
    .split('\n')
    .filter((line) => /PANIC|terminated by signal|terminating any other active|out of memory|No space left/.test(line));
  if (trouble.length > 0) console.error(`[with-postgres] the PostgreSQL server reported:\n${trouble.slice(-20).join('\n')}`);
}

function stopCluster() {
  try {
    cluster.stop();
  } catch (error) {
    console.error(`[with-postgres] could not stop the cluster: ${error.message}`);
  }
}

function fail(message, error) {
  console.error(`[with-postgres] ${message}${error ? `: ${error.message}` : ''}`);
  stopCluster();
  process.exit(1);
}

const child = spawn(command[0], command.slice(1), {
  stdio: 'inherit',
  cwd: process.cwd() || root,
  env: envWithBin({ DATABASE_URL: databaseUrl }),
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (error) => fail(`could not run ${command[0]}`, error));
child.on('exit', (code, signal) => {
  reportServerTrouble();
  stopCluster();
  process.exit(exitCodeOf(code, signal));
});
