import crypto from 'node:crypto';
import net from 'node:net';
import type { LoginLimits } from '../config.js';
import type { Queryable } from '../db/index.js';
import { safeEqual } from '../ids.js';
import { accountLimitsOf } from '../policies.js';

/**
 * Sign-in throttling (OWASP ASVS 2.2.1, RFC 9700 4.15), with counters in the database
 * (login_attempts, migration 9) so that every server process shares them and restarts keep them.
 *
 * - Failures: an account accepts `failuresPerAccount` per window, an address `failuresPerAddress`.
 *   An attempt is counted before its password is checked, in one atomic upsert per counter, and
 *   refunded when the password is right: many attempts at once, on any number of processes, cannot
 *   have more passwords checked than the limit allows.
 * - A browser that signed in to the account before carries a device cookie (OWASP "device
 *   cookies"): it skips the account and address limits, so an attacker cannot lock the owner out,
 *   and has its own failure counter (`failuresPerDevice`) past which it is a stranger again (a
 *   stolen cookie buys few guesses). Its failures still count on the address.
 * - Successes: at most `successesPerAccount` per account and `successesPerAddress` per address per
 *   success window (bulk use of stolen passwords; code minting).
 *
 * A window opens with a counter's first attempt and lasts its length; attempts refused during it do
 * not extend it.
 */

export type CounterKind = 'failed-account' | 'failed-address' | 'failed-device' | 'signed-in-account' | 'signed-in-address' | 'signed-up-address' | 'upstream-start-address' | 'link-mail-client-address' | 'link-mail-account';

interface Counter {
  kind: CounterKind;
  key: string;
}

/** What begin() counted for one attempt, to refund when its password turns out right. */
export interface Attempt {
  /** Seconds to wait before trying again; 0 when the password may be checked. */
  retryAfter: number;
  counted: Counter[];
}

export interface ThrottleOptions {
  now?: () => number;
  /** Chance that an attempt also purges a batch of expired counters (without waiting for it). */
  purgeChance?: number;
  log?: (message: string) => void;
}

const PURGE_BATCH = 500;

export class LoginThrottle {
  private now: () => number;
  private purgeChance: number;
  private log: (message: string) => void;

  constructor(
    private db: Queryable,
    private limits: LoginLimits,
    options: ThrottleOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.purgeChance = options.purgeChance ?? 0.02;
    this.log = options.log ?? (() => {});
  }

  /**
   * Adds one to each counter, atomically (a row lock per counter: concurrent attempts each get their
   * own count), opening a new window for counters whose window has ended. Returns each counter's
   * count and the seconds left in its window, in the order given.
   */
  /**
   * Counts one upstream sign-in started from this address (server/upstream/routes.ts): as many as
   * successful sign-ins an address may make (successesPerAddress in successWindowSeconds), since a
   * start is one sign-in on its way. Seconds to wait, 0 when allowed.
   */
  async upstreamStart(address: string): Promise<number> {
    const [ofAddress] = await this.add([{ kind: 'upstream-start-address', key: address }], this.limits.successWindowSeconds);
    return ofAddress.n > this.limits.successesPerAddress ? Math.max(1, ofAddress.secondsLeft) : 0;
  }

  async add(counters: Counter[], windowSeconds: number): Promise<{ n: number; secondsLeft: number }[]> {
    const now = this.now();
    const { rows } = await this.db.query<{ kind: string; key: string; n: number; expiresAt: number }>(
      `INSERT INTO login_attempts AS a (kind, key, n, expires_at)
       SELECT t.kind, t.key, 1, to_timestamp($1::float8 / 1000 + $2::int) FROM unnest($3::text[], $4::text[]) AS t(kind, key)
       ON CONFLICT (kind, key) DO UPDATE SET
         n = CASE WHEN a.expires_at > to_timestamp($1::float8 / 1000) THEN a.n + 1 ELSE 1 END,
         expires_at = CASE WHEN a.expires_at > to_timestamp($1::float8 / 1000) THEN a.expires_at ELSE excluded.expires_at END
       RETURNING a.kind, a.key, a.n, extract(epoch FROM a.expires_at)::float8 AS "expiresAt"`,
      [now, windowSeconds, counters.map((c) => c.kind), counters.map((c) => c.key)],
    );
    if (Math.random() < this.purgeChance) void this.purge().catch((error) => this.log(`purging sign-in counters failed: ${error.message}`));
    return counters.map((counter) => {
      const row = rows.find((r) => r.kind === counter.kind && r.key === counter.key)!;
      return { n: row.n, secondsLeft: Math.max(1, Math.ceil(row.expiresAt - now / 1000)) };
    });
  }

