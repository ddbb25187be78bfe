/**
 * Multi-line URI fields (docs/CONSOLE.md, "Applications") are split on line breaks into lists. The checks mirror the
 * provider's own (server/api/applications.ts) so mistakes show beside the field before saving.
 */

export type UriKind = 'uri' | 'origin';

/** The text area's lines as a list; blank lines and surrounding spaces are dropped on save. */
export function splitLines(text: string | undefined | null): string[] {
  return (text ?? '').split(/\r\n|\r|\n/);
}

export function cleanUriList(list: readonly string[] | undefined | null): string[] {
  return (list ?? []).map((entry) => entry.trim()).filter(Boolean);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/** Why one URI is unacceptable (a translation key and its arguments), or undefined when it is fine. */
export function uriProblem(raw: string, kind: UriKind, appType?: string): string | undefined {
  if (/\s/.test(raw)) return 'iam.uris.spaces';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'iam.uris.notAbsolute';
  }
  if (raw.includes('#')) return 'iam.uris.fragment';
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username || url.password) return 'iam.uris.credentials';
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'iam.uris.https';
    if (kind === 'origin' && (url.pathname !== '/' || raw.includes('?'))) return 'iam.uris.origin';
    return undefined;
  }
  if (kind === 'origin') return 'iam.uris.origin';
  if (UNSAFE_SCHEMES.has(url.protocol)) return 'iam.uris.unsafe';
  if (appType !== 'native') return 'iam.uris.customScheme';
  return undefined;
}

/** The first bad entry of a list with the reason, or undefined. */
export function firstUriProblem(
  list: readonly string[] | undefined,
  kind: UriKind,
  appType?: string,
): { uri: string; problem: string } | undefined {
  for (const uri of cleanUriList(list)) {
    const problem = uriProblem(uri, kind, appType);
    if (problem) return { uri, problem };
  }
  return undefined;
}
