import { checkImportedHash } from '../accounts/importedHashes.js';
import { REQUIRED_ACTIONS } from '../accounts/requiredActions.js';
import { idPattern, isEmailAddress } from '../api/schemas.js';
import { badRequest } from '../errors.js';

/**
 * One row of an import file, read and checked as the users API checks a body (docs/CONSOLE.md,
 * "Import and export"): the fields below, CSV header names or JSON Lines keys, renamed first by the
 * job's mapping. A field left out (an empty CSV cell, a missing or null key) is not given: a new
 * user takes its default, an existing one keeps her value.
 */
export const ROW_FIELDS = ['id', 'username', 'displayName', 'email', 'emailVerified', 'status', 'blocked', 'requiredActions', 'notes', 'externalId', 'passwordHash', 'groups'] as const;
export type RowField = (typeof ROW_FIELDS)[number];

export interface ImportRow {
  /** Its number in the file: 1 for the first row after the CSV header, or the first line of JSON Lines. */
  n: number;
  id?: string;
  username: string;
  displayName: string;
  email: string;
  emailVerified?: boolean;
  status?: 'active' | 'deleted';
  blocked?: boolean;
  requiredActions?: string[];
  notes?: string;
  externalId?: string;
  passwordHash?: string;
  groups?: string[];
  /** Whether username and displayName were given (a default is not written over an existing user's value). */
  given: { username: boolean; displayName: boolean };
}

export interface RowError {
  n: number;
  field: string | null;
  message: string;
}

class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const ID = new RegExp(idPattern);
/** A cell a spreadsheet would run as a formula (OWASP "CSV Injection"), as the lists' CSV export defuses it (list.ts csvCell). */
export const FORMULA = /^[=+\-@\t\r]/;
const FORMULA_DEFUSED = /^'[=+\-@\t\r]/;
const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

function text(field: string, value: unknown, max: number, required = false): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new FieldError(field, `${field} must be text`);
  if (value.includes('\u0000')) throw new FieldError(field, `${field} must not contain the NUL character`);
  if (value.length > max) throw new FieldError(field, `${field} must be at most ${max} characters`);
  if (required && !/\S/.test(value)) throw new FieldError(field, `${field} must not be blank`);
  return value;
}

function bool(field: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const word = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (word !== undefined && TRUE.has(word)) return true;
  if (word !== undefined && FALSE.has(word)) return false;
  throw new FieldError(field, `${field} must be true or false (CSV: true, false, 1, 0, yes or no)`);
}

/** A list: a JSON array of texts, or texts separated by `;` (CSV). */
function list(field: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === 'string' ? value.split(';') : Array.isArray(value) ? value : undefined;
  if (!items || !items.every((item) => typeof item === 'string')) throw new FieldError(field, `${field} must be a list of texts (CSV: separated by ;)`);
  const trimmed = [...new Set(items.map((item) => item.trim()).filter(Boolean))];
  if (trimmed.length > 100) throw new FieldError(field, `${field} must list at most 100 values`);
  return trimmed;
}

/**
 * Reads one record (a CSV row by its header, or a JSON Lines object) into a checked row, or the
 * first field that is wrong, with its sentence. `mapping` renames source columns to fields.
 */
