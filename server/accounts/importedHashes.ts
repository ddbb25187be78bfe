import { parseOptions } from '@node-rs/argon2';
import { badRequest } from '../errors.js';
import type { Database } from '../db/index.js';
import { bcryptCost, hashPassword, MAX_BCRYPT_COST, MIN_BCRYPT_COST, verifyImportedPassword, verifyPassword } from '../passwords.js';

/**
 * Password hashes brought from another provider (docs/CONSOLE.md, "Imported password hashes"): the
 * stored forms an import file may carry and users.password_hash may keep until the first sign-in
 * re-hashes the password to the provider's bcrypt. Parsed here, on the event loop (a regular
 * expression and a few hundred bytes of base64); checked on the password threads
 * (server/passwordWorker.mjs). Every cost parameter is bounded: a hostile import must not make one
 * sign-in hold a password thread for long or take a great deal of memory.
 */

/** Argon2: memory in KiB (256 MiB), passes, lanes. */
export const ARGON2_MAX_MEMORY_KIB = 262_144;
export const ARGON2_MAX_TIME = 10;
export const ARGON2_MAX_PARALLELISM = 8;
/** scrypt: N = 2^ln, its memory 128·N·r bytes, its work N·r·p. */
export const SCRYPT_MAX_LN = 20;
export const SCRYPT_MAX_MEMORY = 256 * 1024 * 1024;
export const SCRYPT_MAX_WORK = 2 ** 21;
/** PBKDF2: iterations times the blocks of output (each block is a full run of the iterations). */
export const PBKDF2_MAX_ITERATIONS = 2_000_000;
/** Firebase's scrypt: r = rounds, N = 2^mem. */
export const FIREBASE_MAX_ROUNDS = 16;
export const FIREBASE_MAX_MEM = 16;
export const BCRYPT_MIN_IMPORTED_COST = 4;
/** A stored form longer than this is no hash anybody made. */
export const MAX_HASH_LENGTH = 1024;

export type ImportedHash =
  | { format: 'bcrypt'; cost: number }
  /** (the PHC string itself: the library reads it again on the password thread) */
  | { format: 'argon2id' | 'argon2i'; encoded: string }
  | { format: 'scrypt'; ln: number; r: number; p: number; salt: Buffer; hash: Buffer }
  | { format: 'pbkdf2-sha256' | 'pbkdf2-sha512'; digest: 'sha256' | 'sha512'; iterations: number; salt: Buffer; hash: Buffer }
  | { format: 'firebase-scrypt'; rounds: number; mem: number; signerKey: Buffer; saltSeparator: Buffer; salt: Buffer; hash: Buffer }
  | { format: 'sha256' | 'sha512' | 'md5'; position: 'prefix' | 'suffix'; salt: Buffer; hash: Buffer };

export const IMPORTED_FORMATS = ['bcrypt', 'argon2id', 'argon2i', 'scrypt', 'pbkdf2-sha256', 'pbkdf2-sha512', 'firebase-scrypt', 'sha256', 'sha512', 'md5'] as const;

const DIGEST_BYTES = { sha256: 32, sha512: 64, md5: 16 } as const;

const invalid = (what: string) => badRequest(`passwordHash ${what}`);

/** A decimal parameter of at most 10 digits, within [min, max]. */
function integer(format: string, name: string, value: string | undefined, min: number, max: number): number {
  if (value === undefined || !/^\d{1,10}$/.test(value)) throw invalid(`(${format}) needs ${name}, a whole number`).as('importedHash.notInteger', { format, name });
  const n = Number(value);
  if (n < min || n > max) throw invalid(`(${format}): ${name} must be ${min} to ${max}`).as('importedHash.outOfRange', { format, name, min, max });
  return n;
}

/**
 * Base64, standard or URL-safe, with or without padding, and passlib's variant ('.' for '+'): the
 * alphabets differ only in characters that none of the others uses.
 */
function base64(format: string, name: string, value: string, minBytes: number, maxBytes: number): Buffer {
  if (!/^[A-Za-z0-9+/._-]*={0,2}$/.test(value)) throw invalid(`(${format}): ${name} must be base64`).as('importedHash.notBase64', { format, part: name.replace(/^the /, '') });
  const bytes = Buffer.from(value.replace(/[.-]/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length < minBytes || bytes.length > maxBytes) throw invalid(`(${format}): ${name} must be ${minBytes} to ${maxBytes} bytes`).as('importedHash.byteLength', { format, part: name.replace(/^the /, ''), min: minBytes, max: maxBytes });
  return bytes;
}

/** "ln=16,r=8,p=1" → { ln: '16', r: '8', p: '1' }, the names exactly those expected, each once. */
function parameters(format: string, text: string | undefined, names: string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    const [name, value, extra] = part.split('=');
    if (extra !== undefined || !names.includes(name) || name in found) throw invalid(`(${format}) needs its parameters ${names.join(', ')}`).as('importedHash.parameters', { format, names: names.join(', ') });
    found[name] = value;
  }
  return found;
}

