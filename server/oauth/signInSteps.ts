import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/index.js';
import { sha256 } from '../ids.js';
import { findUserById, type KnownUser, type Tenant } from '../accounts/accounts.js';
import { renderErrorPage, renderPage, sendPage } from './loginPage.js';
import { knowPage, translateSentence } from '../i18n/index.js';
import { attemptOf, recordSignIn } from './signInEvents.js';

/**
 * The steps of a sign-in between its right password and its code (docs/CONSOLE.md, "Account
 * states"): a required action (choose a new password, verify the e-mail, enrol a second factor) or
 * a second factor. The console's form post and the hosted page alike park the sign-in in
 * sign_in_steps (migration 21), bound to the browser by an HttpOnly cookie holding a random token
 * whose hash is the row's id, and send the browser to the step pages; when no step is left the
 * sign-in ends as it would have (a code, or oidc-provider's interaction result) with the amr
 * collected on the way. The person is read afresh at every page: blocking her ends her steps.
 */

export interface StepInput {
  db: Database;
  user: KnownUser;
  tenant: Tenant;
  /** How she has proved who she is so far (RFC 8176): 'pwd', then what steps add. */
  amr: string[];
  request: FastifyRequest;
  /** Which sign-in the steps are part of (the account page leaves some to its own pages). */
  kind?: Pending['kind'];
  /** This sign-in's id (its sign_in_steps row): what a new password set at a step leaves going. */
  signInId?: string;
}

export interface SignInStep {
  id: string;
  /** Where it comes among the steps: a second factor (10), a new password (20), verifying the e-mail (25), enrolling a factor (30). */
  order: number;
  /** Asked after the password and again after each step. */
  needed(input: StepInput): Promise<boolean>;
  /** The step's page (renderPage); its form posts to `action` with the field `step` = id. */
  render(input: StepInput & { action: string; error?: string }): Promise<string>;
  submit(input: StepInput & { body: Record<string, string> }): Promise<{ done: true; amr?: string[] } | { error: string }>;
}

const steps: SignInStep[] = [];

/** Adds a step; steps are asked by their order. */
export function registerStep(step: SignInStep): void {
  if (steps.some((known) => known.id === step.id)) return;
  steps.push(step);
  steps.sort((a, b) => a.order - b.order);
}

/**
 * A parked sign-in. `request` is what its kind needs to end: the console's checked authorization
 * request, or the interaction's uid; the account page's ('account', server/mfa/account.ts) needs nothing.
 */
export interface Pending {
  id: string;
  companyId: string;
  domainId: string;
  userId: string;
  kind: 'console' | 'interaction' | 'account';
  request: Record<string, string | undefined>;
  amr: string[];
  clientId: string;
  login: string;
  failures: number;
}

/** The account page's parked sign-in has its own cookie, on its own path. */
const cookieName = (kind: Pending['kind']) => (kind === 'account' ? 'iam_account_steps' : 'iam_steps');
/** A parked sign-in lasts this long: time enough to open an authenticator app or an inbox. */
const LIFETIME_SECONDS = 15 * 60;
/** Wrong answers to steps before the sign-in must start again from the password. */
export const MAX_STEP_FAILURES = 5;

const PENDING_COLUMNS = `id, company_id AS "companyId", domain_id AS "domainId", user_id AS "userId", kind, request, amr, client_id AS "clientId", login, failures`;

function cookieToken(request: FastifyRequest, kind: Pending['kind']): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === cookieName(kind) && value && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}

