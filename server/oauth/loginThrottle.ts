import crypto from 'node:crypto';
import { safeEqual } from '../ids.js';

/**
 * Failed sign-in throttling (OWASP ASVS 2.2.1, RFC 9700 4.15): an account accepts at most
 * `perAccount` failed attempts per window, an address at most `perAddress`. A browser that has
 * signed in to the account before carries a device cookie and skips the account limit, so an
 * attacker hammering one account cannot lock its owner out (OWASP "device cookies").
 *
 * Counters live in memory: one process. Several processes behind a balancer each count on their own.
 */
export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_LIMITS: ThrottleLimits = { perAccount: 100, perAddress: 1000, windowMs: 60 * 60 * 1000 };

/** Fixed-window failure counters, swept of expired windows as they grow. */
class WindowCounter {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(
    private windowMs: number,
    private now: () => number,
  ) {}

  private current(key: string) {
    const window = this.windows.get(key);
    return window && this.now() - window.start < this.windowMs ? window : undefined;
  }

  /** Seconds until the window of `key` ends when it already holds `limit` failures, else 0. */
  waitSeconds(key: string, limit: number): number {
    const window = this.current(key);
    if (!window || window.count < limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - this.now()) / 1000));
  }

  add(key: string) {
    const window = this.current(key);
    if (window) window.count++;
    else {
      if (this.windows.size >= 10_000) this.sweep();
      this.windows.set(key, { start: this.now(), count: 1 });
    }
  }

  private sweep() {
    for (const [key, window] of this.windows) if (this.now() - window.start >= this.windowMs) this.windows.delete(key);
  }
}

export class LoginThrottle {
  private accounts: WindowCounter;
  private addresses: WindowCounter;

  constructor(
    private limits: ThrottleLimits = DEFAULT_LIMITS,
    now: () => number = Date.now,
  ) {
    this.accounts = new WindowCounter(limits.windowMs, now);
    this.addresses = new WindowCounter(limits.windowMs, now);
  }

  /** Seconds the caller must wait before another attempt is evaluated; 0 when it may go ahead. */
  retryAfter(account: string, address: string, trustedDevice: boolean): number {
    const addressWait = this.addresses.waitSeconds(address, this.limits.perAddress);
    const accountWait = trustedDevice ? 0 : this.accounts.waitSeconds(account, this.limits.perAccount);
    return Math.max(addressWait, accountWait);
  }

  recordFailure(account: string, address: string, trustedDevice: boolean) {
    this.addresses.add(address);
    if (!trustedDevice) this.accounts.add(account);
  }
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

  /** Does the request's Cookie header hold an unexpired device cookie of ours for `account`? */
  trusts(cookieHeader: string | undefined, account: string): boolean {
    for (const part of (cookieHeader ?? '').split(';')) {
      const [name, value] = part.trim().split('=', 2);
      if (name !== COOKIE || !value) continue;
      const [encodedAccount, expires, signature] = value.split('.');
      if (!signature) continue;
      const payload = `${encodedAccount}.${expires}`;
      if (!safeEqual(this.sign(payload), signature)) continue;
      if (Number(expires) * 1000 <= this.now()) continue;
      if (Buffer.from(encodedAccount, 'base64url').toString() === account) return true;
    }
    return false;
  }
}
