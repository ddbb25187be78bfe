import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { sha256 } from '../ids.js';
import { languageOf } from '../mail/language.js';
import { knowPage, t, th, translateSentence } from '../i18n/index.js';
import { type AccountToken, findToken, sendAccountLink, setPasswordFromLink, useToken, verifyEmailFromLink } from '../accounts/links.js';
import { mailerOf } from '../mail/mailer.js';
import type { Purpose } from '../mail/templates.js';
import { hashPassword } from '../passwords.js';
import { passwordProblem, policyOf } from '../policies.js';
import { tenantOf } from './clients.js';
import { renderPage, sendPage } from './loginPage.js';
import { addressKey } from './loginThrottle.js';
import { chooseTenant } from './signInTenant.js';
// the 'verify-email' sign-in step registers itself (signInSteps.ts)
import './verifyEmailStep.js';

/**
 * The hosted pages of e-mailed links (docs/CONSOLE.md, "E-mail, reset links and invitations"):
 * forgotten password, reset, invitation and verification. Server-rendered, no script, the login
 * pages' policy; forms post only from our own pages (login CSRF, as consoleLogin.ts). The token of a
 * link is in its query: these routes log at warn only, so that no live link lands in the request log.
 */

/** Forgotten-password requests: per address (of a tenant) and per client address, per hour. */
export const FORGOT_LIMITS = { perAddress: 5, perClientAddress: 50, windowSeconds: 3600 };

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const hidden = (name: string, value: string | undefined) => (value ? `<input type="hidden" name="${name}" value="${escapeHtml(value)}">\n` : '');
const errorBlock = (error?: string) => (error ? `<p class="error" id="page-error" role="alert">${escapeHtml(translateSentence(error))}</p>\n` : '');
const linkTo = (href: string, text: string) => `<p><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></p>`;

/** Query and form fields of the forgotten-password page: where the person signs in (signInTenant.ts). */
interface Origin {
  company?: string;
  domain?: string;
  client_id?: string;
  /** The hosted sign-in page's interaction: its page is the way back. */
  interaction?: string;
  /** Its authorization request's ui_locales (read from the interaction, never from the form). */
  uiLocales?: string;
}
const originProperties = {
  company: { type: 'string', maxLength: 100 },
  domain: { type: 'string', maxLength: 100 },
  client_id: { type: 'string', maxLength: 200 },
  interaction: { type: 'string', maxLength: 100 },
} as const;

const INTERACTION = /^[A-Za-z0-9_-]{1,100}$/;

