import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Database, type Queryable, transactionSettings } from '../db/index.js';
import { randomAlphanumeric } from '../ids.js';
import { queueAccountLink } from '../accounts/links.js';
import { languageOf } from '../mail/language.js';
import { mailerOf } from '../mail/mailer.js';
import { hashPassword } from '../passwords.js';
import { type DomainPolicy, passwordProblem, policyOf } from '../policies.js';
import type { Tenant } from '../accounts/accounts.js';
import { escapeHtml, renderErrorPage, renderPage, sendPage } from './loginPage.js';
import { knowPage, t, th, translateSentence } from '../i18n/index.js';
import { addressKey, type LoginThrottle } from './loginThrottle.js';
import { chooseTenant, type NamedTenant, type TenantSetting } from './signInTenant.js';

/**
 * Self sign-up (docs/CONSOLE.md, "Self sign-up"): a hosted page, server-rendered with no script, where
 * a person creates her own account in a domain whose security policy allows it. The account is
 * active with an unverified e-mail address and the 'verify-email' required action, so nothing signs
 * in with it before its address is proved. The answer is the same whether or not the address already
 * has an account (and none is created then), and sign-ups are throttled per client address.
 */

/** Sign-ups one client address may post per hour (what a family or an office behind one address needs). */
export const SIGN_UPS_PER_ADDRESS = 20;
const SIGN_UP_WINDOW_SECONDS = 3600;

const NAME = /^[\x21-\x7E]{1,100}$/;
/** A plain check of the shape of an address; proving it is the verification e-mail's job. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

interface SignUpQuery {
  company?: string;
  domain?: string;
  /** The hosted sign-in this sign-up was opened from (oidc-provider's interaction uid), for the way back. */
  interaction?: string;
}
interface SignUpForm extends SignUpQuery {
  email?: string;
  displayName?: string;
  password?: string;
  confirm?: string;
}

const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const queryProperties = { company: text(100), domain: text(100), interaction: text(200) };

/** Where a sign-up link leads: the hosted page of `tenant`, with the interaction to go back to. */
export function signUpUrl(tenant: Tenant, interaction?: string): string {
  const query = new URLSearchParams({ company: tenant.companyId, domain: tenant.domainId });
  if (interaction) query.set('interaction', interaction);
  return `/oauth/signup?${query}`;
}

/**
 * The tenant a sign-up names: `company` and `domain` (its primary domain when empty); naming no
 * company means the console application's own tenant. Undefined when it names no domain there.
 */
async function tenantNamed(db: Queryable, consoleClientId: string, query: SignUpQuery): Promise<(Tenant & { organization: string }) | undefined> {
  const company = query.company?.trim();
  const domain = query.domain?.trim();
  if (company !== undefined && company !== '' && !NAME.test(company)) return undefined;
  if (domain && !NAME.test(domain)) return undefined;
  const { rows } = await db.query<Tenant & { organization: string }>(
    company
      ? `SELECT d.company_id AS "companyId", d.id AS "domainId", c.display_name AS organization
         FROM domains d JOIN companies c ON c.id = d.company_id WHERE d.company_id = $1 AND ${domain ? 'd.id = $2' : 'd.is_primary'}`
      : `SELECT a.company_id AS "companyId", a.domain_id AS "domainId", c.display_name AS organization
         FROM applications a JOIN companies c ON c.id = a.company_id WHERE a.id = $1`,
    company ? (domain ? [company, domain] : [company]) : [consoleClientId],
  );
  return rows[0];
}

/** Is self sign-up on in the tenant the query names? (The console's /signup page asks.) */
async function offeredIn(db: Database, consoleClientId: string, query: SignUpQuery): Promise<{ tenant: Tenant & { organization: string }; policy: DomainPolicy } | undefined> {
  const tenant = await tenantNamed(db.stable, consoleClientId, query);
  if (!tenant) return undefined;
  const policy = await policyOf(db, tenant);
  return policy.selfSignUp ? { tenant, policy } : undefined;
}

const INTERACTION = /^[A-Za-z0-9_-]{1,200}$/;
const backLink = (interaction?: string) =>
  interaction && INTERACTION.test(interaction) ? `<p><a href="/oauth/interaction/${encodeURIComponent(interaction)}">${th('forgot.back')}</a></p>` : '';

/** The page of a tenant that offers no sign-up (or of no tenant at all: the same words). */
const notOfferedPage = (interaction?: string) =>
  renderPage(
    t('signup.notOfferedTitle'),
    `<h1>${th('signup.notOfferedTitle')}</h1>\n<p>${th('signup.notOffered')}</p>\n${backLink(interaction)}`,
  );