  /**
   * Counts an attempt on `account` from `address` before its password is checked. A trusted device
   * (`device`: its cookie's id) is counted on its own counter and on the address; anyone else on the
   * address first (a refused address does not count on the account), then on the account, with the
   * account limits of `tenant`'s security policy where it sets them (server/policies.ts).
   */
  async begin(account: string, address: string, device?: string, tenant?: { companyId: string; domainId: string }): Promise<Attempt> {
    const { failuresPerAccount, failuresPerAddress, failuresPerDevice, failureWindowSeconds: window } = this.limits;
    const onAddress: Counter = { kind: 'failed-address', key: address };
    const counted: Counter[] = [onAddress];
    let ofAddress: { n: number; secondsLeft: number };
    if (device) {
      const onDevice: Counter = { kind: 'failed-device', key: device };
      const [ofDevice, addressCount] = await this.add([onDevice, onAddress], window);
      counted.push(onDevice);
      if (ofDevice.n <= failuresPerDevice) return { retryAfter: 0, counted };
      ofAddress = addressCount;
    } else {
      [ofAddress] = await this.add([onAddress], window);
    }
    if (ofAddress.n > failuresPerAddress) return { retryAfter: ofAddress.secondsLeft, counted };
    const onAccount: Counter = { kind: 'failed-account', key: account };
    // one small read by primary key, only for attempts that reach the account's counter
    const ofDomain = tenant ? await accountLimitsOf(this.db, tenant, this.limits) : { failuresPerAccount, failureWindowSeconds: window };
    const [ofAccount] = await this.add([onAccount], ofDomain.failureWindowSeconds);
    counted.push(onAccount);
    return { retryAfter: ofAccount.n > ofDomain.failuresPerAccount ? ofAccount.secondsLeft : 0, counted };
  }

  /** The server's limits (an organization's policy may set its accounts' own: policies.ts accountLimitsOf). */
  limitsOfServer(): LoginLimits {
    return this.limits;
  }

  /**
   * Counts a sign-in that names no organization (organizationSearch.ts) on the login itself, across
   * every organization, before any password is checked, whoever it names (so a refusal says nothing
   * of who exists), and on each account it may prove (`accounts`): those past their own limit are
   * skipped, so that this door gives no more guesses at an account than its own. Returns the wait
   * (0: go on), what was counted (refunded by succeeded()), and the accounts still open.
   */
  async beginAnywhere(loginKey: string, accounts: { key: string; limits: { failuresPerAccount: number; failureWindowSeconds: number } }[]) {
    const onLogin: Counter = { kind: 'failed-account', key: loginKey };
    const [ofLogin] = await this.add([onLogin], this.limits.failureWindowSeconds);
    const counted: Counter[] = [onLogin];
    if (ofLogin.n > this.limits.failuresPerAccount) return { retryAfter: ofLogin.secondsLeft, counted, open: [] as string[] };
    const open: string[] = [];
    for (const account of accounts) {
      const counter: Counter = { kind: 'failed-account', key: account.key };
      const [ofAccount] = await this.add([counter], account.limits.failureWindowSeconds);
      counted.push(counter);
      if (ofAccount.n <= account.limits.failuresPerAccount) open.push(account.key);
    }
    return { retryAfter: 0, counted, open };
  }

  /**
   * The attempt's password was right: its failure counts are taken back, and it counts as a
   * success. Returns the seconds to wait when the account or address has signed in too often, else 0.
   */
  async succeeded(attempt: Attempt, account: string, address: string): Promise<number> {
    const { successesPerAccount, successesPerAddress, successWindowSeconds } = this.limits;
    const [, [ofAccount, ofAddress]] = await Promise.all([
      this.refund(attempt.counted),
      this.add(
        [
          { kind: 'signed-in-account', key: account },
          { kind: 'signed-in-address', key: address },
        ],
        successWindowSeconds,
      ),
    ]);
    return Math.max(ofAccount.n > successesPerAccount ? ofAccount.secondsLeft : 0, ofAddress.n > successesPerAddress ? ofAddress.secondsLeft : 0);
  }

