import fs from 'node:fs';
import bcryptjs from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { closePasswordPool, hashPassword, passwordThreads, verifyPassword } from '../../server/passwords.js';

afterAll(() => closePasswordPool());

/** The nice value of every thread of this process, from /proc (Linux). */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  });
}

describe('password hashing on the password threads', () => {
  it("shares the machine's password threads among the server processes", () => {
    expect(passwordThreads(1, 2)).toBe(4);
    expect(passwordThreads(1, 16)).toBe(16);
    expect(passwordThreads(16, 16)).toBe(2);
    expect(passwordThreads(3, 8)).toBe(3);
  });

  it('hashes with bcrypt at the cost asked and checks passwords against the hash', async () => {
    const hash = await hashPassword('correct horse', 10);
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horse ', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('never matches a hash that is not bcrypt, and keeps working after it', async () => {
    expect(await verifyPassword('not-a-bcrypt-hash', 'not-a-bcrypt-hash')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
    const hash = await hashPassword('after', 10);
    expect(await verifyPassword('after', hash)).toBe(true);
  });

  it("reads the hashes the console makes (bcryptjs), under each of bcrypt's names", async () => {
    const hash = bcryptjs.hashSync('from the console', 10);
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      expect(await verifyPassword('from the console', hash.replace(/^\$2.\$/, prefix)), prefix).toBe(true);
      expect(await verifyPassword('from the consolE', hash.replace(/^\$2.\$/, prefix)), prefix).toBe(false);
    }
  });

  it('tells apart passwords that differ after a NUL', async () => {
    const hash = await hashPassword('abc\0def');
    expect(await verifyPassword('abc\0def', hash)).toBe(true);
    expect(await verifyPassword('abc', hash)).toBe(false);
  });

  it('refuses to check a hash that costs more than 14 (cost 31 would hold a thread for a day and a half)', async () => {
    const hash = bcryptjs.hashSync('expensive', 10);
    // checked, this would not return before the test's timeout
    expect(await verifyPassword('expensive', hash.replace('$10$', '$31$'))).toBe(false);
    expect(await verifyPassword('expensive', hash)).toBe(true);
  });

  it('checks several passwords at once, each against its own hash', async () => {
    const hashes = await Promise.all(['a1', 'b2', 'c3'].map((password) => hashPassword(password)));
    const answers = await Promise.all(hashes.flatMap((hash, i) => [verifyPassword(['a1', 'b2', 'c3'][i], hash), verifyPassword('wrong', hash)]));
    expect(answers).toEqual([true, false, true, false, true, false]);
  });

  it.runIf(process.platform === 'linux')('runs bcrypt on threads below the priority of the event loop', async () => {
    await hashPassword('started');
    const own = Number(fs.readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ')[16]);
    expect(threadNiceValues()).toContain(Math.min(own + 10, 19));
    // the lowering is the password threads' own: this thread keeps its priority
    expect(Number(fs.readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ')[16])).toBe(own);
  });
});