function hidden(name: string, value: string | undefined): string {
  return value ? `<input type="hidden" name="${name}" value="${escapeHtml(value)}">\n` : '';
}

function signUpPage(input: { tenant: Tenant & { organization: string }; policy: DomainPolicy; interaction?: string; email?: string; displayName?: string; error?: string }): string {
  const { tenant, policy } = input;
  const error = input.error ? `<p class="error" id="signup-error" role="alert">${escapeHtml(translateSentence(input.error))}</p>\n` : '';
  const describedBy = (hint?: string) => {
    const ids = [hint, input.error ? 'signup-error' : undefined].filter(Boolean).join(' ');
    return ids ? ` aria-describedby="${ids}"` : '';
  };
  const rule = t(policy.refuseCommonPasswords ? 'signup.ruleCommon' : 'signup.rule', { n: policy.minPasswordLength });
  return renderPage(
    t('signup.titleAt', { organization: input.tenant.organization }),
    `<h1>${th('signup.title')}</h1>
<p>${th('login.organization', { name: `<strong>${escapeHtml(tenant.organization)}</strong>` })}</p>
${error}<form method="post" action="/oauth/signup">
${hidden('company', tenant.companyId)}${hidden('domain', tenant.domainId)}${hidden('interaction', input.interaction && INTERACTION.test(input.interaction) ? input.interaction : undefined)}<label for="email">${th('signup.email')}</label>
<input type="email" id="email" name="email" autocomplete="email" required maxlength="254" value="${escapeHtml(input.email ?? '')}"${describedBy()}>
<label for="displayName">${th('signup.name')}</label>
<input type="text" id="displayName" name="displayName" autocomplete="name" required maxlength="200" value="${escapeHtml(input.displayName ?? '')}">
<label for="password">${th('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${policy.minPasswordLength}" maxlength="1024"${describedBy('password-rule')}>
<p id="password-rule">${escapeHtml(rule)}</p>
<label for="confirm">${th('signup.passwordAgain')}</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" required maxlength="1024">
<button type="submit">${th('signup.submit')}</button>
</form>
${backLink(input.interaction)}`,
  );
}

const checkInboxPage = (email: string, interaction?: string) =>
  renderPage(
    t('signup.inboxTitle'),
    `<h1>${th('signup.inboxTitle')}</h1>\n<p>${th('signup.inbox', { email: `<strong>${escapeHtml(email)}</strong>` })}</p>\n${backLink(interaction)}`,
  );

/** Why the form cannot be accepted, as a sentence, or undefined. */
function formProblem(form: SignUpForm, policy: DomainPolicy): string | undefined {
  const email = form.email?.trim() ?? '';
  if (!EMAIL.test(email) || email.length > 254) return 'Enter a valid email address.';
  const displayName = form.displayName?.trim() ?? '';
  if (!displayName || displayName.length > 200) return 'Enter your name (up to 200 characters).';
  const password = form.password ?? '';
  if (password !== (form.confirm ?? '')) return 'The two passwords differ: type the same password twice.';
  return passwordProblem(policy, password);
}

/**
 * Creates the account unless the domain already has one with this address (or this address as a
 * username): then nothing happens, and the caller answers the same. Returns the new account's id.
 */
async function createAccount(tx: Queryable, tenant: Tenant, userId: string, email: string, displayName: string, passwordHash: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash, status, email_verified, required_actions)
     SELECT $1, $2, $3, $4, $5, $4, $6, 'active', false, '{verify-email}'
     WHERE NOT EXISTS (SELECT 1 FROM users WHERE company_id = $1 AND domain_id = $2 AND (lower(email) = lower($4) OR lower(username) = lower($4)))
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [tenant.companyId, tenant.domainId, userId, email, displayName, passwordHash],
  );
  return rows[0]?.id;
}

