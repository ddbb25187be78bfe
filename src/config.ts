/**
 * Console configuration, read from Vite's import.meta.env with same-origin defaults
 * (the provider serves the console, the API and the authorization server on one origin).
 */
const env = import.meta.env;

export const config = {
  apiBase: (env.VITE_API_BASE as string | undefined) ?? '/api',
  authServer: (env.VITE_AUTH_SERVER as string | undefined) ?? '/oauth',
  clientId: (env.VITE_CLIENT_ID as string | undefined) ?? 'iam-console',
  /** A public client has no secret; only a configured secret adds the Basic header (DESIGN 5). */
  clientSecret: (env.VITE_CLIENT_SECRET as string | undefined) ?? '',
  scope: 'openid username email email_verified user:admin',
};

export const redirectUri = () => `${window.location.origin}/callback`;