const cookie = (kind: Pending['kind'], value: string, maxAge: number, secure: boolean) =>
  [`${cookieName(kind)}=${value}`, `Max-Age=${maxAge}`, `Path=${kind === 'account' ? '/account' : '/oauth'}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');

async function firstNeeded(input: StepInput): Promise<SignInStep | undefined> {
  for (const step of steps) if (await step.needed(input)) return step;
  return undefined;
}

export interface StepsSetting {
  db: Database;
  /** Cookies get Secure when the issuer is https. */
  secure: boolean;
}

/**
 * After a right password: when a step is needed, parks the sign-in, sets the cookie and sends the
 * browser to `path` (true: the reply is sent). False: nothing is needed, the caller ends the sign-in.
 */
export async function beginSteps(
  setting: StepsSetting,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { user: KnownUser; kind: Pending['kind']; request: Pending['request']; clientId: string; login: string; path: string; amr?: string[]; redirect?: boolean },
): Promise<boolean> {
  const { db } = setting;
  const { user } = input;
  const tenant = { companyId: user.companyId, domainId: user.domainId };
  // what she has proved so far: the password, and on the account page perhaps her second factor
  const amr = input.amr ?? ['pwd'];
  if (!(await firstNeeded({ db, user, tenant, amr, request, kind: input.kind }))) return false;
  const token = crypto.randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO sign_in_steps (id, company_id, domain_id, user_id, kind, request, client_id, login, amr, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9::text[], now() + make_interval(secs => $10))`,
    [sha256(token), user.companyId, user.domainId, user.id, input.kind, JSON.stringify(input.request), input.clientId, input.login, amr, LIFETIME_SECONDS],
  );
  // now and then, forget parked sign-ins nobody finished
  if (Math.random() < 0.02) void db.query(`DELETE FROM sign_in_steps WHERE id IN (SELECT id FROM sign_in_steps WHERE expires_at < now() LIMIT 500)`).catch(() => {});
  reply.header('Set-Cookie', cookie(input.kind, token, LIFETIME_SECONDS, setting.secure));
  // (redirect: false: the caller answers a script, which goes to `path` itself)
  if (input.redirect !== false) reply.header('Cache-Control', 'no-store').redirect(input.path, 303);
  return true;
}

/** What a step page ends in: the sign-in to finish (the reply is the caller's), or a reply sent. */
export type StepOutcome = { kind: 'finished'; pending: Pending; user: KnownUser } | { kind: 'sent' };

/**
 * GET and POST of the step pages at `path`: shows the first step still needed, takes its answer,
 * and when none is left hands the sign-in back (finished: the caller issues the code or the
 * interaction result and calls endSteps). `matches` says whether the parked sign-in is this page's
 * (the interaction's uid).
 */