/**
 * The stored form of `hash` with its parameters, or a 400 naming passwordHash when it is none of the
 * forms accepted or its costs are out of bounds (the sentence never repeats the hash).
 */
export function parseImportedHash(hash: string): ImportedHash {
  if (typeof hash !== 'string' || hash.length > MAX_HASH_LENGTH) throw invalid(`must be a string of at most ${MAX_HASH_LENGTH} characters`).as('importedHash.tooLong', { limit: MAX_HASH_LENGTH });
  const parts = hash.split('$');
  const id = parts[0] === '' ? parts[1] : undefined;
  switch (id) {
    case '2a':
    case '2b':
    case '2y': {
      const cost = bcryptCost(hash);
      if (cost === undefined) throw invalid('(bcrypt) must be $2a$, $2b$ or $2y$, a two-digit cost and 53 characters').as('importedHash.bcryptForm');
      if (cost < BCRYPT_MIN_IMPORTED_COST || cost > MAX_BCRYPT_COST) throw invalid(`(bcrypt): the cost must be ${BCRYPT_MIN_IMPORTED_COST} to ${MAX_BCRYPT_COST}`).as('importedHash.bcryptCost', { min: BCRYPT_MIN_IMPORTED_COST, max: MAX_BCRYPT_COST });
      return { format: 'bcrypt', cost };
    }
    case 'argon2id':
    case 'argon2i': {
      let options;
      try {
        // the library's own reading of the PHC string (its salt, output, version and parameters)
        options = parseOptions(hash);
      } catch {
        throw invalid(`(${id}) must be a PHC string $${id}$v=19$m=…,t=…,p=…$<salt>$<hash>`).as('importedHash.argon2Form', { format: id });
      }
      if (options.memoryCost > ARGON2_MAX_MEMORY_KIB) throw invalid(`(${id}): m must be at most ${ARGON2_MAX_MEMORY_KIB} KiB`).as('importedHash.argon2Memory', { format: id, limit: ARGON2_MAX_MEMORY_KIB });
      if (options.timeCost > ARGON2_MAX_TIME) throw invalid(`(${id}): t must be at most ${ARGON2_MAX_TIME}`).as('importedHash.argon2Time', { format: id, limit: ARGON2_MAX_TIME });
      if (options.parallelism > ARGON2_MAX_PARALLELISM) throw invalid(`(${id}): p must be at most ${ARGON2_MAX_PARALLELISM}`).as('importedHash.argon2Parallelism', { format: id, limit: ARGON2_MAX_PARALLELISM });
      return { format: id, encoded: hash };
    }
    case 'scrypt': {
      if (parts.length !== 5) throw invalid('(scrypt) must be $scrypt$ln=…,r=…,p=…$<salt base64>$<hash base64>').as('importedHash.scryptForm');
      const values = parameters('scrypt', parts[2], ['ln', 'r', 'p']);
      const ln = integer('scrypt', 'ln', values.ln, 1, SCRYPT_MAX_LN);
      const r = integer('scrypt', 'r', values.r, 1, 64);
      const p = integer('scrypt', 'p', values.p, 1, 64);
      if (128 * 2 ** ln * r > SCRYPT_MAX_MEMORY) throw invalid(`(scrypt): its memory, 128·2^ln·r bytes, must be at most ${SCRYPT_MAX_MEMORY / 1024 / 1024} MiB`).as('importedHash.scryptMemory', { limit: SCRYPT_MAX_MEMORY / 1024 / 1024 });
      if (2 ** ln * r * p > SCRYPT_MAX_WORK) throw invalid('(scrypt): its work, 2^ln·r·p, must be at most 2^21').as('importedHash.scryptWork', { limit: '2^21' });
      return { format: 'scrypt', ln, r, p, salt: base64('scrypt', 'the salt', parts[3], 1, 256), hash: base64('scrypt', 'the hash', parts[4], 16, 128) };
    }
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      if (parts.length !== 5) throw invalid(`(${id}) must be $${id}$i=…$<salt base64>$<hash base64>`).as('importedHash.pbkdf2Form', { format: id });
      const digest = id === 'pbkdf2-sha256' ? 'sha256' : 'sha512';
      const iterations = integer(id, 'i', parameters(id, parts[2], ['i']).i, 1, PBKDF2_MAX_ITERATIONS);
      const salt = base64(id, 'the salt', parts[3], 0, 256);
      const derived = base64(id, 'the hash', parts[4], 16, 128);
      if (iterations * Math.ceil(derived.length / DIGEST_BYTES[digest]) > PBKDF2_MAX_ITERATIONS) {
        throw invalid(`(${id}): i times the hash's ${DIGEST_BYTES[digest]}-byte blocks must be at most ${PBKDF2_MAX_ITERATIONS}`).as('importedHash.pbkdf2Work', {
          format: id,
          bytes: DIGEST_BYTES[digest],
          limit: PBKDF2_MAX_ITERATIONS,
        });
      }
      return { format: id, digest, iterations, salt, hash: derived };
    }
    case 'firebase-scrypt': {
      if (parts.length !== 7) throw invalid('(firebase-scrypt) must be $firebase-scrypt$rounds=…,mem=…$<signer key>$<salt separator>$<salt>$<hash>, each base64').as('importedHash.firebaseForm');
      const values = parameters(id, parts[2], ['rounds', 'mem']);
      const rounds = integer(id, 'rounds', values.rounds, 1, FIREBASE_MAX_ROUNDS);
      const mem = integer(id, 'mem', values.mem, 1, FIREBASE_MAX_MEM);
      const signerKey = base64(id, 'the signer key', parts[3], 16, 256);
      const saltSeparator = base64(id, 'the salt separator', parts[4], 0, 64);
      const salt = base64(id, 'the salt', parts[5], 1, 256);
      const derived = base64(id, 'the hash', parts[6], 16, 256);
      if (derived.length !== signerKey.length) throw invalid('(firebase-scrypt): the hash must be as long as the signer key').as('importedHash.firebaseLength');
      return { format: id, rounds, mem, signerKey, saltSeparator, salt, hash: derived };
    }
    case 'sha256':
    case 'sha512':
    case 'md5': {
      if (parts.length !== 5 || (parts[2] !== 'prefix' && parts[2] !== 'suffix')) throw invalid(`(${id}) must be $${id}$<prefix|suffix>$<salt base64>$<hash hex>`).as('importedHash.saltedForm', { format: id });
      const salt = base64(id, 'the salt', parts[3], 0, 256);
      if (!new RegExp(`^[0-9a-fA-F]{${DIGEST_BYTES[id] * 2}}$`).test(parts[4])) throw invalid(`(${id}): the hash must be ${DIGEST_BYTES[id] * 2} hexadecimal digits`).as('importedHash.hexDigits', { format: id, digits: DIGEST_BYTES[id] * 2 });
      return { format: id, position: parts[2], salt, hash: Buffer.from(parts[4], 'hex') };
    }
    default:
      throw invalid(`must be one of the stored forms: ${IMPORTED_FORMATS.join(', ')} (docs/CONSOLE.md, "Imported password hashes")`).as('importedHash.unknownForm', {
        formats: IMPORTED_FORMATS.join(', '),
      });
  }
}

