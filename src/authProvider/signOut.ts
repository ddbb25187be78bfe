import { clearSession } from '../session/session';
import { removeTokenCookies } from './tokenCookie';

/** Ends the console session: the session storage keys and the remember-me cookies go. */
export function signOut(): void {
  clearSession();
  removeTokenCookies();
}
