import { actsOnBody } from './containment.js';
import type { FastifyInstance } from 'fastify';
import { isCaller, type Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { queueAccountLink } from '../accounts/links.js';
import { languageOf } from '../mail/language.js';
import { mailerOf } from '../mail/mailer.js';
import { blockUsers, unblockUsers } from '../accounts/administrators.js';
import { recordAudit } from '../accounts/audit.js';
import { id, errorResponses, params } from './schemas.js';
import { sessions } from './sessions.js';

/**
 * Account actions on many users at once, from the users list's bulk buttons (docs/CONSOLE.md,
 * "Bulk actions"): block, unblock, sign out everywhere, send a reset link. Each is all or nothing:
 * one transaction that first finds every listed user of the domain (404 naming the first that is
 * not one, and nothing changes), then changes them; each changed user gets her own audit record,
 * as the one-user actions give. Adding to and removing from a group are the group's member routes,
 * which take lists already.
 */

interface DomainParams {
  companyId: string;
  domainId: string;
}

/** Enough for a page of 100 selected ten times over; a bulk action of more is a script's job. */
const MAX_USERS = 1000;

const body = {
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: { ids: { type: 'array', items: id, minItems: 1, maxItems: MAX_USERS, uniqueItems: true } },
} as const;

/** The listed users of the domain, locked for the change; 404 naming the first unknown one. */
async function lockUsers(tx: Queryable, at: DomainParams, ids: string[]): Promise<{ id: string; status: string; blocked: boolean }[]> {
  const { rows } = await tx.query<{ id: string; status: string; blocked: boolean }>(
    `SELECT id, status, blocked_at IS NOT NULL AS blocked FROM users WHERE company_id = $1 AND domain_id = $2 AND id = ANY ($3::text[]) ORDER BY id FOR UPDATE`,
    [at.companyId, at.domainId, ids],
  );
  const missing = ids.find((wanted) => !rows.some((row) => row.id === wanted));
  if (missing !== undefined) throw notFound(`user ${missing}`);
  return rows;
}


export async function userBulkRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const path = '/companys/:companyId/domainNames/:domainId/users';
  const tags = ['users'];
  const changed = { type: 'object', properties: { changed: { type: 'array', items: { type: 'string' } } } };

  const bulk = (
    name: string,
    permission: string,
    summary: string,
    run: (tx: Queryable, at: DomainParams, ids: string[], caller: Principal, after: (() => void)[], language: ReturnType<typeof languageOf>) => Promise<string[]>,
  ) =>
    app.post<{ Params: DomainParams; Body: { ids: string[] } }>(
      `${path}/${name}`,
      { config: { permission, acts: actsOnBody('user') }, schema: { tags, summary, params: params('companyId', 'domainId'), body, response: { 200: changed, ...errorResponses } } },
      async (request) => {
        const after: (() => void)[] = [];
        const language = languageOf(request.headers['accept-language']);
        const result = await db.transaction((tx) => run(tx, request.params, request.body.ids, request.principal, after, language));
        // e-mail leaves once the transaction has committed
        for (const send of after) send();
        return { changed: result };
      },
    );

  bulk('block', 'users:block', 'Blocks the users listed, all or none: their sessions end and they cannot sign in until unblocked; answers those that changed', async (tx, at, ids, caller) => {
    if (ids.some((userId) => isCaller(caller, at, userId))) throw badRequest('ids: you cannot block yourself').as('user.blockSelf', { field: 'ids' });
    const users = await lockUsers(tx, at, ids);
    const deleted = users.find((user) => user.status !== 'active');
    if (deleted) throw new HttpError(409, `user ${deleted.id} is deleted: recover it first`).as('user.deleted', { id: deleted.id.slice(0, 100) });
    return blockUsers(tx, at, users.filter((user) => !user.blocked).map((user) => user.id));
  });

  bulk('unblock', 'users:block', 'Unblocks the users listed, all or none; answers those that changed', async (tx, at, ids) => {
    return unblockUsers(tx, at, (await lockUsers(tx, at, ids)).filter((user) => user.blocked).map((user) => user.id));
  });

  bulk('signOutEverywhere', 'sessions:revoke', 'Ends every session of the users listed, all or none; answers those that had one', async (tx, at, ids) => {
    await lockUsers(tx, at, ids);
    const ended: string[] = [];
    for (const userId of ids) if ((await sessions.signOutEverywhere(tx, { ...at, userId }, config.accessTokenTtl)).revoked > 0) ended.push(userId);
    return ended;
  });

  bulk('sendResetLink', 'users:recover', 'E-mails each user listed a link to choose a new password, all or none (30 minutes, single use)', async (tx, at, ids, _caller, after, language) => {
    const users = await lockUsers(tx, at, ids);
    const unable = users.find((user) => user.status !== 'active' || user.blocked);
    if (unable) throw new HttpError(409, `user ${unable.id} is ${unable.status !== 'active' ? 'deleted' : 'blocked'}: no reset link can be sent`).as(
        unable.status !== 'active' ? 'bulk.resetDeleted' : 'bulk.resetBlocked',
        { id: unable.id.slice(0, 100) },
      );
    const mailer = mailerOf(app.ctx);
    for (const userId of ids) {
      const outcome = await queueAccountLink(tx, mailer, config.publicUrl, { ...at, userId, purpose: 'reset', language });
      if (outcome.kind !== 'queued') throw new HttpError(409, `user ${userId} has no e-mail address: no reset link can be sent`).as('bulk.resetNoEmail', { id: userId.slice(0, 100) });
      after.push(outcome.send);
      await recordAudit(tx, { ...at, resourceType: 'users', resourceId: userId, action: 'sendResetLink', changes: { recipient: { after: outcome.recipient } } });
    }
    return ids;
  });
}