export function readRow(n: number, record: unknown, mapping: Record<string, string>, csv = false): ImportRow | RowError {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return { n, field: null, message: 'the line is not a JSON object' };
  const source = record as Record<string, unknown>;
  const raw: Partial<Record<RowField, unknown>> = {};
  for (const [key, value] of Object.entries(source)) {
    const field = (Object.hasOwn(mapping, key) ? mapping[key] : key) as RowField;
    if (!(ROW_FIELDS as readonly string[]).includes(field)) continue;
    // an empty cell or a null is a field not given
    if (value === null || value === undefined || value === '') continue;
    // a CSV export defuses a cell a spreadsheet would run as a formula with a leading quote: undone here
    const text = csv && typeof value === 'string' && FORMULA_DEFUSED.test(value) ? value.slice(1) : value;
    raw[field] = typeof text === 'string' && field !== 'notes' && field !== 'passwordHash' ? text.trim() : text;
  }
  try {
    const email = text('email', raw.email, 254);
    if (email === undefined) throw new FieldError('email', 'email is required');
    if (!isEmailAddress(email)) throw new FieldError('email', `email "${email.slice(0, 100)}" is not an e-mail address`);
    const id = text('id', raw.id, 128);
    if (id !== undefined && !ID.test(id)) throw new FieldError('id', 'id must be letters, digits, dot, dash, underscore or @ (at most 128, starting with a letter or digit)');
    const username = text('username', raw.username, 200, true);
    const displayName = text('displayName', raw.displayName, 200, true);
    const status = text('status', raw.status, 20);
    if (status !== undefined && status !== 'active' && status !== 'deleted') throw new FieldError('status', 'status must be active or deleted');
    const requiredActions = list('requiredActions', raw.requiredActions);
    const unknownAction = requiredActions?.find((action) => !(REQUIRED_ACTIONS as readonly string[]).includes(action));
    if (unknownAction !== undefined) throw new FieldError('requiredActions', `requiredActions: "${unknownAction.slice(0, 50)}" is none of ${REQUIRED_ACTIONS.join(', ')}`);
    const groups = list('groups', raw.groups);
    const badGroup = groups?.find((group) => !ID.test(group) || group.length > 128);
    if (badGroup !== undefined) throw new FieldError('groups', `groups: "${badGroup.slice(0, 50)}" is not a group name (letters, digits, dot, dash, underscore or @)`);
    const passwordHash = text('passwordHash', raw.passwordHash, 1000);
    const row: ImportRow = {
      n,
      ...(id !== undefined ? { id } : {}),
      username: username ?? email,
      displayName: displayName ?? username ?? email,
      email,
      emailVerified: bool('emailVerified', raw.emailVerified),
      status: status as ImportRow['status'],
      blocked: bool('blocked', raw.blocked),
      requiredActions,
      notes: text('notes', raw.notes, 2000),
      externalId: text('externalId', raw.externalId, 255),
      passwordHash,
      groups,
      given: { username: username !== undefined, displayName: displayName !== undefined },
    };
    if (passwordHash !== undefined) {
      let checked: { requireChange: boolean };
      try {
        checked = checkImportedHash(passwordHash);
      } catch (error) {
        throw new FieldError('passwordHash', (error as Error).message);
      }
      // a weak stored form (MD5): she chooses another password at her next sign-in
      if (checked.requireChange) row.requiredActions = [...new Set([...(row.requiredActions ?? []), 'change-password'])];
    }
    return row;
  } catch (error) {
    if (error instanceof FieldError) return { n, field: error.field, message: error.message };
    throw error;
  }
}

export const isRowError = (value: ImportRow | RowError): value is RowError => 'message' in value;

/** The mapping parameter: a JSON object of source column -> field; a 400 naming `mapping` otherwise (job.mapping*). */
export function parseMapping(text: string | undefined): Record<string, string> {
  if (text === undefined || text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('mapping must be a JSON object of source column to field').as('job.mappingNotObject');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('mapping must be a JSON object of source column to field').as('job.mappingNotObject');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 200) throw badRequest('mapping may rename at most 200 columns').as('job.mappingTooMany', { limit: 200 });
  for (const [from, to] of entries) {
    if (typeof to !== 'string' || !(ROW_FIELDS as readonly string[]).includes(to)) {
      throw badRequest(`mapping: "${from.slice(0, 50)}" maps to ${JSON.stringify(to)?.slice(0, 50)}, which is none of ${ROW_FIELDS.join(', ')}`).as('job.mappingUnknownField', {
        column: from.slice(0, 50),
        field: String(JSON.stringify(to)?.slice(0, 50)),
        fields: ROW_FIELDS.join(', '),
      });
    }
    if (from.length > 200 || from.includes('\u0000')) throw badRequest('mapping: a source column name is too long or holds NUL').as('job.mappingColumnName');
  }
  return value as Record<string, string>;
}
