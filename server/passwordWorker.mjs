// One of server/passwords.ts's threads: bcrypt runs here synchronously, so that it is this thread,
// started below the server's priority, that spends the CPU. Plain JavaScript: no loader is needed.
// The imported forms (server/accounts/importedHashes.ts, which parsed and bounded them) are checked
// here too, each with its own library: @node-rs/argon2 and Node's crypto.
import crypto from 'node:crypto';
import { verifySync as argon2Verify } from '@node-rs/argon2';
import bcrypt from 'bcrypt';

/** Above the largest scrypt importedHashes.ts lets through (256 MiB), which Node's default (32 MiB) refuses. */
const SCRYPT_MAXMEM = 300 * 1024 * 1024;

const equal = (a, b) => a.length === b.length && crypto.timingSafeEqual(a, b);

/** Does `password` match the imported form (importedHashes.ts's ImportedHash, its buffers as bytes)? */
function verifyImported(password, form) {
  switch (form.format) {
    case 'argon2id':
    case 'argon2i':
      // the library compares in constant time
      return argon2Verify(form.encoded, password);
    case 'scrypt':
      return equal(crypto.scryptSync(password, form.salt, form.hash.length, { N: 2 ** form.ln, r: form.r, p: form.p, maxmem: SCRYPT_MAXMEM }), form.hash);
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512':
      return equal(crypto.pbkdf2Sync(password, form.salt, form.iterations, form.hash.length, form.digest), form.hash);
    case 'firebase-scrypt': {
      // Firebase's scrypt (github.com/firebase/scrypt): the key derived from the password and the
      // salt followed by the separator encrypts the project's signer key (AES-256-CTR, IV zero)
      const salt = Buffer.concat([form.salt, form.saltSeparator]);
      const key = crypto.scryptSync(password, salt, 64, { N: 2 ** form.mem, r: form.rounds, p: 1, maxmem: SCRYPT_MAXMEM });
      const cipher = crypto.createCipheriv('aes-256-ctr', key.subarray(0, 32), Buffer.alloc(16));
      return equal(Buffer.concat([cipher.update(form.signerKey), cipher.final()]), form.hash);
    }
    case 'sha256':
    case 'sha512':
    case 'md5': {
      const secret = Buffer.from(password, 'utf8');
      const data = form.position === 'prefix' ? [form.salt, secret] : [secret, form.salt];
      return equal(crypto.createHash(form.format).update(Buffer.concat(data)).digest(), form.hash);
    }
    default:
      return false;
  }
}

/** @param {{ op: 'hash' | 'verify' | 'imported', password: string, hash?: string, cost?: number, form?: object }} task */
export default function passwordTask({ op, password, hash, cost, form }) {
  if (op === 'hash') return bcrypt.hashSync(password, cost);
  if (op === 'imported') return verifyImported(password, form);
  // $2y$ (PHP's name) is the same algorithm as $2b$, which is the name this library knows it by
  return bcrypt.compareSync(password, hash.replace(/^\$2y\$/, '$2b$'));
}
