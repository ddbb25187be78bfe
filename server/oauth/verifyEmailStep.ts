import { registerStep, type StepInput, stepForm } from './signInSteps.js';
import { sendAccountLink } from '../accounts/links.js';
import { languageOf } from '../mail/language.js';
import { t } from '../i18n/index.js';
import { mailerOf } from '../mail/mailer.js';

/**
 * The required action "verify e-mail" (docs/CONSOLE.md, "E-mail, reset links and invitations"):
 * after her password, the person is sent a verification link (at most one every few minutes, however
 * often the page is shown) and the sign-in waits until she has followed it; Resend sends another.
 * The link flips users.email_verified and removes the required action (accountPages.ts); Continue
 * then finishes the sign-in.
 */

/** A page shown again within this many seconds of the last link sends none. */
const QUIET_SECONDS = 5 * 60;
/** Resend: at most one link a minute. */
const RESEND_SECONDS = 60;

async function needsVerifying({ db, tenant, user }: StepInput): Promise<boolean> {
  const { rows } = await db.query<{ needed: boolean }>(
    `SELECT 'verify-email' = ANY (required_actions) AS needed FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
    [tenant.companyId, tenant.domainId, user.id],
  );
  return rows[0]?.needed === true;
}

/** Sends a link unless one went out within `seconds`; true when one was sent now. */
async function sendLink(input: StepInput, seconds: number): Promise<boolean> {
  const { db, tenant, user, request } = input;
  const recent = await db.query(
    `SELECT 1 FROM account_tokens WHERE company_id = $1 AND domain_id = $2 AND user_id = $3 AND purpose = 'verify' AND created_at > now() - make_interval(secs => $4) LIMIT 1`,
    [tenant.companyId, tenant.domainId, user.id, seconds],
  );
  if (recent.rows.length > 0) return false;
  const ctx = request.server.ctx;
  const outcome = await sendAccountLink(db, mailerOf(ctx), ctx.config.publicUrl, { ...tenant, userId: user.id, purpose: 'verify', language: languageOf(request.headers['accept-language']) });
  return outcome.kind === 'queued';
}

registerStep({
  id: 'verify-email',
  // before enrolling (30): a second factor is enrolled only on an address she has proved hers
  order: 25,
  needed: needsVerifying,
  render: async (input) => {
    await sendLink(input, QUIET_SECONDS);
    const escape = (value: string) => value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
    return stepForm({
      title: t('verify.title'),
      intro: t('step.verifyIntro', { email: input.user.email }),
      action: input.action,
      step: 'verify-email',
      error: input.error,
      fields: '',
      submit: t('device.continue'),
      after: `\n<form method="post" action="${escape(input.action)}">
<input type="hidden" name="step" value="verify-email">
<button type="submit" name="resend" value="1">${escape(t('step.resend'))}</button>
</form>`,
    });
  },
  submit: async (input) => {
    if (input.body.resend) {
      const sent = await sendLink(input, RESEND_SECONDS);
      return { error: sent ? t('step.resent', { email: input.user.email }) : 'A link was sent less than a minute ago: wait for it, or try again in a minute.' };
    }
    if (await needsVerifying(input)) return { error: 'Your address is not verified yet: open the link we sent, then press Continue.' };
    return { done: true };
  },
});
