import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/index.js';
import { findUserById, type KnownUser, type Tenant } from '../accounts/accounts.js';
import { findToken, queueAccountLink } from '../accounts/links.js';
import { languageOf } from '../mail/language.js';
import { mailerOf } from '../mail/mailer.js';
import { badRequest, HttpError } from '../errors.js';
import { sha256 } from '../ids.js';
import { escapeHtml, renderErrorPage, renderPage, sendPage } from '../oauth/loginPage.js';
import { t, th, translateSentence } from '../i18n/index.js';
import { passwordStep, type PasswordStepOptions } from '../oauth/passwordStep.js';
import { addressKey } from '../oauth/loginThrottle.js';
import { attemptOf, recordSignIn, type SignInOutcome } from '../oauth/signInEvents.js';
import { type ConnectionRef, connectionForSignIn, connectionForTest, connectionsOffered } from './connections.js';
import { upstreamFetch } from './fetch.js';
import { type Flow, type FlowPayload, newToken, peekFlow, type ReturnTo, saveFlow, takeFlow } from './flows.js';
import { oidcAuthorizeUrl, oidcCallback, type UpstreamSetting } from './oidc.js';
import { samlAuthorizeUrl, samlServiceProviderMetadata, samlVerify } from './saml.js';
import { accountOfProfile, BLOCKED_UPSTREAM, linkIdentity, upstreamAmr } from './signIn.js';
import { upstreamPaths, type UpstreamConnection, type UpstreamProfile } from '../accounts/upstream.js';

/**
 * The sign-in's side of upstream identity providers (docs/CONSOLE.md, "Connections"): the start of
 * a flow (from the hosted page, the console's form post, or an administrator's test), the
 * callback (OpenID Connect, OAuth 2) and the SAML ACS, the page where a person proves an existing
 * account before her identity is linked to it, and the public list of a domain's connections.
 *
 * A flow is bound to the browser that started it by a cookie (the callback refuses an answer that
 * comes back in another browser: a code injected into a victim's browser), and to its connection (an
 * answer at another connection's callback finds no flow: IdP mix-up). Once the upstream has said
 * who she is, the sign-in ends where it began: the hosted interaction's page or the console's
 * sign-in finish it (their steps, then the code), from a one-time "finished" row whose token is in
 * an HttpOnly cookie (oidc-provider's interaction cookie is scoped to the interaction's path).
 */

export interface UpstreamOptions extends PasswordStepOptions {
  publicUrl: string;
  allowPrivate: boolean;
  /** Cookies get Secure (the issuer is https). */
  secure: boolean;
}

/**
 * The cookie binding a flow to its browser (callbacks are top-level GETs: SameSite=Lax sends it),
 * one per flow, named after its state: two sign-ins started in two tabs both come back.
 */
const browserCookie = (state: string) => `iam_upstream_${sha256(state).slice(0, 16)}`;
/** The cookie of an upstream sign-in finished, for the page that ends it (the interaction's or the console's). */
export const FINISHED_COOKIE = 'iam_upstream_done';
/** The cookie of a link waiting for the existing account's proof (its password or an e-mailed link). */
const LINK_COOKIE = 'iam_upstream_link';
const LINK_PATH = '/oauth/upstream/link';
/** The link page's second way: a link e-mailed to the existing account's address. */
const LINK_MAIL_PATH = '/oauth/upstream/link/mail';
/** Where that e-mailed link opens (server/accounts/links.ts LINK_PATHS['link-identity']): under the link cookie's path. */
const LINK_CONFIRM_PATH = '/oauth/upstream/link/confirm';
/**
 * E-mailed proofs per account (and per client address) per window: the link page is reached by
 * anyone whose IdP asserts the address, so it must not be a way to flood the account's mailbox.
 */
export const LINK_MAIL_LIMITS = { perAccount: 3, perClientAddress: 20, windowSeconds: 3600 };
/** Said in any browser but the one whose sign-in asked for the link (docs/DECISIONS.md item 47). */
export const OTHER_BROWSER = 'Open this link in the browser where you started signing in. Nothing was linked.';
/** The console's sign-in ends upstream sign-ins here (server/oauth/consoleLogin.ts). */
export const CONSOLE_FINISH_PATH = '/oauth/login/upstream';
export const interactionFinishPath = (uid: string) => `/oauth/interaction/${encodeURIComponent(uid)}/upstream-done`;

