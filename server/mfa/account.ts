import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { sha256 } from '../ids.js';
import { verifyAccessToken } from '../accounts/tokens.js';
import { tenantOf } from '../oauth/clients.js';
import type { KnownUser } from '../accounts/accounts.js';
import { renderErrorPage, renderLoginPage, renderPage } from '../oauth/loginPage.js';
import { passwordStep, type PasswordStepOptions, trustDevice } from '../oauth/passwordStep.js';
import { attemptOf, recordSignIn } from '../oauth/signInEvents.js';
import { beginSteps, endSteps, stepPage } from '../oauth/signInSteps.js';
import { chooseTenant } from '../oauth/signInTenant.js';
import {
  addTotp,
  addWebauthn,
  authenticationOptions,
  decryptSecret,
  encryptSecret,
  prepareMfaKey,
  TOTP_UNAVAILABLE,
  totpAvailable,
  factorsLocked,
  hasSecondFactor,
  LOCKED_MESSAGE,
  listFactors,
  MAX_FACTOR_FAILURES,
  newRecoveryCodes,
  newTotpSecret,
  proveFactor,
  registrationOptions,
  relyingParty,
  removeFactors,
  totpStep,
  totpUri,
  type UserRef,
} from '../accounts/factors.js';
import { factorRequired, recordOwnFactorChange } from './steps.js';
import { knowPage, t, th } from '../i18n/index.js';
import { accountPagePolicy, errorBlock, escapeHtml, overviewPage, passkeyPage, recoveryCodesPage, removePage, SCRIPT_PATHS, secondFactorForm, totpEnrolForm } from './pages.js';

/**
 * The account page (docs/CONSOLE.md, "Multi-factor authentication and the account page"): any person
 * of any organization signs in with her password (the sign-in throttle applies: passwordStep.ts) and
 * her second factor when she has one, then sees and manages her factors. Its own short session: a
 * random token in an HttpOnly, SameSite=Lax cookie on /account, stored as its sha256, 15 minutes idle.
 * Every form post is checked to come from our own pages (login CSRF and CSRF), as /oauth/login is.
 *
 * Opened from the console (its user menu: POST /account/console, docs/DECISIONS.md 44), the page
 * takes the console's sign-in instead of a second password: the console's own access token, sent
 * as it sends it to the API (an Authorization header, never a URL), names exactly one account by
 * company, domain and id, and the session it opens is tied to that sign-in (its grant) and ends with
 * it. Changing her factors from such a session asks her password once (a fresh proof).
 */

const COOKIE = 'iam_account';
const IDLE_MINUTES = 15;
const STEPS_PATH = '/account/steps';
/** The amr of a session opened from the console: its sign-in, which asked her second factor when one was due; no password proved here. */
const CONSOLE_AMR = ['console', 'mfa'];
/** Where a password confirmed for a fresh proof goes on (a fixed list: never a URL from the form). */
const AFTER_CONFIRM = new Set(['/account/totp', '/account/passkey', '/account']);

interface AccountOptions extends PasswordStepOptions {
  provider: Provider;
  issuer: string;
  consoleClientId: string;
}

interface Session {
  id: string;
  verified: boolean;
  amr: string[];
  pending: { totp?: string; challenge?: string };
  failures: number;
  /** The console's sign-in the session was opened from (POST /account/console); null when opened with a password here. */
  grantId: string | null;
  user: KnownUser;
}

const USER_COLUMNS = `u.id, u.company_id AS "companyId", u.domain_id AS "domainId", u.subject, u.username, u.display_name AS "displayName", u.email, u.password_hash AS "passwordHash",
  u.email_verified AS "emailVerified", u.blocked_at IS NOT NULL AS blocked, u.required_actions AS "requiredActions"`;

