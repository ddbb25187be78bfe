// A throw-away PostgreSQL cluster: a temp dir, 127.0.0.1 on a random port, trust auth, the database
// `iam`. Used by scripts/with-postgres.mjs (npm run test:pg, the load test) and by tests that must
// restart their own server (tests/server/databaseRestart.test.ts). As root, the cluster runs as an
// unprivileged account (PostgreSQL refuses to run as root).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './lib.mjs';

export function findBinDir() {
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

/**
 * Starts a cluster. Returns its database URL, its log file, and restart() / stop() (stop also
 * removes its files). Throws with the tool's output when a step fails.
 */
export async function startCluster() {
  const binDir = findBinDir();
  const user = clusterUser();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-pg-'));
  const dataDir = path.join(tmp, 'data');
  const logFile = path.join(tmp, 'postgres.log');
  /** Runs a PostgreSQL tool as the cluster user. */
  const pgTool = (tool, args) => {
    const exe = path.join(binDir, tool);
    const [file, argv] = user ? ['runuser', ['-u', user, '--', exe, ...args]] : [exe, args];
    return execFileSync(file, argv, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (fs.existsSync(path.join(dataDir, 'postmaster.pid'))) pgTool('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  };
  const describe = (what, error) => Object.assign(new Error(`${what}: ${error.stderr?.toString() || error.message}`), { logFile });
  try {
    if (user) {
      const uid = Number(execFileSync('id', ['-u', user]).toString());
      const gid = Number(execFileSync('id', ['-g', user]).toString());
      fs.chownSync(tmp, uid, gid);
    }
    pgTool('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  } catch (error) {
    stop();
    throw describe('initdb failed', error);
  }
  let options = '';
  // A free port can be taken between the check and the start: retry a few times.
  let port;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    options = [
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
      if (attempt >= 3) {
        const failure = describe('pg_ctl start failed', error);
        stop();
        throw failure;
      }
    }
  }
  let version = '';
  try {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await client.connect();
    await client.query('CREATE DATABASE iam');
    version = (await client.query('SHOW server_version')).rows[0].server_version;
    await client.end();
  } catch (error) {
    stop();
    throw describe('could not create the database', error);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/iam`,
    version,
    user: user ?? os.userInfo().username,
    logFile,
    /** `pg_ctl restart -m fast`: every connection is ended (57P01), the server is back once it answers. */
    restart: () => pgTool('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-m', 'fast', '-w', '-t', '60', 'restart']),
    /** The server down (files kept) until start(). */
    halt: () => pgTool('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']),
    start: () => pgTool('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']),
    stop,
  };
}
