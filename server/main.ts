import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
import { DataDirInUseError } from './db/dataDirLock.js';
import { openDatabase } from './db/index.js';
import { startMaintenance } from './db/maintenance.js';
import { loadSigningKeys } from './keys.js';
import { seedFirstRun } from './seed.js';

let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv();
} catch (error) {
  // a mistyped setting is the operator's to fix: say which, without a stack trace
  console.error(`Configuration error: ${(error as Error).message}`);
  process.exit(1);
}
let db: Awaited<ReturnType<typeof openDatabase>>;
try {
  db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
} catch (error) {
  // another process has this DATA_DIR: its message says which, and what to do
  if (error instanceof DataDirInUseError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
const keys = await loadSigningKeys({ pem: config.signingKeyPem, dataDir: config.dataDir, db });
const seed = await seedFirstRun(db, config);
const app = await buildApp({ db, config, keys }, { logger: { level: config.logLevel } });

if (seed.seeded) {
  const password = seed.generatedPassword ? `${seed.generatedPassword}  (generated: shown only this once)` : '(from ADMIN_PASSWORD)';
  console.log(`First run: created company root, domain default and administrator ${config.adminEmail}, password ${password}`);
}

const stopMaintenance = startMaintenance(db, { log: (message) => app.log.warn(message) });

/** How long a stop may take before the process exits anyway (SHUTDOWN_GRACE_SECONDS, default 10). */
const graceSeconds = Number(process.env.SHUTDOWN_GRACE_SECONDS ?? 10);

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
      console.error(`Shutdown took longer than ${graceSeconds} s: exiting anyway with ${open} connection(s) still open and the database ${dbClosing ? 'still closing' : 'not closed'}`);
      process.exit(1);
    });
  }, (Number.isFinite(graceSeconds) && graceSeconds > 0 ? graceSeconds : 10) * 1000);
  deadline.unref();
  await app.close();
  clearInterval(sweep);
  dbClosing = true;
  await db.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ host: config.host, port: config.port });
console.log(`IAM Console: ${config.publicUrl}  (database: ${db.kind === 'postgres' ? 'PostgreSQL' : `PGlite in ${config.dataDir}`})`);
