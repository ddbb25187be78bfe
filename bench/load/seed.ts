import { configFromEnv } from '../../server/config.js';
import { openDatabase } from '../../server/db/index.js';
import { seedFirstRun } from '../../server/seed.js';

/** The big domain the workload lists, reads and writes. */
export const DOMAIN = 'load';
export const USERS = 3000;
/** Accounts of the sign-in storm (domain `default`, where the console signs in), all with one password. */
export const STORM_USERS = 64;
export const STORM_PASSWORD = 'load-test-password';

/**
 * First-run setup with the server's own config (so the server later finds it done), then the users
 * in bulk SQL, before the server starts: PGlite admits one process per DATA_DIR.
 */
export async function seed(env: NodeJS.ProcessEnv, stormPasswordHash: string) {
  const config = configFromEnv(env);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
  try {
    await seedFirstRun(db, config);
    await db.query(`INSERT INTO domains (company_id, id, name, description) VALUES ('root', $1, $1, 'load test domain')`, [DOMAIN]);
    await db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, status)
       SELECT 'root', $1, 'u' || i, 'user' || i,
              (ARRAY['Ada','Grace','Alan','Edsger','Barbara','Donald','Ken','Linus','Margaret','Radia'])[1 + i % 10] || ' ' ||
              (ARRAY['Lovelace','Hopper','Turing','Dijkstra','Liskov','Knuth','Thompson','Torvalds','Hamilton','Perlman'])[1 + (i / 10) % 10] || ' ' || i,
              'user' || i || '@load.example', 'active'
       FROM generate_series(1, $2::int) AS i`,
      [DOMAIN, USERS],
    );
    await db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash)
       SELECT 'root', 'default', 'storm' || i, 'storm' || i, 'Storm ' || i, 'storm' || i || '@load.example', $1
       FROM generate_series(1, $2::int) AS i`,
      [stormPasswordHash, STORM_USERS],
    );
    // statistics and visibility maps of every table from the start (PGlite has no autovacuum)
    await db.query('VACUUM ANALYZE');
  } finally {
    await db.close();
  }
}
