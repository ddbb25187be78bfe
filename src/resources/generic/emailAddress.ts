/**
 * The provider's `idn-email` rule (server/api/schemas.ts, isEmailAddress) for the browser, so a
 * form refuses exactly what the provider would refuse and accepts internationalized addresses
 * (josé@exämple.com, 用户@例子.广告) that type="email" and react-admin's email() would refuse.
 * The regular expressions are the provider's; emailAddress.test.ts runs both rules on one list.
 */

/** RFC 5322 atext, plus any non-ASCII character but controls, separators (spaces) and lone surrogates (RFC 6532). */
const ATOM = "(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\p{ASCII}\\p{Cc}\\p{Z}\\p{Cs}])+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
/** A host name in its ASCII (A-label) form, at least two labels. */
const ASCII_DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/**
 * Node's url.domainToASCII does this: the WHATWG URL host parser (IDNA, UTS 46) run by the
 * hostname setter of a `ws:` URL. A name it refuses leaves the placeholder `x`, which is one label
 * and so never passes ASCII_DOMAIN.
 */
function domainToASCII(domain: string): string {
  const url = new URL('ws://x');
  url.hostname = domain;
  return url.hostname;
}

export function isEmailAddress(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at < 1 || utf8Length(text) > 254) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (utf8Length(local) > 64 || !LOCAL_PART.test(local)) return false;
  return /^[^\p{Cc}\p{Z}%/\\@:?#[\]]+$/u.test(domain) && ASCII_DOMAIN.test(domainToASCII(domain));
}
