import { isCaller } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest, duplicated, HttpError } from '../errors.js';
import { checkPasswordHash, setPassword } from '../accounts/passwords.js';
import { randomAlphanumeric } from '../ids.js';
import { keepingAnAdministrator } from '../accounts/administrators.js';
import { purgeMembers } from './groups.js';
import { bodyProperties, bodySchema, type Change, crudRoutes, findRecords, listBodySchema, type RecordOf, type ResourceDefinition, samePathId, selectList, type WriteContext } from './resource.js';
import { email, id, optionalText, requiredText, status } from './schemas.js';
import { scheduleSliceRebuild, slicesNeedRebuild } from './userSlices.js';
import { userFilters, userListFields } from './listFields.js';

/** Users of a domain. Plain CRUD: the routes are produced from this definition (resource.ts). */
export const userDefinition = {
  name: 'users',
  permission: 'users',
  label: 'user',
  table: 'users t',
  fields: {
    id: { column: 't.id', input: id },
    username: { column: 't.username', input: requiredText(200) },
    displayName: { column: 't.display_name', input: requiredText() },
    notes: { column: 't.notes', input: { anyOf: [optionalText(), { type: 'null' }], description: 'null (an emptied field) is stored as empty text' } },
    email: { column: 't.email', input: email },
    status: { column: 't.status', input: status },
    // the account's state (accountState.ts): read-only here, changed by its own actions
    blockedAt: { column: 't.blocked_at', type: 'nullableText', listed: false },
    emailVerified: { column: 't.email_verified', type: 'boolean', listed: false },
    // created, updated, last sign-in, groups, deleted by whom (listFields.ts: filtered and sorted only where indexed)
    ...userListFields,
  },
  filters: userFilters,
  writeOnly: {
    authVerification: { type: 'string', maxLength: 100, description: 'bcrypt hash of the password (cost 10 to 14), never returned' },
  },
  // the very expression of the users_search trigram index
  search: `(t.display_name || ' ' || t.username || ' ' || t.email)`,
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'displayName',
  counts: 'user_counts',
  slices: {
    table: 'user_slices',
    column: 't.display_name',
    stale: (db, [companyId, domainId], status) => scheduleSliceRebuild(db, String(companyId), String(domainId), status),
    needRebuild: slicesNeedRebuild,
  },
} satisfies ResourceDefinition;

export type User = RecordOf<typeof userDefinition>;

const SELECT = selectList(userDefinition);

type UserBody = Partial<User> & { authVerification?: string };
type UserPatch = UserBody & { id: string };
type DomainParams = { companyId: string; domainId: string };

/** Runs a write; a unique violation becomes the duplicate 409 (docs/CONSOLE.md, "Errors and messages") naming the username, email or id that clashed. */
async function uniqueUser<T>(user: { id: string; username: string; email: string }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code !== '23505') throw error;
    throw duplicated(constraint === 'users_email' ? user.email : constraint === 'users_username' ? user.username : user.id);
  }
}


/** The users of one domain with these ids, in the order asked; 404 naming the first unknown id. */
const getUsers = (db: Queryable, { companyId, domainId }: DomainParams, userIds: string[]) =>
  findRecords<User>(db, userDefinition, { where: ['t.company_id = $1', 't.domain_id = $2'], values: [companyId, domainId] }, userIds);

function distinct(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) throw badRequest('id: a user is listed twice').as('user.listedTwice');
  return unique;
}

