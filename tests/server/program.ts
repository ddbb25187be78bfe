import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
// @ts-expect-error: plain JavaScript of the start script
import { serverNodeOptions } from '../../scripts/lib.mjs';

/**
 * The real program (server/main.ts through tsx, as npm start runs it) in a child process, for the
 * tests of its run contract: by default on the embedded database in `dataDir`; with DATABASE_URL
 * (or any other variable) passed in `extraEnv`, configured by that.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Program {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output: () => string;
  /** http://localhost:<port> (also the issuer unless PUBLIC_URL was given). */
  baseUrl: string;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Variables of the test process the program never inherits: each test says what it wants. PORT in
 * `extraEnv` picks the port (a free one otherwise).
 */
const NOT_INHERITED = ['DATABASE_URL', 'ADMIN_PASSWORD', 'SIGNING_KEY', 'PUBLIC_URL', 'ADMIN_EMAIL', 'WEB_CONCURRENCY', 'SHUTDOWN_GRACE_SECONDS'];

export async function spawnProgram(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Program> {
  const port = extraEnv.PORT ? Number(extraEnv.PORT) : await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extraEnv };
  for (const name of NOT_INHERITED) if (!(name in extraEnv)) delete env[name];
  const child = spawn(process.execPath, [...serverNodeOptions(env), '--import', 'tsx', 'server/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, baseUrl: `http://localhost:${port}`, port, exited };
}

/**
 * Waits until the program's output matches `pattern`; throws (with the output) when it exits first
 * or `timeoutMs` passes, killing it in the latter case.
 */
export async function waitForOutput(program: Program, pattern: string | RegExp, timeoutMs = 90_000): Promise<void> {
  const matches = () => (typeof pattern === 'string' ? program.output().includes(pattern) : pattern.test(program.output()));
  const deadline = Date.now() + timeoutMs;
  while (!matches()) {
    if (program.child.exitCode !== null || program.child.signalCode !== null) {
      throw new Error(`server exited with ${program.child.exitCode ?? program.child.signalCode} before printing ${pattern}:\n${program.output()}`);
    }
    if (Date.now() > deadline) {
      program.child.kill('SIGKILL');
      throw new Error(`server did not print ${pattern} within ${timeoutMs / 1000} s:\n${program.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Spawns the program and waits until it listens (main.ts prints "IAM Console: <url>"). */
export async function startProgram(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Program> {
  const program = await spawnProgram(dataDir, extraEnv);
  await waitForOutput(program, 'IAM Console:');
  return program;
}

export async function stopProgram(program: Program, signal: NodeJS.Signals = 'SIGTERM') {
  if (program.child.exitCode !== null || program.child.signalCode !== null) return program.exited;
  program.child.kill(signal);
  const timer = setTimeout(() => program.child.kill('SIGKILL'), 45_000);
  const result = await program.exited;
  clearTimeout(timer);
  return result;
}

/**
 * A fresh database on the PostgreSQL server at `server` (DATABASE_URL by default) for servers and
 * programs to share (and outlive): its URL, and drop() (which ends any connection still open to it).
 * Tests and benchmarks (bench/) make theirs here.
 */
export async function throwAwayDatabase(
  server = process.env.DATABASE_URL,
  prefix = 'iam_test',
): Promise<{ url: string; drop(): Promise<void> }> {
  if (!server) throw new Error('throwAwayDatabase needs DATABASE_URL');
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
