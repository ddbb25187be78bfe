import nodemailer, { type Transporter } from 'nodemailer';
import type { ServerConfig } from '../config.js';
import type { Database, Queryable } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import type { Language } from '../i18n/index.js';
import type { Purpose, RenderedMessage } from './templates.js';

/**
 * Outgoing mail (docs/CONSOLE.md, "E-mail, reset links and invitations"). Every message is first
 * written to the domain's outbox (mail_outbox, migration 22) in the caller's transaction; after the
 * commit, when SMTP_URL is set, it is sent in the background and its row records sent_at or the
 * error. A slow or failing mail server never holds a request up or turns into a 5xx: the person's
 * answer never waits for SMTP, and administrators read what happened in the outbox.
 */
export interface OutgoingMessage extends RenderedMessage {
  companyId: string;
  domainId: string;
  userId: string | null;
  purpose: Purpose;
  language: Language;
  recipient: string;
  /** The sender's display name: the company's. */
  senderName: string;
}

export class Mailer {
  private transport?: Transporter;
  private readonly from: string;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    config: Pick<ServerConfig, 'smtpUrl' | 'mailFrom' | 'publicUrl'>,
  ) {
    if (config.smtpUrl) {
      // short timeouts: a dead mail server costs a background send 10-20 s, never a request
      this.transport = nodemailer.createTransport(config.smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as object);
    }
    this.from = config.mailFrom ?? `no-reply@${new URL(config.publicUrl).hostname}`;
  }

  /** Is a mail server configured (SMTP_URL)? Without one, messages only wait in the outbox. */
  get configured(): boolean {
    return this.transport !== undefined;
  }

  /** Writes the message to the outbox in the caller's transaction; returns its id, for send(). */
  async queue(tx: Queryable, message: OutgoingMessage): Promise<{ id: string; senderName: string }> {
    const id = randomAlphanumeric(20);
    await tx.query(
      `INSERT INTO mail_outbox (company_id, domain_id, id, user_id, purpose, language, recipient, subject, text_body, html_body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [message.companyId, message.domainId, id, message.userId, message.purpose, message.language, message.recipient, message.subject, message.text, message.html],
    );
    return { id, senderName: message.senderName };
  }

  /**
   * Sends queued messages through SMTP_URL in the background (call it after the commit). Nothing to
   * do without a mail server: the message stays in the outbox.
   */
  send(at: { companyId: string; domainId: string; id: string; senderName: string }): void {
    const transport = this.transport;
    if (!transport) return;
    const sending = (async () => {
      try {
        const { rows } = await this.db.query<{ recipient: string; subject: string; text: string; html: string }>(
          `SELECT recipient, subject, text_body AS text, html_body AS html FROM mail_outbox WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
          [at.companyId, at.domainId, at.id],
        );
        const message = rows[0];
        if (!message) return;
        let error: string | null = null;
        try {
          await transport.sendMail({ from: { name: at.senderName, address: this.from }, to: message.recipient, subject: message.subject, text: message.text, html: message.html });
        } catch (failure) {
          error = String((failure as Error).message ?? failure).slice(0, 500);
        }
        // once the mail server has the message, the outbox keeps it without a usable link: the
        // link is the person's to follow, not for whoever reads the outbox later (docs/CONSOLE.md,
        // "E-mail, reset links and invitations"); a message the server refused keeps it
        await this.db.query(
          `UPDATE mail_outbox SET sent_at = CASE WHEN $4::text IS NULL THEN now() END, error = $4,
             text_body = CASE WHEN $4::text IS NULL THEN $5 ELSE text_body END, html_body = CASE WHEN $4::text IS NULL THEN $6 ELSE html_body END
           WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
          [at.companyId, at.domainId, at.id, error, withoutLinks(message.text), withoutLinks(message.html)],
        );
      } catch {
        // the database went away (shutdown): the message stays in the outbox, unsent
      }
    })();
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  /** Resolves when every send begun so far has ended (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  close(): void {
    this.transport?.close();
  }
}

/** What a sent message's stored body shows in place of its link's token. */
export const SENT_TOKEN = '[removed-once-sent]';

/** A body with the value of every `token=` parameter of its links replaced by SENT_TOKEN. */
export const withoutLinks = (body: string) => body.replace(/([?&;]token=)[^\s"'<>&]+/gi, `$1${SENT_TOKEN}`);

const mailers = new WeakMap<object, Mailer>();

/** The mailer of a server (one per AppContext: its database and settings). */
export function mailerOf(ctx: { db: Database; config: ServerConfig }): Mailer {
  let mailer = mailers.get(ctx.config);
  if (!mailer) {
    mailer = new Mailer(ctx.db, ctx.config);
    mailers.set(ctx.config, mailer);
  }
  return mailer;
}
