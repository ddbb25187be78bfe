import net from 'node:net';
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
  /**
   * Which proxies may tell the client's address (X-Forwarded-For): the number of proxy hops in front
   * of the server, or their addresses/CIDRs. Unset: none, the client is the TCP peer.
   */
  trustProxy?: number | string[];
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
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
  };
}

/** Names proxy-addr (Fastify's trustProxy) knows for ranges of addresses. */
const ADDRESS_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(value: string): boolean {
  if (ADDRESS_RANGES.has(value)) return true;
  const [address, bits, extra] = value.split('/');
  const family = net.isIP(address);
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: unset, empty or `false` trusts no proxy; a whole number is how many proxies stand in
 * front of the server (the client address is then the one the outermost of them saw, never the
 * client-supplied leftmost X-Forwarded-For entry); `true` means one proxy; otherwise a comma-separated
 * list of the proxies' addresses or CIDRs.
 */
export function parseTrustProxy(value: string | undefined): number | string[] | undefined {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return undefined;
  if (text === 'true') return 1;
  if (/^\d+$/.test(text)) {
    if (Number(text) > 100) throw new Error(`TRUST_PROXY as a number of proxy hops must be at most 100, got "${value}"`);
    return Number(text);
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length > 0) {
    throw new Error(
      `TRUST_PROXY must be a number of proxy hops (1 for one reverse proxy), true (one hop), false, or a comma-separated list of proxy addresses or CIDRs (such as 10.0.0.0/8,192.168.1.5); "${bad.join('", "')}" is none of these`,
    );
  }
  return entries;
}

/**
 * Fastify's trustProxy option for a parsed TRUST_PROXY. A hop count is given as a function: Fastify
 * 5.12 accepts a bare number but then trusts nothing (it cannot tell a proxy from a direct client),
 * while here the operator has said the server is only reachable through that many proxies.
 */
export function fastifyTrustProxy(trust: number | string[] | undefined): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust ?? false;
}
