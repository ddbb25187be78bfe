/**
 * What an application's addresses may be (docs/CONSOLE.md, "Applications", URI rules): the one rule
 * for applications made in the console (server/api/applications.ts) and those that register
 * themselves (server/oauth/registration.ts), beneath both.
 */

export const APP_TYPES = ['SPA', 'web', 'native', 'machine'] as const;
export type AppType = (typeof APP_TYPES)[number];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/** Why an address is refused: the sentence's ending, and its code for the management API's answer (docs/CONSOLE.md, "Errors and messages"). */
export interface UriProblem {
  text: string;
  code: string;
  scheme?: string;
}

/**
 * Why a redirect/logout URI, a web origin or a server endpoint (called by the provider itself, so
 * http(s) only) is unacceptable, or undefined when it is fine.
 */
export function uriProblem(raw: string, kind: 'uri' | 'origin' | 'endpoint', appType: AppType): string | undefined {
  return uriProblemOf(raw, kind, appType)?.text;
}

/** uriProblem with the code of each refusal. */
export function uriProblemOf(raw: string, kind: 'uri' | 'origin' | 'endpoint', appType: AppType): UriProblem | undefined {
  if (/\s/.test(raw)) return { text: 'must not contain spaces', code: 'spaces' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { text: 'is not an absolute URI', code: 'notAbsolute' };
  }
  if (raw.includes('#')) return { text: 'must not contain a fragment (#)', code: 'fragment' };
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username || url.password) return { text: 'must not contain user credentials', code: 'credentials' };
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      return { text: 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])', code: 'httpNotLoopback' };
    }
    if (kind === 'origin' && (url.pathname !== '/' || raw.includes('?'))) {
      return { text: 'must be a bare origin: scheme://host[:port], without path or query', code: 'notBareOrigin' };
    }
    return undefined;
  }
  if (kind === 'origin') return { text: 'must be an http or https origin', code: 'originScheme' };
  if (kind === 'endpoint') return { text: 'must be an http or https URL', code: 'endpointScheme' };
  if (UNSAFE_SCHEMES.has(url.protocol)) return { text: `cannot use the ${url.protocol} scheme`, code: 'unsafeScheme', scheme: url.protocol };
  // RFC 8252: private-use schemes are how native apps receive their redirect; browsers' apps must not use them
  if (appType !== 'native') return { text: `uses the custom scheme ${url.protocol}, which only native applications may use`, code: 'customScheme', scheme: url.protocol };
  return undefined;
}
