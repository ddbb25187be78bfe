import crypto from 'node:crypto';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { inject } from 'vitest';
import { type BuildOptions, buildApp } from '../../server/app.js';
import type { ServerConfig } from '../../server/config.js';
import type { AppContext } from '../../server/context.js';
import { openDatabase, type Database } from '../../server/db/index.js';
import { loadSigningKeys, type SigningKeys } from '../../server/keys.js';
import { seedFirstRun } from '../../server/seed.js';
import { mintAccessToken } from './mintToken.js';
import { freePort, throwAwayDatabase } from './program.js';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'correct horse battery staple';
export const PUBLIC_URL = 'http://localhost:8080';

let sharedKeys: Promise<SigningKeys> | undefined;
/** The key of authenticator app secrets (MFA_KEY) of every server of a test file: on PostgreSQL there is no other. */
const TEST_MFA_KEY = crypto.randomBytes(32);

export interface TestServer {
  app: FastifyInstance;
  db: Database;
  ctx: AppContext;
  /** Access token of the seeded root administrator. */
  adminToken: string;
  close(): Promise<void>;
}

/**
 * A real server on a real database: in-memory PGlite, or a fresh throw-away database on the
 * PostgreSQL server at DATABASE_URL (created here, dropped on close).
 */
export async function startServer(overrides: Partial<ServerConfig> = {}, build: BuildOptions = {}): Promise<TestServer> {
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  if (process.env.DATABASE_URL) ({ url: databaseUrl, drop: dropDatabase } = await throwAwayDatabase());
  const db = await openDatabase({ databaseUrl, loadDataDir: pgliteDump() });
  const server = await serverOn(db, { databaseUrl, ...overrides }, build);
  return {
    ...server,
    async close() {
      await server.close();
      await dropDatabase();
    },
  };
}

/** PGlite: the migrated dump made once per run by tests/server/global-setup.ts; PostgreSQL: none. */
export function pgliteDump(): Blob | undefined {
  if (process.env.DATABASE_URL) return undefined;
  const dump = inject('pgliteDump');
  return dump ? new Blob([fs.readFileSync(dump)]) : undefined;
}

/**
 * A server on `db` (seeded, with the root administrator's token); close() closes the server and
 * this connection, not the database. Every server of a test file signs with one key, as instances
 * sharing SIGNING_KEY do.
 */
export async function serverOn(db: Database, overrides: Partial<ServerConfig> = {}, build: BuildOptions = {}): Promise<TestServer> {
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    dataDir: '',
    publicUrl: PUBLIC_URL,
    consoleClientId: 'iam-console',
    adminEmail: ADMIN_EMAIL,
    adminPassword: ADMIN_PASSWORD,
    consoleDir: '/nonexistent',
    accessTokenTtl: 3600,
    logLevel: 'silent',
    mfaKey: TEST_MFA_KEY,
    ...overrides,
  };
  sharedKeys ??= loadSigningKeys({});
  const keys = await sharedKeys;
  await seedFirstRun(db, config);
  const ctx: AppContext = { db, config, keys };
  const app = await buildApp(ctx, build);
  await app.ready();
  const adminToken = await tokenFor(ctx, { companyId: 'root', domainId: 'default', userId: 'admin' });
  return {
    app,
    db,
    ctx,
    adminToken,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/**
 * A management API token for a user, as a sign-in gives one (mintToken.ts), without the browser
 * round trip. The OAuth flow itself is tested end to end in oauth.test.ts.
 */
export async function tokenFor(
  ctx: AppContext,
  who: { companyId: string; domainId: string; userId: string; clientId?: string; scope?: string },
): Promise<string> {
  const { rows } = await ctx.db.query(`SELECT 1 FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [who.companyId, who.domainId, who.userId]);
  if (!rows[0]) throw new Error(`no user ${who.userId}`);
  return mintAccessToken(ctx, who);
}

/**
 * A test server listening on 127.0.0.1, its PUBLIC_URL (the issuer) matching its port: for clients
 * that talk HTTP to it (openid-client, a back-channel receiver's provider).
 */
export async function listeningServer(overrides: Partial<ServerConfig> = {}): Promise<{ server: TestServer; issuer: string }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const server = await startServer({ publicUrl: issuer, ...overrides });
  await server.app.listen({ port, host: '127.0.0.1' });
  return { server, issuer };
}

/**
 * A list request's query string: strings as they are, anything else as JSON (filter, sort, range),
 * and `condition` repeated once per triple when given a list of them.
 */
export const listQuery = (params: Record<string, unknown>) =>
  Object.entries(params)
    .flatMap(([name, value]) => (name === 'condition' ? [value].flat() : [value]).map((one) => [name, one] as const))
    .map(([name, value]) => `${name}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`)
    .join('&');

/** app.inject with a bearer token and a JSON body; returns status, parsed JSON and headers. */
export async function call(
  server: { app: FastifyInstance },
  token: string | undefined,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
) {
  const response = await server.app.inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body !== undefined ? { payload: body as object } : {}),
  });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, body: json, headers: response.headers, text: response.body };
}

export interface Tenant {
  companyId: string;
  domainId: string;
  /** Member of the tenant's `administrators` group: has user:admin over the tenant's subtree. */
  adminToken: string;
  /** An ordinary user of the tenant's domain: signed in, but no user:admin (403 on the API). */
  userToken: string;
}

/**
 * Creates a company (under `parent`) with a primary domain, an administrators group holding one
 * administrator, and one ordinary user, straight in the database, and signs both users in.
 */
/** Makes an active user `userId` (email userId@company.example) and puts it in the domain's administrators group. */
export async function addAdministrator(server: TestServer, tenant: Tenant, userId: string): Promise<void> {
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@' || $1 || '.example')`,
    [tenant.companyId, tenant.domainId, userId],
  );
  await server.db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ($1, $2, 'administrators', 'user', $3)`,
    [tenant.companyId, tenant.domainId, userId],
  );
}

export async function createTenant(server: TestServer, companyId: string, parent = 'root', type = 'reseller'): Promise<Tenant> {
  const { db } = server;
  const domainId = `${companyId}-domain`;
  await db.query(
    `INSERT INTO companies (id, name, display_name, description, type, parent, ancestors)
     SELECT $1, $1, $1, 'test tenant', $3, p.id, p.ancestors || $1::text FROM companies p WHERE p.id = $2`,
    [companyId, parent, type],
  );
  await db.query(`INSERT INTO domains (company_id, id, name, description, is_primary) VALUES ($1, $2, $2, 'test', true)`, [companyId, domainId]);
  await db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email) VALUES ($1, $2, 'administrators', 'administrators', 'Administrators', 'admins@example.com')`,
    [companyId, domainId],
  );
  for (const userId of ['boss', 'worker']) {
    await db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ($1, $2, $3, $3, $3, $3 || '@' || $1 || '.example')`,
      [companyId, domainId, userId],
    );
  }
  await db.query(
    `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ($1, $2, 'administrators', 'user', 'boss')`,
    [companyId, domainId],
  );
  return {
    companyId,
    domainId,
    adminToken: await tokenFor(server.ctx, { companyId, domainId, userId: 'boss' }),
    userToken: await tokenFor(server.ctx, { companyId, domainId, userId: 'worker' }),
  };
}

/** A log destination that keeps every line written to it (what an operator's log would hold): pass `stream` as the logger's. */
export function capturedLog(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}
