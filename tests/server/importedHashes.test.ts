import crypto from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { hash as argon2Hash } from '@node-rs/argon2';
import { afterAll, describe, expect, it } from 'vitest';
import { type KnownUser, passwordMatches } from '../../server/accounts/accounts.js';
import { checkImportedHash, needsRehash, verifyStoredPassword } from '../../server/accounts/importedHashes.js';
import type { HttpError } from '../../server/errors.js';
import { closePasswordPool } from '../../server/passwords.js';
import { ARGON2ID, everyForm, FIREBASE_SAMPLE, pbkdf2Form, saltedForm } from './importedHashesForms.js';

/**
 * Imported password hashes (docs/CONSOLE.md, "Imported password hashes"): every stored form an
 * import file may carry is read, its costs bounded (a hostile file must not make one sign-in hold a
 * password thread for long or take much memory), and checked on the password threads with its own
 * library; anything else never matches and never throws.
 */
afterAll(() => closePasswordPool());

const PASSWORD = 'moving in from elsewhere 1';

/** What checkImportedHash throws for `hash`: its status and sentence. */
function refusal(hash: string): { statusCode: number; message: string } {
  try {
    checkImportedHash(hash);
  } catch (error) {
    return { statusCode: (error as HttpError).statusCode, message: (error as Error).message };
  }
  throw new Error(`accepted: ${hash}`);
}

const A43 = 'A'.repeat(43);
const SALT = 'c2FsdHNhbHRzYWx0';