const cookieValue = (header: string | undefined) => {
  for (const part of (header ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === COOKIE && value && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
};

const ref = (user: KnownUser): UserRef => ({ companyId: user.companyId, domainId: user.domainId, id: user.id });

const require = createRequire(import.meta.url);
const LIBRARY = fs.readFileSync(require.resolve('@simplewebauthn/browser').replace(/esm[/\\]index\.js$|script[/\\]index\.js$/, 'dist/bundle/index.umd.min.js'), 'utf8');
const OURS = fs.readFileSync(new URL('./webauthn.js', import.meta.url), 'utf8');
const PAGE = fs.readFileSync(new URL('./page.js', import.meta.url), 'utf8');

export async function accountRoutes(app: FastifyInstance, options: AccountOptions) {
  const { db, provider, issuer, consoleClientId } = options;
  const secure = issuer.startsWith('https:');
  const rp = relyingParty(issuer);
  // where the key of authenticator app secrets is, checked at start-up (factors.ts)
  const { config } = app.ctx;
  await prepareMfaKey(db, { mfaKey: config.mfaKey, databaseUrl: config.databaseUrl, dataDir: config.dataDir });

  const setCookie = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.header('Set-Cookie', [`${COOKIE}=${token}`, `Max-Age=${maxAge}`, 'Path=/account', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; '));

  const send = (reply: FastifyReply, status: number, html: string) =>
    reply.status(status).header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-store').header('Content-Security-Policy', accountPagePolicy(html)).send(html);

  /** The session of the request's cookie, kept alive another 15 minutes; its person must still be active and not blocked. */
  const sessionOf = async (request: FastifyRequest): Promise<Session | undefined> => {
    const token = cookieValue(request.headers.cookie);
    if (!token) return undefined;
    const { rows } = await db.query<Omit<Session, 'user'> & { user: KnownUser }>(
      `WITH s AS (UPDATE account_sessions a SET expires_at = now() + interval '${IDLE_MINUTES} minutes' WHERE a.id = $1 AND a.expires_at > now()
                    -- opened from the console: only while its sign-in is live (not signed out, revoked or expired)
                    AND (a.grant_id IS NULL OR EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = a.grant_id AND g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > now())
                                                        AND g.company_id = a.company_id AND g.domain_id = a.domain_id AND g.user_id = a.user_id))
                  RETURNING *)
       SELECT s.id, s.verified, s.amr, s.pending, s.failures, s.grant_id AS "grantId", row_to_json(x) AS user
       FROM s JOIN LATERAL (SELECT ${USER_COLUMNS} FROM users u WHERE u.company_id = s.company_id AND u.domain_id = s.domain_id AND u.id = s.user_id
                            AND u.status = 'active' AND u.blocked_at IS NULL) x ON true`,
      [sha256(token)],
    );
    // her pages in her language (stored, else Accept-Language, among her domain's) with her company's branding
    if (rows[0]) await knowPage(db, { tenant: { companyId: rows[0].user.companyId, domainId: rows[0].user.domainId }, userId: rows[0].user.id });
    return rows[0];
  };

  /** The sign-in form's language and branding: the organization it names (as accountPages.ts does). */
  const knowNamed = (query: { company?: string; domain?: string }) =>
    query.company && query.domain ? knowPage(db, { tenant: { companyId: query.company, domainId: query.domain } }) : undefined;

  const startSession = async (reply: FastifyReply, user: KnownUser, verified: boolean, amr = ['pwd'], grantId: string | null = null) => {
    const token = crypto.randomBytes(32).toString('base64url');
    await db.query(`DELETE FROM account_sessions WHERE expires_at < now()`);
    await db.query(
      `INSERT INTO account_sessions (id, company_id, domain_id, user_id, verified, amr, grant_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6::text[], $7, now() + interval '${IDLE_MINUTES} minutes')`,
      [sha256(token), user.companyId, user.domainId, user.id, verified, amr, grantId],
    );
    setCookie(reply, token, IDLE_MINUTES * 60);
  };

  /** Counts one answer (a code, a key, a password) of the session before it is checked: its number, or undefined when the session is gone. */
  const countAttempt = async (session: Session) =>
    (await db.query<{ failures: number }>(`UPDATE account_sessions SET failures = failures + 1 WHERE id = $1 AND expires_at > now() RETURNING failures`, [session.id])).rows[0]?.failures;

  /**
   * Her password typed again in a signed-in session (a fresh proof, a removal): through the sign-in's
   * throttle (passwordStep.ts), per account, address and device, and on record when wrong. A session
   * opened from the console needs no password to start, so its own count of five alone would let
   * whoever holds the console's token try five passwords per new session; the throttle spans them.
   */
  const passwordAgain = async (request: FastifyRequest, reply: FastifyReply, session: Session, password: string) => {
    const { user } = session;
    const outcome = await passwordStep(options, request, reply, {
      tenant: { companyId: user.companyId, domainId: user.domainId },
      client: { id: consoleClientId, companyId: user.companyId, domainId: user.domainId },
      login: user.email || user.username,
      password,
    });
    if (outcome.kind === 'signed-in') return outcome.user.id === user.id ? ({ kind: 'right' } as const) : ({ kind: 'wrong' } as const);
    if (outcome.kind === 'throttled') return { kind: 'refused', status: 429, message: outcome.message } as const;
    if (outcome.kind === 'blocked') return { kind: 'refused', status: 403, message: outcome.message } as const;
    return { kind: 'wrong' } as const;
  };

  /**
   * Her password typed again, counted before the check as codes are (passwords sent at once count one
   * each; MAX_FACTOR_FAILURES wrong ones end the session: no guessing from a stolen session). True
   * when right; otherwise the answer is sent: `again` with why, or her organization's sign-in form.
   * The caller gives the failure back when it writes the session next.
   */
  const passwordConfirmed = async (request: FastifyRequest, reply: FastifyReply, session: Session, again: (error: string) => string): Promise<boolean> => {
    const attempt = await countAttempt(session);
    if (attempt !== undefined && attempt <= MAX_FACTOR_FAILURES) {
      const checked = await passwordAgain(request, reply, session, (request.body as { password?: string } | undefined)?.password ?? '');
      if (checked.kind === 'right') return true;
      if (checked.kind === 'refused') {
        await send(reply, checked.status, again(checked.message));
        return false;
      }
      if (attempt < MAX_FACTOR_FAILURES) {
        await send(reply, 401, again('Wrong password.'));
        return false;
      }
    }
    await endSession(reply, session);
    await reply.redirect(home(session.user), 303);
    return false;
  };

  const setPending = (session: Session, pending: Session['pending']) => db.query(`UPDATE account_sessions SET pending = $2 WHERE id = $1`, [session.id, JSON.stringify(pending)]);

  const endSession = async (reply: FastifyReply, session?: Session) => {
    if (session) await db.query(`DELETE FROM account_sessions WHERE id = $1`, [session.id]);
    setCookie(reply, '', 0);
  };

  const steps = { db, secure };
  /**
   * Her password (and her second factor, when she has one) is proved. The sign-in's required actions
   * (signInSteps.ts: a new password, a verified address, a factor her administrator asks for) come
   * before anything of the account is shown, as at any sign-in: an address nobody has verified gets
   * no factor enrolled on it here. Then a new, verified session.
   */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply, user: KnownUser, amr: string[], grantId?: string) => {
    if (grantId) {
      // opened from the console, its steps done: no sign-in of its own (the console's was recorded)
      await startSession(reply, user, true, amr, grantId);
      return reply.redirect('/account', 303);
    }
    const parked = await beginSteps(steps, request, reply, { user, kind: 'account', request: {}, clientId: consoleClientId, login: user.email, path: STEPS_PATH, amr });
    if (parked) return reply;
    await startSession(reply, user, true, amr);
    await recordSignIn(db, attemptOf(request), { outcome: 'success', client: { id: consoleClientId, companyId: user.companyId, domainId: user.domainId }, userId: user.id, login: user.email, detail: 'account page' });
    // the device cookie only once the sign-in is complete (passwordStep.ts, trustDevice)
    trustDevice(options.devices, reply, user);
    return reply.redirect('/account', 303);
  };

  /** Where the sign-in form of this person's organization is. */
  const home = (user?: { companyId: string; domainId: string }) => (user ? `/account?company=${encodeURIComponent(user.companyId)}&domain=${encodeURIComponent(user.domainId)}` : '/account');

  /** Who changed her factors here, for her history: herself, through the account page, from this address. */
  const accountPage = (request: FastifyRequest) => ({ clientId: 'account-page', ip: request.ip });

  /** CSRF: a form post from another site (or a frame of one) is refused (sameSiteForms.ts). */
  const sameSiteForm = 'This form was sent from another site. Open the account page and try again.';

  const loginForm = (query: { company?: string; domain?: string }, extra: { email?: string; error?: string } = {}) =>
    renderLoginPage({
      clientName: t('mfa.yourAccount'),
      action: '/account/login',
      hidden: { company: query.company || undefined, domain: query.domain || undefined },
      organization: query.company ? [query.company, query.domain].filter(Boolean).join(' › ') : undefined,
      ...extra,
    });

  const verifyPage = async (session: Session, error?: string) => {
    const webauthnOptions = await authenticationOptions(db, rp, ref(session.user));
    await setPending(session, { challenge: webauthnOptions?.challenge });
    return renderPage(t('mfa.secondFactorTitle'), `<h1>${th('mfa.secondFactorTitle')}</h1>\n<p>${th('mfa.proveIt')}</p>\n${secondFactorForm({ action: '/account/second-factor', error, webauthnOptions })}`);
  };

  const organizationOf = (user: KnownUser) => `${user.companyId} › ${user.domainId}`;

  const overview = async (reply: FastifyReply, session: Session, notice?: string) => {
    const factors = await listFactors(db, ref(session.user));
    // her organization asks for one and she has none: she is asked at her next sign-in anyway
    const required = !factors.some((f) => f.type !== 'recovery') && (await factorRequired(db, { ...ref(session.user), requiredActions: session.user.requiredActions }));
    return send(
      reply,
      200,
      overviewPage({ name: `${session.user.displayName} <${session.user.email}>`, organization: organizationOf(session.user), factors, notice, required, fromConsole: session.grantId !== null }),
    );
  };

  // a signed-in, verified session, or the sign-in page
  const verified = async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await sessionOf(request);
    if (session?.verified) return session;
    await reply.redirect(home(session?.user), 303);
    return undefined;
  };

  /**
   * A verified session that may change her factors: one opened with her password here, or one
   * opened from the console once she has typed her password in it (a fresh proof: whoever holds the
   * console's token alone adds no factor of his). Else the page asking for it, and undefined.
   */
  const freshProof = async (request: FastifyRequest, reply: FastifyReply, next: string) => {
    const session = await verified(request, reply);
    if (!session) return undefined;
    if (session.amr.includes('pwd')) return session;
    await send(reply, 200, confirmPage({ next }));
    return undefined;
  };

  /** The sign-in of the console's access token, when it is exactly one live sign-in of an active account (see POST /account/console). */
  const consoleSignIn = async (request: FastifyRequest): Promise<{ user: KnownUser; grantId: string } | undefined> => {
    const match = /^Bearer ([A-Za-z0-9_.-]{1,8000})$/.exec(request.headers.authorization ?? '');
    if (!match) return undefined;
    const principal = await verifyAccessToken(app.ctx, match[1]).catch(() => undefined);
    if (!principal || principal.clientId !== consoleClientId || !principal.grantId || !principal.userId) return undefined;
    const { rows } = await db.query<KnownUser>(
      `SELECT ${USER_COLUMNS} FROM users u
       JOIN oauth_grants g ON g.id = $4 AND g.client_id = $5 AND g.company_id = u.company_id AND g.domain_id = u.domain_id AND g.user_id = u.id
                          AND g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > now())
       WHERE u.company_id = $1 AND u.domain_id = $2 AND u.id = $3 AND u.subject = $6 AND u.status = 'active' AND u.blocked_at IS NULL
         -- her factors reset (or Sign out everywhere) since that sign-in: it is not taken here (migration 32's ends)
         AND NOT EXISTS (SELECT 1 FROM audit_events e WHERE e.company_id = u.company_id AND e.domain_id = u.domain_id AND e.resource_type = 'users'
                           AND e.resource_id = u.id AND e.action IN ('signOutEverywhere', 'resetFactors') AND e.occurred_at >= g.created_at)`,
      [principal.companyId, principal.domainId, principal.userId, principal.grantId, consoleClientId, principal.subject],
    );
    return rows[0] ? { user: rows[0], grantId: principal.grantId } : undefined;
  };

  app.get('/account/webauthn.js', { schema: { hide: true } }, async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(OURS));
  app.get(SCRIPT_PATHS.page, { schema: { hide: true } }, async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(PAGE));
  app.get(SCRIPT_PATHS.library, { schema: { hide: true } }, async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400').send(LIBRARY));

  const tenantQuery = { type: 'object', properties: { company: { type: 'string', maxLength: 100 }, domain: { type: 'string', maxLength: 100 }, done: { type: 'string', maxLength: 20 } } } as const;

  app.get<{ Querystring: { company?: string; domain?: string; done?: string } }>('/account', { schema: { hide: true, querystring: tenantQuery } }, async (request, reply) => {
    const session = await sessionOf(request);
    if (!session) {
      await knowNamed(request.query);
      return send(reply, 200, loginForm(request.query));
    }
    if (!session.verified) return send(reply, 200, await verifyPage(session));
    const notices = { totp: 'mfa.appAdded', passkey: 'mfa.keyAdded', removed: 'mfa.factorRemoved' } as const;
    const done = request.query.done;
    const notice = done === 'totp' || done === 'passkey' || done === 'removed' ? t(notices[done]) : undefined;
    return overview(reply, session, notice);
  });

  const text = (max: number) => ({ type: 'string', maxLength: max }) as const;

  /**
   * The account page opened from the console (its user menu): the console's script posts here with
   * its access token in the Authorization header, as to the API, and goes where the answer says. Only
   * the console's own sign-ins, live, of an active account; the account is the token's, by company,
   * domain and id (never whatever company a query names). The sign-in's required actions come first,
   * as at /account/login; the second factor is not asked again (the console's sign-in asked it).
   */
  app.post('/account/console', { config: { sameSiteForm }, schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const found = await consoleSignIn(request);
    if (!found) return reply.status(401).send({ error: 'Sign in to the account page with your password.', location: '/account' });
    const { user, grantId } = found;
    const parked = await beginSteps(steps, request, reply, { user, kind: 'account', request: { grant: grantId }, clientId: consoleClientId, login: user.email, path: STEPS_PATH, amr: CONSOLE_AMR, redirect: false });
    if (parked) return reply.send({ location: STEPS_PATH });
    await startSession(reply, user, true, CONSOLE_AMR, grantId);
    return reply.send({ location: '/account' });
  });

  const confirmPage = (input: { next: string; error?: string }) =>
    renderPage(
      t('mfa.confirmTitle'),
      `<h1>${th('mfa.confirmTitle')}</h1>
<p>${th('mfa.confirmIntro')}</p>
${errorBlock(input.error)}<form method="post" action="/account/confirm">
<input type="hidden" name="next" value="${escapeHtml(input.next)}">
<label for="password">${th('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus${input.error ? ' aria-describedby="form-error" aria-invalid="true"' : ''}>
<button type="submit">${th('mfa.confirm')}</button>
</form>
<form method="get" action="/account"><button type="submit">${th('mfa.cancel')}</button></form>`,
    );

  app.post<{ Body: { password?: string; next?: string } }>(
    '/account/confirm',
    { config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { password: text(1024), next: text(100) } } } },
    async (request, reply) => {
      const session = await verified(request, reply);
      if (!session) return reply;
      const next = AFTER_CONFIRM.has(request.body?.next ?? '') ? request.body!.next! : '/account';
      if (session.amr.includes('pwd')) return reply.redirect(next, 303);
      if (!(await passwordConfirmed(request, reply, session, (error) => confirmPage({ next, error })))) return reply;
      await db.query(`UPDATE account_sessions SET amr = array_append(amr, 'pwd'), failures = failures - 1 WHERE id = $1`, [session.id]);
      return reply.redirect(next, 303);
    },
  );

  app.post<{ Body: { email?: string; password?: string; company?: string; domain?: string } }>(
    '/account/login',
    { config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { email: text(254), password: text(1024), company: text(100), domain: text(100) } } } },
    async (request, reply) => {
      const body = request.body ?? {};
      const client = await provider.Client.find(consoleClientId);
      if (!client) return send(reply, 500, renderErrorPage('The console application is missing.'));
      const choice = await chooseTenant(db, { consoleClientId }, client, body);
      if (choice.kind === 'refused') return send(reply, 400, renderErrorPage(choice.message));
      await knowPage(db, { tenant: choice.tenant });
      const who = { id: consoleClientId, ...choice.tenant };
      // an unknown organization's failures are the console's own tenant's events
      const known = choice.known ? who : { id: consoleClientId, ...tenantOf(client) };
      const outcome = await passwordStep(options, request, reply, { tenant: choice.tenant, client: known, login: body.email ?? '', password: body.password ?? '' });
      if (outcome.kind === 'wrong') return send(reply, 401, loginForm(body, { email: outcome.login, error: 'Wrong email or password.' }));
      // throttled, or blocked (said only after the right password: passwordStep.ts)
      if (outcome.kind !== 'signed-in') return send(reply, outcome.kind === 'throttled' ? 429 : 403, loginForm(body, { email: outcome.login, error: outcome.message }));
      if (!(await hasSecondFactor(db, ref(outcome.user)))) return signedIn(request, reply, outcome.user, ['pwd']);
      // her second factor next, on this page's own session, not yet verified
      await startSession(reply, outcome.user, false);
      return reply.redirect('/account', 303);
    },
  );

  app.post<{ Body: { code?: string; webauthn?: string } }>(
    '/account/second-factor',
    { config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { code: text(100), webauthn: text(20_000) } } } },
    async (request, reply) => {
      const session = await sessionOf(request);
      if (!session) return reply.redirect('/account', 303);
      if (session.verified) return reply.redirect('/account', 303);
      const client = { id: consoleClientId, companyId: session.user.companyId, domainId: session.user.domainId };
      const challenge = session.pending.challenge;
      await setPending(session, {});
      // counted before the check, in one statement (signInSteps.ts says why): past five, nothing is checked
      const attempt = await countAttempt(session);
      if (attempt === undefined) return reply.redirect(home(session.user), 303);
      const tooMany = async (record: boolean) => {
        if (record) await recordSignIn(db, attemptOf(request), { outcome: 'second_factor_failed', client, userId: session.user.id, login: session.user.email, detail: 'account page' });
        await endSession(reply, session);
        return send(reply, 401, loginForm({ company: session.user.companyId, domain: session.user.domainId }, { error: 'Too many wrong codes. Sign in again.' }));
      };
      if (attempt > MAX_FACTOR_FAILURES) return tooMany(false);
      const locked = await factorsLocked(db, ref(session.user));
      const amr = locked ? undefined : await proveFactor(db, rp, ref(session.user), { code: request.body?.code, webauthn: request.body?.webauthn || undefined, challenge });
      if (amr) {
        // this session ends here: the verified one (or the parked steps) takes a new token; no row:
        // wrong codes sent alongside ended it meanwhile
        const kept = await db.query(`DELETE FROM account_sessions WHERE id = $1 RETURNING id`, [session.id]);
        if (kept.rows.length === 0) return reply.redirect(home(session.user), 303);
        setCookie(reply, '', 0);
        return signedIn(request, reply, session.user, ['pwd', ...amr]);
      }
      if (attempt >= MAX_FACTOR_FAILURES) return tooMany(true);
      return send(reply, 401, await verifyPage(session, locked ? LOCKED_MESSAGE : 'That code or key is not right. Try again.'));
    },
  );

  const totpPage = async (session: Session, secret: string, error?: string) =>
    renderPage(
      t('mfa.addApp'),
      `<h1>${th('mfa.addApp')}</h1>\n${await totpEnrolForm({ action: '/account/totp', uri: totpUri(secret, 'IAM ' + session.user.companyId, session.user.email || session.user.username), secret, error, withLabel: true })}
<form method="get" action="/account"><button type="submit">${th('mfa.cancel')}</button></form>`,
    );

  app.get('/account/totp', { schema: { hide: true } }, async (request, reply) => {
    const session = await freshProof(request, reply, '/account/totp');
    if (!session) return reply;
    if (!totpAvailable(db)) return send(reply, 409, renderErrorPage(TOTP_UNAVAILABLE));
    const secret = newTotpSecret();
    await setPending(session, { totp: await encryptSecret(db, secret) });
    return send(reply, 200, await totpPage(session, secret));
  });

  app.post<{ Body: { code?: string; label?: string } }>(
    '/account/totp',
    { config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { code: text(20), label: text(60) } } } },
    async (request, reply) => {
      const session = await freshProof(request, reply, '/account/totp');
      if (!session) return reply;
      if (!session.pending.totp) return reply.redirect('/account/totp', 303);
      const secret = await decryptSecret(db, session.pending.totp);
      const step = totpStep(secret, request.body?.code ?? '');
      if (step === undefined) return send(reply, 400, await totpPage(session, secret, 'That code is not right. Check the time of your device and type the code the app shows now.'));
      const label = (request.body?.label ?? '').trim() || t('mfa.kindTotp');
      // the app's key is sealed with the database's own key (factors.ts), outside a transaction's connection
      await addTotp(db, ref(session.user), secret, step, label);
      await db.transaction((tx) => recordOwnFactorChange(tx, ref(session.user), accountPage(request), 'enrolFactor', { type: 'totp', label }));
      await setPending(session, {});
      return reply.redirect('/account?done=totp', 303);
    },
  );

  app.get('/account/passkey', { schema: { hide: true } }, async (request, reply) => {
    const session = await freshProof(request, reply, '/account/passkey');
    if (!session) return reply;
    const passkeyOptions = await registrationOptions(db, rp, session.user);
    await setPending(session, { challenge: passkeyOptions.challenge });
    return send(reply, 200, passkeyPage({ options: passkeyOptions }));
  });

  app.post<{ Body: { webauthn?: string; label?: string } }>(
    '/account/passkey',
    { config: { sameSiteForm }, schema: { hide: true, body: { type: 'object', properties: { webauthn: text(20_000), label: text(60) } } } },
    async (request, reply) => {
      const session = await freshProof(request, reply, '/account/passkey');
      if (!session) return reply;
      const challenge = session.pending.challenge;
      await setPending(session, {});
      const label = (request.body?.label ?? '').trim() || t('mfa.keyPlaceholder');
      const response = request.body?.webauthn;
      const added =
        challenge && response
          ? await db.transaction(async (tx) => {
              const made = await addWebauthn(tx, rp, ref(session.user), { response, challenge, label });
              if ('id' in made) await recordOwnFactorChange(tx, ref(session.user), accountPage(request), 'enrolFactor', { type: 'webauthn', label });
              return made;
            })
          : { error: 'The passkey was not created. Please try again.' };
      if ('id' in added) return reply.redirect('/account?done=passkey', 303);
      const again = await registrationOptions(db, rp, session.user);
      await setPending(session, { challenge: again.challenge });
      return send(reply, 400, passkeyPage({ options: again, error: added.error }));
    },
  );

  app.post('/account/recovery', { config: { sameSiteForm }, schema: { hide: true } }, async (request, reply) => {
    const session = await freshProof(request, reply, '/account');
    if (!session) return reply;
    const codes = await db.transaction(async (tx) => {
      const made = await newRecoveryCodes(tx, ref(session.user));
      // the codes themselves are shown once, to her, and never recorded
      await recordOwnFactorChange(tx, ref(session.user), accountPage(request), 'newRecoveryCodes', { type: 'recovery', label: 'Recovery codes' });
      return made;
    });
    return send(reply, 200, recoveryCodesPage(codes));
  });

  const factorOf = async (session: Session, id: string) => (await listFactors(db, ref(session.user))).find((f) => f.id === id);
  const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } } as const;

  app.get<{ Params: { id: string } }>('/account/factors/:id/remove', { schema: { hide: true, params: idParams } }, async (request, reply) => {
    const session = await verified(request, reply);
    if (!session) return reply;
    const factor = await factorOf(session, request.params.id);
    if (!factor) return send(reply, 404, renderErrorPage('No such factor of yours.'));
    return send(reply, 200, removePage({ factor }));
  });

  app.post<{ Params: { id: string }; Body: { password?: string } }>(
    '/account/factors/:id/remove',
    { config: { sameSiteForm }, schema: { hide: true, params: idParams, body: { type: 'object', properties: { password: text(1024) } } } },
    async (request, reply) => {
      const session = await verified(request, reply);
      if (!session) return reply;
      const factor = await factorOf(session, request.params.id);
      if (!factor) return send(reply, 404, renderErrorPage('No such factor of yours.'));
      if (!(await passwordConfirmed(request, reply, session, (error) => removePage({ factor, error })))) return reply;
      await db.query(`UPDATE account_sessions SET failures = failures - 1 WHERE id = $1`, [session.id]);
      await db.transaction(async (tx) => {
        const removed = await removeFactors(tx, ref(session.user), factor.id);
        for (const one of removed) await recordOwnFactorChange(tx, ref(session.user), accountPage(request), 'removeFactor', one);
      });
      return reply.redirect('/account?done=removed', 303);
    },
  );

  // the sign-in's steps (signInSteps.ts) on the account page's own path and cookie
  app.route({
    method: ['GET', 'POST'],
    url: STEPS_PATH,
    config: { sameSiteForm: 'This form was sent from another site. Please sign in again.' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const outcome = await stepPage(steps, request, reply, { kind: 'account', path: STEPS_PATH });
      if (outcome.kind === 'sent') return reply;
      await endSteps(steps, reply, outcome.pending);
      // opened from the console: the session is tied to its sign-in (checked again at every request)
      const grant = outcome.pending.request.grant;
      return signedIn(request, reply, outcome.user, outcome.pending.amr, typeof grant === 'string' ? grant : undefined);
    },
  });

  app.post('/account/logout', { config: { sameSiteForm }, schema: { hide: true } }, async (request, reply) => {
    const session = await sessionOf(request);
    await endSession(reply, session);
    return reply.redirect(home(session?.user), 303);
  });
}

