import type { Queryable } from '../db/index.js';
import { ScimError } from './errors.js';

export interface Place {
  companyId: string;
  domainId: string;
  /** The domain's SCIM base URL (resources' meta.location). */
  base: string;
}

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** meta.version: the row's updated_at in microseconds, as a weak ETag. */
export const VERSION_SQL = `(extract(epoch FROM t.updated_at) * 1000000)::bigint::text`;
export const etag = (version: string) => `W/"${version}"`;

export const iso = (time: Date | string) => new Date(time).toISOString();

/**
 * If-Match (RFC 7644 "Versioning Resources"): the write goes ahead only on the version the client
 * read; `*` matches any. 412 otherwise.
 */
export function checkIfMatch(header: string | undefined, version: string) {
  if (header === undefined) return;
  const wanted = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (wanted.includes('*') || wanted.includes(`"${version}"`)) return;
  throw new ScimError(412, `If-Match: the resource has changed since that version (it is now ${etag(version)}): read it again`);
}

/**
 * The containment rule for a machine of the domain (docs/CONSOLE.md, "Provisioning (SCIM)"): a
 * provisioning client holds no console role, so it acts on no user or group that holds one
 * (principal_roles, the walk containment.ts uses: directly, through its groups, or, for a group,
 * given to its members), and a group that gives a role never has its members changed by it.
 */
export async function assertHoldsNoRole(db: Queryable, at: Place, type: 'user' | 'group', id: string): Promise<void> {
  const { rows } = await db.query<{ role: string }>(`SELECT role FROM principal_roles($1, $2, $3, $4) LIMIT 1`, [at.companyId, at.domainId, type, id]);
  if (!rows[0]) return;
  const what = type === 'user' ? `user ${id} holds` : `group ${id} gives its members`;
  throw new ScimError(
    403,
    `${what} the console role ${rows[0].role}: a provisioning client never changes an account or a group that carries a console role, nor its members. Change it in the console.`,
  );
}

/** A text value the database can hold (PostgreSQL refuses U+0000), within its bound; undefined when absent. */
export function text(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ScimError(400, `${name}: must be a string`, 'invalidValue');
  if (value.length > max) throw new ScimError(400, `${name}: longer than ${max} characters`, 'invalidValue');
  if (value.includes('\u0000')) throw new ScimError(400, `${name}: must not contain the NUL character`, 'invalidValue');
  return value;
}

/** SCIM booleans, and the strings Entra ID sends for them ("True", "False"). */
export function flag(value: unknown, name: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError(400, `${name}: must be true or false`, 'invalidValue');
}

/** The value of `object`'s key named `name` in any case (SCIM attribute names are case-insensitive). */
export function field(object: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  for (const key of Object.keys(object)) if (key.toLowerCase() === lower) return object[key];
  return undefined;
}
