import crypto from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** n random letters and digits (docs/CONSOLE.md, "Constants": client id, client secret and API id are 32 of them). */
export function randomAlphanumeric(length = 32): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[crypto.randomInt(ALPHANUMERIC.length)];
  return out;
}

export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value).digest('base64url');
}

/** Constant-time comparison of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
