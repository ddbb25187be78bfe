/**
 * The remember-me cookies of docs/CONSOLE.md, "Callback" and "Constants": tokenJson (the token response plus its expiry time),
 * IsRemember and Email; each for 1 hour, Secure, SameSite=Strict.
 */
import Cookies from 'js-cookie';
import type { TokenResponse } from './types';

export const COOKIE_NAMES = { token: 'tokenJson', remember: 'IsRemember', email: 'Email' } as const;

const ONE_HOUR_IN_DAYS = 1 / 24;
export const COOKIE_OPTIONS = { expires: ONE_HOUR_IN_DAYS, secure: true, sameSite: 'Strict' } as const;

export interface StoredToken extends TokenResponse {
  /** Epoch milliseconds after which the access token is no longer valid. */
  expires_at: number;
}

export function writeRememberCookies(token: TokenResponse, email: string, now = Date.now()): void {
  const stored: StoredToken = { ...token, expires_at: now + token.expires_in * 1000 };
  Cookies.set(COOKIE_NAMES.token, JSON.stringify(stored), COOKIE_OPTIONS);
  Cookies.set(COOKIE_NAMES.remember, 'true', COOKIE_OPTIONS);
  Cookies.set(COOKIE_NAMES.email, email, COOKIE_OPTIONS);
}

export function removeTokenCookies(): void {
  for (const name of Object.values(COOKIE_NAMES)) Cookies.remove(name, { secure: true, sameSite: 'Strict' });
}

export function removeTokenCookie(): void {
  Cookies.remove(COOKIE_NAMES.token, { secure: true, sameSite: 'Strict' });
}

/**
 * The stored token when it exists and has not expired. An expired or unreadable cookie is
 * removed so the next visit starts clean.
 */
export function readValidTokenCookie(now = Date.now()): StoredToken | undefined {
  const raw = Cookies.get(COOKIE_NAMES.token);
  if (!raw) return undefined;
  try {
    const stored = JSON.parse(raw) as StoredToken;
    if (typeof stored.expires_at === 'number' && stored.expires_at > now && stored.access_token) return stored;
  } catch {
    // fall through: an unreadable cookie is as good as expired
  }
  removeTokenCookie();
  return undefined;
}
