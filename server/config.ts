import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Sign-in throttling (server/oauth/loginThrottle.ts); every value is a positive integer. */
export interface LoginLimits {
  /** Failed attempts an account accepts per failure window (from browsers that never signed in to it). */
  failuresPerAccount: number;
  /** Failed attempts an address accepts per failure window. */
  failuresPerAddress: number;
  /** Failed attempts a trusted browser (device cookie) may make per failure window before it is treated as unknown. */
  failuresPerDevice: number;
  failureWindowSeconds: number;
  /** Successful sign-ins per account, and per address, per success window. */
  successesPerAccount: number;
  successesPerAddress: number;
  successWindowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  failuresPerAccount: 100,
  failuresPerAddress: 1000,
  failuresPerDevice: 10,
  failureWindowSeconds: 3600,
  successesPerAccount: 60,
  successesPerAddress: 600,
  successWindowSeconds: 60,
};

const LOGIN_LIMIT_VARIABLES: Record<keyof LoginLimits, string> = {
  failuresPerAccount: 'LOGIN_MAX_FAILURES_PER_ACCOUNT',
  failuresPerAddress: 'LOGIN_MAX_FAILURES_PER_ADDRESS',
  failuresPerDevice: 'LOGIN_MAX_FAILURES_PER_DEVICE',
  failureWindowSeconds: 'LOGIN_FAILURE_WINDOW_SECONDS',
  successesPerAccount: 'LOGIN_MAX_SUCCESSES_PER_ACCOUNT',
  successesPerAddress: 'LOGIN_MAX_SUCCESSES_PER_ADDRESS',
  successWindowSeconds: 'LOGIN_SUCCESS_WINDOW_SECONDS',
};

export interface ServerConfig {
  host: string;
  port: number;
  /** Embedded database files and the signing key live here. */
  dataDir: string;
  /** Origin the browser sees; issuer of every token and base of the console's redirect URI. */
  publicUrl: string;
  /** When set, PostgreSQL is used instead of the embedded PGlite database. */
  databaseUrl?: string;
  /** Embedded database: sync every commit to disk (DATA_SYNC, default on). */
  dataSync?: boolean;
  /** PostgreSQL: connections each process keeps open at most (DATABASE_POOL_SIZE). */
  databasePoolSize?: number;
  /** PostgreSQL: statements as named prepared statements (DATABASE_PREPARED_STATEMENTS, default on; off behind a pooler that cannot keep them). */
  databasePreparedStatements?: boolean;
  /** Server processes `npm start` runs on this machine, sharing the port (WEB_CONCURRENCY; PostgreSQL only). */
  webConcurrency?: number;
  consoleClientId: string;
  adminEmail: string;
  /** When unset on first run, a password is generated and printed once. */
  adminPassword?: string;
  /** PEM (PKCS#8) RSA private key; when unset the key is kept in dataDir. */
  signingKeyPem?: string;
  /** The key of authenticator app secrets (MFA_KEY, 32 bytes); when unset, DATA_DIR/mfa-key (embedded database only; server/accounts/factors.ts). */
  mfaKey?: Buffer;
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
  /** Unset fields take DEFAULT_LOGIN_LIMITS. */
  loginLimits?: Partial<LoginLimits>;
  /**
   * OpenID Connect Dynamic Client Registration (RFC 7591) is on only with this initial access token
   * (REGISTRATION_ACCESS_TOKEN); registered clients join REGISTRATION_DOMAIN (`company/domain`).
   */
  registrationAccessToken?: string;
  registrationDomain?: { companyId: string; domainId: string };
  /** Lets the provider call applications on private or loopback addresses (back-channel logout); ALLOW_PRIVATE_CALLBACKS=1. */
  allowPrivateCallbacks?: boolean;
  /** Sign-in events older than this many days are deleted in the background (SIGNIN_RETENTION_DAYS, default 90). */
  signInRetentionDays?: number;
  /** Audit records older than this many days are deleted in the background (AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays?: number;
  /** Outgoing mail server (SMTP_URL, smtp:// or smtps://, nodemailer's URL); unset: messages stay in the outbox (server/mail/). */
  smtpUrl?: string;
  /** Sender address of outgoing mail (MAIL_FROM); default no-reply@ the host of PUBLIC_URL. */
  mailFrom?: string;
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
  const databaseUrl = env.DATABASE_URL || undefined;
  const webConcurrency = parseWebConcurrency(env.WEB_CONCURRENCY, databaseUrl);
  const registrationAccessToken = env.REGISTRATION_ACCESS_TOKEN || undefined;
  const registrationDomain = parseRegistrationDomain(env.REGISTRATION_DOMAIN);
  if (registrationAccessToken && !registrationDomain) {
    throw new Error('REGISTRATION_ACCESS_TOKEN turns on client registration: set REGISTRATION_DOMAIN to the company/domain registered clients join (one of your applications\' users, not of administrators)');
  }
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    publicUrl,
    databaseUrl,
    dataSync: parseOnOff('DATA_SYNC', env.DATA_SYNC, true),
    databasePoolSize: parsePoolSize(env.DATABASE_POOL_SIZE, webConcurrency),
    databasePreparedStatements: parseOnOff('DATABASE_PREPARED_STATEMENTS', env.DATABASE_PREPARED_STATEMENTS, true),
    webConcurrency,
    consoleClientId: env.CONSOLE_CLIENT_ID ?? 'iam-console',
    adminEmail: env.ADMIN_EMAIL ?? 'admin@example.com',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    signingKeyPem: env.SIGNING_KEY || undefined,
    mfaKey: parseMfaKey(env.MFA_KEY),
    consoleDir: path.resolve(env.CONSOLE_DIR ?? './dist'),
    accessTokenTtl: Number(env.ACCESS_TOKEN_TTL ?? 3600),
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    loginLimits: parseLoginLimits(env),
    registrationAccessToken,
    registrationDomain,
    allowPrivateCallbacks: env.ALLOW_PRIVATE_CALLBACKS === '1',
    signInRetentionDays: parseRetentionDays('SIGNIN_RETENTION_DAYS', env.SIGNIN_RETENTION_DAYS, DEFAULT_SIGNIN_RETENTION_DAYS),
    auditRetentionDays: parseRetentionDays('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, DEFAULT_AUDIT_RETENTION_DAYS),
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM?.trim() || undefined,
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

function parseLoginLimits(env: NodeJS.ProcessEnv): LoginLimits {
  const limits = { ...DEFAULT_LOGIN_LIMITS };
  for (const [field, name] of Object.entries(LOGIN_LIMIT_VARIABLES) as [keyof LoginLimits, string][]) {
    const text = env[name]?.trim();
    if (!text) continue;
    // windows are capped at 31 days so that expiry times stay far inside the timestamp range
    const max = field.endsWith('WindowSeconds') ? 31 * 24 * 3600 : 1e9;
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
      throw new Error(`${name} must be a whole number from 1 to ${max}, got "${env[name]}"`);
    }
    limits[field] = Number(text);
  }
  return limits;
}

/**
 * WEB_CONCURRENCY: how many server processes to run on this machine, a whole number or `auto` (one
 * per core). Several processes need PostgreSQL: the embedded database belongs to one process.
 */
export function parseWebConcurrency(value: string | undefined, databaseUrl: string | undefined): number {
  const text = (value ?? '').trim();
  if (text === '') return 1;
  const count = text === 'auto' ? os.availableParallelism() : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(count >= 1 && count <= 256)) throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to 256 or "auto", got "${value}"`);
  if (count > 1 && !databaseUrl) {
    throw new Error(
      `WEB_CONCURRENCY=${text} needs DATABASE_URL: the embedded database belongs to one process; run one process, or use PostgreSQL to run several`,
    );
  }
  return count;
}

/**
 * DATABASE_POOL_SIZE: PostgreSQL connections per process. The default gives the machine two
 * connections per core in all (one waits on the network while the other works), shared among the
 * processes, and at least 4 per process; PostgreSQL's own limit (max_connections, 100 by default)
 * must cover every process of every machine.
 */
export function parsePoolSize(value: string | undefined, processes = 1): number {
  const text = (value ?? '').trim();
  if (text === '') return Math.max(4, Math.ceil((2 * os.availableParallelism()) / processes));
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1000) throw new Error(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got "${value}"`);
  return Number(text);
}