export async function accountPageRoutes(app: FastifyInstance, options: { provider: Provider; consoleClientId: string }) {
  const { db, config } = app.ctx;
  const { provider, consoleClientId } = options;
  const mailer = mailerOf(app.ctx);
  const quiet = { logLevel: 'warn' as const };

  /** Login CSRF and its likes: a form posted from another site is refused (sameSiteForms.ts). */
  const sameSiteForm = 'This form was sent from another site. Open the page from its link and try again.';

  /** The way back to the sign-in the person came from, when we know it. */
  const signInHref = (origin: Origin, clientId: string | null | undefined): string | undefined => {
    if (origin.interaction && INTERACTION.test(origin.interaction)) return `/oauth/interaction/${encodeURIComponent(origin.interaction)}`;
    if (clientId && clientId !== consoleClientId) return undefined;
    const query = new URLSearchParams();
    if (origin.company) query.set('company', origin.company);
    if (origin.company && origin.domain) query.set('domain', origin.domain);
    return `/login${query.size ? `?${query}` : ''}`;
  };

  /** Counts one request on a counter of login_attempts (the throttle's table and purge); its count in the window. */
  const count = async (kind: string, key: string) => {
    const { rows } = await db.query<{ n: number }>(
      `INSERT INTO login_attempts AS a (kind, key, n, expires_at) VALUES ($1, $2, 1, now() + make_interval(secs => $3))
       ON CONFLICT (kind, key) DO UPDATE SET
         n = CASE WHEN a.expires_at > now() THEN a.n + 1 ELSE 1 END,
         expires_at = CASE WHEN a.expires_at > now() THEN a.expires_at ELSE excluded.expires_at END
       RETURNING a.n`,
      [kind, key, FORGOT_LIMITS.windowSeconds],
    );
    return rows[0].n;
  };

  const forgotPage = (origin: Origin, extra: { email?: string; error?: string; organization?: string } = {}) => {
    const back = signInHref(origin, origin.client_id);
    return renderPage(
      t('forgot.title'),
      `<h1>${th('forgot.title')}</h1>
${extra.organization ? `<p>${th('login.organization', { name: `<strong>${escapeHtml(extra.organization)}</strong>` })}</p>\n` : ''}<p>${th('forgot.intro')}</p>
${errorBlock(extra.error)}<form method="post" action="/account/forgot">
${hidden('company', origin.company)}${hidden('domain', origin.domain)}${hidden('client_id', origin.client_id)}${hidden('interaction', origin.interaction)}<label for="email">${th('forgot.email')}</label>
<input type="text" id="email" name="email" inputmode="email" autocomplete="email" required autofocus value="${escapeHtml(extra.email ?? '')}"${extra.error ? ' aria-describedby="page-error" aria-invalid="true"' : ''}>
<button type="submit">${th('forgot.send')}</button>
</form>
${back ? linkTo(back, t('forgot.back')) : ''}`,
    );
  };
  /**
   * What the page is for: a hosted sign-in's interaction names its application and organization
   * itself (read on the server, never from the form); else the fields as given.
   */
  const resolve = async (given: Origin): Promise<Origin> => {
    const uid = given.interaction && INTERACTION.test(given.interaction) ? given.interaction : undefined;
    const interaction = uid ? await provider.Interaction.find(uid).catch(() => undefined) : undefined;
    if (!interaction) return { company: given.company, domain: given.domain, client_id: given.client_id };
    const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
    const { params } = interaction;
    return { interaction: uid, client_id: text(params.client_id), company: text(params.company), domain: text(params.domain), uiLocales: text(params.ui_locales) };
  };
  /** The page's language and branding: the sign-in's ui_locales, its application's tenant or the organization named (docs/CONSOLE.md, "Languages"). */
  const knowOrigin = async (origin: Origin) => {
    const client = origin.client_id ? await provider.Client.find(origin.client_id).catch(() => undefined) : undefined;
    const named = origin.company && origin.domain ? { companyId: origin.company, domainId: origin.domain } : undefined;
    await knowPage(db, { uiLocales: origin.uiLocales, tenant: named ?? (client ? tenantOf(client) : undefined) });
  };
  const organizationOf = (origin: Origin) => (origin.company ? [origin.company, origin.domain].filter(Boolean).join(' › ') : undefined);

  app.get<{ Querystring: Origin }>('/account/forgot', { schema: { hide: true, querystring: { type: 'object', properties: originProperties } } }, async (request, reply) => {
    const origin = await resolve(request.query);
    await knowOrigin(origin);
    return sendPage(reply, 200, forgotPage(origin, { organization: organizationOf(origin) }));
  });

  app.post<{ Body: Origin & { email?: string } }>(
    '/account/forgot',
    { config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { ...originProperties, email: { type: 'string', maxLength: 254 } } } } },
    async (request, reply) => {
      const form = request.body ?? {};
      const email = (form.email ?? '').trim();
      const origin = await resolve(form);
      await knowOrigin(origin);
      if (!email.includes('@')) return sendPage(reply, 400, forgotPage(origin, { email, error: 'Type the e-mail address of your account.', organization: organizationOf(origin) }));
      const clientId = origin.client_id || consoleClientId;
      const client = await provider.Client.find(clientId).catch(() => undefined);
      if (!client) return sendPage(reply, 400, forgotPage(origin, { email, error: 'Unknown or inactive application (client_id).' }));
      const choice = await chooseTenant(db, { consoleClientId }, client, origin);
      if (choice.kind === 'refused') return sendPage(reply, 400, forgotPage(origin, { email, error: choice.message }));
      if ((await count('mail-client-address', addressKey(request.ip))) > FORGOT_LIMITS.perClientAddress) {
        return sendPage(reply, 429, forgotPage(origin, { email, error: 'Too many requests from your network. Try again in an hour.', organization: organizationOf(origin) }));
      }
      const tenant = choice.kind === 'tenant' ? choice.tenant : tenantOf(client);
      const overLimit = (await count('mail-address', `${tenant.companyId}/${tenant.domainId}/${sha256(email.toLowerCase())}`)) > FORGOT_LIMITS.perAddress;
      // The answer neither waits for nor depends on the account: looking her up, making the link and
      // writing the message happen after it, so that whether the address exists shows neither in
      // the words nor in the time taken.
      if (!overLimit && choice.known) {
        const asked = request.headers['accept-language'];
        setImmediate(() => {
          void (async () => {
            const { rows } = await db.query<{ id: string; language: string | null }>(
              `SELECT id, language FROM users WHERE company_id = $1 AND domain_id = $2 AND lower(email) = lower($3) AND status = 'active' AND blocked_at IS NULL`,
              [tenant.companyId, tenant.domainId, email],
            );
            if (rows[0]) await sendAccountLink(db, mailer, config.publicUrl, { ...tenant, userId: rows[0].id, purpose: 'reset', language: languageOf(asked, { stored: rows[0].language }), clientId: client.clientId });
          })().catch((error) => request.log.error({ err: error }, 'forgotten password: the link could not be made'));
        });
      }
      const back = signInHref(origin, client.clientId);
      return sendPage(
        reply,
        200,
        renderPage(
          t('forgot.sentTitle'),
          `<h1>${th('forgot.sentTitle')}</h1>
<p role="status">${th('forgot.sent')}</p>
${back ? linkTo(back, t('forgot.back')) : ''}`,
        ),
      );
    },
  );

  const invalidLink = (reply: FastifyReply, purpose: Purpose) =>
    sendPage(
      reply,
      400,
      renderPage(
        t('link.invalidTitle'),
        `<h1>${th('link.invalidTitle')}</h1>
${errorBlock('This link is invalid, has expired or has already been used.')}${purpose === 'verify' ? `<p>${th('link.verifyAgain')}</p>` : `<p>${th('link.askAgain')}</p>\n${linkTo('/account/forgot', t('login.forgot'))}`}`,
      ),
    );

  const passwordPage = (purpose: 'reset' | 'invite', token: string, companyName: string, error?: string) => {
    const title = purpose === 'invite' ? t('password.welcome', { company: companyName }) : t('password.chooseTitle');
    const described = error ? ' aria-describedby="page-error" aria-invalid="true"' : '';
    return renderPage(
      title,
      `<h1>${escapeHtml(title)}</h1>
${purpose === 'invite' ? `<p>${th('password.chooseIntro')}</p>\n` : ''}${errorBlock(error)}<form method="post" action="/account/${purpose}">
${hidden('token', token)}<label for="password">${th('password.new')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" required autofocus${described}>
<label for="confirm">${th('password.again')}</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" required${described}>
<button type="submit">${th('password.submit')}</button>
</form>`,
    );
  };

  const companyNameOf = async (token: AccountToken) =>
    (await db.query<{ name: string }>(`SELECT display_name AS name FROM companies WHERE id = $1`, [token.companyId])).rows[0]?.name ?? token.companyId;

  for (const purpose of ['reset', 'invite'] as const) {
    app.get<{ Querystring: { token?: string } }>(
      `/account/${purpose}`,
      { ...quiet, schema: { hide: true, querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 100 } } } } },
      async (request, reply) => {
        const token = request.query.token ?? '';
        const found = await findToken(db, token, [purpose]);
        if (found) await knowPage(db, { tenant: found, userId: found.userId });
        if (!found) return invalidLink(reply, purpose);
        return sendPage(reply, 200, passwordPage(purpose, token, await companyNameOf(found)));
      },
    );

    app.post<{ Body: { token?: string; password?: string; confirm?: string } }>(
      `/account/${purpose}`,
      {
        ...quiet,
        config: { sameSiteForm },
        schema: {
          hide: true,
          body: { type: 'object', properties: { token: { type: 'string', maxLength: 100 }, password: { type: 'string', maxLength: 1024 }, confirm: { type: 'string', maxLength: 1024 } } },
        },
      },
      async (request, reply) => {
        const { token = '', password = '', confirm = '' } = request.body ?? {};
        const found = await findToken(db, token, [purpose]);
        if (found) await knowPage(db, { tenant: found, userId: found.userId });
        if (!found) return invalidLink(reply, purpose);
        const again = async (error: string) => sendPage(reply, 400, passwordPage(purpose, token, await companyNameOf(found), error));
        if (password !== confirm) return again('The two passwords differ. Type the same password twice.');
        const problem = passwordProblem(await policyOf(db, found), password);
        if (problem) return again(problem);
        // bcrypt on the password threads, before the transaction: never on the event loop, never holding a transaction
        const hash = await hashPassword(password);
        const used = await db.transaction(async (tx) => {
          const spent = await useToken(tx, token, [purpose]);
          if (spent) await setPasswordFromLink(tx, spent, hash, { ip: request.ip });
          return spent;
        });
        if (!used) return invalidLink(reply, purpose);
        // back to the console's sign-in of her organization, unless she asked from another application
        const back = signInHref({ company: used.companyId, domain: used.domainId }, used.clientId);
        return sendPage(
          reply,
          200,
          renderPage(
            t(purpose === 'invite' ? 'password.setTitle' : 'password.changedTitle'),
            `<h1>${th(purpose === 'invite' ? 'password.setTitle' : 'password.changedTitle')}</h1>
<p role="status">${th(purpose === 'invite' ? 'password.setDone' : 'password.changedDone')} ${back ? `<a href="${escapeHtml(back)}">${th('password.signIn')}</a>.` : th('password.signInWith')}</p>
<p>${th('password.factors', { link: `<a href="/account">${th('password.accountPage')}</a>` })}</p>`,
          ),
        );
      },
    );
  }

  app.get<{ Querystring: { token?: string } }>(
    '/account/verify',
    { ...quiet, schema: { hide: true, querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 100 } } } } },
    async (request, reply) => {
      const token = request.query.token ?? '';
      const found = await findToken(db, token, ['verify']);
      if (found) await knowPage(db, { tenant: found, userId: found.userId });
      if (!found) return invalidLink(reply, 'verify');
      // a button, not the GET itself: mail scanners open links, and should not spend them
      return sendPage(
        reply,
        200,
        renderPage(
          t('verify.title'),
          `<h1>${th('verify.title')}</h1>
<p>${th('verify.confirm', { email: `<strong>${escapeHtml(found.email)}</strong>` })}</p>
<form method="post" action="/account/verify">
${hidden('token', token)}<button type="submit">${th('verify.submit')}</button>
</form>`,
        ),
      );
    },
  );

  app.post<{ Body: { token?: string } }>(
    '/account/verify',
    { ...quiet, config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { token: { type: 'string', maxLength: 100 } } } } },
    async (request, reply) => {
      const used = await db.transaction(async (tx) => {
        const spent = await useToken(tx, request.body?.token ?? '', ['verify']);
        if (spent) await verifyEmailFromLink(tx, spent, { ip: request.ip });
        return spent;
      });
      if (!used) return invalidLink(reply, 'verify');
      return sendPage(
        reply,
        200,
        renderPage(t('verify.doneTitle'), `<h1>${th('verify.doneTitle')}</h1>\n<p role="status">${th('verify.done', { email: escapeHtml(used.email) })}</p>`),
      );
    },
  );
}
