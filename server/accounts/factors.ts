import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Database, Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import { userAccountKey } from './accounts.js';

/**
 * A person's second factors (docs/CONSOLE.md, "Multi-factor authentication and the account page"):
 * an authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 s, one step either side, a code good
 * once), passkeys and security keys (WebAuthn), and ten recovery codes, each good once. Secrets
 * never leave the server after enrolment: TOTP secrets are stored encrypted, recovery codes as
 * hashes, WebAuthn keeps only public keys.
 */

/** The person, always by company, domain and id. */
export interface UserRef {
  companyId: string;
  domainId: string;
  id: string;
}

export type FactorKind = 'totp' | 'webauthn' | 'recovery';

/** A factor as lists show it: never its secret. */
export interface FactorView {
  id: string;
  type: FactorKind;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Recovery codes still unused (recovery only). */
  remaining?: number;
}

/** The relying party of WebAuthn: the issuer's host and origin. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export const relyingParty = (issuer: string): RelyingParty => {
  const url = new URL(issuer);
  return { id: url.hostname, origin: url.origin, name: 'IAM' };
};

const TOTP_PERIOD = 30;
const TOTP_DIGITS = 6;
const RECOVERY_CODES = 10;
export const MAX_FACTOR_FAILURES = 5;

// ---------------------------------------------------------------------------------------------
// The key of TOTP secrets (AES-256-GCM), never in the database that holds them (a copy of the
// database, a backup or a read of its tables, must not give the secrets away): MFA_KEY, else for the
// embedded database the file mfa-key in DATA_DIR (made on first need, mode 0600; one process owns a
// data folder), else for an in-memory database one key for the process. PostgreSQL without MFA_KEY
// has none: no authenticator app can be added (TOTP_UNAVAILABLE), and start-up refuses when secrets exist.

export interface MfaKeySource {
  mfaKey?: Buffer;
  databaseUrl?: string;
  dataDir: string;
}

const sources = new WeakMap<object, MfaKeySource>();
const keys = new WeakMap<object, Buffer>();

export const TOTP_UNAVAILABLE = 'Authenticator apps cannot be added here until the operator sets MFA_KEY. Use a passkey or security key instead.';

/** The key of `db`'s TOTP secrets (made on first need); undefined on PostgreSQL without MFA_KEY. */
function secretKey(db: Queryable): Buffer | undefined {
  const known = keys.get(db);
  if (known) return known;
  const source = sources.get(db);
  if (!source) throw new Error('the key of authenticator app secrets was not prepared (prepareMfaKey)');
  let key = source.mfaKey;
  if (!key && !source.databaseUrl) {
    if (!source.dataDir) key = crypto.randomBytes(32);
    else {
      const file = path.join(source.dataDir, 'mfa-key');
      try {
        key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        key = crypto.randomBytes(32);
        fs.mkdirSync(source.dataDir, { recursive: true });
        fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      }
      if (key.length !== 32) throw new Error(`${file} does not hold a key of 32 bytes (base64)`);
    }
  }
  if (key) keys.set(db, key);
  return key;
}

/** Can an authenticator app be added (is there a key for its secret)? */
export const totpAvailable = (db: Queryable) => {
  const source = sources.get(db);
  return Boolean(source && (source.mfaKey || !source.databaseUrl));
};

const seal = (key: Buffer, plain: string) => {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
};

const open = (key: Buffer, sealed: string) => {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown secret format');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
};

const keyOrRefuse = (db: Queryable) => {
  const key = secretKey(db);
  if (!key) throw new Error(TOTP_UNAVAILABLE);
  return key;
};

export async function encryptSecret(db: Queryable, plain: string): Promise<string> {
  return seal(keyOrRefuse(db), plain);
}

export async function decryptSecret(db: Queryable, sealed: string): Promise<string> {
  return open(keyOrRefuse(db), sealed);
}

