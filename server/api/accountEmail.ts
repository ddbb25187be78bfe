import { actsOnParam, assertContains } from './containment.js';
import { checkAccess } from './guard.js';
import { heldGrants } from './roles.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { HttpError, notFound } from '../errors.js';
import { queueAccountLink } from '../accounts/links.js';
import { type Language, languageOf } from '../mail/language.js';
import { type Mailer, mailerOf, withoutLinks } from '../mail/mailer.js';
import type { Purpose } from '../mail/templates.js';
import { recordAudit } from '../accounts/audit.js';
import { addListRoute, type ResourceDefinition } from './resource.js';
import { errorResponses, params } from './schemas.js';
import { assertUser } from './sessions.js';

/**
 * E-mail from the console (docs/CONSOLE.md, "E-mail, reset links and invitations"): support staff
 * send a person a reset link, an invitation or a verification e-mail (users:recover: they never see
 * the link), and they see the domain's outbox: what was sent to whom and when (users:recover),
 * and resend a message (a fresh link of its kind to the person it was for, whom they must contain).
 * A message's text and HTML hold live reset and invitation links: only a caller holding users:write
 * there (whoever may set the password anyway) receives them, never a read or recover permission.
 */

interface UserParams {
  companyId: string;
  domainId: string;
  userId: string;
}

