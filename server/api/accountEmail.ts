import { actsOnParam } from './containment.js';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors.js';
import { queueAccountLink } from '../accounts/links.js';
import { languageOf } from '../mail/language.js';
import { mailerOf } from '../mail/mailer.js';
import type { Purpose } from '../mail/templates.js';
import { recordAudit } from '../accounts/audit.js';
import { addListRoute, crudRoutes, type ResourceDefinition } from './resource.js';
import { errorResponses, params } from './schemas.js';
import { assertUser } from './sessions.js';

/**
 * E-mail from the console (docs/CONSOLE.md, "E-mail, reset links and invitations"): support staff
 * send a person a reset link, an invitation or a verification e-mail (users:recover: they never see
 * the link), and administrators read the domain's outbox. The outbox holds live reset and
 * invitation links: reading it needs users:write, the permission of whoever may set the password
 * anyway, never a read permission.
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

/** One message as read: with its text and HTML bodies. */
const messageDefinition = {
  ...outboxDefinition,
  fields: { ...outboxDefinition.fields, text: { column: 't.text_body' }, html: { column: 't.html_body' } },
} satisfies ResourceDefinition;

const SENDS: { route: string; purpose: Purpose; summary: string; action: string }[] = [
  { route: 'sendResetLink', purpose: 'reset', action: 'sendResetLink', summary: 'E-mails the user a link to choose a new password (30 minutes, single use; older reset links stop working)' },
  { route: 'sendInvitation', purpose: 'invite', action: 'sendInvitation', summary: 'E-mails a user without a password an invitation to choose one (7 days, single use); sending again replaces the older invitation' },
  { route: 'sendVerification', purpose: 'verify', action: 'sendVerification', summary: 'E-mails the user a link that verifies her address (24 hours, single use)' },
];

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
          const { rows } = await tx.query<{ status: string; blocked: boolean; hasPassword: boolean; email: string }>(
            `SELECT status, blocked_at IS NOT NULL AS blocked, password_hash IS NOT NULL AS "hasPassword", email FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
            [at.companyId, at.domainId, at.userId],
          );
          const user = rows[0];
          if (user.status !== 'active') throw new HttpError(409, `user ${at.userId} is deleted: recover it first`);
          if (user.blocked) throw new HttpError(409, `user ${at.userId} is blocked: unblock it first`);
          if (!user.email) throw new HttpError(409, `user ${at.userId} has no e-mail address`);
          if (send.purpose === 'invite' && user.hasPassword) throw new HttpError(409, `user ${at.userId} has a password already: send a reset link instead`);
          const queued = await queueAccountLink(tx, mailer, config.publicUrl, { ...at, purpose: send.purpose, language });
          if (queued.kind !== 'queued') throw new HttpError(409, `user ${at.userId} cannot receive this e-mail`);
          await recordAudit(tx, { companyId: at.companyId, domainId: at.domainId, resourceType: 'users', resourceId: at.userId, action: send.action, changes: { recipient: { after: queued.recipient } } });
          return queued;
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
    summary: "The domain's outgoing messages, newest first; they hold live links, so reading them needs users:write",
    scope,
    permission: 'users:write',
  });
  await app.register(
    crudRoutes(messageDefinition, {
      tags,
      path: `${domainPath}/outbox`,
      idParam: 'messageId',
      scope,
      rules: {},
      bodies: {},
      routes: ['get'],
      summaries: { get: 'One outgoing message with its text and HTML (holds a live link: users:write)' },
      permissions: { read: 'users:write' },
    }),
  );
}