/**
 * At start-up: where `db`'s key comes from (above). A key still stored in the database (mfa_keys,
 * before MFA_KEY and the file) is moved out once: the secrets are encrypted again with the new key
 * and the stored one deleted, in one transaction. Throws `Configuration error: …` on PostgreSQL
 * without MFA_KEY when secrets exist, and when the key given does not open them.
 */
export async function prepareMfaKey(db: Database, source: MfaKeySource): Promise<void> {
  // the first server built on a database says where its key is (more servers on one database in tests share it)
  if (!sources.has(db)) sources.set(db, source);
  const { rows } = await db.query<{ stored: boolean; secret: string | null }>(
    `SELECT EXISTS (SELECT 1 FROM mfa_keys WHERE id = 'totp') AS stored, (SELECT secret FROM user_factors WHERE kind = 'totp' LIMIT 1) AS secret`,
  );
  const { stored, secret } = rows[0];
  if (!stored && secret === null) return;
  const key = secretKey(db);
  if (!key) {
    throw new Error(
      'Configuration error: MFA_KEY is not set, and this PostgreSQL database holds authenticator app secrets. Set MFA_KEY to 32 random bytes (openssl rand -base64 32), the same on every server; at its first start the key kept in the database is replaced by it (docs/OPERATIONS.md).',
    );
  }
  if (stored) {
    await db.transaction(async (tx) => {
      // FOR UPDATE: servers starting together move it once
      const old = (await tx.query<{ key: string }>(`SELECT key FROM mfa_keys WHERE id = 'totp' FOR UPDATE`)).rows[0];
      if (!old) return;
      const oldKey = Buffer.from(old.key, 'base64');
      const { rows: factors } = await tx.query<{ id: string; secret: string }>(`SELECT id, secret FROM user_factors WHERE kind = 'totp'`);
      for (const factor of factors) await tx.query(`UPDATE user_factors SET secret = $2 WHERE id = $1`, [factor.id, seal(key, open(oldKey, factor.secret))]);
      // enrolments under way (minutes long) start again with a new QR code rather than being moved
      await tx.query(`DELETE FROM mfa_challenges WHERE purpose = 'totp-enrol'`);
      await tx.query(`UPDATE account_sessions SET pending = '{}' WHERE pending ? 'totp'`);
      await tx.query(`DELETE FROM mfa_keys WHERE id = 'totp'`);
    });
  } else {
    try {
      open(key, secret!);
    } catch {
      throw new Error('Configuration error: the key of authenticator app secrets (MFA_KEY, or mfa-key in DATA_DIR) does not open the secrets stored: set the key they were made with.');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TOTP

/** A new TOTP secret, base32 (160 bits, as RFC 4226 recommends). */
export const newTotpSecret = () => new OTPAuth.Secret({ size: 20 }).base32;

const totpOf = (secret: string, label = '', issuer = '') =>
  new OTPAuth.TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD, secret: OTPAuth.Secret.fromBase32(secret) });

/** The otpauth:// URI an authenticator app scans. */
export const totpUri = (secret: string, issuer: string, account: string) => totpOf(secret, account, issuer).toString();

/** The time step a code is good for (now, one before or one after), or undefined. */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(secret).validate({ token, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / TOTP_PERIOD) + delta;
}

export const looksLikeTotp = (code: string) => /^\d{6}$/.test(code.replace(/\s+/g, ''));

/** Saves a confirmed TOTP factor; `step` is the step of the code that confirmed it (used already). */
export async function addTotp(db: Queryable, user: UserRef, secret: string, step: number, label: string): Promise<string> {
  const id = crypto.randomUUID();
  await db.query(
    `INSERT INTO user_factors (id, company_id, domain_id, user_id, kind, label, secret, last_step, last_used_at) VALUES ($1, $2, $3, $4, 'totp', $5, $6, $7, now())`,
    [id, user.companyId, user.domainId, user.id, label || 'Authenticator app', await encryptSecret(db, secret), step],
  );
  return id;
}

/**
 * Checks a code against the person's TOTP factors and uses it: the step is stored in the same
 * statement that checks it is later than the last one, so a code (or an older one) is good once even
 * when two requests race.
 */
async function useTotp(db: Queryable, user: UserRef, code: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string; secret: string }>(`SELECT id, secret FROM user_factors WHERE ${OWN} AND kind = 'totp'`, ownArgs(user));
  for (const row of rows) {
    const step = totpStep(await decryptSecret(db, row.secret), code);
    if (step === undefined) continue;
    const used = await db.query(`UPDATE user_factors SET last_step = $2, last_used_at = now() WHERE id = $1 AND (last_step IS NULL OR last_step < $2) RETURNING id`, [row.id, step]);
    if (used.rows.length > 0) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Recovery codes

const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const normalizeCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

/** One recovery code: 16 characters of 31 (79 bits), shown in groups of four. */
function newRecoveryCode(): string {
  let out = '';
  for (let i = 0; i < 16; i++) out += CODE_ALPHABET[crypto.randomInt(CODE_ALPHABET.length)];
  return out.match(/.{4}/g)!.join('-');
}

/** Ten new recovery codes, replacing any earlier set; returned once, stored as hashes. */
export async function newRecoveryCodes(db: Queryable, user: UserRef): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const hashes = codes.map((code) => sha256(normalizeCode(code)));
  await db.query(`DELETE FROM user_factors WHERE ${OWN} AND kind = 'recovery'`, ownArgs(user));
  await db.query(`INSERT INTO user_factors (id, company_id, domain_id, user_id, kind, label, code_hashes) VALUES ($1, $2, $3, $4, 'recovery', 'Recovery codes', $5)`, [
    crypto.randomUUID(),
    user.companyId,
    user.domainId,
    user.id,
    hashes,
  ]);
  return codes;
}

/** Uses a recovery code: removed from the set in the statement that finds it, so it is good once. */
async function useRecoveryCode(db: Queryable, user: UserRef, code: string): Promise<boolean> {
  const normalized = normalizeCode(code);
  if (normalized.length !== 16) return false;
  const hash = sha256(normalized);
  const { rows } = await db.query(
    `UPDATE user_factors SET code_hashes = array_remove(code_hashes, $4), last_used_at = now() WHERE ${OWN} AND kind = 'recovery' AND $4 = ANY (code_hashes) RETURNING id`,
    [...ownArgs(user), hash],
  );
  return rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// WebAuthn

interface Credential {
  id: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: AuthenticatorTransport[] | null;
  synced: boolean;
}

const credentialsOf = async (db: Queryable, user: UserRef) =>
  (
    await db.query<Credential>(
      `SELECT id, credential_id AS "credentialId", public_key AS "publicKey", counter::float8 AS counter, transports, coalesce(synced, false) AS synced
       FROM user_factors WHERE ${OWN} AND kind = 'webauthn'`,
      ownArgs(user),
    )
  ).rows;

/** Options of a new passkey or security key for the person (the browser's navigator.credentials.create). */
export async function registrationOptions(db: Queryable, rp: RelyingParty, user: UserRef & { subject: string; username: string; displayName: string }) {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userDisplayName: user.displayName,
    // the subject: stable and unique in the whole provider, and no personal data
    userID: new TextEncoder().encode(user.subject),
    attestationType: 'none',
    excludeCredentials: (await credentialsOf(db, user)).map((c) => ({ id: c.credentialId, transports: c.transports ?? undefined })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
}

/** Verifies the browser's answer to registrationOptions and saves the key; an error sentence when it does not verify. */
export async function addWebauthn(db: Queryable, rp: RelyingParty, user: UserRef, input: { response: string; challenge: string; label: string }): Promise<{ id: string } | { error: string }> {
  let response: RegistrationResponseJSON;
  try {
    response = JSON.parse(input.response) as RegistrationResponseJSON;
  } catch {
    return { error: 'The answer of the passkey could not be read. Please try again.' };
  }
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: input.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verified?.verified || !verified.registrationInfo) return { error: 'The passkey could not be verified. Please try again.' };
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  const id = crypto.randomUUID();
  const saved = await db.query(
    `INSERT INTO user_factors (id, company_id, domain_id, user_id, kind, label, credential_id, public_key, counter, transports, synced)
     VALUES ($1, $2, $3, $4, 'webauthn', $5, $6, $7, $8, $9, $10) ON CONFLICT (credential_id) DO NOTHING RETURNING id`,
    [
      id,
      user.companyId,
      user.domainId,
      user.id,
      input.label || 'Passkey',
      credential.id,
      Buffer.from(credential.publicKey).toString('base64url'),
      credential.counter,
      credential.transports ?? (response.response.transports as AuthenticatorTransport[] | undefined) ?? null,
      credentialDeviceType === 'multiDevice' || credentialBackedUp,
    ],
  );
  if (saved.rows.length === 0) return { error: 'This passkey is registered already.' };
  return { id };
}

/** Options of a sign-in with one of the person's keys; undefined when she has none. */
export async function authenticationOptions(db: Queryable, rp: RelyingParty, user: UserRef) {
  const credentials = await credentialsOf(db, user);
  if (credentials.length === 0) return undefined;
  return generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: credentials.map((c) => ({ id: c.credentialId, transports: c.transports ?? undefined })),
    userVerification: 'preferred',
  });
}

