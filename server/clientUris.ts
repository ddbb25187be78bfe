/**
 * What an application's addresses may be (docs/CONSOLE.md, "Applications", URI rules): the one rule
 * for applications made in the console (server/api/applications.ts) and those that register
 * themselves (server/oauth/registration.ts), beneath both.
 */

export const APP_TYPES = ['SPA', 'web', 'native', 'machine'] as const;
export type AppType = (typeof APP_TYPES)[number];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/**
 * Why a redirect/logout URI, a web origin or a server endpoint (called by the provider itself, so
 * http(s) only) is unacceptable, or undefined when it is fine.
 */
export function uriProblem(raw: string, kind: 'uri' | 'origin' | 'endpoint', appType: AppType): string | undefined {
  if (/\s/.test(raw)) return 'must not contain spaces';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URI';
  }
  if (raw.includes('#')) return 'must not contain a fragment (#)';
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username || url.password) return 'must not contain user credentials';
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      return 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])';
    }
    if (kind === 'origin' && (url.pathname !== '/' || raw.includes('?'))) {
      return 'must be a bare origin: scheme://host[:port], without path or query';
    }
    return undefined;
  }
  if (kind === 'origin') return 'must be an http or https origin';
  if (kind === 'endpoint') return 'must be an http or https URL';
  if (UNSAFE_SCHEMES.has(url.protocol)) return `cannot use the ${url.protocol} scheme`;
  // RFC 8252: private-use schemes are how native apps receive their redirect; browsers' apps must not use them
  if (appType !== 'native') return `uses the custom scheme ${url.protocol}, which only native applications may use`;
  return undefined;
}