  /**
   * Another kind of guess from `address` (a wrong device user code, RFC 8628 5.1): counted with the
   * address's failed sign-ins. Returns the seconds the address must now wait, else 0.
   */
  async guessedWrong(address: string): Promise<number> {
    const [ofAddress] = await this.add([{ kind: 'failed-address', key: address }], this.limits.failureWindowSeconds);
    return ofAddress.n > this.limits.failuresPerAddress ? ofAddress.secondsLeft : 0;
  }

  /** Seconds `address` must wait before its next guess, else 0 (counts nothing). */
  async addressWait(address: string): Promise<number> {
    const now = this.now();
    const { rows } = await this.db.query<{ n: number; expiresAt: number }>(
      `SELECT n, extract(epoch FROM expires_at)::float8 AS "expiresAt" FROM login_attempts
       WHERE kind = 'failed-address' AND key = $1 AND expires_at > to_timestamp($2::float8 / 1000)`,
      [address, now],
    );
    const row = rows[0];
    return row && row.n >= this.limits.failuresPerAddress ? Math.max(1, Math.ceil(row.expiresAt - now / 1000)) : 0;
  }

  /**
   * Two statements that lock the same two counters in opposite orders can deadlock on PostgreSQL;
   * the loser is rolled back whole and run again (db/index.ts retryConflicts).
   */
  private async refund(counters: Counter[]) {
    await this.db.query(
      `UPDATE login_attempts a SET n = a.n - 1 FROM unnest($1::text[], $2::text[]) AS t(kind, key)
       WHERE a.kind = t.kind AND a.key = t.key AND a.n > 0 AND a.expires_at > to_timestamp($3::float8 / 1000)`,
      [counters.map((c) => c.kind), counters.map((c) => c.key), this.now()],
    );
  }

  /** Deletes one batch of expired counters; small statements, so it never holds much up. */
  async purge(): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM login_attempts a USING (SELECT kind, key FROM login_attempts WHERE expires_at <= to_timestamp($1::float8 / 1000) LIMIT ${PURGE_BATCH}) old
       WHERE a.kind = old.kind AND a.key = old.key AND a.expires_at <= to_timestamp($1::float8 / 1000)`,
      [this.now()],
    );
    return rowCount;
  }
}

/**
 * The counter key of a client address. IPv6 hosts usually hold a whole /64 (and can pick any
 * address in it at will), so IPv6 addresses count by their /64 prefix; IPv4-mapped IPv6 addresses
 * count as the IPv4 address they carry.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (net.isIP(ip) !== 6) return ip;
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  // an embedded IPv4 tail (::a.b.c.d) fills two groups
  const rightGroups = right.length + (right.at(-1)?.includes('.') ? 1 : 0);
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const COOKIE = 'iam_device';
const LIFETIME_SECONDS = 90 * 24 * 60 * 60;

/** Signed cookies naming the account a browser has successfully signed in to. */
export class DeviceCookies {
  constructor(
    private secret: Buffer,
    private secure: boolean,
    private now: () => number = Date.now,
  ) {}

  private sign(payload: string) {
    return crypto.createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  /** The Set-Cookie value after a successful sign-in to `account`. */
  issue(account: string): string {
    const expires = Math.floor(this.now() / 1000) + LIFETIME_SECONDS;
    const payload = `${Buffer.from(account).toString('base64url')}.${expires}`;
    const attributes = [`Max-Age=${LIFETIME_SECONDS}`, 'Path=/oauth', 'HttpOnly', 'SameSite=Lax', ...(this.secure ? ['Secure'] : [])];
    return [`${COOKIE}=${payload}.${this.sign(payload)}`, ...attributes].join('; ');
  }

  /**
   * The id of the request's unexpired device cookie of ours for `account` (its signature: unique to
   * the cookie, and no secret since the browser holds it), or undefined.
   */
  deviceId(cookieHeader: string | undefined, account: string): string | undefined {
    for (const part of (cookieHeader ?? '').split(';')) {
      const [name, value] = part.trim().split('=', 2);
      if (name !== COOKIE || !value) continue;
      const [encodedAccount, expires, signature] = value.split('.');
      if (!signature) continue;
      const payload = `${encodedAccount}.${expires}`;
      if (!safeEqual(this.sign(payload), signature)) continue;
      if (Number(expires) * 1000 <= this.now()) continue;
      if (Buffer.from(encodedAccount, 'base64url').toString() === account) return signature;
    }
    return undefined;
  }

  /** Does the request's Cookie header hold an unexpired device cookie of ours for `account`? */
  trusts(cookieHeader: string | undefined, account: string): boolean {
    return this.deviceId(cookieHeader, account) !== undefined;
  }
}