/** The challenge the browser signed, as its clientDataJSON says (checked against what we issued by the caller). */
export function challengeOf(response: string): string | undefined {
  try {
    const parsed = JSON.parse(response) as AuthenticationResponseJSON;
    const client = JSON.parse(Buffer.from(parsed.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof client.challenge === 'string' ? client.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies a signed challenge with one of the person's keys; its amr ('hwk' or 'swk'), or undefined. */
async function useWebauthn(db: Queryable, rp: RelyingParty, user: UserRef, responseText: string, challenge: string): Promise<string | undefined> {
  let response: AuthenticationResponseJSON;
  try {
    response = JSON.parse(responseText) as AuthenticationResponseJSON;
  } catch {
    return undefined;
  }
  const credential = (await credentialsOf(db, user)).find((c) => c.credentialId === response.id);
  if (!credential) return undefined;
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: credential.credentialId,
      publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')),
      counter: credential.counter,
      transports: credential.transports ?? undefined,
    },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verified?.verified) return undefined;
  // a counter that does not grow (a cloned key) fails verification above; keys that count nothing stay at 0
  await db.query(`UPDATE user_factors SET counter = $2, last_used_at = now() WHERE id = $1`, [credential.id, verified.authenticationInfo.newCounter]);
  // RFC 8176: a key synced between devices is software-secured, a device-bound one hardware-secured
  return credential.synced ? 'swk' : 'hwk';
}

// ---------------------------------------------------------------------------------------------
// The person's factors

const OWN = 'company_id = $1 AND domain_id = $2 AND user_id = $3';
const ownArgs = (user: UserRef) => [user.companyId, user.domainId, user.id];

export async function listFactors(db: Queryable, user: UserRef): Promise<FactorView[]> {
  const { rows } = await db.query<{ id: string; kind: FactorKind; label: string; createdAt: Date; lastUsedAt: Date | null; remaining: number | null }>(
    `SELECT id, kind, label, created_at AS "createdAt", last_used_at AS "lastUsedAt", cardinality(code_hashes) AS remaining
     FROM user_factors WHERE ${OWN} ORDER BY created_at, id`,
    ownArgs(user),
  );
  return rows.map((row) => ({
    id: row.id,
    type: row.kind,
    label: row.label,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt).toISOString() : null,
    ...(row.kind === 'recovery' ? { remaining: Number(row.remaining ?? 0) } : {}),
  }));
}

/** Does the person have a factor that signs her in (an authenticator app or a key)? Recovery codes alone do not count. */
export async function hasSecondFactor(db: Queryable, user: UserRef): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM user_factors WHERE ${OWN} AND kind IN ('totp', 'webauthn') LIMIT 1`, ownArgs(user));
  return rows.length > 0;
}

/** Removes one factor of the person (or all with no id); the factors removed. */
export async function removeFactors(db: Queryable, user: UserRef, factorId?: string): Promise<FactorView[]> {
  const before = await listFactors(db, user);
  const removed = factorId ? before.filter((f) => f.id === factorId) : before;
  if (removed.length === 0) return [];
  await db.query(`DELETE FROM user_factors WHERE ${OWN} AND id = ANY ($4::text[])`, [...ownArgs(user), removed.map((f) => f.id)]);
  // recovery codes without a factor they back up are left: harmless, and the person may want them
  return removed;
}

/**
 * Checks what the person gave as her second factor: a TOTP code, a recovery code or a signed WebAuthn
 * challenge (with the challenge the server issued). The amr it adds (RFC 8176), or undefined.
 */
export async function proveFactor(
  db: Queryable,
  rp: RelyingParty,
  user: UserRef,
  input: { code?: string; webauthn?: string; challenge?: string },
): Promise<string[] | undefined> {
  // counted before it is checked, over all her sign-ins at once; a right answer gives its count back
  if ((await countFactorGuess(db, user)) > FACTOR_GUESSES_PER_HOUR) return undefined;
  const amr = await checkFactor(db, rp, user, input);
  if (amr) await db.query(`UPDATE login_attempts SET n = n - 1 WHERE kind = '${FACTOR_COUNTER}' AND key = $1 AND n > 0`, [factorCounterKey(user)]);
  return amr;
}

async function checkFactor(db: Queryable, rp: RelyingParty, user: UserRef, input: { code?: string; webauthn?: string; challenge?: string }): Promise<string[] | undefined> {
  if (input.webauthn && input.challenge) {
    const method = await useWebauthn(db, rp, user, input.webauthn, input.challenge);
    return method ? [method, 'mfa'] : undefined;
  }
  const code = (input.code ?? '').trim();
  if (!code || code.length > 100) return undefined;
  if (looksLikeTotp(code)) return (await useTotp(db, user, code)) ? ['otp', 'mfa'] : undefined;
  // a recovery code is no OTP of RFC 4226/6238: two factors were used, nothing more is claimed
  return (await useRecoveryCode(db, user, code)) ? ['mfa'] : undefined;
}

/** Sign-ins ended by wrong second factors (five wrong answers each) that lock the factors for the next hour. */
export const LOCKING_FAILED_SIGN_INS = 3;

/**
 * Second-factor answers a person may have checked in an hour, over all her sign-ins and the account
 * page at once: three sign-ins' worth. Sign-ins started side by side would otherwise each get their
 * five before the first of them ended and counted towards the lock above.
 */
export const FACTOR_GUESSES_PER_HOUR = LOCKING_FAILED_SIGN_INS * 5;
/** Her wrong answers' counter among the sign-in counters (login_attempts), cleared by Unlock and by a reset of her factors. */
const FACTOR_COUNTER = 'failed-factor';
const factorCounterKey = (user: UserRef) => userAccountKey(user, user.id);

/** Counts one answer, atomically (answers sent at once count one each); its count in the hour's window. */
async function countFactorGuess(db: Queryable, user: UserRef): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `INSERT INTO login_attempts AS a (kind, key, n, expires_at) VALUES ('${FACTOR_COUNTER}', $1, 1, now() + interval '1 hour')
     ON CONFLICT (kind, key) DO UPDATE SET
       n = CASE WHEN a.expires_at > now() THEN a.n + 1 ELSE 1 END,
       expires_at = CASE WHEN a.expires_at > now() THEN a.expires_at ELSE excluded.expires_at END
     RETURNING a.n`,
    [factorCounterKey(user)],
  );
  return rows[0].n;
}

/** Unlock and a reset of her factors: her wrong answers so far no longer count. */
export async function clearFactorGuesses(db: Queryable, user: UserRef): Promise<void> {
  await db.query(`DELETE FROM login_attempts WHERE kind = '${FACTOR_COUNTER}' AND key = $1`, [factorCounterKey(user)]);
}

/**
 * Until when the person's second factors are locked, if they are: each sign-in allows five wrong
 * answers, and whoever knows the password could start sign-in after sign-in, so after three such
 * failed sign-ins in an hour (sign-in events 'second_factor_failed', the account page's included)
 * no code or key is checked until the hour since the third-last has passed: fifteen guesses an hour
 * at a 6-digit code; or, whatever the number of sign-ins, after FACTOR_GUESSES_PER_HOUR wrong answers.
 * Failures before the last Unlock or reset of her factors (her history) do not count: support staff
 * lift this lock as they lift the password throttle's.
 */
export async function factorsLockedUntil(db: Queryable, user: UserRef): Promise<Date | undefined> {
  const { rows } = await db.query<{ occurredAt: Date }>(
    `SELECT e.occurred_at AS "occurredAt" FROM signin_events e
     WHERE e.company_id = $1 AND e.domain_id = $2 AND e.user_id = $3 AND e.outcome = 'second_factor_failed' AND e.occurred_at > now() - interval '1 hour'
       AND e.occurred_at > coalesce((SELECT max(a.occurred_at) FROM audit_events a
                                     WHERE a.company_id = $1 AND a.resource_id = $3 AND a.resource_type = 'users' AND a.domain_id = $2
                                       AND a.action IN ('unlock', 'resetFactors')), '-infinity')
     ORDER BY e.occurred_at DESC OFFSET ${LOCKING_FAILED_SIGN_INS - 1} LIMIT 1`,
    ownArgs(user),
  );
  const byEvents = rows[0] ? new Date(rows[0].occurredAt).getTime() + 3600_000 : 0;
  // or her answers' counter, full until its window ends
  const counted = await db.query<{ until: Date }>(
    `SELECT expires_at AS until FROM login_attempts WHERE kind = '${FACTOR_COUNTER}' AND key = $1 AND n >= ${FACTOR_GUESSES_PER_HOUR} AND expires_at > now()`,
    [factorCounterKey(user)],
  );
  const byCount = counted.rows[0] ? new Date(counted.rows[0].until).getTime() : 0;
  const until = Math.max(byEvents, byCount);
  return until ? new Date(until) : undefined;
}

export async function factorsLocked(db: Queryable, user: UserRef): Promise<boolean> {
  return (await factorsLockedUntil(db, user)) !== undefined;
}
export const LOCKED_MESSAGE = 'Too many wrong codes for this account lately. Try again in an hour, or ask your administrator to unlock your account.';

/** A single-use challenge (mfa_challenges) for the person: stored as a hash, 5 minutes. */
export async function saveChallenge(db: Queryable, user: UserRef, purpose: 'webauthn-sign-in' | 'totp-enrol', token: string, value = ''): Promise<void> {
  await db.query(`DELETE FROM mfa_challenges WHERE expires_at < now()`);
  await db.query(
    `INSERT INTO mfa_challenges (id, company_id, domain_id, user_id, purpose, value, expires_at) VALUES ($1, $2, $3, $4, $5, $6, now() + interval '5 minutes')`,
    [sha256(token), user.companyId, user.domainId, user.id, purpose, value],
  );
}

/** Takes (deletes) the person's challenge: its value, or undefined when unknown, used or expired. */
export async function takeChallenge(db: Queryable, user: UserRef, purpose: 'webauthn-sign-in' | 'totp-enrol', token: string): Promise<string | undefined> {
  const { rows } = await db.query<{ value: string }>(
    `DELETE FROM mfa_challenges WHERE id = $4 AND ${OWN} AND purpose = $5 AND expires_at > now() RETURNING value`,
    [...ownArgs(user), sha256(token), purpose],
  );
  return rows[0]?.value;
}
