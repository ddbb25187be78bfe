import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { lockDataDir } from './dataDirLock.js';
import { migrate } from './migrations.js';
import { databaseUnavailable } from '../errors.js';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, any>>(text: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * The same database for reads whose answer changes only when the database is written (no now(),
   * no random(), no sequence): the embedded database answers a repeat from memory until its next
   * write (ReadCache); PostgreSQL, which other processes write, asks every time. The rows are
   * frozen: copy before changing them.
   */
  readonly stable: Queryable;
  /** Runs fn inside BEGIN/COMMIT; any throw rolls the whole transaction back. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Statements sent so far (tests use it to catch N+1 queries). */
  readonly stats: { queries: number };
}

/**
 * Settings that every transaction begun in this async context applies first, as SET LOCAL: the
 * management API names its caller (iam.actor) so that the audit triggers of migration 15 record who
 * made each change, in the same transaction (server/accounts/audit.ts). A map, read when the
 * transaction begins, so that a request can fill it in after its context was opened.
 */
export const transactionSettings = new AsyncLocalStorage<Map<string, string | { toString(): string }>>();

/**
 * What begins a transaction: BEGIN, and the settings of the caller's context in the same message
 * (one round trip, not two: a separate statement was most of what the audit trail cost a write,
 * docs/PERFORMANCE.md, "Cost of the audit trail"). The values are quoted as literals by node-postgres'
 * escapeLiteral, which holds whatever standard_conforming_strings says.
 */
function beginScript(): string {
  const settings = transactionSettings.getStore();
  if (!settings?.size) return 'BEGIN';
  // a value may be an object that writes itself out: only when a transaction begins (most requests begin none)
  const calls = [...settings].map(([name, value]) => `set_config(${pg.escapeLiteral(name)}, ${pg.escapeLiteral(String(value))}, true)`);
  return `BEGIN; SELECT ${calls.join(', ')}`;
}

/**
 * PGlite is one connection: two requests must never interleave statements of their transactions.
 * Every query and every transaction takes its turn in this one queue.
 */
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * The embedded database's answers to stable reads, kept until the next write. Exact, not "fresh
 * enough": one process owns the embedded database (the DATA_DIR lock), every statement goes through
 * its one queue, and any task in that queue other than a stable read empties the cache when it
 * starts, before its first statement. An answer found here is therefore the answer the database
 * would give now, or before a write whose caller has not been answered yet. Revoking a grant or
 * taking a right away is a write: the next call's access check reads the database again.
 */
class ReadCache {
  private static readonly MAX_ENTRIES = 10_000;
  /**
   * By statement, then by parameters: a statement built once is the same string object on every
   * call, whose hash V8 keeps, so only the short parameter list is serialized per call (a key of
   * statement and parameters together cost a 2 kB string and its hash on every GET).
   */
  private answers = new Map<string, Map<string, QueryResult<unknown>>>();
  private size = 0;

  static key(params: unknown[]) {
    return JSON.stringify(params);
  }

  get<T>(text: string, key: string): QueryResult<T> | undefined {
    return this.answers.get(text)?.get(key) as QueryResult<T> | undefined;
  }

  set(text: string, key: string, answer: QueryResult<unknown>) {
    if (this.size >= ReadCache.MAX_ENTRIES) this.clear();
    let byParams = this.answers.get(text);
    if (!byParams) this.answers.set(text, (byParams = new Map()));
    if (!byParams.has(key)) this.size++;
    byParams.set(key, deepFreeze(answer));
  }

  clear() {
    if (this.size) {
      this.answers.clear();
      this.size = 0;
    }
  }
}

/** A changed cached row would change every later answer: freezing turns such a bug into an error. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

type WorkerReply = { id: number; rows?: unknown[]; rowCount?: number; dump?: Blob; error?: Record<string, unknown> & { message: string } };

/** An error from the worker, with PostgreSQL's fields (code, constraint, detail, ...) as PGlite gave them. */
function databaseError(data: Record<string, unknown> & { message: string }): Error {
  return Object.assign(new Error(data.message), data);
}

