import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
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
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const keys = await loadSigningKeys({ pem: config.signingKeyPem, dataDir: config.dataDir });
const seed = await seedFirstRun(db, config);
const app = await buildApp({ db, config, keys }, { logger: { level: config.logLevel } });

if (seed.seeded) {
  const password = seed.generatedPassword ? `${seed.generatedPassword}  (generated: shown only this once)` : '(from ADMIN_PASSWORD)';
  console.log(`First run: created company root, domain default and administrator ${config.adminEmail}, password ${password}`);
}

const stopMaintenance = startMaintenance(db, { log: (message) => app.log.warn(message) });

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info(`${signal}: shutting down`);
  stopMaintenance();
  await app.close();
  await db.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ host: config.host, port: config.port });
console.log(`IAM Console: ${config.publicUrl}  (database: ${db.kind === 'postgres' ? 'PostgreSQL' : `PGlite in ${config.dataDir}`})`);
