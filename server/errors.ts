/** What an error sentence names, for the console's translation of its code. */
export type ErrorParams = Record<string, string | number>;

/**
 * The one error shape of the API: { statusCode, error, message, code, params? } (docs/CONSOLE.md,
 * "Errors and messages"). `message` is the English sentence (logs, scripts); `code` a stable
 * identifier the console translates with `params`; without one, the status's (codeForStatus).
 */
export class HttpError extends Error {
  code?: string;
  params?: ErrorParams;
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** Gives the error its code and what the sentence names: `throw badRequest('…').as('x', { field })`. */
  as(code: string, params?: ErrorParams): this {
    this.code = code;
    this.params = params;
    return this;
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Sign-in required: send a valid bearer access token') =>
  new HttpError(401, message, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (message = 'This call needs the user:admin scope') => new HttpError(403, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`).as('not_found', { what });
/** The duplicate wording of docs/CONSOLE.md, "Errors and messages", shown as-is by the console. */
export const duplicated = (name: string) => new HttpError(409, `duplicated error: ${name} already exist!`).as('duplicate', { name });

const reasons: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
export const reasonPhrase = (status: number) => reasons[status] ?? 'Error';

const statusCodes: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'unavailable',
};
/** The generic code of an error that has no specific one. */
export const codeForStatus = (status: number) => statusCodes[status] ?? (status >= 500 ? 'internal' : 'error');

/** What a 503 says, with Retry-After: RETRY_AFTER_SECONDS. */
export const UNAVAILABLE_MESSAGE = 'The database cannot be reached at the moment. Please try again in a few seconds.';
export const RETRY_AFTER_SECONDS = '2';

/** Connection-level errors: node's socket errors and PostgreSQL's connection classes. */
const LOST_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);
const LOST_MESSAGES = /Connection terminated|Connection ended unexpectedly|timeout exceeded when trying to connect|connection error and is not queryable|embedded database stopped|database connection lost/i;

/**
 * A lost or refused database connection (a restart, a failover, the server down): nothing the
 * client sent is wrong, and the same request may well work in a moment, so it is answered 503 with
 * Retry-After rather than a bare 500 (docs/OPERATIONS.md, "Database connections").
 */
export function databaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && (LOST_CODES.has(code) || code.startsWith('08'))) return true;
  return LOST_MESSAGES.test(message ?? '');
}

/** PostgreSQL error codes a client can provoke, and the status they deserve. */
export function statusForDatabaseError(error: unknown): { status: number; message: string; code: string } | undefined {
  const code = (error as { code?: string })?.code;
  const detail = (error as { detail?: string; message?: string }).detail ?? (error as Error).message;
  switch (code) {
    case '23505':
      return { status: 409, message: 'duplicated error: record already exist!', code: 'duplicate_record' };
    // a rule the database keeps whatever the path (migration 31: the provider's last Owner)
    case 'IA409':
      return { status: 409, message: (error as Error).message, code: 'last_owner' };
    case '23503':
      return { status: 400, message: `a referenced record does not exist (${detail})`, code: 'reference_missing' };
    case '23502':
    case '23514':
    case '22P02':
    case '22001':
    case '22003':
    case '22007':
    case '22008':
    // a time zone of +99:00, an interval or a cast out of range: all from the value a client sent
    case '22009':
    case '22015':
    case '22018':
    case '22021':
    case '22P05':
    case '22025':
    case '2201X':
    case '2201W':
    case '54000':
      return { status: 400, message: `invalid value: ${detail}`, code: 'invalid_value' };
    default:
      return databaseUnavailable(error) ? { status: 503, message: UNAVAILABLE_MESSAGE, code: 'unavailable' } : undefined;
  }
}

/** Runs a write; a unique violation becomes the duplicate 409 (docs/CONSOLE.md, "Errors and messages") naming the record. */
export async function uniqueAs<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: string })?.code === '23505') throw duplicated(name);
    throw error;
  }
}

/**
 * The 4xx a failure deserves, for the error handlers that shape their own answers (the sign-in
 * pages, the token endpoint): a status the error carries (HttpError, Fastify's 4xx), a schema
 * validation, or a value the database refused (statusForDatabaseError). Undefined: a server fault.
 */
export function clientError(error: unknown): { status: number; message: string } | undefined {
  const { statusCode, validation, message } = error as { statusCode?: number; validation?: unknown; message?: string };
  if (statusCode && statusCode >= 400 && statusCode < 500) return { status: statusCode, message: message ?? '' };
  if (validation) return { status: 400, message: message ?? '' };
  return statusForDatabaseError(error);
}

/** Ajv's keywords and the code each becomes (docs/CONSOLE.md, "Errors and messages"). */
const VALIDATION_CODES: Record<string, string> = {
  required: 'validation.required',
  format: 'validation.format',
  maxLength: 'validation.tooLong',
  minLength: 'validation.tooShort',
  pattern: 'validation.pattern',
  maximum: 'validation.tooLarge',
  exclusiveMaximum: 'validation.tooLarge',
  minimum: 'validation.tooSmall',
  exclusiveMinimum: 'validation.tooSmall',
  maxItems: 'validation.tooMany',
  minItems: 'validation.tooFew',
  enum: 'validation.choice',
  const: 'validation.choice',
  type: 'validation.type',
  additionalProperties: 'validation.unknownField',
};

interface AjvError {
  keyword: string;
  instancePath?: string;
  params?: Record<string, unknown>;
}

/**
 * The code and params of a schema validation (Fastify's error.validation, Ajv's errors, the first
 * one): `body/email must match format "idn-email"` is validation.format with { field: 'email',
 * format: 'idn-email' }. The field is the property's path without array indexes
 * (`/redirect_uris/3` is redirect_uris), else the part of the request (body, querystring).
 */
export function validationCode(validation: readonly AjvError[], context = 'body'): { code: string; params: ErrorParams } {
  const first = validation[0];
  if (!first) return { code: 'validation.invalid', params: { field: context } };
  const named = first.params?.missingProperty ?? first.params?.additionalProperty;
  const path = (first.instancePath ?? '').split('/').filter((part) => part && !/^\d+$/.test(part));
  if (typeof named === 'string') path.push(named);
  const params: ErrorParams = { field: path.join('.') || context };
  const limit = first.params?.limit;
  if (typeof limit === 'number' || typeof limit === 'string') params.limit = limit;
  if (typeof first.params?.format === 'string') params.format = first.params.format;
  if (typeof first.params?.type === 'string') params.type = first.params.type;
  return { code: VALIDATION_CODES[first.keyword] ?? 'validation.invalid', params };
}

/** The body of an API error: its status, English message, code and params, and the headers it carries. */
export interface ErrorAnswer {
  status: number;
  message: string;
  code: string;
  params?: ErrorParams;
  headers?: Record<string, string>;
}

/**
 * What the management API answers for an error (the error handler of server/app.ts): an HttpError
 * as it says, a schema validation (400, validationCode), a value the database refused
 * (statusForDatabaseError), Fastify's own 4xx (413, 415...), else a 500 that says nothing inside.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof HttpError) {
    return { status: error.statusCode, message: error.message, code: error.code ?? codeForStatus(error.statusCode), params: error.params, headers: error.headers };
  }
  const { validation, validationContext, statusCode, message } = error as { validation?: AjvError[]; validationContext?: string; statusCode?: number; message?: string };
  if (validation) return { status: 400, message: message ?? '', ...validationCode(validation, validationContext) };
  const database = statusForDatabaseError(error);
  if (database) return database;
  if (statusCode && statusCode >= 400 && statusCode < 500) return { status: statusCode, message: message ?? '', code: codeForStatus(statusCode) };
  return { status: 500, message: 'Internal error', code: 'internal' };
}