/**
 * The embedded database, run by server/db/pgliteWorker.mjs on a worker thread so that its
 * WebAssembly never holds up the event loop (docs/SCALING.md). One message per statement; the queue
 * keeps each transaction's statements together, as PGlite is one connection.
 */
class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  readonly stats = { queries: 0 };
  private queue = new SerialQueue();
  private cache = new ReadCache();
  readonly stable: Queryable = {
    query: (text, params = []) => this.stableQuery(text, params),
    exec: (script) => this.exec(script),
  };
  private pending = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  /** Set once the worker is gone: every later call fails with it. */
  private stopped: Error | undefined;
  /** close() was asked for: the worker's end is expected, not fatal. */
  private closing = false;

  /** @param unlock releases the DATA_DIR lock (data folder only), once the database is closed */
  private constructor(
    private worker: Worker,
    private unlock: () => void,
    onFatal: (error: Error) => void,
  ) {
    worker.on('message', (reply: WorkerReply) => {
      const call = this.pending.get(reply.id);
      if (!call) return;
      this.pending.delete(reply.id);
      if (reply.error) call.reject(databaseError(reply.error));
      else call.resolve(reply);
    });
    const stop = (error: Error) => {
      const first = !this.stopped;
      this.stopped ??= error;
      for (const call of this.pending.values()) call.reject(this.stopped);
      this.pending.clear();
      if (first && !this.closing) onFatal(error);
    };
    worker.on('error', (error) => stop(new Error(`embedded database stopped: ${error.message}`)));
    worker.on('exit', (code) => stop(new Error(`embedded database stopped (worker exit code ${code})`)));
  }

  static async start(
    workerData: { dataDir?: string; loadDataDir?: Blob; sync: boolean },
    unlock: () => void,
    onFatal: (error: Error) => void,
  ) {
    // execArgv: the worker is plain JavaScript: the server's loaders (tsx) need not start again in it
    const worker = new Worker(new URL('./pgliteWorker.mjs', import.meta.url), { workerData, execArgv: [] });
    const ready = await new Promise<{ ready: boolean; error?: { message: string } }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (!ready.ready) {
      await worker.terminate();
      throw databaseError(ready.error ?? { message: 'embedded database did not start' });
    }
    return new PgliteDatabase(worker, unlock, onFatal);
  }

  private call(op: 'query' | 'exec' | 'dump' | 'close', text?: string, params?: unknown[]): Promise<WorkerReply> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, text, params });
    });
  }

  private async raw<T>(text: string, params: unknown[]): Promise<QueryResult<T>> {
    this.stats.queries++;
    const reply = await this.call('query', text, params);
    return { rows: reply.rows as T[], rowCount: reply.rowCount ?? 0 };
  }

  private async rawExec(script: string): Promise<void> {
    this.stats.queries++;
    await this.call('exec', script);
  }

  /** A task that may write: the cache is emptied as it starts (ReadCache). */
  private writing<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(() => {
      this.cache.clear();
      return task();
    });
  }

  query<T>(text: string, params: unknown[] = []): Promise<QueryResult<T>> {
    return this.writing(() => this.raw<T>(text, params));
  }

  private stableQuery<T>(text: string, params: unknown[]): Promise<QueryResult<T>> {
    const key = ReadCache.key(params);
    const answer = this.cache.get<T>(text, key);
    if (answer) return Promise.resolve(answer);
    return this.queue.run(async () => {
      const queued = this.cache.get<T>(text, key);
      if (queued) return queued;
      const result = await this.raw<T>(text, params);
      this.cache.set(text, key, result);
      return result;
    });
  }

  exec(script: string): Promise<void> {
    return this.writing(() => this.rawExec(script));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // read now: the queue may run this transaction from another request's continuation
    const begin = beginScript();
    return this.writing(async () => {
      try {
        // inside the try: a failed setting leaves a begun transaction to roll back
        await this.call('exec', begin);
        const value = await fn({ query: (text, params = []) => this.raw(text, params), exec: (script) => this.rawExec(script) });
        await this.call('exec', 'COMMIT');
        return value;
      } catch (error) {
        await this.call('exec', 'ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** A tarball of the data folder (tests start every server from one migrated dump). */
  dump(): Promise<Blob> {
    return this.writing(async () => (await this.call('dump')).dump!);
  }

  close() {
    return this.writing(async () => {
      this.closing = true;
      try {
        if (!this.stopped) await this.call('close');
        await this.worker.terminate();
      } finally {
        this.unlock();
      }
    });
  }
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly stats = { queries: 0 };
  readonly stable: Queryable = this;
  /** Absent with DATABASE_PREPARED_STATEMENTS=off: every statement then runs unnamed. */
  private statements?: StatementNames;
  constructor(
    private pool: pg.Pool,
    onConnectionError: (error: Error) => void,
    preparedStatements: boolean,
  ) {
    if (preparedStatements) this.statements = new StatementNames();
    // A connection the server drops while idle in the pool (restart, failover, admin kill) is
    // reported here; without a listener node would treat it as an uncaught error and stop the process.
    // The pool discards that client and opens a new one for the next query.
    pool.on('error', onConnectionError);
    // The pool listens only while a connection is idle: one lost after it is handed out, before its
    // user has attached a listener, would be an unhandled 'error' and stop the process. Every
    // connection listens from the moment it is made; its queries fail on their own.
    pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** One statement on the pool or on a transaction's client, prepared under its text's name. */
  private async run(client: pg.Pool | pg.PoolClient, text: string, params: unknown[]) {
    this.stats.queries++;
    const name = this.statements?.nameOf(text);
    try {
      const result = await client.query(name ? { name, text, values: params } : { text, values: params });
      return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
    } catch (error) {
      // the text is prepared again, under a new name, when it runs again (retryConflicts)
      if (name && stalePlan(error)) this.statements!.forget(text);
      throw error;
    }
  }

  async query<T>(text: string, params: unknown[] = []): Promise<QueryResult<T>> {
    return (await retryConflicts(() => this.run(this.pool, text, params))) as QueryResult<T>;
  }

  async exec(script: string): Promise<void> {
    this.stats.queries++;
    await this.pool.query(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const begin = beginScript();
    return retryConflicts(() => this.transactionOnce(fn, begin));
  }

  private async transactionOnce<T>(fn: (tx: Queryable) => Promise<T>, begin: string, again = false): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      // refused, or the server going down: nothing of the transaction ran, so it is tried once more
      if (again || !databaseUnavailable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return this.transactionOnce(fn, begin, true);
    }
    // a connection lost between two statements of this transaction fails the transaction, never the process
    let lost: Error | undefined;
    const onLost = (error: Error) => (lost = error);
    client.on('error', onLost);
    try {
      await client.query(begin);
    } catch (error) {
      client.off('error', onLost);
      client.release(error as Error);
      // a pooled connection that died before the transaction's first statement: nothing ran, try once more on another
      if (again || !databaseUnavailable(error)) throw error;
      return this.transactionOnce(fn, begin, true);
    }
    const tx: Queryable = {
      exec: async (script) => {
        this.stats.queries++;
        await client.query(script);
      },
      query: async <R>(text: string, params: unknown[] = []) => (await this.run(client, text, params)) as QueryResult<R>,
    };
    try {
      const value = await fn(tx);
      try {
        await client.query('COMMIT');
      } catch (error) {
        // a connection lost during COMMIT leaves its outcome unknown: never run the transaction again
        if (/^57P0/.test((error as { code?: string }).code ?? '')) throw new Error(`database connection lost during COMMIT: ${(error as Error).message}`);
        throw error;
      }
      return value;
    } catch (error) {
      if (!lost) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onLost);
      // a broken connection is destroyed rather than handed to the next request
      client.release(lost);
    }
  }

  close() {
    return this.pool.end();
  }
}

/**
 * PostgreSQL aborts one of two transactions that wait on each other (deadlock_detected) and, under
 * stricter isolation, one of two conflicting ones (serialization_failure). Either was rolled back
 * whole and changed nothing, so it is run again, up to three times, rather than answered with a 500.
 * Maintained counts and slices make such waits possible when two writes touch the same rows in
 * opposite orders (a delete and a recover at the same moment).
 */
const RETRIED = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
  // The connection's backend was ended (pg_terminate_backend, a restart or failover, another
  // backend's crash) while idle in the pool or during the statement: the statement was not carried
  // out, or was rolled back with its transaction, so it runs again on another connection. (A pooled
  // connection whose end the pool has not noticed yet is handed out and fails this way.)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
]);

async function retryConflicts<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (attempt >= 3 || !(RETRIED.has(code) || stalePlan(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

/**
 * Statements run as named prepared statements: PostgreSQL parses and plans a text once per
 * connection and then, when its own comparison finds the generic plan as good, plans it no more
 * (for a GET of one record, parsing and planning were four fifths of its time in PostgreSQL). One
 * name per text, for every connection of the pool. The texts a process sends are a few hundred at
 * most (each resource's statements, each list's filter and sort combinations); past `limit` a text
 * runs unnamed, so that whatever the callers send, a connection's memory stays bounded.
 */
/** A statement that starts with this runs unnamed, so PostgreSQL plans it for its parameters' values each time. */
export const CUSTOM_PLAN = '/* custom plan */ ';

class StatementNames {
  private names = new Map<string, string>();
  private next = 1;
  constructor(private limit = 500) {}

  nameOf(text: string): string | undefined {
    // planned for its values every time (list.ts CUSTOM_PLAN): a generic plan cannot know a group's size or a range's width
    if (text.startsWith(CUSTOM_PLAN)) return undefined;
    let name = this.names.get(text);
    if (!name && this.names.size < this.limit) this.names.set(text, (name = `s${this.next++}`));
    return name;
  }

  forget(text: string) {
    this.names.delete(text);
  }
}

/**
 * A column's type changed under a prepared statement (a migration, perhaps applied by another
 * process during a rolling upgrade): PostgreSQL refuses the plan it kept, and the statement did
 * nothing. Prepared afresh under a new name it runs.
 */
function stalePlan(error: unknown): boolean {
  return (error as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((error as Error).message);
}

// int8 (count(*), sums) as JS numbers; our counts stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export interface OpenOptions {
  /** postgres:// URL; when unset, PGlite. */
  databaseUrl?: string;
  /** PGlite data folder; when unset, an in-memory database. */
  dataDir?: string;
  /**
   * PGlite data folder only: sync each commit to disk, and the data files at checkpoints, so that a
   * power cut or OS crash loses nothing acknowledged (DATA_SYNC; default true).
   */
  sync?: boolean;
  /** PGlite only: start from this dumpDataDir() tarball (tests start from one migrated dump). */
  loadDataDir?: Blob;
  /** PGlite only: told when the embedded database stops unasked (its worker died); default: a line on stderr. */
  onFatal?: (error: Error) => void;
  /** PostgreSQL only: connections kept open at most (DATABASE_POOL_SIZE; default 10). */
  poolSize?: number;
  /**
   * PostgreSQL only: statements as named prepared statements (DATABASE_PREPARED_STATEMENTS; default
   * true). Off behind a transaction pooler that cannot keep them (PgBouncer before 1.21).
   */
  preparedStatements?: boolean;
  /** PostgreSQL only: told when the server drops an idle connection (default: a line on stderr). */
  onConnectionError?: (error: Error) => void;
}

/** Opens the database and brings its schema up to date. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  let db: Database;
  if (options.databaseUrl) {
    const onConnectionError = options.onConnectionError ?? ((error: Error) => console.error(`database connection lost: ${error.message}`));
    db = new PostgresDatabase(new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 }), onConnectionError, options.preparedStatements ?? true);
  } else {
    let unlock: (() => void) | undefined;
    if (options.dataDir) {
      fs.mkdirSync(options.dataDir, { recursive: true });
      // one process per data folder: a second one fails here, naming the first
      unlock = lockDataDir(options.dataDir);
    }
    try {
      db = await PgliteDatabase.start(
        { dataDir: options.dataDir ? `${options.dataDir}/pgdata` : undefined, loadDataDir: options.loadDataDir, sync: options.sync ?? true },
        unlock ?? (() => undefined),
        options.onFatal ?? ((error) => console.error(error.message)),
      );
    } catch (error) {
      unlock?.();
      throw error;
    }
  }
  await migrate(db);
  return db;
}