const cookie = (name: string, value: string, maxAge: number, path: string, secure: boolean) =>
  [`${name}=${value}`, `Max-Age=${maxAge}`, `Path=${path}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');

export function cookieValue(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === name && value && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}

const settingOf = (options: UpstreamOptions): UpstreamSetting => ({ publicUrl: options.publicUrl.replace(/\/$/, ''), allowPrivate: options.allowPrivate });

/** A page that sends the browser on at once: a form's answer cannot redirect to another site (the page's form-action), a refresh can. */
export function continuePage(url: string, name: string): string {
  return renderPage(
    t('upstream.continueTitle', { name }),
    `<meta http-equiv="refresh" content="0;url=${escapeHtml(url)}">
<h1>${escapeHtml(t('upstream.signingIn', { name }))}</h1>
<p><a id="continue" href="${escapeHtml(url)}">${escapeHtml(t('upstream.continueTitle', { name }))}</a></p>`,
  );
}

const expiredMessage = 'This sign-in has expired, was already used, or was not started here. Please sign in again.';

/**
 * Sends the browser to the connection's IdP with a new flow. `viaForm`: the answer to a form post
 * (a page that continues), else a 303. Throws a 404 when the connection is not offered there.
 */
export async function startUpstream(
  options: UpstreamOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { connection: ConnectionRef; signInTenant: Tenant; returnTo: ReturnTo; loginHint?: string; viaForm?: boolean },
): Promise<FastifyReply> {
  const { db } = options;
  // each start stores a flow and may call the IdP: an address looping on it is stopped as its sign-ins would be
  const wait = await options.throttle.upstreamStart(addressKey(request.ip));
  if (wait > 0) throw new HttpError(429, `Too many sign-ins started from your network. Try again in ${wait} seconds.`, { 'Retry-After': String(wait) });
  const connection =
    input.returnTo.kind === 'test' ? await connectionForTest(db, input.connection) : await connectionForSignIn(db, input.connection, input.signInTenant);
  if (!connection) throw new HttpError(404, 'This sign-in option does not exist here.');
  const setting = settingOf(options);
  const state = newToken();
  const browser = newToken();
  const loginHint = input.loginHint && input.loginHint.length <= 254 && !/[\u0000-\u001F\u007F]/.test(input.loginHint) ? input.loginHint : undefined;
  const payload: FlowPayload = { signInTenant: input.signInTenant, returnTo: input.returnTo, loginHint, browser: sha256(browser) };
  let url: string;
  if (connection.protocol === 'saml') {
    const saml = await samlAuthorizeUrl(connection, { relayState: state, publicUrl: setting.publicUrl }, { fetch: upstreamFetch(setting.allowPrivate) });
    url = saml.url;
    payload.samlRequestId = saml.requestId;
  } else {
    const oidc = await oidcAuthorizeUrl(connection, setting, { state, loginHint });
    url = oidc.url;
    payload.nonce = oidc.checks.nonce;
    payload.codeVerifier = oidc.checks.codeVerifier;
  }
  await saveFlow(db, connection, 'sign-in', payload, { token: state });
  reply.header('Set-Cookie', cookie(browserCookie(state), browser, 5 * 60, '/oauth/upstream', options.secure));
  if (input.viaForm) return sendPage(reply, 200, continuePage(url, connection.displayName));
  return reply.header('Cache-Control', 'no-store').redirect(url, 303);
}

/** What the finishing page of a sign-in reads (a one-time row, by its cookie). */
export interface FinishedSignIn {
  returnTo: ReturnTo;
  tenant: Tenant;
  userId: string;
  amr: string[];
  connectionId: string;
  login: string;
}

/** Takes the finished upstream sign-in of this browser (once); undefined when none or expired. */
export async function takeFinished(db: Database, request: FastifyRequest, reply: FastifyReply, secure: boolean): Promise<FinishedSignIn | undefined> {
  const token = cookieValue(request, FINISHED_COOKIE);
  reply.header('Set-Cookie', cookie(FINISHED_COOKIE, '', 0, '/oauth', secure));
  const flow = await takeFlow(db, token, { purposes: ['finished'] });
  return flow ? (flow.payload as unknown as FinishedSignIn) : undefined;
}

const CLIENT_OF = (returnTo: ReturnTo) => (returnTo.kind === 'test' ? 'connection-test' : returnTo.clientId);

export async function upstreamRoutes(app: FastifyInstance, options: UpstreamOptions) {
  const { db } = options;
  const setting = settingOf(options);

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'upstream sign-in failed');
    return sendPage(reply, status, renderErrorPage(status === 500 ? 'Something went wrong. Please try again.' : error.message));
  });

  const refuse = async (request: FastifyRequest, reply: FastifyReply, flow: Pick<Flow, 'connectionId' | 'payload'>, outcome: SignInOutcome, message: string, extra: { userId?: string; login?: string; status?: number } = {}) => {
    const { payload } = flow;
    if (payload.returnTo.kind !== 'test') {
      await recordSignIn(db, attemptOf(request), {
        outcome,
        client: { id: CLIENT_OF(payload.returnTo), ...payload.signInTenant },
        userId: extra.userId,
        login: extra.login,
        detail: outcome === 'upstream_failed' ? message : undefined,
        connectionId: flow.connectionId,
      });
    }
    // the console's sign-in goes back to its form, which says why (as a refused password does)
    const back = payload.returnTo.kind === 'console' ? payload.returnTo.request.redirect_uri : undefined;
    if (back && payload.returnTo.kind === 'console') {
      const url = new URL(back);
      url.searchParams.set('error', 'access_denied');
      url.searchParams.set('error_description', message);
      if (payload.returnTo.request.state) url.searchParams.set('state', payload.returnTo.request.state);
      url.searchParams.set('iss', setting.publicUrl);
      return reply.header('Cache-Control', 'no-store').redirect(url.href, 303);
    }
    return sendPage(reply, extra.status ?? (outcome === 'blocked' ? 403 : 400), renderErrorPage(message));
  };

  /** An upstream's answer, checked: a test shows it; a sign-in finds (or makes) her account and goes on. */
  const signedInUpstream = async (request: FastifyRequest, reply: FastifyReply, flow: Flow, connection: UpstreamConnection, profile: UpstreamProfile) => {
    const { payload } = flow;
    if (payload.returnTo.kind === 'test') return sendPage(reply, 200, claimsPage(connection, profile));
    const outcome = await accountOfProfile(db, connection, payload.signInTenant, profile);
    const login = profile.email ?? profile.subject;
    if (outcome.kind === 'refused') return refuse(request, reply, flow, outcome.outcome, outcome.message, { userId: outcome.userId, login });
    if (outcome.kind === 'prove') {
      await recordSignIn(db, attemptOf(request), {
        outcome: 'upstream_not_linked',
        client: { id: CLIENT_OF(payload.returnTo), ...payload.signInTenant },
        userId: outcome.user.id,
        login,
        detail: 'her password or an e-mailed link is asked before the link',
        connectionId: connection.id,
      });
      const token = await saveFlow(db, connection, 'link', { ...payload, userId: outcome.user.id, profile, amr: upstreamAmr(connection, profile) }, { seconds: 15 * 60 });
      reply.header('Set-Cookie', cookie(LINK_COOKIE, token, 15 * 60, '/oauth/upstream', options.secure));
      return reply.header('Cache-Control', 'no-store').redirect(LINK_PATH, 303);
    }
    return finished(reply, connection, payload, outcome.user, upstreamAmr(connection, profile), login);
  };

  /** Hands the sign-in to the page that ends it (the interaction's, or the console's). */
  const finished = async (reply: FastifyReply, connection: UpstreamConnection, payload: FlowPayload, user: KnownUser, amr: string[], login: string) => {
    const row: FinishedSignIn = { returnTo: payload.returnTo, tenant: { companyId: user.companyId, domainId: user.domainId }, userId: user.id, amr, connectionId: connection.id, login };
    const token = await saveFlow(db, connection, 'finished', { ...row, signInTenant: row.tenant } as unknown as FlowPayload);
    reply.header('Set-Cookie', cookie(FINISHED_COOKIE, token, 5 * 60, '/oauth', options.secure));
    const to = payload.returnTo.kind === 'interaction' ? interactionFinishPath(payload.returnTo.uid) : CONSOLE_FINISH_PATH;
    return reply.header('Cache-Control', 'no-store').redirect(to, 303);
  };

  const refOf = (params: { companyId: string; domainId: string; connectionId: string }): ConnectionRef => ({ companyId: params.companyId, domainId: params.domainId, id: params.connectionId });
  /** The flow's connection, read again (disabled, deleted or no longer offered there since the start: refused). */
  const connectionOfFlow = async (flow: Flow, ref: ConnectionRef) =>
    flow.payload.returnTo.kind === 'test' ? connectionForTest(db, ref) : connectionForSignIn(db, ref, flow.payload.signInTenant);

  type ConnectionParams = { companyId: string; domainId: string; connectionId: string };
  const PARAMS = {
    type: 'object',
    properties: { companyId: { type: 'string', maxLength: 100 }, domainId: { type: 'string', maxLength: 100 }, connectionId: { type: 'string', maxLength: 100 } },
  } as const;
  const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;

  app.get<{ Querystring: { company?: string; domain?: string } }>(
    '/oauth/upstream/connections',
    {
      schema: {
        tags: ['oauth'],
        summary: 'The connections (upstream identity providers) a domain\'s sign-in offers: its own and those shared from above; nothing secret',
        security: [],
        querystring: { type: 'object', properties: { company: text(100), domain: text(100) } },
      },
    },
    async (request, reply) => {
      const { company, domain } = request.query;
      reply.header('Cache-Control', 'no-store');
      if (!company) return [];
      const { rows } = await db.query<Tenant>(`SELECT company_id AS "companyId", id AS "domainId" FROM domains WHERE company_id = $1 AND ${domain ? 'id = $2' : 'is_primary'}`, domain ? [company, domain] : [company]);
      if (!rows[0]) return [];
      const offered = await connectionsOffered(db, rows[0]);
      return offered.map((one) => ({ id: one.id, displayName: one.displayName, preset: one.preset, protocol: one.protocol, companyId: one.companyId, domainId: one.domainId }));
    },
  );

  /**
   * The start. From a hosted sign-in page (`interaction`), the interaction's own path does it (its
   * cookie is scoped there); an administrator's test (`ticket`, a one-time row the management API
   * made) starts here.
   */
  app.get<{ Params: ConnectionParams; Querystring: { interaction?: string; ticket?: string; login_hint?: string } }>(
    '/oauth/upstream/:companyId/:domainId/:connectionId/start',
    { schema: { hide: true, params: PARAMS, querystring: { type: 'object', properties: { interaction: text(100), ticket: text(200), login_hint: text(254) } } } },
    async (request, reply) => {
      const ref = refOf(request.params);
      const { interaction, ticket, login_hint } = request.query;
      if (interaction) {
        const hint = login_hint ? `?login_hint=${encodeURIComponent(login_hint)}` : '';
        const path = upstreamPaths(ref.companyId, ref.domainId, ref.id).start.replace('/oauth/upstream/', '');
        return reply.header('Cache-Control', 'no-store').redirect(`/oauth/interaction/${encodeURIComponent(interaction)}/upstream/${path.replace(/\/start$/, '')}${hint}`, 303);
      }
      if (ticket) {
        const redeemed = await takeFlow(db, ticket, { connection: ref, purposes: ['test-ticket'] });
        if (!redeemed) throw badRequest('This test link has expired or was already used. Start the test again from the console.');
        return startUpstream(options, request, reply, { connection: ref, signInTenant: { companyId: ref.companyId, domainId: ref.domainId }, returnTo: { kind: 'test' } });
      }
      throw badRequest('Open the sign-in page of your application and choose this sign-in option there.');
    },
  );

  /** The OpenID Connect / OAuth 2 answer: a GET (query), or Apple's form post. */
  const callback = async (request: FastifyRequest<{ Params: ConnectionParams }>, reply: FastifyReply) => {
    const ref = refOf(request.params);
    const fields = (request.method === 'POST' ? request.body : request.query) as Record<string, string | undefined>;
    const state = typeof fields?.state === 'string' ? fields.state : undefined;
    const flow = await takeFlow(db, state, { connection: ref, purposes: ['sign-in'] });
    if (!flow) return sendPage(reply, 400, renderErrorPage(expiredMessage));
    reply.header('Set-Cookie', cookie(browserCookie(state!), '', 0, '/oauth/upstream', options.secure));
    // a form post from the IdP (Apple) comes without our SameSite=Lax cookie: its binding is the flow's interaction or console request
    if (request.method === 'GET' && flow.payload.browser !== sha256(cookieValue(request, browserCookie(state!)) ?? '')) {
      return refuse(request, reply, flow, 'upstream_failed', 'This sign-in was started in another browser. Please sign in again.');
    }
    const connection = await connectionOfFlow(flow, ref);
    if (!connection || connection.protocol === 'saml') return refuse(request, reply, flow, 'upstream_failed', 'This sign-in option is no longer offered here.', { status: 404 });
    const currentUrl = new URL(`${setting.publicUrl}${upstreamPaths(ref.companyId, ref.domainId, ref.id).callback}`);
    for (const [name, value] of Object.entries(fields ?? {})) if (typeof value === 'string') currentUrl.searchParams.set(name, value);
    let profile: UpstreamProfile;
    try {
      profile = await oidcCallback(connection, setting, currentUrl, { state: state!, checks: { nonce: flow.payload.nonce, codeVerifier: flow.payload.codeVerifier ?? '' } });
    } catch (error) {
      const message = error instanceof HttpError && error.statusCode < 500 ? error.message : 'The identity provider\'s answer could not be checked. Please try again.';
      if (!(error instanceof HttpError)) request.log.warn({ err: error }, 'upstream answer refused');
      return refuse(request, reply, flow, 'upstream_failed', message);
    }
    // Apple gives the name once, in its form post's `user` (never in the ID token)
    if (connection.preset === 'apple' && !profile.name && typeof fields?.user === 'string') profile.name = appleName(fields.user);
    return signedInUpstream(request, reply, flow, connection, profile);
  };
  const CALLBACK_FIELDS = { type: 'object', properties: { code: text(4096), state: text(200), iss: text(2000), error: text(200), error_description: text(2000), session_state: text(500) } } as const;
  app.get('/oauth/upstream/:companyId/:domainId/:connectionId/callback', { schema: { hide: true, params: PARAMS, querystring: CALLBACK_FIELDS } }, callback);
  app.post(
    '/oauth/upstream/:companyId/:domainId/:connectionId/callback',
    { schema: { hide: true, params: PARAMS, body: { type: 'object', properties: { ...CALLBACK_FIELDS.properties, user: text(4096) } } } },
    callback,
  );

  /** The SAML answer (HTTP-POST binding, from the IdP's page: another site, so no cookie of ours comes with it). */
  app.post<{ Params: ConnectionParams; Body: { SAMLResponse?: string; RelayState?: string } }>(
    '/oauth/upstream/:companyId/:domainId/:connectionId/saml/acs',
    // its fields are not declared one by one: a SAMLResponse may hold line breaks, which the OAuth input checks refuse
    { bodyLimit: 2_000_000, schema: { hide: true, params: PARAMS, body: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 1_500_000 } } } },
    async (request, reply) => {
      const ref = refOf(request.params);
      const flow = await takeFlow(db, request.body?.RelayState, { connection: ref, purposes: ['sign-in'] });
      if (!flow || !flow.payload.samlRequestId) return sendPage(reply, 400, renderErrorPage(expiredMessage));
      const connection = await connectionOfFlow(flow, ref);
      if (!connection || connection.protocol !== 'saml') return refuse(request, reply, flow, 'upstream_failed', 'This sign-in option is no longer offered here.', { status: 404 });
      let profile: UpstreamProfile;
      try {
        profile = await samlVerify(db, connection, request.body ?? {}, { expectedRequestId: flow.payload.samlRequestId, publicUrl: setting.publicUrl }, { fetch: upstreamFetch(setting.allowPrivate) });
      } catch (error) {
        const message = error instanceof HttpError && error.statusCode < 500 ? error.message : 'The SAML response could not be checked. Please try again.';
        if (!(error instanceof HttpError)) request.log.warn({ err: error }, 'SAML response refused');
        return refuse(request, reply, flow, 'upstream_failed', message);
      }
      return signedInUpstream(request, reply, flow, connection, profile);
    },
  );

  app.get<{ Params: ConnectionParams }>('/oauth/upstream/:companyId/:domainId/:connectionId/saml/metadata', { schema: { hide: true, params: PARAMS } }, async (request, reply) => {
    const connection = await connectionForTest(db, refOf(request.params));
    if (!connection || connection.protocol !== 'saml') throw new HttpError(404, 'No SAML connection here.');
    return reply.header('Content-Type', 'application/samlmetadata+xml; charset=utf-8').header('Cache-Control', 'no-store').send(samlServiceProviderMetadata(connection, setting.publicUrl));
  });

  /**
   * The link of an identity to an existing account, after she proves that account: its password
   * (throttled and recorded like a sign-in), or a link e-mailed to its stored address whose
   * confirmation works only in this browser (the pending link's cookie), so that an IdP account
   * asserting someone else's address cannot have her link it by a click in her own browser.
   */
  const linkPage = (user: KnownUser, connectionName: string, extra: { error?: string; status?: string } = {}) => {
    const { error, status } = extra;
    const hasPassword = Boolean(user.passwordHash);
    const passwordForm = hasPassword
      ? `<form method="post" action="${LINK_PATH}">
<label for="password">${th('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${error ? ' aria-describedby="link-error" aria-invalid="true"' : ''}>
<button type="submit">${th('upstream.linkSubmit')}</button>
</form>
`
      : '';
    return renderPage(
      t('upstream.linkTitle'),
      `<h1>${th('upstream.linkTitle')}</h1>
<p>${th(hasPassword ? 'upstream.exists' : 'upstream.existsNoPassword', { email: `<strong>${escapeHtml(user.email)}</strong>`, name: escapeHtml(connectionName) })}</p>
${error ? `<p class="error" id="link-error" role="alert">${escapeHtml(translateSentence(error))}</p>\n` : ''}${status ? `<p id="link-status" role="status">${escapeHtml(status)}</p>\n` : ''}${passwordForm}<form method="post" action="${LINK_MAIL_PATH}">
<button type="submit" id="link-by-mail">${th(hasPassword ? 'upstream.mailInstead' : 'upstream.mail')}</button>
</form>`,
    );
  };
  const linkFlow = async (request: FastifyRequest) => {
    const flow = await peekFlow(db, cookieValue(request, LINK_COOKIE), ['link']);
    if (!flow) return undefined;
    // still offered where this sign-in is (disabled, deleted or unshared meanwhile: no link)
    const connection = await connectionForSignIn(db, { companyId: flow.companyId, domainId: flow.domainId, id: flow.connectionId }, flow.payload.signInTenant);
    const user = await findUserById(db, flow.payload.signInTenant, String(flow.payload.userId));
    return connection && user ? { flow, connection, user } : undefined;
  };
  app.get(LINK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const found = await linkFlow(request);
    if (!found) return sendPage(reply, 400, renderErrorPage(expiredMessage));
    return sendPage(reply, 200, linkPage(found.user, found.connection.displayName));
  });
  app.post<{ Body: { password?: string } }>(
    LINK_PATH,
    { config: { sameSiteForm: 'This form was sent from another site. Please sign in again.' }, schema: { hide: true, body: { type: 'object', properties: { password: text(1024) } } } },
    async (request, reply) => {
      const found = await linkFlow(request);
      if (!found) return sendPage(reply, 400, renderErrorPage(expiredMessage));
      const { flow, connection, user } = found;
      const { payload } = flow;
      const client = { id: CLIENT_OF(payload.returnTo), ...payload.signInTenant };
      const outcome = await passwordStep(options, request, reply, { tenant: payload.signInTenant, client, login: user.email, password: request.body?.password ?? '' });
      if (outcome.kind === 'throttled') return sendPage(reply, 429, linkPage(user, connection.displayName, { error: outcome.message }));
      if (outcome.kind === 'blocked') return sendPage(reply, 403, renderErrorPage(outcome.message));
      if (outcome.kind === 'wrong' || outcome.user.id !== user.id) return sendPage(reply, 401, linkPage(user, connection.displayName, { error: 'Wrong password.' }));
      // spent now: the link is made once
      const taken = await takeFlow(db, cookieValue(request, LINK_COOKIE), { purposes: ['link'] });
      if (!taken) return sendPage(reply, 400, renderErrorPage(expiredMessage));
      reply.header('Set-Cookie', cookie(LINK_COOKIE, '', 0, '/oauth/upstream', options.secure));
      await linkIdentity(db, connection, outcome.user, payload.profile as UpstreamProfile, { kind: 'password' }, request.ip);
      // she proved the password too
      const amr = [...new Set(['pwd', ...((payload.amr as string[] | undefined) ?? ['fed'])])];
      return finished(reply, connection, payload, outcome.user, amr, user.email);
    },
  );

  /** Counts one request on a counter of the sign-in throttle (its table and purge); its count in the window. */
  const countMail = async (kind: 'link-mail-client-address' | 'link-mail-account', key: string) =>
    (await options.throttle.add([{ kind, key }], LINK_MAIL_LIMITS.windowSeconds))[0].n;

  /**
   * "E-mail me a link instead": a single-use link (15 minutes) to the account's stored address,
   * never one from the request; the pending link remembers which token it waits for, so that the
   * link confirms this sign-in only, in this browser.
   */
  app.post(LINK_MAIL_PATH, { config: { sameSiteForm: 'This form was sent from another site. Please sign in again.' }, schema: { hide: true } }, async (request, reply) => {
    const found = await linkFlow(request);
    if (!found) return sendPage(reply, 400, renderErrorPage(expiredMessage));
    const { flow, connection, user } = found;
    const client = { id: CLIENT_OF(flow.payload.returnTo), ...flow.payload.signInTenant };
    const tooMany = async (of: string) => {
      await recordSignIn(db, attemptOf(request), { outcome: 'throttled', client, userId: user.id, login: user.email, detail: 'too many e-mailed links asked to prove the account', connectionId: connection.id });
      reply.header('Retry-After', String(LINK_MAIL_LIMITS.windowSeconds));
      return sendPage(reply, 429, linkPage(user, connection.displayName, { error: `Too many links were e-mailed ${of}. Try again in an hour.` }));
    };
    if ((await countMail('link-mail-client-address', addressKey(request.ip))) > LINK_MAIL_LIMITS.perClientAddress) return tooMany('from your network');
    if ((await countMail('link-mail-account', `${user.companyId}/${user.domainId}/${user.id}`)) > LINK_MAIL_LIMITS.perAccount) return tooMany('for this account');
    const mailer = mailerOf(app.ctx);
    const linkToken = cookieValue(request, LINK_COOKIE)!;
    const queued = await db.transaction(async (tx) => {
      // a blocked account is sent nothing (queueAccountLink): the page answers the same, so that it says nothing of the account
      const outcome = await queueAccountLink(tx, mailer, setting.publicUrl, {
        companyId: user.companyId,
        domainId: user.domainId,
        userId: user.id,
        purpose: 'link-identity',
        language: languageOf(request.headers['accept-language']),
        connectionName: connection.displayName,
      });
      if (outcome.kind !== 'queued') return undefined;
      // the pending link waits for this token alone (a newer one replaces it, as the newer link spends the older)
      await tx.query(`UPDATE upstream_flows SET payload = jsonb_set(payload, '{mailedToken}', to_jsonb($2::text)) WHERE id = $1 AND purpose = 'link'`, [sha256(linkToken), outcome.tokenId]);
      return outcome;
    });
    queued?.send();
    await recordSignIn(db, attemptOf(request), { outcome: 'upstream_not_linked', client, userId: user.id, login: user.email, detail: 'a link proving the account was e-mailed to its address', connectionId: connection.id });
    return sendPage(
      reply,
      200,
      linkPage(user, connection.displayName, {
        status: `We have e-mailed a link to ${user.email}. Open it within 15 minutes, in this browser, to link your account and sign in.`,
      }),
    );
  });

  const invalidMailedLink = (reply: FastifyReply) => sendPage(reply, 400, renderErrorPage('This link is invalid, has expired or has already been used. Please sign in again.'));
  /** The pending link of this browser, when it waits for this very token (else: another browser, or another sign-in). */
  const linkFlowOfToken = async (request: FastifyRequest, token: string) => {
    const found = await linkFlow(request);
    return found && typeof found.flow.payload.mailedToken === 'string' && found.flow.payload.mailedToken === sha256(token) ? found : undefined;
  };
  const TOKEN_QUERY = { type: 'object', properties: { token: text(100) } } as const;

  /** The e-mailed link opens a page with a button: a GET links nothing (mail scanners open links). */
  app.get<{ Querystring: { token?: string } }>(LINK_CONFIRM_PATH, { logLevel: 'warn', schema: { hide: true, querystring: TOKEN_QUERY } }, async (request, reply) => {
    const token = request.query.token ?? '';
    if (!(await findToken(db, token, ['link-identity']))) return invalidMailedLink(reply);
    const found = await linkFlowOfToken(request, token);
    if (!found) return sendPage(reply, 400, renderErrorPage(OTHER_BROWSER));
    return sendPage(
      reply,
      200,
      renderPage(
        t('upstream.linkTitle'),
        `<h1>${th('upstream.linkTitle')}</h1>
<p>${th('upstream.confirm', { name: escapeHtml(found.connection.displayName), email: `<strong>${escapeHtml(found.user.email)}</strong>` })}</p>
<form method="post" action="${LINK_CONFIRM_PATH}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">${th('upstream.linkSubmit')}</button>
</form>`,
      ),
    );
  });

  app.post<{ Body: { token?: string } }>(
    LINK_CONFIRM_PATH,
    { logLevel: 'warn', config: { sameSiteForm: 'This form was sent from another site. Open the link from your e-mail again.' }, schema: { hide: true, body: TOKEN_QUERY } },
    async (request, reply) => {
      const token = request.body?.token ?? '';
      const found = await linkFlowOfToken(request, token);
      // another browser (no pending link, or another one): nothing is linked, and the token stays for the right browser
      if (!found) return sendPage(reply, 400, renderErrorPage((await findToken(db, token, ['link-identity'])) ? OTHER_BROWSER : 'This link is invalid, has expired or has already been used. Please sign in again.'));
      const { flow, connection, user } = found;
      const { payload } = flow;
      const client = { id: CLIENT_OF(payload.returnTo), ...payload.signInTenant };
      // spent now, whatever follows: the pending link is used once
      const taken = await takeFlow(db, cookieValue(request, LINK_COOKIE), { purposes: ['link'] });
      reply.header('Set-Cookie', cookie(LINK_COOKIE, '', 0, '/oauth/upstream', options.secure));
      if (!taken) return sendPage(reply, 400, renderErrorPage(expiredMessage));
      // she holds the mailed token, so she may be told (as whoever types the right password is)
      if (user.blocked) {
        await recordSignIn(db, attemptOf(request), { outcome: 'blocked', client, userId: user.id, login: user.email, detail: 'proved by an e-mailed link', connectionId: connection.id });
        return sendPage(reply, 403, renderErrorPage(BLOCKED_UPSTREAM));
      }
      if (!(await linkIdentity(db, connection, user, payload.profile as UpstreamProfile, { kind: 'e-mailed link', token }, request.ip))) return invalidMailedLink(reply);
      return finished(reply, connection, payload, user, (payload.amr as string[] | undefined) ?? ['fed'], user.email);
    },
  );
}

/** The name in Apple's `user` field ({"name":{"firstName","lastName"}}), if it holds one. */
function appleName(user: string): string | undefined {
  try {
    const { name } = JSON.parse(user) as { name?: { firstName?: unknown; lastName?: unknown } };
    const full = [name?.firstName, name?.lastName].filter((part): part is string => typeof part === 'string' && part.trim() !== '').join(' ').trim();
    return full ? full.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}

/** The end of an administrator's test sign-in: what the connection made of the IdP's answer; nobody is provisioned. */
function claimsPage(connection: UpstreamConnection, profile: UpstreamProfile): string {
  const row = (name: string, value: string | undefined) => `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(value ?? '—')}</td></tr>`;
  return renderPage(
    t('upstream.testTitle', { name: connection.displayName }),
    `<h1>${escapeHtml(t('upstream.testTitle', { name: connection.displayName }))}</h1>
<p>${th('upstream.testIntro')}</p>
<table id="claims">
${row('subject', profile.subject)}
${row('email', profile.email)}
${row('email_verified', String(profile.emailVerified))}
${row('email trusted here', String(connection.trustEmail && profile.emailVerified))}
${row('name', profile.name)}
${row('groups', profile.groups?.join(', '))}
${row('amr', profile.amr?.join(' '))}
${row('acr', profile.acr)}
</table>`,
  );
}