/** The outbox's list: what was sent to whom, without the bodies (they hold the links). */
export const outboxDefinition = {
  name: 'outbox',
  permission: 'users',
  label: 'message',
  table: 'mail_outbox t',
  fields: {
    id: { column: 't.id' },
    createdAt: { column: 't.created_at' },
    recipient: { column: 't.recipient' },
    subject: { column: 't.subject' },
    purpose: { column: 't.purpose' },
    language: { column: 't.language' },
    userId: { column: 't.user_id', type: 'nullableText' },
    sentAt: { column: 't.sent_at', type: 'nullableText' },
    error: { column: 't.error', type: 'nullableText', listed: false },
  },
  search: `(t.recipient || ' ' || t.subject)`,
  key: ['t.company_id', 't.domain_id', 't.id'],
  // newest first, the order of the mail_outbox_list index
  defaultSort: 'createdAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;


const SENDS: { route: string; purpose: Purpose; summary: string; action: string }[] = [
  { route: 'sendResetLink', purpose: 'reset', action: 'sendResetLink', summary: 'E-mails the user a link to choose a new password (30 minutes, single use; older reset links stop working)' },
  { route: 'sendInvitation', purpose: 'invite', action: 'sendInvitation', summary: 'E-mails a user without a password an invitation to choose one (7 days, single use); sending again replaces the older invitation' },
  { route: 'sendVerification', purpose: 'verify', action: 'sendVerification', summary: 'E-mails the user a link that verifies her address (24 hours, single use)' },
];

/**
 * Sends the user a fresh link of `purpose` in the caller's transaction (the rules of the three sends:
 * an active, unblocked user with an address; an invitation only while she has no password), recorded
 * on her history as `action`. Returns the queued outcome: call its send() after the commit.
 */
async function queueLinkFor(tx: Queryable, mailer: Mailer, publicUrl: string, at: UserParams, purpose: Purpose, action: string, language: Language, changes: Record<string, unknown> = {}) {
  const { rows } = await tx.query<{ status: string; blocked: boolean; hasPassword: boolean; email: string }>(
    `SELECT status, blocked_at IS NOT NULL AS blocked, password_hash IS NOT NULL AS "hasPassword", email FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
    [at.companyId, at.domainId, at.userId],
  );
  const user = rows[0];
  if (!user) throw new HttpError(409, `user ${at.userId} no longer exists`).as('accountEmail.gone', { id: at.userId.slice(0, 100) });
  if (user.status !== 'active') throw new HttpError(409, `user ${at.userId} is deleted: recover it first`).as('user.deleted', { id: at.userId.slice(0, 100) });
  if (user.blocked) throw new HttpError(409, `user ${at.userId} is blocked: unblock it first`).as('accountEmail.blocked', { id: at.userId.slice(0, 100) });
  if (!user.email) throw new HttpError(409, `user ${at.userId} has no e-mail address`).as('accountEmail.noAddress', { id: at.userId.slice(0, 100) });
  if (purpose === 'invite' && user.hasPassword) throw new HttpError(409, `user ${at.userId} has a password already: send a reset link instead`).as('accountEmail.hasPassword', { id: at.userId.slice(0, 100) });
  const queued = await queueAccountLink(tx, mailer, publicUrl, { ...at, purpose, language });
  if (queued.kind !== 'queued') throw new HttpError(409, `user ${at.userId} cannot receive this e-mail`).as('accountEmail.cannotReceive', { id: at.userId.slice(0, 100) });
  await recordAudit(tx, { companyId: at.companyId, domainId: at.domainId, resourceType: 'users', resourceId: at.userId, action, changes: { recipient: { after: queued.recipient }, ...changes } });
  return queued;
}

export async function accountEmailRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const mailer = mailerOf(app.ctx);
  app.addHook('onClose', async () => {
    await mailer.settled();
    mailer.close();
  });
  const tags = ['users'];
  const domainPath = '/companys/:companyId/domainNames/:domainId';
  const sent = {
    type: 'object',
    properties: { messageId: { type: 'string' }, recipient: { type: 'string' }, mailConfigured: { type: 'boolean' } },
  };

  for (const send of SENDS) {
    app.post<{ Params: UserParams }>(
      `${domainPath}/users/:userId/${send.route}`,
      {
        config: { permission: 'users:recover', acts: actsOnParam('user', 'userId') },
        schema: {
          tags,
          summary: send.summary,
          params: params('companyId', 'domainId', 'userId'),
          body: { type: 'object', additionalProperties: false, properties: {} },
          response: { 200: sent, ...errorResponses },
        },
      },
      async (request) => {
        const at = request.params;
        // the acting administrator's language: the person's own is not known (docs/CONSOLE.md)
        const language = languageOf(request.headers['accept-language']);
        const outcome = await db.transaction(async (tx) => {
          await assertUser(tx, at);
          return queueLinkFor(tx, mailer, config.publicUrl, at, send.purpose, send.action, language);
        });
        // after the commit, never waited for: a slow or failing mail server is recorded in the outbox
        outcome.send();
        return { messageId: outcome.messageId, recipient: outcome.recipient, mailConfigured: mailer.configured };
      },
    );
  }

  app.get(
    `${domainPath}/mailSettings`,
    {
      config: { permission: 'users:read' },
      schema: {
        tags,
        summary: 'Whether a mail server is configured (SMTP_URL): without one, messages stay in the outbox',
        params: params('companyId', 'domainId'),
        response: { 200: { type: 'object', properties: { configured: { type: 'boolean' } } }, ...errorResponses },
      },
    },
    async () => ({ configured: mailer.configured }),
  );

  const scope = { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] };
  addListRoute(app, outboxDefinition, {
    path: `${domainPath}/outbox`,
    tags,
    summary: "The domain's outgoing messages, newest first: to whom, what, when and whether sent, never their text (users:recover)",
    scope,
    permission: 'users:recover',
    // a mail server's refusal quoting the message would quote its link: never to a reader of the list
    mapRow: (row) => ({ ...row, error: typeof row.error === 'string' ? withoutLinks(row.error) : row.error }),
  });

  const messageParams = params('companyId', 'domainId', 'messageId');
  const message = {
    type: 'object',
    properties: {
      ...Object.fromEntries(Object.keys(outboxDefinition.fields).map((name) => [name, name === 'userId' || name === 'sentAt' || name === 'error' ? { type: ['string', 'null'] } : { type: 'string' }])),
      text: { type: 'string', description: 'Only for a caller holding users:write: it holds the live link' },
      html: { type: 'string', description: 'Only for a caller holding users:write: it holds the live link' },
    },
  };
  const COLUMNS = `id, created_at AS "createdAt", recipient, subject, purpose, language, user_id AS "userId", sent_at AS "sentAt", error`;
  const isoOrNull = (value: unknown) => (value ? new Date(value as string).toISOString() : null);

  app.get<{ Params: OutboxParams }>(
    `${domainPath}/outbox/:messageId`,
    {
      config: { permission: 'users:recover' },
      schema: {
        tags,
        summary: 'One outgoing message; its text and HTML (which hold a live link) only for a caller holding users:write',
        params: messageParams,
        response: { 200: message, ...errorResponses },
      },
    },
    async (request) => {
      const { companyId, domainId, messageId } = request.params;
      // what the caller holds here (the guard has just checked users:recover: its answer is remembered)
      const held = await checkAccess(db.stable, request.principal, companyId, domainId, 'any');
      const withBody = heldGrants(held, 'users:write');
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT ${COLUMNS}${withBody ? ', text_body AS text, html_body AS html' : ''} FROM mail_outbox WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
        [companyId, domainId, messageId],
      );
      const row = rows[0];
      if (!row) throw notFound(`message ${messageId}`);
      const error = typeof row.error === 'string' && !withBody ? withoutLinks(row.error) : row.error;
      return { ...row, error, createdAt: isoOrNull(row.createdAt), sentAt: isoOrNull(row.sentAt) };
    },
  );

  app.post<{ Params: OutboxParams }>(
    `${domainPath}/outbox/:messageId/resend`,
    {
      config: { permission: 'users:recover' },
      schema: {
        tags,
        summary:
          "Sends the person the message was for a fresh link of its kind (reset, invitation, verification) at her current address; her older link of that kind stops working. users:recover, and the caller must contain her (nobody acts on more than they hold)",
        params: messageParams,
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: sent, ...errorResponses },
      },
    },
    async (request) => {
      const { companyId, domainId, messageId } = request.params;
      const language = languageOf(request.headers['accept-language']);
      const outcome = await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ userId: string | null; purpose: Purpose }>(
          `SELECT user_id AS "userId", purpose FROM mail_outbox WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
          [companyId, domainId, messageId],
        );
        const found = rows[0];
        if (!found) throw notFound(`message ${messageId}`);
        if (!found.userId) throw new HttpError(409, `message ${messageId} was for nobody's account: there is nothing to resend`).as('accountEmail.nobody', { message: messageId.slice(0, 100) });
        const at = { companyId, domainId, userId: found.userId };
        await assertContains(tx, request.principal, { companyId, domainId, principals: [{ type: 'user', id: found.userId }] });
        // a link proving an account for an upstream identity (server/upstream/routes.ts) is bound to the
        // browser that asked for it: only she asks again, from the link page
        const send = SENDS.find((candidate) => candidate.purpose === found.purpose);
        if (!send) throw new HttpError(409, `message ${messageId} is not resent: the person asks for a new one from the page where she signs in`).as('accountEmail.notResent', { message: messageId.slice(0, 100) });
        return queueLinkFor(tx, mailer, config.publicUrl, at, found.purpose, send.action, language, { resentFrom: { after: messageId } });
      });
      outcome.send();
      return { messageId: outcome.messageId, recipient: outcome.recipient, mailConfigured: mailer.configured };
    },
  );
}

interface OutboxParams {
  companyId: string;
  domainId: string;
  messageId: string;
}