/**
 * The import's check of a passwordHash (docs/CONSOLE.md, "Imported password hashes"): its form, and
 * whether the account must choose a new password at its next sign-in (MD5: the import gives it the
 * change-password required action). Throws a 400 naming passwordHash otherwise.
 */
export function checkImportedHash(hash: string): { format: string; requireChange: boolean } {
  const { format } = parseImportedHash(hash);
  return { format, requireChange: format === 'md5' };
}

/**
 * Does `password` match the stored hash, whichever of the forms it is? Never for a form unknown or
 * out of bounds (a write to the database by other means), and never a throw: a sign-in with such a
 * hash fails like a wrong password. Every form is checked on the password threads.
 */
export async function verifyStoredPassword(password: string, hash: string): Promise<boolean> {
  try {
    const form = parseImportedHash(hash);
    return await (form.format === 'bcrypt' ? verifyPassword(password, hash) : verifyImportedPassword(password, form));
  } catch {
    return false;
  }
}

/** Is `hash` other than the provider's own: bcrypt of at least MIN_BCRYPT_COST? */
export const needsRehash = (hash: string) => !((bcryptCost(hash) ?? 0) >= MIN_BCRYPT_COST);

/**
 * After a sign-in that proved `password` (docs/CONSOLE.md, "Imported password hashes"): an imported
 * form (or a cheaper bcrypt) is replaced by the provider's bcrypt of the same password. Only if the
 * stored hash is still the one proved, so that a password changed meanwhile wins. It is no new
 * password: no audit record (the transaction names no actor), no sign-in ended (iam.rehash spares
 * the account page's sessions, migration 43). True when re-hashed; a failure only leaves the old
 * form for the next sign-in.
 */
export async function rehashAfterSignIn(db: Database, user: { companyId: string; domainId: string; id: string; passwordHash: string | null }, password: string): Promise<boolean> {
  const old = user.passwordHash;
  if (!old || !password || !needsRehash(old)) return false;
  try {
    const hash = await hashPassword(password);
    return await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('iam.actor', '', true), set_config('iam.rehash', 'on', true)`);
      const { rowCount } = await tx.query(`UPDATE users SET password_hash = $5 WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND password_hash = $4`, [
        user.companyId,
        user.domainId,
        user.id,
        old,
        hash,
      ]);
      return rowCount > 0;
    });
  } catch {
    return false;
  }
}