async function updateUsers(db: Queryable, { params, caller }: WriteContext<DomainParams>, patches: UserPatch[]): Promise<User[]> {
  const { companyId, domainId } = params;
  const current = await getUsers(db, params, distinct(patches.map((patch) => patch.id)));
  const updated: User[] = [];
  for (const [i, patch] of patches.entries()) {
    const next = { ...current[i], ...patch };
    if (next.status === 'deleted' && current[i].status !== 'deleted' && isCaller(caller, params, patch.id)) {
      throw badRequest(`${patch.id}: you cannot delete yourself`).as('user.deleteSelf', { id: patch.id.slice(0, 100) });
    }
    if (patch.authVerification !== undefined) checkPasswordHash(patch.authVerification);
    const { rows } = await uniqueUser(next, () =>
      db.query<User>(
        `UPDATE users t SET username = $4, display_name = $5, notes = $6, email = $7, status = $8, updated_at = now()
         WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3
         RETURNING ${SELECT}`,
        [companyId, domainId, patch.id, next.username, next.displayName, next.notes ?? '', next.email, next.status],
      ),
    );
    // a password given here is set as the Set password action sets one: what the old one opened ends
    if (patch.authVerification !== undefined) await setPassword(db, { companyId, domainId, userId: patch.id }, { hash: patch.authVerification, caller });
    updated.push(rows[0]);
  }
  return updated;
}

/** Every write of a user goes through here. */
export const users = {
  async create(db: Queryable, { params }: WriteContext<DomainParams>, body: UserBody): Promise<User> {
    // without a password: an invitation lets the person choose hers (docs/CONSOLE.md, "E-mail, reset links and invitations")
    if (body.authVerification !== undefined) checkPasswordHash(body.authVerification);
    const user = { id: body.id ?? randomAlphanumeric(20), username: body.username!, email: body.email! };
    return uniqueUser(user, async () => {
      const { rows } = await db.query<User>(
        `INSERT INTO users AS t (company_id, domain_id, id, username, display_name, notes, email, password_hash, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         RETURNING ${SELECT}`,
        [params.companyId, params.domainId, user.id, user.username, body.displayName, body.notes ?? '', user.email, body.authVerification ?? null, body.status ?? 'active'],
      );
      return rows[0];
    });
  },

  /**
   * Changes users (fields left out keep their value; no authVerification keeps the password).
   * status deleted is the soft delete, active the recovery. Any refusal leaves every user unchanged
   * when run inside one transaction.
   */
  async update(db: Queryable, at: WriteContext<DomainParams>, changes: Change<UserBody>[]): Promise<User[]> {
    const patches = changes.map(samePathId);
    // a soft delete may take the domain's last administrator away
    if (patches.some((patch) => patch.status === 'deleted')) {
      return keepingAnAdministrator(db, at.params.companyId, at.params.domainId, () => updateUsers(db, at, patches));
    }
    return updateUsers(db, at, patches);
  },

  /**
   * Purges users for good, with their group memberships; only users already soft-deleted. Their
   * sign-ins are revoked by the database (migration 8), so a user created later with the same id
   * inherits none of them.
   */
  async remove(db: Queryable, { params, caller }: WriteContext<DomainParams>, userIds: string[]): Promise<User[]> {
    const ids = [...new Set(userIds)];
    const found = await getUsers(db, params, ids);
    const self = found.find((user) => isCaller(caller, params, user.id));
    if (self) throw badRequest(`${self.id}: you cannot purge yourself`).as('user.purgeSelf', { id: self.id.slice(0, 100) });
    const active = found.find((user) => user.status !== 'deleted');
    if (active) throw new HttpError(409, `user ${active.id} is active: delete the user first, then purge it`).as('user.purgeActive', { id: active.id.slice(0, 100) });
    await purgeMembers(db, params, 'user', ids);
    return found;
  },
};

const fields = bodyProperties(userDefinition);

export const userRoutes = crudRoutes(userDefinition, {
  tags: ['users'],
  path: '/companys/:companyId/domainNames/:domainId/users',
  idParam: 'userId',
  principal: 'user',
  scope: { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] },
  rules: users,
  bodies: {
    create: bodySchema(userDefinition, ['username', 'displayName', 'email']),
    update: bodySchema(userDefinition, ['username', 'displayName', 'email']),
    updateList: listBodySchema(
      { type: 'object', additionalProperties: false, properties: fields },
      'Users to change, each with its id; fields left out keep their value (bulk soft delete and recover send {id, status})',
    ),
  },
});