describe('checkImportedHash', () => {
  it('reads every stored form, and asks for a new password after MD5 only', async () => {
    const forms = await everyForm(PASSWORD);
    const formats = Object.fromEntries(Object.entries(forms).map(([name, hash]) => [name, checkImportedHash(hash)]));
    expect(formats).toEqual({
      'bcrypt cost 8 ($2b$)': { format: 'bcrypt', requireChange: false },
      'bcrypt cost 10 ($2y$, PHP)': { format: 'bcrypt', requireChange: false },
      argon2id: { format: 'argon2id', requireChange: false },
      argon2i: { format: 'argon2i', requireChange: false },
      scrypt: { format: 'scrypt', requireChange: false },
      'pbkdf2-sha256': { format: 'pbkdf2-sha256', requireChange: false },
      'pbkdf2-sha512': { format: 'pbkdf2-sha512', requireChange: false },
      'sha256 (salt first)': { format: 'sha256', requireChange: false },
      'sha512 (salt last)': { format: 'sha512', requireChange: false },
      md5: { format: 'md5', requireChange: true },
    });
    expect(checkImportedHash(FIREBASE_SAMPLE.hash)).toEqual({ format: 'firebase-scrypt', requireChange: false });
    // base64 as other tools write it: URL-safe, unpadded, passlib's '.' for '+'
    const salt = Buffer.from('fb+/salt?>'); // encodes with '+' and '/'
    const digest = crypto.pbkdf2Sync(PASSWORD, salt, 1000, 32, 'sha256');
    for (const encode of [(b: Buffer) => b.toString('base64url'), (b: Buffer) => b.toString('base64').replace(/=+$/, '').replace(/\+/g, '.')]) {
      const hash = `$pbkdf2-sha256$i=1000$${encode(salt)}$${encode(digest)}`;
      expect(checkImportedHash(hash).format).toBe('pbkdf2-sha256');
      expect(await verifyStoredPassword(PASSWORD, hash)).toBe(true);
    }
    // an empty salt is an unsalted digest
    expect(checkImportedHash(`$sha256$prefix$$${crypto.createHash('sha256').update(PASSWORD).digest('hex')}`).format).toBe('sha256');
  });

  it.each([
    ['bcrypt below cost 4', `$2b$03$${'a'.repeat(53)}`, 'cost must be 4 to 14'],
    ['bcrypt above cost 14', `$2b$15$${'a'.repeat(53)}`, 'cost must be 4 to 14'],
    ['bcrypt cut short', `$2b$10$${'a'.repeat(50)}`, '(bcrypt) must be'],
    ['argon2id of more than 256 MiB', `$argon2id$v=19$m=262145,t=1,p=1$${SALT}$${A43}`, 'm must be at most 262144 KiB'],
    ['argon2id of more than 10 passes', `$argon2id$v=19$m=65536,t=11,p=1$${SALT}$${A43}`, 't must be at most 10'],
    ['argon2i of more than 8 lanes', `$argon2i$v=19$m=65536,t=3,p=9$${SALT}$${A43}`, 'p must be at most 8'],
    ['argon2id of 4 GiB', `$argon2id$v=19$m=4294967295,t=1,p=1$${SALT}$${A43}`, 'm must be at most'],
    ['argon2id without its hash', `$argon2id$v=19$m=65536,t=3,p=1$${SALT}`, 'PHC string'],
    ['argon2d (not a form we take)', `$argon2d$v=19$m=65536,t=3,p=1$${SALT}$${A43}`, 'must be one of the stored forms'],
    ['scrypt of N = 2^21', `$scrypt$ln=21,r=1,p=1$${SALT}$${A43}`, 'ln must be 1 to 20'],
    ['scrypt of 1 GiB (2^20, r=8)', `$scrypt$ln=20,r=8,p=1$${SALT}$${A43}`, 'at most 256 MiB'],
    ['scrypt of too much work (p=4)', `$scrypt$ln=17,r=8,p=4$${SALT}$${A43}`, 'its work'],
    ['scrypt with a parameter twice', `$scrypt$ln=14,r=8,r=1,p=1$${SALT}$${A43}`, 'needs its parameters ln, r, p'],
    ['scrypt without p', `$scrypt$ln=14,r=8$${SALT}$${A43}`, 'needs p'],
    ['scrypt with a salt that is not base64', `$scrypt$ln=14,r=8,p=1$not*base64$${A43}`, 'the salt must be base64'],
    ['scrypt of a 600-byte output', `$scrypt$ln=14,r=8,p=1$${SALT}$${'A'.repeat(800)}`, 'the hash must be 16 to 128 bytes'],
    ['a string of more than 1024 characters', `$scrypt$ln=14,r=8,p=1$${SALT}$${'A'.repeat(1100)}`, 'at most 1024 characters'],
    ['pbkdf2 of more than 2,000,000 iterations', `$pbkdf2-sha512$i=2000001$${SALT}$${A43}`, 'i must be 1 to 2000000'],
    ['pbkdf2 of two blocks of 1,500,000', `$pbkdf2-sha256$i=1500000$${SALT}$${'A'.repeat(86)}`, 'blocks must be at most 2000000'],
    ['pbkdf2 of no iteration', `$pbkdf2-sha256$i=0$${SALT}$${A43}`, 'i must be 1 to 2000000'],
    ['pbkdf2 in passlib\'s rounds-only form', `$pbkdf2-sha256$29000$${SALT}$${A43}`, 'needs its parameters i'],
    ['firebase of 17 rounds', FIREBASE_SAMPLE.hash.replace('rounds=8', 'rounds=17'), 'rounds must be 1 to 16'],
    ['firebase of mem 17', FIREBASE_SAMPLE.hash.replace('mem=14', 'mem=17'), 'mem must be 1 to 16'],
    ['firebase with a short hash', FIREBASE_SAMPLE.hash.replace(/\$[^$]+$/, `$${A43}`), 'as long as the signer key'],
    ['firebase without its separator', FIREBASE_SAMPLE.hash.replace('$Bw==', ''), '(firebase-scrypt) must be'],
    ['md5 of the wrong length', `$md5$prefix$${SALT}$${'ab'.repeat(17)}`, '32 hexadecimal digits'],
    ['sha256 with the salt in the middle', `$sha256$middle$${SALT}$${'ab'.repeat(32)}`, '<prefix|suffix>'],
    ['sha1 (not a form we take)', `$sha1$prefix$${SALT}$${'ab'.repeat(20)}`, 'must be one of the stored forms'],
    ['a plain password', 'hunter2', 'must be one of the stored forms'],
    ['an empty string', '', 'must be one of the stored forms'],
    ['dollars only', '$$$$', 'must be one of the stored forms'],
  ])('refuses %s with a 400 naming passwordHash (never repeating the hash)', (_name, hash, sentence) => {
    const { statusCode, message } = refusal(hash);
    expect(statusCode).toBe(400);
    expect(message).toMatch(/^passwordHash\b/);
    expect(message).toContain(sentence);
    if (hash.length > 20) expect(message).not.toContain(hash.slice(-20));
  });
});

