import type { FastifyInstance } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest, duplicated, HttpError, notFound } from '../errors.js';
import { randomAlphanumeric } from '../ids.js';
import { listAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { scheduleSliceRebuild, slicesNeedRebuild } from './userSlices.js';
import { keepingAnAdministrator } from './administrators.js';
import { email, errorResponses, id, idList, optionalText, params, requiredText, status } from './schemas.js';

export interface User {
  id: string;
  username: string;
  displayName: string;
  notes: string;
  email: string;
  status: 'active' | 'deleted';
}

const SELECT = `t.id, t.username, t.display_name AS "displayName", t.notes, t.email, t.status`;

const userResource: ListResource = {
  name: 'users',
  table: 'users t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    username: { column: 't.username' },
    displayName: { column: 't.display_name' },
    notes: { column: 't.notes' },
    email: { column: 't.email' },
    status: { column: 't.status' },
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
};

export const userJson = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    username: { type: 'string' },
    displayName: { type: 'string' },
    notes: { type: 'string' },
    email: { type: 'string' },
    status: { type: 'string' },
  },
} as const;

const userFields = {
  id,
  username: requiredText(200),
  displayName: requiredText(),
  notes: { anyOf: [optionalText(), { type: 'null' }], description: 'null (an emptied field) is stored as empty text' },
  email,
  authVerification: { type: 'string', maxLength: 100, description: 'bcrypt hash of the password (cost 10 or more), never returned' },
  status,
} as const;

const createBody = { type: 'object', required: ['username', 'displayName', 'email', 'authVerification'], additionalProperties: false, properties: userFields } as const;
const updateBody = { type: 'object', required: ['username', 'displayName', 'email'], additionalProperties: false, properties: userFields } as const;
const updateListBody = {
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: { type: 'object', required: ['id'], additionalProperties: false, properties: userFields },
  description: 'Users to change, each with its id; fields left out keep their value (bulk soft delete and recover send {id, status})',
} as const;

type UserBody = Partial<User> & { authVerification?: string };
type UserPatch = UserBody & { id: string };

/** What the console sends: bcrypt, cost 10 to 31. Plain text never reaches the database. */
const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;

function checkPassword(hash: string) {
  const cost = Number(BCRYPT.exec(hash)?.[1]);
  if (!(cost >= 10 && cost <= 31)) throw badRequest('authVerification must be a bcrypt hash of cost 10 or more (the console hashes passwords before sending them)');
}

/** Runs a write; a unique violation becomes the SPEC 8 409 naming the username, email or id that clashed. */
async function uniqueUser<T>(user: { id: string; username: string; email: string }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code !== '23505') throw error;
    throw duplicated(constraint === 'users_email' ? user.email : constraint === 'users_username' ? user.username : user.id);
  }
}

const isCaller = (caller: Principal, companyId: string, domainId: string, userId: string) =>
  caller.companyId === companyId && caller.domainId === domainId && caller.userId === userId;

/** The users of one domain with these ids, in the order asked; 404 naming the first unknown id. */
async function getUsers(db: Queryable, companyId: string, domainId: string, userIds: string[]): Promise<User[]> {
  const { rows } = await db.query<User>(`SELECT ${SELECT} FROM users t WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = ANY ($3)`, [
    companyId,
    domainId,
    userIds,
  ]);
  return userIds.map((userId) => {
    const user = rows.find((row) => row.id === userId);
    if (!user) throw notFound(`user ${userId}`);
    return user;
  });
}

function distinct(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) throw badRequest('id: a user is listed twice');
  return unique;
}

async function updateUsers(db: Queryable, caller: Principal, companyId: string, domainId: string, patches: UserPatch[]): Promise<User[]> {
  const current = await getUsers(db, companyId, domainId, distinct(patches.map((patch) => patch.id)));
  const updated: User[] = [];
  for (const [i, patch] of patches.entries()) {
    const next = { ...current[i], ...patch };
    if (next.status === 'deleted' && current[i].status !== 'deleted' && isCaller(caller, companyId, domainId, patch.id)) {
      throw badRequest(`${patch.id}: you cannot delete yourself`);
    }
    if (patch.authVerification !== undefined) checkPassword(patch.authVerification);
    const { rows } = await uniqueUser(next, () =>
      db.query<User>(
        `UPDATE users t SET username = $4, display_name = $5, notes = $6, email = $7, status = $8,
           password_hash = COALESCE($9, t.password_hash), updated_at = now()
         WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3
         RETURNING ${SELECT}`,
        [companyId, domainId, patch.id, next.username, next.displayName, next.notes ?? '', next.email, next.status, patch.authVerification ?? null],
      ),
    );
    if (patch.authVerification !== undefined) {
      // A new password ends every sign-in made with the old one (someone else may have known it);
      // a person changing their own password keeps only the session they are doing it from.
      const keep = isCaller(caller, companyId, domainId, patch.id) ? caller.grantId : null;
      await db.query(
        `UPDATE oauth_grants SET revoked_at = now()
         WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND revoked_at IS NULL AND id IS DISTINCT FROM $4`,
        [companyId, domainId, patch.id, keep],
      );
    }
    updated.push(rows[0]);
  }
  return updated;
}

