import path from 'node:path';

export interface ServerConfig {
  host: string;
  port: number;
  /** Embedded database files and the signing key live here. */
  dataDir: string;
  /** Origin the browser sees; issuer of every token and base of the console's redirect URI. */
  publicUrl: string;
  /** When set, PostgreSQL is used instead of the embedded PGlite database. */
  databaseUrl?: string;
  consoleClientId: string;
  adminEmail: string;
  /** When unset on first run, a password is generated and printed once. */
  adminPassword?: string;
  /** PEM (PKCS#8) RSA private key; when unset the key is kept in dataDir. */
  signingKeyPem?: string;
  /** Folder holding the built console (index.html); served at / when present. */
  consoleDir: string;
  /** Lifetime of console access tokens, in seconds. */
  accessTokenTtl: number;
  logLevel: string;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute URL, got "${env.PUBLIC_URL}"`);
  }
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    consoleClientId: env.CONSOLE_CLIENT_ID ?? 'iam-console',
    adminEmail: env.ADMIN_EMAIL ?? 'admin@example.com',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    signingKeyPem: env.SIGNING_KEY || undefined,
    consoleDir: path.resolve(env.CONSOLE_DIR ?? './dist'),
    accessTokenTtl: Number(env.ACCESS_TOKEN_TTL ?? 3600),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
