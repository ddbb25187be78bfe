import os from 'node:os';
import { Piscina } from 'piscina';

/**
 * Password hashing and checks (bcrypt) on a pool of worker threads, each of which lowers its own
 * priority as it starts. A check takes about 60 ms of a core, so during a sign-in storm these
 * threads want every core; at the event loop's priority they took turns with it and with the
 * embedded database's thread, and a request that arrived waited for its turn. Lowered, they run on
 * the CPU that requests leave (docs/DECISIONS.md 23, figures in docs/PERFORMANCE.md).
 * Linux only: there a thread's priority is its own; elsewhere nice() may lower the whole process.
 */
const NICE_INCREMENT = 10;
/**
 * One per core, and at least 4 (libuv's pool, where the checks ran before): with fewer threads than
 * checks in flight the checks queue, and on 2 cores two threads gave sign-ins twice the p99 (0.7-0.8
 * against 0.4 s at 8 clients) for the same throughput.
 */
const THREADS = Math.max(4, os.availableParallelism());

let pool: Piscina | undefined;

function bcryptPool(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./passwordWorker.mjs', import.meta.url).href,
    // all started with the pool and kept: a storm never waits for a thread to start
    minThreads: THREADS,
    maxThreads: THREADS,
    // one check at a time per thread: bcrypt is synchronous there
    concurrentTasksPerWorker: 1,
    niceIncrement: process.platform === 'linux' ? NICE_INCREMENT : 0,
    // the worker is plain JavaScript: the server's loaders (tsx) need not start again in it
    execArgv: [],
  });
  return pool;
}

/** The bcrypt hash of `password` (cost 10 is the least accepted). */
export function hashPassword(password: string, cost = 10): Promise<string> {
  return bcryptPool().run({ op: 'hash', password, cost });
}

/** Does `password` match the bcrypt `hash`? Never when `hash` is not a bcrypt hash. */
export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcryptPool().run({ op: 'verify', password, hash });
}

/** Ends the pool's threads (shutdown, tests); the next call starts a new pool. */
export async function closePasswordPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.close();
}