export async function signUpRoutes(app: FastifyInstance, options: { throttle: LoginThrottle; consoleClientId: string; publicUrl: string }) {
  const { db } = app.ctx;
  const { throttle, consoleClientId } = options;
  const publicUrl = options.publicUrl.replace(/\/$/, '');

  app.get<{ Querystring: SignUpQuery }>(
    '/oauth/signup',
    { schema: { tags: ['oauth'], summary: 'The hosted sign-up page of a domain (or a page saying it offers none)', security: [], querystring: { type: 'object', properties: queryProperties } } },
    async (request, reply) => {
      const offered = await offeredIn(db, consoleClientId, request.query);
      if (offered) await knowPage(db, { tenant: offered.tenant });
      if (!offered) return sendPage(reply, 200, notOfferedPage(request.query.interaction));
      return sendPage(reply, 200, signUpPage({ ...offered, interaction: request.query.interaction }));
    },
  );

  // For the console's /signup page: whether the tenant it names offers sign-up, and where.
  app.get<{ Querystring: SignUpQuery }>(
    '/oauth/signup/offered',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Whether a domain offers self sign-up: { offered, url }',
        security: [],
        querystring: { type: 'object', properties: queryProperties },
        response: { 200: { type: 'object', properties: { offered: { type: 'boolean' }, url: { type: ['string', 'null'] } } } },
      },
    },
    async (request, reply) => {
      const offered = await offeredIn(db, consoleClientId, request.query);
      reply.header('Cache-Control', 'no-store');
      return { offered: offered !== undefined, url: offered ? signUpUrl(offered.tenant) : null };
    },
  );

  app.post<{ Body: SignUpForm }>(
    '/oauth/signup',
    {
      // like the sign-in form: another site's page must not post here in a visitor's browser
      config: { sameSiteForm: 'This sign-up form was sent from another site. Open the sign-up page and try again.' },
      schema: {
        tags: ['oauth'],
        summary: 'Creates an account (unverified e-mail); the same answer whether or not the address is taken',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: { type: 'object', properties: { ...queryProperties, email: text(254), displayName: text(200), password: text(1024), confirm: text(1024) } },
      },
    },
    async (request: FastifyRequest<{ Body: SignUpForm }>, reply: FastifyReply) => {
      const form = request.body ?? {};
      const offered = await offeredIn(db, consoleClientId, form);
      if (offered) await knowPage(db, { tenant: offered.tenant });
      if (!offered) return sendPage(reply, 403, notOfferedPage(form.interaction));
      const again = (status: number, error: string) =>
        sendPage(reply, status, signUpPage({ ...offered, interaction: form.interaction, email: form.email, displayName: form.displayName, error }));

      // every post counts, before any password is hashed: bcrypt is the expensive part
      const [ofAddress] = await throttle.add([{ kind: 'signed-up-address', key: addressKey(request.ip) }], SIGN_UP_WINDOW_SECONDS);
      if (ofAddress.n > SIGN_UPS_PER_ADDRESS) {
        reply.header('Retry-After', String(ofAddress.secondsLeft));
        return again(429, `Too many sign-ups from your network. Try again in ${Math.ceil(ofAddress.secondsLeft / 60)} minutes.`);
      }
      const problem = formProblem(form, offered.policy);
      if (problem) return again(400, problem);

      const email = form.email!.trim();
      // hashed whether or not the address is taken: the answer takes as long either way
      const passwordHash = await hashPassword(form.password!);
      // the account and its verification message (server/mail: the outbox, then SMTP_URL if set) together;
      // the user's history records her as the one who created it (client "self-sign-up")
      const userId = randomAlphanumeric(20);
      const actor = { userId, ...offered.tenant, clientId: 'self-sign-up', ip: request.ip };
      const outcome = await transactionSettings.run(new Map([['iam.actor', JSON.stringify(actor)]]), () =>
        db.transaction(async (tx) => {
          if (!(await createAccount(tx, offered.tenant, userId, email, form.displayName!.trim(), passwordHash))) return undefined;
          return queueAccountLink(tx, mailerOf(app.ctx), publicUrl, { ...offered.tenant, userId, purpose: 'verify', language: languageOf(request.headers['accept-language']) });
        }),
      );
      // the mail server is never waited for
      if (outcome?.kind === 'queued') outcome.send();
      return sendPage(reply, 200, checkInboxPage(email, form.interaction));
    },
  );
}

/**
 * The "Create an account" link of a hosted sign-in page: to the sign-up page of the tenant the
 * sign-in is for, when its policy offers sign-up (one small read), else undefined.
 */
export async function signUpLinkOf(db: Database, setting: TenantSetting, client: unknown, interaction: { uid: string; params: NamedTenant }): Promise<string | undefined> {
  const choice = await chooseTenant(db, setting, client, interaction.params);
  if (choice.kind !== 'tenant' || !choice.known) return undefined;
  return (await policyOf(db, choice.tenant)).selfSignUp ? signUpUrl(choice.tenant, interaction.uid) : undefined;
}
