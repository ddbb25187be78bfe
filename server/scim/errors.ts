import { HttpError, statusForDatabaseError } from '../errors.js';

/**
 * SCIM's error form (docs/CONSOLE.md, "Provisioning (SCIM)"): `{ schemas: [Error], status, scimType,
 * detail }`, status as a string. Every refusal of the SCIM server is one of these; a client's input
 * never gets a 5xx.
 */

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: string,
  ) {
    super(detail);
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
export const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter');
export const invalidSyntax = (detail: string) => new ScimError(400, detail, 'invalidSyntax');
export const notFound = (what: string) => new ScimError(404, `${what} not found`);
export const uniqueness = (detail: string) => new ScimError(409, detail, 'uniqueness');
export const mutability = (detail: string) => new ScimError(400, detail, 'mutability');

/** Any failure as SCIM's status, scimType and detail; undefined: a server fault (500, its detail hidden). */
export function asScimError(error: unknown): ScimError | undefined {
  if (error instanceof ScimError) return error;
  if (error instanceof HttpError) return new ScimError(error.statusCode, error.message, error.statusCode === 409 ? 'uniqueness' : undefined);
  const { statusCode, validation, message, code } = error as { statusCode?: number; validation?: unknown; message?: string; code?: string };
  if (code === '23505') return uniqueness('a user or group with this userName, e-mail address or name already exists in this domain');
  if (validation) return invalidSyntax(message ?? 'invalid request');
  if (statusCode && statusCode >= 400 && statusCode < 500) return new ScimError(statusCode, message ?? 'invalid request', statusCode === 413 ? 'tooMany' : statusCode === 400 ? 'invalidSyntax' : undefined);
  const database = statusForDatabaseError(error);
  if (database) return new ScimError(database.status, database.message, database.status === 400 ? 'invalidValue' : undefined);
  return undefined;
}

export function errorBody(error: ScimError) {
  return { schemas: [ERROR_SCHEMA], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.message };
}
