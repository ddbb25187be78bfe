import cluster from 'node:cluster';
import pino from 'pino';
import { buildApp } from './app.js';
import { configFromEnv, type ServerConfig } from './config.js';
import { DataDirInUseError } from './db/dataDirLock.js';
import { openDatabase, type Database } from './db/index.js';
import { startMaintenance } from './db/maintenance.js';
import { startJobRunner } from './jobs/runner.js';
import { loadSigningKeys, replaceStoredSigningKey } from './keys.js';
import { closePasswordPool, startPasswordThreads } from './passwords.js';
import { seedFirstRun } from './seed.js';
import { startupNotices } from './startupNotices.js';

/**
 * The provider's program (npm start). One process serves everything; with WEB_CONCURRENCY=N (on
 * PostgreSQL) a primary process prepares the database (migrations, first-run seed, signing key) and
 * then runs N server processes that share the port (node:cluster) and everything else through
 * PostgreSQL (docs/SCALING.md).
 */

let config: ServerConfig;
try {
  config = configFromEnv();
} catch (error) {
  // a mistyped setting is the operator's to fix: say which, without a stack trace
  console.error(`Configuration error: ${(error as Error).message}`);
  process.exit(1);
}

/**
 * Standard output, buffered as pino's own default is: under load the request log's lines leave in a
 * few writes instead of one write per request (a synchronous pipe write each through process.stdout
 * cost the GET of one record about a tenth of its time). The banner goes through the same writer, so
 * it still comes after Fastify's "Server listening"; pending lines are flushed on exit.
 */
const out = pino.destination({ dest: 1, sync: false });

/** How long a stop may take before the process exits anyway (SHUTDOWN_GRACE_SECONDS, default 10). */
const graceSecondsSetting = Number(process.env.SHUTDOWN_GRACE_SECONDS ?? 10);
const graceSeconds = Number.isFinite(graceSecondsSetting) && graceSecondsSetting > 0 ? graceSecondsSetting : 10;

async function open(): Promise<Database> {
  try {
    return await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements,
      sync: config.dataSync,
      // the embedded database's thread died: nothing more can be served, so let the supervisor restart us
      onFatal: (error) => {
        console.error(`${error.message}: exiting`);
        process.exit(1);
      },
    });
  } catch (error) {
    // another process has this DATA_DIR: its message says which, and what to do
    if (error instanceof DataDirInUseError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Migrations, first-run seed and the signing key, each done once whichever process gets there first. */
async function prepare(db: Database) {
  const keySource = { pem: config.signingKeyPem, dataDir: config.dataDir, db };
  // (before the key is loaded: a notice may replace it)
  const notices = await startupNotices(db, config, { replaceStored: () => replaceStoredSigningKey(keySource) });
  const keys = await loadSigningKeys(keySource);
  const seed = await seedFirstRun(db, config);
  let firstRun = '';
  if (seed.seeded) {
    const password = seed.generatedPassword ? `${seed.generatedPassword}  (generated: shown only this once)` : '(from ADMIN_PASSWORD)';
    firstRun = `First run: created company root, domain default and administrator ${config.adminEmail}, password ${password}`;
  }
  return { keys, notices, firstRun };
}

/**
 * Said once the server listens, last, so that it does not scroll away behind the start-up: the
 * warnings, then the address, then the first run's password.
 */
function announce({ notices, firstRun }: { notices: string[]; firstRun: string }, where: string) {
  for (const notice of notices) console.warn(`WARNING: ${notice}`);
  out.write(`${[`IAM Console: ${config.publicUrl}  (${where})`, firstRun].filter(Boolean).join('\n')}\n`);
}

const databaseName = () => (config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`);

/** Serves requests in this process until SIGTERM/SIGINT. */
async function serve(primary: boolean) {
  startPasswordThreads(config.webConcurrency ?? 1);
  const db = await open();
  const prepared = await prepare(db);
  // the log and the banner share one writer: its lines ("Server listening") come out in order, the banner last
  const app = await buildApp({ db, config, keys: prepared.keys }, { logger: { level: config.logLevel, stream: out } });
  const stopMaintenance = startMaintenance(db, {
    signInRetentionDays: config.signInRetentionDays,
    auditRetentionDays: config.auditRetentionDays,
    log: (message) => app.log.warn(message),
    // detail: at info it would bury the address and the first-run password printed just before
    onStep: (step) => app.log.debug({ sql: step.sql, ms: Math.round(step.ms) }, 'database maintenance step'),
  });
  // import and export jobs (docs/CONSOLE.md, "Import and export")
  const jobRunner = startJobRunner(db, { log: (message) => app.log.error(message) });

  let closing = false;
  let dbClosing = false;
  async function shutdown(signal: string) {
    if (closing) return;
    closing = true;
    app.log.info(`${signal}: shutting down`);
    stopMaintenance();
    // A response in flight when the stop began leaves a keep-alive connection behind, which would hold
    // the server open for the whole keep-alive timeout (72 s): close each connection as it goes idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      app.server.getConnections((_, open) => {
        console.error(
          `Shutdown took longer than ${graceSeconds} s: exiting anyway with ${open} connection(s) still open and the database ${dbClosing ? 'still closing' : 'not closed'}`,
        );
        process.exit(1);
      });
    }, graceSeconds * 1000);
    deadline.unref();
    await app.close();
    clearInterval(sweep);
    await jobRunner.stop();
    dbClosing = true;
    await db.close();
    process.exit(0);
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
  if (primary) announce(prepared, `database: ${databaseName()}`);
}

/**
 * WEB_CONCURRENCY > 1: prepares the database, then runs that many server processes and keeps them
 * running. A process that dies unasked is replaced (at most 5 times a minute: beyond that something
 * is wrong that restarting will not fix, and everything stops with code 1). SIGTERM/SIGINT stop every
 * process gracefully; the primary exits when the last one has, with code 1 if any did not stop cleanly.
 */
async function runPrimary(count: number) {
  const db = await open();
  const prepared = await prepare(db);
  await db.close();
  // the first run's seed hashed a password here; the primary serves no sign-ins
  await closePasswordPool();

  let stopping = false;
  let exitCode = 0;
  const restarts: number[] = [];
  let listening = 0;
  const fork = () =>
    cluster.fork().once('listening', () => {
      if (++listening === count) announce(prepared, `database: ${databaseName()}, ${count} processes`);
    });
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // each process keeps its own grace period; this one only covers a process that hangs anyway
    setTimeout(() => {
      console.error(`Shutdown took longer than ${graceSeconds} s: stopping the remaining server processes`);
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, (graceSeconds + 2) * 1000).unref();
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts[0] < now - 60_000) restarts.shift();
    if (restarts.length > 5) {
      console.error('Server processes keep dying (more than 5 in a minute): stopping');
      exitCode = 1;
      stopAll('SIGTERM');
      return;
    }
    console.error(`Server process ${worker.process.pid} exited (${signal ?? `code ${code}`}): starting another`);
    cluster.fork();
  });
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));
  for (let i = 0; i < count; i++) fork();
}

const processes = config.webConcurrency ?? 1;
if (processes > 1 && cluster.isPrimary) await runPrimary(processes);
else {
  await serve(processes === 1).catch((error: Error) => {
    // a setting found wrong only once the database is open (MFA_KEY missing while secrets exist): said as plainly as the others
    if (!error.message.startsWith('Configuration error:')) throw error;
    console.error(error.message);
    process.exit(1);
  });
}