export async function stepPage(
  setting: StepsSetting,
  request: FastifyRequest,
  reply: FastifyReply,
  page: { kind: Pending['kind']; path: string; matches?: (pending: Pending) => boolean },
): Promise<StepOutcome> {
  const { db } = setting;
  const expired = () => {
    sendPage(reply, 400, renderErrorPage('This sign-in has expired or was finished elsewhere. Please sign in again.'));
    return { kind: 'sent' } as const;
  };
  const token = cookieToken(request, page.kind);
  if (!token) return expired();
  const { rows } = await db.query<Pending>(`SELECT ${PENDING_COLUMNS} FROM sign_in_steps WHERE id = $1 AND expires_at > now()`, [sha256(token)]);
  const pending = rows[0];
  if (!pending || pending.kind !== page.kind || (page.matches && !page.matches(pending))) return expired();
  const tenant = { companyId: pending.companyId, domainId: pending.domainId };
  // every page from here on (an ended sign-in's too) speaks the person's language in her domain's branding
  await knowPage(db, { uiLocales: pending.request?.ui_locales, tenant, userId: pending.userId });
  // read afresh: blocked, deleted or changed since the password (blocking also deletes the row)
  const user = await findUserById(db, tenant, pending.userId);
  if (!user || user.blocked) {
    await db.query(`DELETE FROM sign_in_steps WHERE id = $1`, [pending.id]);
    return expired();
  }
  const input: StepInput = { db, user, tenant, amr: pending.amr, request, kind: pending.kind, signInId: pending.id };
  let step = await firstNeeded(input);
  if (!step) return { kind: 'finished', pending, user };
  const show = async (status: number, error?: string) => {
    sendPage(reply, status, await step!.render({ ...input, action: page.path, error }), undefined, { scripts: true });
    return { kind: 'sent' } as const;
  };
  if (request.method !== 'POST') return show(200);
  // a step's answer is a form of our own pages: its route declares it, and the one hook refuses another site's (sameSiteForms.ts)
  if (!request.routeOptions.config.sameSiteForm) throw new Error(`${request.routeOptions.url}: a step page's route declares config.sameSiteForm`);

  const body = Object.fromEntries(Object.entries((request.body ?? {}) as Record<string, unknown>).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
  // an answer to a step already done (a second tab, the back button): show the current one
  if (body.step !== step.id) return show(200);
  // Each answer is counted before it is checked, in one statement: answers sent at once count one
  // each, and only the first MAX_STEP_FAILURES of a sign-in are checked at all (a count read, then
  // written back after the check, let any number of simultaneous guesses through).
  const counted = await db.query<{ failures: number }>(`UPDATE sign_in_steps SET failures = failures + 1 WHERE id = $1 AND expires_at > now() RETURNING failures`, [pending.id]);
  const attempt = counted.rows[0]?.failures;
  if (attempt === undefined) return expired();
  const tooMany = async (record: boolean) => {
    await db.query(`DELETE FROM sign_in_steps WHERE id = $1`, [pending.id]);
    // one event per ended sign-in (the answer that reached the limit), which the factors' hourly lock counts (mfa/factors.ts)
    if (record) await recordSignIn(db, attemptOf(request), { outcome: 'second_factor_failed', client: { id: pending.clientId, ...tenant }, userId: user.id, login: pending.login, detail: `${attempt} wrong answers at ${step!.id}` });
    reply.header('Set-Cookie', cookie(pending.kind, '', 0, setting.secure));
    sendPage(reply, 401, renderErrorPage('Too many wrong answers. Please sign in again.'));
    return { kind: 'sent' } as const;
  };
  if (attempt > MAX_STEP_FAILURES) return tooMany(false);
  const answer = await step.submit({ ...input, body });
  if ('error' in answer) return attempt >= MAX_STEP_FAILURES ? tooMany(true) : show(400, answer.error);
  // a right answer gives its count back (the limit is on wrong ones), in the statement that keeps
  // what it proved; no row: too many wrong answers sent alongside ended the sign-in meanwhile
  const amr = [...new Set([...pending.amr, ...(answer.amr ?? [])])];
  const kept = await db.query(`UPDATE sign_in_steps SET amr = $2::text[], failures = failures - 1 WHERE id = $1 RETURNING id`, [pending.id, amr]);
  if (kept.rows.length === 0) return expired();
  pending.amr = amr;
  const after = await findUserById(db, tenant, pending.userId);
  if (!after || after.blocked) return expired();
  step = await firstNeeded({ ...input, user: after, amr });
  if (step) {
    // Post/Redirect/Get: the next step's page
    reply.header('Cache-Control', 'no-store').redirect(page.path, 303);
    return { kind: 'sent' };
  }
  return { kind: 'finished', pending, user: after };
}

/** The sign-in is done: forget it and its cookie. */
export async function endSteps(setting: StepsSetting, reply: FastifyReply, pending: Pending): Promise<void> {
  await setting.db.query(`DELETE FROM sign_in_steps WHERE id = $1`, [pending.id]);
  reply.header('Set-Cookie', cookie(pending.kind, '', 0, setting.secure));
}

/** A step page's frame: its heading, the error if any, and a form posting `step`. */
export function stepForm(input: { title: string; intro: string; action: string; step: string; error?: string; fields: string; submit: string; after?: string }): string {
  const escape = (value: string) => value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
  const error = input.error ? `<p class="error" id="step-error" role="alert">${escape(translateSentence(input.error))}</p>\n` : '';
  return renderPage(
    input.title,
    `<h1>${escape(input.title)}</h1>
<p>${escape(input.intro)}</p>
${error}<form method="post" action="${escape(input.action)}">
<input type="hidden" name="step" value="${escape(input.step)}">
${input.fields}
<button type="submit">${escape(input.submit)}</button>
</form>${input.after ?? ''}`,
  );
}
