import fs from 'node:fs';
import path from 'node:path';
import * as jose from 'jose';
import type { Database } from './db/index.js';

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: jose.JWK;
}

export interface KeySource {
  /** SIGNING_KEY: wins over everything else. */
  pem?: string;
  /** The embedded database's folder: the key is kept there (one process owns it). */
  dataDir?: string;
  /**
   * PostgreSQL: the key is kept in the database (`meta` row `signing_key`), so every process and
   * every machine on it signs with the same key and verifies the others' tokens.
   */
  db?: Database;
}

const META_KEY = 'signing_key';

async function newPkcs8(): Promise<string> {
  const { privateKey } = await jose.generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  return jose.exportPKCS8(privateKey);
}

/**
 * The key that instances sharing this PostgreSQL database sign with. The first instance to start
 * stores one (the DATA_DIR key of an installation that kept it there before, else a new one); all
 * others, started at the same moment or later, read the stored one: the insert does nothing when a
 * key is already there.
 */
async function sharedPkcs8(db: Database, dataDir: string | undefined): Promise<string> {
  const stored = await db.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [META_KEY]);
  if (stored.rows[0]) return stored.rows[0].value;
  const file = dataDir ? path.join(dataDir, 'signing-key.pem') : undefined;
  const candidate = file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : await newPkcs8();
  await db.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [META_KEY, candidate]);
  const winner = await db.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [META_KEY]);
  return winner.rows[0].value;
}

/** The embedded database's key, in DATA_DIR (created on first run, readable only by this user). */
async function dataDirPkcs8(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'signing-key.pem');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
  const pkcs8 = await newPkcs8();
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, pkcs8, { mode: 0o600 });
  return pkcs8;
}

/**
 * The RS256 key that signs every token: SIGNING_KEY when given; else, on PostgreSQL, the one stored
 * in the database (shared by every instance); on the embedded database, the one kept in DATA_DIR.
 * Tokens survive restarts either way. With none of these (tests), a new key for this process.
 */
export async function loadSigningKeys(source: KeySource): Promise<SigningKeys> {
  let pkcs8 = source.pem;
  if (!pkcs8 && source.db?.kind === 'postgres') pkcs8 = await sharedPkcs8(source.db, source.dataDir);
  else if (!pkcs8 && source.dataDir) pkcs8 = await dataDirPkcs8(source.dataDir);
  pkcs8 ??= await newPkcs8();
  const privateKey = await jose.importPKCS8(pkcs8, 'RS256', { extractable: true });
  const privateJwk = await jose.exportJWK(privateKey);
  const publicJwk: jose.JWK = { kty: privateJwk.kty, n: privateJwk.n, e: privateJwk.e };
  const kid = await jose.calculateJwkThumbprint(publicJwk);
  const publicKey = (await jose.importJWK(publicJwk, 'RS256')) as CryptoKey;
  return { kid, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg: 'RS256', use: 'sig' } };
}

/**
 * Replaces the stored signing key with a new one (every token signed before stops verifying), where
 * the provider keeps it: the database (PostgreSQL) or DATA_DIR. False when SIGNING_KEY is given
 * (the operator's to replace) or nothing is stored. Migration 19 asks for it when API identifiers
 * clashed across tenants (startupNotices.ts).
 */
export async function replaceStoredSigningKey(source: KeySource): Promise<boolean> {
  if (source.pem) return false;
  if (source.db?.kind === 'postgres') {
    const { rowCount } = await source.db.query('UPDATE meta SET value = $2 WHERE key = $1', [META_KEY, await newPkcs8()]);
    return rowCount > 0;
  }
  const file = source.dataDir ? path.join(source.dataDir, 'signing-key.pem') : undefined;
  if (!file || !fs.existsSync(file)) return false;
  fs.writeFileSync(file, await newPkcs8(), { mode: 0o600 });
  return true;
}
