import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { freePort, throwAwayDatabase } from '../../tests/server/program.js';
// @ts-expect-error: plain JavaScript of the start script
import { serverNodeOptions } from '../../scripts/lib.mjs';

/** Child processes of the load test (the server, the hello-world yardstick) and their figures (also bench/grants.ts's). */
export const root = fileURLToPath(new URL('../..', import.meta.url));
const monitor = pathToFileURL(path.join(root, 'bench/load/eventLoopMonitor.mjs')).href;


/** A fresh database on the PostgreSQL server of `serverUrl` (dropped by its drop()). */
export const createDatabase = (serverUrl: string) => throwAwayDatabase(serverUrl, 'iam_load');

export interface Child {
  process: ChildProcess;
  /** The last lines it printed. */
  tail: (lines?: number) => string;
  /** Log lines at warn level or above (pino levels 40-60). */
  warnings: () => number;
  exited: Promise<void>;
}

const running = new Set<ChildProcess>();
// Last resort (an uncaught error, process.exit): nothing started here outlives the load test. Each
// child leads its own process group, so this reaches cluster workers too.
process.on('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone already
  }
}

export function spawnChild(args: string[], env: NodeJS.ProcessEnv): Child {
  // detached: its own process group, so that Ctrl-C reaches only the load test, which then stops it in order
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  let lines: string[] = [];
  let warnings = 0;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      if (/"level":[456]0\b/.test(line)) warnings++;
      lines.push(line);
    }
    if (lines.length > 200) lines = lines.slice(-100);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  return { process: child, tail: (count = 30) => lines.slice(-count).join('\n'), warnings: () => warnings, exited };
}

/** Stops a child as an operator would (SIGTERM, graceful), then makes sure its whole group is gone. */
export async function stopChild(child: Child, graceMs = 15_000) {
  if (child.process.exitCode === null && child.process.signalCode === null) {
    child.process.kill('SIGTERM');
    const timer = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([child.exited, timer]);
  }
  killGroup(child.process, 'SIGKILL');
  await child.exited;
}

async function waitForLine(child: Child, pattern: RegExp, what: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.tail(200));
    if (match) return match;
    if (child.process.exitCode !== null || child.process.signalCode !== null) throw new Error(`${what} exited (${child.process.exitCode ?? child.process.signalCode}):\n${child.tail()}`);
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${timeoutMs / 1000} s:\n${child.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Server extends Child {
  baseUrl: string;
  /** Folder of the event-loop monitor's files (eventLoopMonitor.mjs). */
  eldDir: string;
  /** How many processes of the server run (the monitor's files: a cluster's primary counts too). */
  processes: () => number;
}

/**
 * The real program, as npm start runs it, plus the event-loop monitor preloaded. LOAD_NODE_ARGS adds
 * Node options to the server's command line (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile
 * it under load; NODE_OPTIONS refuses --cpu-prof).
 */
export async function startServer(env: NodeJS.ProcessEnv, eldDir: string, webConcurrency: number): Promise<Server> {
  const port = await freePort();
  fs.mkdirSync(eldDir, { recursive: true });
  const nodeArgs = (process.env.LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawnChild([...serverNodeOptions(env), ...nodeArgs, '--import', 'tsx', '--import', monitor, 'server/main.ts'], {
    ...env,
    PORT: String(port),
    LOAD_ELD_DIR: eldDir,
    WEB_CONCURRENCY: String(webConcurrency),
  });
  const processes = () => fs.readdirSync(eldDir).filter((name) => name.endsWith('.alive')).length;
  const server: Server = { ...child, baseUrl: `http://127.0.0.1:${port}`, eldDir, processes };
  try {
    await waitForLine(child, /IAM Console:/, 'the server');
    // With WEB_CONCURRENCY > 1 the first worker may listen before the others are up: wait for a
    // primary and N workers, but not forever (a server without cluster support runs one process).
    const deadline = Date.now() + 30_000;
    while (webConcurrency > 1 && processes() < webConcurrency + 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const answer = await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
    if (!answer.ok) throw new Error(`the server answers ${answer.status} to GET /.well-known/openid-configuration`);
  } catch (error) {
    await stopChild(server, 2000);
    throw error;
  }
  return server;
}

/** The hello-world yardstick (hello.mjs) in its own process. */
export async function startHello(): Promise<Child & { baseUrl: string }> {
  const child = spawnChild([path.join(root, 'bench/load/hello.mjs')], process.env);
  try {
    const match = await waitForLine(child, /listening on (\d+)/, 'the hello-world server', 30_000);
    return { ...child, baseUrl: `http://127.0.0.1:${match[1]}` };
  } catch (error) {
    await stopChild(child, 2000);
    throw error;
  }
}

/** The monitor's phases: every process starts a new histogram when the name in `phase` changes. */
export function setPhase(eldDir: string, phase: string) {
  // written whole, then renamed, so a monitor never reads half a name
  fs.writeFileSync(path.join(eldDir, 'phase.tmp'), phase);
  fs.renameSync(path.join(eldDir, 'phase.tmp'), path.join(eldDir, 'phase'));
}

export interface LoopDelay {
  p99: number;
  max: number;
  processes: number;
}

/** The worst process's figures for a phase that has ended (p99 and max each the worst of any process). */
export function loopDelay(eldDir: string, phase: string): LoopDelay | undefined {
  const files = fs.readdirSync(eldDir).filter((name) => name.endsWith(`.${phase}.json`));
  if (files.length === 0) return undefined;
  const figures = files.map((name) => JSON.parse(fs.readFileSync(path.join(eldDir, name), 'utf8')) as { p99: number; max: number });
  return { p99: Math.max(...figures.map((f) => f.p99)), max: Math.max(...figures.map((f) => f.max)), processes: files.length };
}

export function percentile(sorted: number[], p: number) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Another process's probe of a cheap endpoint, on its own thread (bench/load/probe.mjs). */
export interface ProbeFigures {
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

export class Probe {
  private worker: Worker;
  constructor(url: string) {
    this.worker = new Worker(new URL('./probe.mjs', import.meta.url), { workerData: { url } });
  }
  start() {
    this.worker.postMessage('start');
  }
  async stop(): Promise<ProbeFigures> {
    const answer = new Promise<{ samples: number[]; failures: number }>((resolve) => this.worker.once('message', resolve));
    this.worker.postMessage('stop');
    const { samples, failures } = await answer;
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) ?? 0, failures };
  }
  close() {
    return this.worker.terminate();
  }
}
