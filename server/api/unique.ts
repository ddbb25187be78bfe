import { duplicated, HttpError } from '../errors.js';

/**
 * Company ids, application client ids and API ids are one namespace across every tenant (a client
 * id is what the token endpoint looks a client up by). When a create names an id that is taken,
 * the answer says only that: never which tenant holds it, never the tenant-scoped "already exist"
 * wording that the tenant-scoped duplicates (names, usernames, emails) use. The console generates
 * 32 random characters for client and API ids, so only a chosen id can meet this
 * (docs/DECISIONS.md, "Ids across tenants").
 */
export const idNotAvailable = (kind: 'company' | 'application' | 'API', id: string) =>
  new HttpError(409, `${kind} id "${id}" is not available: choose another`).as(
    kind === 'company' ? 'unique.companyId' : kind === 'application' ? 'unique.applicationId' : 'unique.apiId',
    { id: id.slice(0, 100) },
  );

/**
 * An API identifier is the audience every resource server trusts, whichever tenant issued the
 * token: one namespace across the whole provider (migration 19), answered like a global id.
 */
export const identifierNotAvailable = (identifier: string) =>
  new HttpError(409, `API identifier "${identifier}" is not available: an identifier names one API in the whole provider, choose another`).as('unique.apiIdentifier', {
    identifier: identifier.slice(0, 100),
  });

/**
 * A unique violation becomes the duplicate 409 (docs/CONSOLE.md, "Errors and messages") naming the value behind the violated index, or the
 * error given for that index (a global id: server/api/unique.ts).
 */
export async function uniqueByConstraint<T>(names: Record<string, string | HttpError>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code !== '23505') throw error;
    const name = Object.hasOwn(names, constraint ?? '') ? names[constraint!] : 'record';
    throw name instanceof HttpError ? name : duplicated(name);
  }
}
