/**
 * PKCE (RFC 7636, method S256) and the OAuth state, kept in sessionStorage between the native
 * form post to /oauth/login and the /callback that comes back.
 */

export const OAUTH_KEYS = {
  state: 'oauth.state',
  verifier: 'oauth.verifier',
  remember: 'oauth.remember',
  email: 'oauth.email',
  returnTo: 'oauth.returnTo',
} as const;

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function randomString(byteLength = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

export async function codeChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

export interface AuthorizationRequest {
  state: string;
  codeChallenge: string;
}

/** Creates and saves a fresh state and verifier; returns what the login form posts. */
export async function prepareAuthorizationRequest(): Promise<AuthorizationRequest> {
  const state = randomString(16);
  const verifier = randomString(32);
  sessionStorage.setItem(OAUTH_KEYS.state, state);
  sessionStorage.setItem(OAUTH_KEYS.verifier, verifier);
  return { state, codeChallenge: await codeChallenge(verifier) };
}

export function clearAuthorizationRequest(): void {
  sessionStorage.removeItem(OAUTH_KEYS.state);
  sessionStorage.removeItem(OAUTH_KEYS.verifier);
  sessionStorage.removeItem(OAUTH_KEYS.remember);
  sessionStorage.removeItem(OAUTH_KEYS.email);
}
