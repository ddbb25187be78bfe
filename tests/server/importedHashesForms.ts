import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { hash as argon2Hash } from '@node-rs/argon2';

/** The bcrypt package the password threads use (it has no types of its own). */
const bcrypt = createRequire(import.meta.url)('bcrypt') as { hashSync(password: string, cost: number): string };

/** @node-rs/argon2's Algorithm (a const enum, which isolated modules cannot read). */
export const ARGON2I = 1;
export const ARGON2ID = 2;

/**
 * Real hashes of every stored form an import carries (docs/CONSOLE.md, "Imported password hashes"),
 * each made by its own library or Node's crypto, as the provider they come from would have made it.
 */

/** Firebase's published sample (github.com/firebase/scrypt, README): the project's parameters and one exported account. */
export const FIREBASE_SAMPLE = {
  password: 'user1password',
  hash:
    '$firebase-scrypt$rounds=8,mem=14' +
    '$jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==' +
    '$Bw==' +
    '$42xEC+ixf3L2lw==' +
    '$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
};

const b64 = (bytes: Buffer) => bytes.toString('base64');

export function scryptForm(password: string, ln = 14, r = 8, p = 1): string {
  const salt = crypto.randomBytes(16);
  const derived = crypto.scryptSync(password, salt, 32, { N: 2 ** ln, r, p, maxmem: 300 * 1024 * 1024 });
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(derived)}`;
}

export function pbkdf2Form(password: string, digest: 'sha256' | 'sha512', iterations = 10_000): string {
  const salt = crypto.randomBytes(16);
  const derived = crypto.pbkdf2Sync(password, salt, iterations, digest === 'sha256' ? 32 : 64, digest);
  return `$pbkdf2-${digest}$i=${iterations}$${b64(salt)}$${b64(derived)}`;
}

export function saltedForm(password: string, digest: 'sha256' | 'sha512' | 'md5', position: 'prefix' | 'suffix'): string {
  const salt = crypto.randomBytes(8);
  const parts = position === 'prefix' ? [salt, Buffer.from(password)] : [Buffer.from(password), salt];
  return `$${digest}$${position}$${b64(salt)}$${crypto.createHash(digest).update(Buffer.concat(parts)).digest('hex')}`;
}

/** One hash of `password` in every form (name → stored form), bcrypt below and at the provider's cost. */
export async function everyForm(password: string): Promise<Record<string, string>> {
  return {
    'bcrypt cost 8 ($2b$)': bcrypt.hashSync(password, 8),
    'bcrypt cost 10 ($2y$, PHP)': bcrypt.hashSync(password, 10).replace(/^\$2b\$/, '$2y$'),
    argon2id: await argon2Hash(password, { algorithm: ARGON2ID }),
    argon2i: await argon2Hash(password, { algorithm: ARGON2I, memoryCost: 4096, timeCost: 3 }),
    scrypt: scryptForm(password),
    'pbkdf2-sha256': pbkdf2Form(password, 'sha256'),
    'pbkdf2-sha512': pbkdf2Form(password, 'sha512'),
    'sha256 (salt first)': saltedForm(password, 'sha256', 'prefix'),
    'sha512 (salt last)': saltedForm(password, 'sha512', 'suffix'),
    md5: saltedForm(password, 'md5', 'prefix'),
  };
}
