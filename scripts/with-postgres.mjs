#!/usr/bin/env node
// Usage: node scripts/with-postgres.mjs <command...>
// Starts a throw-away PostgreSQL cluster (temp dir, 127.0.0.1 on a random port, trust auth), creates
// the database `iam`, runs the command with DATABASE_URL pointing at it, then stops the cluster and
// removes the dir. Exits with the command's exit code. As root, the cluster runs as `nobody`
// (PostgreSQL refuses to run as root).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { envWithBin, exitCodeOf, freePort, root } from './lib.mjs';

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error('usage: node scripts/with-postgres.mjs <command...>   (e.g. vitest run --project server)');
  process.exit(2);
}

function findBinDir() {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  const base = '/usr/lib/postgresql';
  if (fs.existsSync(base)) {
    const versions = fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (fs.existsSync(path.join(base, v, 'bin', 'initdb'))) return path.join(base, v, 'bin');
  }
  throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found: install postgresql (Debian: apt-get install postgresql) or put them on PATH');
}

/** As root: an unprivileged account to own and run the cluster. */
function clusterUser() {
  if (process.getuid?.() !== 0) return null;
  const exists = (name) => {
    try {
      return execFileSync('id', ['-u', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    } catch {
      return null;
    }
  };
  for (const name of ['postgres', 'nobody']) if (exists(name)) return name;
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'iampg'], { stdio: 'inherit' });
  return 'iampg';
}

const binDir = findBinDir();
const user = clusterUser();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-pg-'));
const dataDir = path.join(tmp, 'data');
const logFile = path.join(tmp, 'postgres.log');

/** Runs a PostgreSQL tool as the cluster user. */
function pgTool(tool, args, options = {}) {
  const exe = path.join(binDir, tool);
  const [file, argv] = user ? ['runuser', ['-u', user, '--', exe, ...args]] : [exe, args];
  return execFileSync(file, argv, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

/** Lines of the server log that explain lost connections (crashes, kills, memory), for CI output. */
function reportServerTrouble() {
  if (!fs.existsSync(logFile)) return;
  const trouble = fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => /PANIC|terminated by signal|terminating any other active|out of memory|No space left/.test(line));
  if (trouble.length > 0) console.error(`[with-postgres] the PostgreSQL server reported:\n${trouble.slice(-20).join('\n')}`);
}

let stopped = false;
function stopCluster() {
  if (stopped) return;
  stopped = true;
  try {
    if (fs.existsSync(path.join(dataDir, 'postmaster.pid'))) pgTool('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  } catch (error) {
    console.error(`[with-postgres] could not stop the cluster: ${error.message}`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

function fail(message, error) {
  console.error(`[with-postgres] ${message}${error ? `: ${error.stderr?.toString() || error.message}` : ''}`);
  if (fs.existsSync(logFile)) console.error(fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n'));
  stopCluster();
  process.exit(1);
}

let port;
try {
  if (user) {
    const uid = Number(execFileSync('id', ['-u', user]).toString());
    const gid = Number(execFileSync('id', ['-g', user]).toString());
    fs.chownSync(tmp, uid, gid);
  }
  pgTool('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
} catch (error) {
  fail('initdb failed', error);
}

// A free port can be taken between the check and the start: retry a few times.
for (let attempt = 1; ; attempt++) {
  port = await freePort();
  const options = [
    `-p ${port}`,
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories='${tmp}'`,
    // throw-away data: durability buys nothing here
    '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  try {
    pgTool('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
    break;
  } catch (error) {
    if (attempt >= 3) fail('pg_ctl start failed', error);
  }
}

const databaseUrl = `postgres://postgres@127.0.0.1:${port}/iam`;
let version = '';
try {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await client.connect();
  await client.query('CREATE DATABASE iam');
  version = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
} catch (error) {
  fail('could not create the database', error);
}
console.log(`[with-postgres] PostgreSQL ${version} at ${databaseUrl} (user ${user ?? os.userInfo().username})`);

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
