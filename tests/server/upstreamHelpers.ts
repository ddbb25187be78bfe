import { PUBLIC_URL } from './helpers.js';
import { CONSOLE_REDIRECT, CookieJar } from './oauthHelpers.js';

/** Helpers of the upstream sign-in tests (upstreamOidc, upstreamPresets): a browser at the IdP and what our server answered. */

const unescape = (value: string) => value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'");

/** The IdP's side of a browser: follows its redirects (its own cookies) until it sends the browser back to us. */
export async function throughIdp(url: string): Promise<string> {
  const jar = new CookieJar();
  let next = url;
  for (let hop = 0; hop < 15; hop++) {
    if (next.startsWith(PUBLIC_URL)) return next;
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.keep(response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (!location) throw new Error(`the IdP stopped at ${next}: ${response.status} ${await response.text()}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects at the IdP');
}

/** The address the "continue" page (the answer to a form post) sends the browser to. */
export function continueUrl(body: string): string {
  const match = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(body);
  if (!match) throw new Error(`no continue page: ${body.slice(0, 300)}`);
  return unescape(match[1]);
}

/** The console's form is told why (error_description of its redirect), as for a refused password. */
export const refusalOf = (end: { location?: URL }) =>
  end.location && end.location.href.startsWith(CONSOLE_REDIRECT) && end.location.searchParams.get('error') === 'access_denied' ? end.location.searchParams.get('error_description') : null;

export const codeOf = (end: { location?: URL }) => (end.location && end.location.href.startsWith(CONSOLE_REDIRECT) ? end.location.searchParams.get('code') : null);
