import { config } from '../config';
import { clearSession, getSession } from '../session/session';
import { readValidTokenCookie, removeTokenCookies } from './tokenCookie';

/** How long sign-out waits for the provider before leaving anyway: a dead network never traps anyone here. */
const END_SESSION_TIMEOUT_MS = 5000;

/**
 * Ends the console session: first at the provider (its end-session endpoint with the ID token as
 * id_token_hint revokes the sign-in, so the access token stops working at once), then here: the
 * session storage keys and the remember-me cookies go whatever the provider answered.
 * `idTokenHint` names a sign-in that never became a session (one without administrator rights).
 */
export async function signOut(idTokenHint?: string): Promise<void> {
  const idToken = idTokenHint ?? getSession().idToken ?? readValidTokenCookie()?.id_token;
  clearSession();
  removeTokenCookies();
  if (!idToken) return;
  try {
    await fetch(`${config.authServer}/logout`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ id_token_hint: idToken, client_id: config.clientId }).toString(),
      credentials: 'same-origin',
      // the page navigates away right after: let the request finish anyway
      keepalive: true,
      signal: AbortSignal.timeout(END_SESSION_TIMEOUT_MS),
    });
  } catch {
    // the local session is gone already; the provider's sign-in then ends with its token's lifetime
  }
}
