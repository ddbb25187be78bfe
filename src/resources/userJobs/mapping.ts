/**
 * The column mapping of an import (docs/CONSOLE.md, "Import and export"): which of the contract's
 * row fields each source column (a CSV header, a JSON Lines key) fills, guessed from its name.
 */
import type { FileFormat } from './api';

/** The fields an imported row may carry, in the order the screen offers them. */
export const ROW_FIELDS = [
  'email',
  'username',
  'displayName',
  'id',
  'externalId',
  'emailVerified',
  'status',
  'blocked',
  'requiredActions',
  'notes',
  'passwordHash',
  'groups',
] as const;
export type RowField = (typeof ROW_FIELDS)[number];

/** A source column's name, compared without case, spaces or punctuation ("E-mail Address" as "emailaddress"). */
const plain = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The names other providers' exports use for each field (Auth0, Okta, Entra ID, Keycloak, Firebase,
 * Cognito), compared plainly. The other provider's own id is an external id here: an account's id is
 * the provider's.
 */
const NAMES: Readonly<Record<RowField, readonly string[]>> = {
  id: ['id'],
  username: ['username', 'login', 'userprincipalname', 'upn', 'preferredusername', 'samaccountname', 'nickname', 'cognitousername'],
  displayName: ['displayname', 'name', 'fullname', 'cn', 'commonname'],
  email: ['email', 'emailaddress', 'mail', 'primaryemail', 'emails'],
  emailVerified: ['emailverified', 'verified', 'isemailverified', 'verifiedemail'],
  status: ['status', 'state', 'accountstatus'],
  blocked: ['blocked', 'disabled', 'locked', 'suspended', 'isblocked'],
  requiredActions: ['requiredactions'],
  notes: ['notes', 'note', 'comment', 'comments', 'description'],
  externalId: ['externalid', 'userid', 'objectid', 'immutableid', 'uid', 'sub', 'localid', 'oktaid', 'auth0id'],
  passwordHash: ['passwordhash', 'hash', 'pwdhash', 'hashedpassword', 'passwordhashed', 'custompasswordhash', 'credentialshash'],
  groups: ['groups', 'group', 'memberof', 'groupnames'],
};

const BY_NAME = new Map(Object.entries(NAMES).flatMap(([field, names]) => names.map((name) => [name, field as RowField])));

/** The field a column's name suggests, if any. */
export function guessField(column: string): RowField | undefined {
  return BY_NAME.get(plain(column));
}

/**
 * A column named exactly as a field: the provider reads it as that field unless it is mapped to
 * another, so it cannot be left out (docs/CONSOLE.md, "Import and export").
 */
export const isFieldName = (column: string): column is RowField => (ROW_FIELDS as readonly string[]).includes(column);

/**
 * A mapping per column, '' for a column left out: a column named as a field keeps it, then a field
 * goes to the first other column that suggests it.
 */
export function guessMapping(columns: readonly string[]): Record<string, RowField | ''> {
  const taken = new Set<RowField>(columns.filter(isFieldName));
  return Object.fromEntries(
    columns.map((column) => {
      if (isFieldName(column)) return [column, column];
      const field = guessField(column);
      if (!field || taken.has(field)) return [column, ''];
      taken.add(field);
      return [column, field];
    }),
  );
}

/** What the provider is sent: the mapped columns only. */
export function mappingToSend(mapping: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(mapping).filter(([, field]) => field !== ''));
}

/** Fields chosen for more than one column (the import would not know which to take). */
export function duplicateFields(mapping: Record<string, string>): string[] {
  const seen = new Map<string, number>();
  for (const field of Object.values(mapping)) if (field) seen.set(field, (seen.get(field) ?? 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([field]) => field);
}

/** The format a file's name says (JSON Lines for .jsonl, .ndjson and .json), CSV otherwise. */
export function formatOf(fileName: string): FileFormat {
  return /\.(jsonl|ndjson|json)$/i.test(fileName) ? 'jsonl' : 'csv';
}