/** SIGNIN_RETENTION_DAYS, AUDIT_RETENTION_DAYS: whole days, at most 100 years (beyond that the cut-off leaves the timestamp range). */
export function parseRetentionDays(name: string, value: string | undefined, fallback: number): number {
  const text = (value ?? '').trim();
  if (text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 36500) {
    throw new Error(`${name} must be a whole number of days from 1 to 36500, got "${value}"`);
  }
  return Number(text);
}

/** SMTP_URL: smtp://[user:password@]host[:port] or smtps://...; unset or empty: no mail server. */
export function parseSmtpUrl(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || !url.hostname) {
    throw new Error('SMTP_URL must be smtp://user:password@host:587 or smtps://user:password@host:465 (or unset: messages then stay in the outbox)');
  }
  return text;
}

export const DEFAULT_SIGNIN_RETENTION_DAYS = 90;
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

function parseOnOff(name: string, value: string | undefined, fallback: boolean): boolean {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(text)) return true;
  if (['off', 'false', '0', 'no'].includes(text)) return false;
  throw new Error(`${name} must be on or off, got "${value}"`);
}

/**
 * REGISTRATION_DOMAIN: `company/domain`. No default: self-registered clients sign in that domain's
 * people, so the operator names it (a domain of applications' users, not of administrators).
 */
function parseRegistrationDomain(value: string | undefined): { companyId: string; domainId: string } | undefined {
  if (!value) return undefined;
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(value);
  if (!match) throw new Error(`REGISTRATION_DOMAIN must be company/domain, got ${value}`);
  return { companyId: match[1], domainId: match[2] };
}

/** MFA_KEY: 32 bytes, as 64 hex digits or base64 (what `openssl rand -base64 32` prints). */
function parseMfaKey(value: string | undefined): Buffer | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (key?.length !== 32) throw new Error('MFA_KEY must be 32 random bytes, as base64 or 64 hex digits (openssl rand -base64 32)');
  return key;
}