/** Every write of a user goes through here. */
export const users = {
  async create(db: Queryable, companyId: string, domainId: string, body: UserBody): Promise<User> {
    checkPassword(body.authVerification ?? '');
    const user = { id: body.id ?? randomAlphanumeric(20), username: body.username!, email: body.email! };
    return uniqueUser(user, async () => {
      const { rows } = await db.query<User>(
        `INSERT INTO users (company_id, domain_id, id, username, display_name, notes, email, password_hash, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         RETURNING ${SELECT.replaceAll('t.', '')}`,
        [companyId, domainId, user.id, user.username, body.displayName, body.notes ?? '', user.email, body.authVerification, body.status ?? 'active'],
      );
      return rows[0];
    });
  },

  /**
   * Changes users (fields left out keep their value; no authVerification keeps the password).
   * status deleted is the soft delete, active the recovery. Any refusal leaves every user unchanged
   * when run inside one transaction.
   */
  async update(db: Queryable, caller: Principal, companyId: string, domainId: string, patches: UserPatch[]): Promise<User[]> {
    // a soft delete may take the domain's last administrator away
    if (patches.some((patch) => patch.status === 'deleted')) {
      return keepingAnAdministrator(db, companyId, domainId, () => updateUsers(db, caller, companyId, domainId, patches));
    }
    return updateUsers(db, caller, companyId, domainId, patches);
  },

  /**
   * Purges users for good, with their group memberships; only users already soft-deleted. Their
   * sign-ins are revoked by the database (migration 8), so a user created later with the same id
   * inherits none of them.
   */
  async remove(db: Queryable, caller: Principal, companyId: string, domainId: string, userIds: string[]): Promise<User[]> {
    const ids = [...new Set(userIds)];
    const found = await getUsers(db, companyId, domainId, ids);
    const self = found.find((user) => isCaller(caller, companyId, domainId, user.id));
    if (self) throw badRequest(`${self.id}: you cannot purge yourself`);
    const active = found.find((user) => user.status !== 'deleted');
    if (active) throw new HttpError(409, `user ${active.id} is active: delete the user first, then purge it`);
    await db.query(`DELETE FROM group_members WHERE company_id = $1 AND domain_id = $2 AND member_type = 'user' AND member_id = ANY ($3)`, [
      companyId,
      domainId,
      ids,
    ]);
    await db.query(`DELETE FROM users WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3)`, [companyId, domainId, ids]);
    return found;
  },
};

export async function userRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['users'];
  const base = '/companys/:companyId/domainNames/:domainId/users';
  type DomainParams = { companyId: string; domainId: string };
  type UserParams = DomainParams & { userId: string };
  const domainParams = params('companyId', 'domainId');
  const userParams = params('companyId', 'domainId', 'userId');
  const userList = { type: 'array', items: userJson } as const;

  app.get<{ Params: DomainParams; Querystring: ListQuery }>(
    base,
    { config: { accessWithList: true }, schema: { tags, params: domainParams, querystring: listQuerySchema, response: { 200: userList, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const parsed = parseListQuery(userResource, request.query, [companyId, domainId]);
      return sendList(reply, 'users', await runList(db, userResource, parsed, ['t.company_id = $1', 't.domain_id = $2'], listAccess(request)));
    },
  );

  app.get<{ Params: UserParams }>(
    `${base}/:userId`,
    { schema: { tags, params: userParams, response: { 200: userJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, userId } = request.params;
      return (await getUsers(db, companyId, domainId, [userId]))[0];
    },
  );

  app.post<{ Params: DomainParams; Body: UserBody }>(
    base,
    { schema: { tags, params: domainParams, body: createBody, response: { 201: userJson, ...errorResponses } } },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const user = await db.transaction((tx) => users.create(tx, companyId, domainId, request.body));
      return reply.status(201).send(user);
    },
  );

  app.put<{ Params: UserParams; Body: UserBody }>(
    `${base}/:userId`,
    { schema: { tags, params: userParams, body: updateBody, response: { 200: userJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, userId } = request.params;
      if (request.body.id !== undefined && request.body.id !== userId) throw badRequest('id cannot be changed');
      const patch = { ...request.body, id: userId };
      return (await db.transaction((tx) => users.update(tx, request.principal, companyId, domainId, [patch])))[0];
    },
  );

  app.put<{ Params: DomainParams; Body: UserPatch[] }>(
    base,
    { schema: { tags, params: domainParams, body: updateListBody, response: { 200: userList, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId } = request.params;
      return db.transaction((tx) => users.update(tx, request.principal, companyId, domainId, request.body));
    },
  );

  app.delete<{ Params: UserParams }>(
    `${base}/:userId`,
    { schema: { tags, params: userParams, response: { 200: userJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId, userId } = request.params;
      return (await db.transaction((tx) => users.remove(tx, request.principal, companyId, domainId, [userId])))[0];
    },
  );

  app.delete<{ Params: DomainParams; Body: string[] }>(
    base,
    { schema: { tags, params: domainParams, body: idList, response: { 200: userList, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId } = request.params;
      return db.transaction((tx) => users.remove(tx, request.principal, companyId, domainId, request.body));
    },
  );
}
