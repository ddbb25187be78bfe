import os from 'node:os';
import { Piscina } from 'piscina';

/**
 * Password hashing and checks (bcrypt) on a pool of worker threads, each of which lowers its own
 * priority as it starts. A check of cost 10 takes about 50 ms of a core, so during a sign-in storm
 * these threads want every core; at the event loop's priority they took turns with it and with the
 * embedded database's thread, and a request that arrived waited for its turn. Lowered, they run on
 * the CPU that requests leave (docs/DECISIONS.md 23, figures in docs/PERFORMANCE.md).
 * Linux only: there a thread's priority is its own; elsewhere nice() may lower the whole process.
 */
const NICE_INCREMENT = 10;

/** The bcrypt costs accepted (each step doubles a check's work; 14 is about 0.8 s of a core here). */
export const MIN_BCRYPT_COST = 10;
export const MAX_BCRYPT_COST = 14;

/**
 * This process's share of the machine's password threads: as many threads as cores, and at least
 * 4 (libuv's pool, where the checks ran before: on 2 cores two threads gave sign-ins a worse p99,
 * 0.5-0.7 against 0.4 s at 8 clients, for the same throughput), divided among the server
 * processes (WEB_CONCURRENCY), at least 2 each. A thread costs about 9 MB.
 */
export function passwordThreads(processes = 1, cores = os.availableParallelism()): number {
  return Math.max(2, Math.ceil(Math.max(4, cores) / processes));
}

let pool: Piscina | undefined;

/** Starts the pool with this process's share of threads (main.ts); tests get one with the default share. */
export function startPasswordThreads(processes = 1): void {
  const threads = passwordThreads(processes);
  pool ??= new Piscina({
    filename: new URL('./passwordWorker.mjs', import.meta.url).href,
    // all started with the pool and kept: a storm never waits for a thread to start
    minThreads: threads,
    maxThreads: threads,
    // one check at a time per thread: bcrypt is synchronous there
    concurrentTasksPerWorker: 1,
    niceIncrement: process.platform === 'linux' ? NICE_INCREMENT : 0,
    // the worker is plain JavaScript: the server's loaders (tsx) need not start again in it
    execArgv: [],
  });
}

function bcryptPool(): Piscina {
  if (!pool) startPasswordThreads();
  return pool!;
}

/** The cost of a bcrypt hash ($2a$, $2b$ or $2y$ with its 53 characters), else undefined. */
export function bcryptCost(hash: string): number | undefined {
  const match = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/.exec(hash);
  return match ? Number(match[1]) : undefined;
}

/** The bcrypt hash of `password`. */
export function hashPassword(password: string, cost = MIN_BCRYPT_COST): Promise<string> {
  return bcryptPool().run({ op: 'hash', password, cost });
}

/**
 * Does `password` match the bcrypt `hash`? Never when `hash` is not a bcrypt hash, or costs more
 * than MAX_BCRYPT_COST: a hash of cost 31 (written to the database by other means) would hold one
 * of the pool's threads for a day and a half per attempt, and sign-ins of every tenant with it.
 */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const cost = bcryptCost(hash);
  if (cost === undefined || cost > MAX_BCRYPT_COST) return false;
  return bcryptPool().run({ op: 'verify', password, hash });
}

/**
 * Does `password` match an imported form (server/accounts/importedHashes.ts parsed it and bounded
 * its costs)? Checked on the same threads as bcrypt, with the form's own library.
 */
export function verifyImportedPassword(password: string, form: object): Promise<boolean> {
  return bcryptPool().run({ op: 'imported', password, form });
}

/** Ends the pool's threads (shutdown, tests); the next call starts a new pool. */
export async function closePasswordPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.close();
}