it('gives each refusal a code and what its sentence names (docs/CONSOLE.md, "Errors and messages")', () => {
  const coded = (hash: string) => {
    try {
      checkImportedHash(hash);
    } catch (error) {
      return { code: (error as HttpError).code, params: (error as HttpError).params };
    }
    throw new Error(`accepted: ${hash}`);
  };
  expect(coded(`$2b$03$${'a'.repeat(53)}`)).toEqual({ code: 'importedHash.bcryptCost', params: { min: 4, max: 14 } });
  expect(coded(`$scrypt$ln=14,r=8,p=1$not*base64$${A43}`)).toEqual({ code: 'importedHash.notBase64', params: { format: 'scrypt', part: 'salt' } });
  expect(coded(`$pbkdf2-sha512$i=2000001$${SALT}$${A43}`)).toEqual({ code: 'importedHash.outOfRange', params: { format: 'pbkdf2-sha512', name: 'i', min: 1, max: 2000000 } });
  expect(coded('hunter2')).toMatchObject({ code: 'importedHash.unknownForm', params: { formats: expect.stringContaining('argon2id') } });
});

describe('verifyStoredPassword', () => {
  it('checks the right password in every form, and no other', async () => {
    const forms = await everyForm(PASSWORD);
    for (const [name, hash] of Object.entries(forms)) {
      expect(await verifyStoredPassword(PASSWORD, hash), name).toBe(true);
      expect(await verifyStoredPassword(`${PASSWORD}!`, hash), name).toBe(false);
      expect(await verifyStoredPassword('', hash), name).toBe(false);
    }
  });

  it("checks Firebase's published sample (github.com/firebase/scrypt)", async () => {
    expect(await verifyStoredPassword(FIREBASE_SAMPLE.password, FIREBASE_SAMPLE.hash)).toBe(true);
    expect(await verifyStoredPassword('user1Password', FIREBASE_SAMPLE.hash)).toBe(false);
    // another salt separator is another hash
    expect(await verifyStoredPassword(FIREBASE_SAMPLE.password, FIREBASE_SAMPLE.hash.replace('$Bw==', '$CA=='))).toBe(false);
  });

  it('tells the salt first from the salt last, and passwords of other characters', async () => {
    const hash = saltedForm('pässwörd ✓', 'sha512', 'prefix');
    expect(await verifyStoredPassword('pässwörd ✓', hash)).toBe(true);
    expect(await verifyStoredPassword('pässwörd ✓', hash.replace('$prefix$', '$suffix$'))).toBe(false);
  });

  it('never matches (and never throws) for a form out of bounds or broken, written to the database by other means', async () => {
    const started = performance.now();
    const hostile = [
      // these would hold a thread for minutes or take gigabytes, were they checked
      `$argon2id$v=19$m=4194304,t=1000,p=1$${SALT}$${A43}`,
      `$scrypt$ln=30,r=8,p=1$${SALT}$${A43}`,
      `$pbkdf2-sha512$i=4000000000$${SALT}$${A43}`,
      `$2b$31$${'a'.repeat(53)}`,
      FIREBASE_SAMPLE.hash.replace('rounds=8,mem=14', 'rounds=1000,mem=30'),
      // broken
      `$argon2id$v=19$m=65536,t=3,p=1$${SALT}$!!!`,
      'not a hash',
      '',
    ];
    for (const hash of hostile) expect(await verifyStoredPassword(PASSWORD, hash), hash).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('re-hashes every form but the provider\'s bcrypt of cost 10 or more', async () => {
    const forms = await everyForm(PASSWORD);
    const rehashed = Object.entries(forms).filter(([, hash]) => needsRehash(hash)).map(([name]) => name);
    expect(rehashed).toEqual(Object.keys(forms).filter((name) => name !== 'bcrypt cost 10 ($2y$, PHP)'));
    expect(needsRehash(FIREBASE_SAMPLE.hash)).toBe(true);
  });
});

describe('passwordMatches', () => {
  it('takes at least a bcrypt check for a cheap imported form, as for nobody: timing does not tell who was imported', async () => {
    const user = (passwordHash: string | null) =>
      ({ id: 'u', companyId: 'c', domainId: 'd', subject: 's', username: 'u', displayName: 'u', email: 'u@x', passwordHash, emailVerified: false, blocked: false, requiredActions: [] }) as KnownUser;
    const md5 = user(saltedForm(PASSWORD, 'md5', 'prefix'));
    expect(await passwordMatches(md5, PASSWORD)).toBe(true);
    expect(await passwordMatches(md5, 'wrong')).toBe(false);
    /** The shortest of five checks (the machine is shared: the shortest is the check's own cost). */
    const shortest = async (check: () => Promise<boolean>) => {
      let least = Infinity;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await check();
        least = Math.min(least, performance.now() - started);
      }
      return least;
    };
    const nobody = await shortest(() => passwordMatches(undefined, 'wrong'));
    const imported = await shortest(() => passwordMatches(md5, 'wrong'));
    const digestOnly = await shortest(() => verifyStoredPassword('wrong', md5.passwordHash!));
    expect(imported).toBeGreaterThan(nobody * 0.6);
    expect(imported).toBeGreaterThan(digestOnly * 5);
  });
});

describe('the event loop keeps turning', () => {
  /**
   * Looser than eventLoop.test.ts's 100 ms: these checks take 5 to 15 s of a shared machine, long
   * enough to meet a scheduler's hiccup, and each frees 256 MiB, which holds the process's memory
   * map for a moment. On the event loop the same work would stall it for seconds (one argon2id of
   * 256 MiB and 10 passes is about a second of a core), and the loop would be busy all along.
   */
  const STALL_LIMIT_MS = 250;

  /** The longest stall of the event loop while `work` runs (tests/server/eventLoop.test.ts). */
  async function loopDuring(work: () => Promise<unknown>): Promise<{ stallMs: number; busy: number; tookMs: number }> {
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    const before = performance.eventLoopUtilization();
    const started = performance.now();
    await work();
    const tookMs = performance.now() - started;
    const busy = performance.eventLoopUtilization(before).utilization;
    histogram.disable();
    return { stallMs: histogram.max / 1e6, busy, tookMs };
  }

  it('while the costliest argon2id and scrypt allowed are checked, with a wrong password too', async () => {
    // the bounds' corners: argon2 256 MiB, 10 passes, 8 lanes; scrypt 256 MiB (2^18, r=8) and work 2^21
    const argon2 = await argon2Hash(PASSWORD, { algorithm: ARGON2ID, memoryCost: 262_144, timeCost: 10, parallelism: 8 });
    // (made off the event loop too: scryptSync of 256 MiB here would be the stall measured below)
    const salt = crypto.randomBytes(16);
    const derived = await new Promise<Buffer>((resolve, reject) =>
      crypto.scrypt(PASSWORD, salt, 32, { N: 2 ** 18, r: 8, p: 1, maxmem: 300 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
    );
    const scrypt = `$scrypt$ln=18,r=8,p=1$${salt.toString('base64')}$${derived.toString('base64')}`;
    const pbkdf2 = pbkdf2Form(PASSWORD, 'sha512', 200_000);
    expect(checkImportedHash(argon2).format).toBe('argon2id');
    expect(checkImportedHash(scrypt).format).toBe('scrypt');
    // the password threads started, as a running server's are (starting them is the server's start)
    expect(await verifyStoredPassword(PASSWORD, pbkdf2)).toBe(true);
    const { stallMs, busy, tookMs } = await loopDuring(async () => {
      const answers = [];
      // one after the other: each alone holds 256 MiB and a core (a storm of them: eventLoop.test.ts's bcrypt)
      for (const [password, hash] of [[PASSWORD, argon2], ['wrong', argon2], [PASSWORD, scrypt], [PASSWORD, pbkdf2]]) answers.push(await verifyStoredPassword(password, hash));
      expect(answers).toEqual([true, false, true, true]);
    });
    expect(tookMs).toBeGreaterThan(STALL_LIMIT_MS * 4);
    expect(stallMs).toBeLessThan(STALL_LIMIT_MS);
    expect(busy).toBeLessThan(0.5);
  });
});
