import { domainToASCII } from 'node:url';
import type Ajv from 'ajv';

/** JSON-schema pieces shared by the management API routes (validation, serialization and OpenAPI). */

/** Ids that appear in paths: letters, digits, dot, dash, underscore; no path tricks. */
export const idPattern = '^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$';
export const id = { type: 'string', pattern: idPattern, maxLength: 128 } as const;
export const requiredText = (maxLength = 200) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S' }) as const;
export const optionalText = (maxLength = 2000) => ({ type: 'string', maxLength }) as const;
export const email = { type: 'string', format: 'idn-email', maxLength: 254 } as const;
export const status = { type: 'string', enum: ['active', 'deleted'] } as const;

export const idList = { type: 'array', items: id, minItems: 1, maxItems: 1000 } as const;

export const errorResponse = {
  type: 'object',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    // docs/CONSOLE.md, "Errors and messages": a stable code and what the sentence names
    code: { type: 'string' },
    params: { type: 'object', additionalProperties: true },
  },
} as const;

export const errorResponses = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 409: errorResponse } as const;

export const params = (...names: string[]) =>
  ({ type: 'object', required: names, properties: Object.fromEntries(names.map((name) => [name, id])) }) as const;

/** RFC 5322 atext, plus any non-ASCII character but controls, separators (spaces) and lone surrogates (RFC 6532). */
const ATOM = "(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\p{ASCII}\\p{Cc}\\p{Z}\\p{Cs}])+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
/** A host name in its ASCII (A-label) form, at least two labels. */
const ASCII_DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * An email address as RFC 6531/6532 allow it: a dot-atom local part that may hold UTF-8 (josé,
 * 用户) and a domain that may be internationalized (例子.广告, exämple.com) or already in A-labels
 * (xn--bcher-kva.example). At most 64 octets before the @ and 254 in all (UTF-8). Quoted local
 * parts and address literals are not accepted; neither were they by the ASCII format before.
 */
export function isEmailAddress(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at < 1 || Buffer.byteLength(text) > 254) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (Buffer.byteLength(local) > 64 || !LOCAL_PART.test(local)) return false;
  // domainToASCII applies IDNA (UTS 46) and answers '' for a name it cannot convert
  return /^[^\p{Cc}\p{Z}%/\\@:?#[\]]+$/u.test(domain) && ASCII_DOMAIN.test(domainToASCII(domain));
}

/** ajv plugin (Fastify's ajv.plugins): the `idn-email` format, which ajv-formats does not provide. */
export function emailFormats(ajv: Ajv): Ajv {
  return ajv.addFormat('idn-email', { type: 'string', validate: isEmailAddress });
}
