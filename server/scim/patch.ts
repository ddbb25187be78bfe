import { patchBodyValidation, type ScimPatchOperation, scimPatch } from 'scim-patch';
import { invalidSyntax, invalidValue, ScimError } from './errors.js';
import { PATCH_SCHEMA } from './common.js';

/**
 * PATCH (RFC 7644 "Modifying with PATCH") through scim-patch: the operations are checked, then
 * applied to the resource's SCIM representation; the caller writes the result back. The forms
 * provisioning clients send are taken as they come: Entra ID's capitalised ops ("Replace") and
 * path-less value objects, Okta's `{"op":"replace","value":{"active":false}}`.
 */

export const MAX_OPERATIONS = 100;

export function operationsOf(body: unknown): ScimPatchOperation[] {
  const request = body as { schemas?: unknown; Operations?: unknown } | undefined;
  if (!request || typeof request !== 'object' || !Array.isArray(request.schemas) || !request.schemas.includes(PATCH_SCHEMA)) {
    throw invalidSyntax(`schemas: a PATCH body names ${PATCH_SCHEMA}`);
  }
  const operations = (request as { Operations?: unknown }).Operations ?? (request as Record<string, unknown>).operations;
  if (!Array.isArray(operations) || operations.length === 0) throw invalidSyntax('Operations: a PATCH needs at least one operation');
  if (operations.length > MAX_OPERATIONS) throw invalidSyntax(`Operations: at most ${MAX_OPERATIONS} in one PATCH`);
  for (const [i, op] of operations.entries()) {
    if (!op || typeof op !== 'object' || typeof (op as { op?: unknown }).op !== 'string') throw invalidSyntax(`Operations[${i}].op: required (add, remove or replace)`);
    const path = (op as { path?: unknown }).path;
    if (path !== undefined && (typeof path !== 'string' || path.length > 1000)) throw invalidSyntax(`Operations[${i}].path: must be an attribute path`);
  }
  try {
    patchBodyValidation({ schemas: [PATCH_SCHEMA], Operations: operations } as never);
  } catch (error) {
    throw invalidSyntax((error as Error).message);
  }
  return (operations as ScimPatchOperation[]).map(expandExtensions);
}

/** An extension's URN: scim-patch splits a path-less value's keys at dots, which the URN's "2.0" has. */
const EXTENSION_URN = /^urn:ietf:params:scim:schemas:extension:[^:]+:\d+\.\d+:[A-Za-z]+$/i;

/**
 * A path-less value that names a whole extension (`{ "urn:…:enterprise:2.0:User": { "department": … } }`)
 * as one key per attribute (`"urn:…:enterprise:2.0:User:department"`), the form scim-patch reads.
 */
function expandExtensions(op: ScimPatchOperation): ScimPatchOperation {
  const value = (op as { path?: string; value?: unknown }).value;
  if ((op as { path?: string }).path || !value || typeof value !== 'object' || Array.isArray(value)) return op;
  const entries = Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
    EXTENSION_URN.test(key) && item && typeof item === 'object' && !Array.isArray(item) ? Object.entries(item).map(([name, inner]) => [`${key}:${name}`, inner] as const) : [[key, item] as const],
  );
  return { ...op, value: Object.fromEntries(entries) } as ScimPatchOperation;
}

/** The operations applied to a copy of `resource`. */
export function applyPatch<T extends Record<string, unknown>>(resource: T, operations: ScimPatchOperation[]): T {
  try {
    return scimPatch(resource as never, operations, { mutateDocument: false, treatMissingAsAdd: true }) as unknown as T;
  } catch (error) {
    if (error instanceof ScimError) throw error;
    const scimType = (error as { scimCode?: string }).scimCode;
    throw new ScimError(400, (error as Error).message || 'the PATCH cannot be applied', scimType && scimType !== 'invalidSyntax' ? scimType : 'invalidValue');
  }
}

/** The attribute names an operation touches at the top level (its path's first name, or its value's keys). */
export function touched(op: ScimPatchOperation): string[] {
  const path = (op as { path?: string }).path;
  if (path) return [path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i, '').split(/[.[]/)[0].toLowerCase()];
  const value = (op as { value?: unknown }).value;
  if (!value || typeof value !== 'object') throw invalidValue('value: a PATCH operation without a path takes an object of attributes');
  return Object.keys(value).map((key) => key.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i, '').split('.')[0].toLowerCase());
}
