import type { FastifyBaseLogger } from 'fastify';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AppContext } from '../context.js';
import { introspectAccessToken, revokeAccessToken } from './accessTokens.js';
import { type KnownUser } from '../accounts/accounts.js';
import { userOfSubject } from './signInTenant.js';
import { extrasOf, isPublicClient, secretMatches, tenantOf } from './clients.js';
import { listedByAnApplication } from './cors.js';
import { renderErrorPage, renderMessagePage } from './loginPage.js';
import { registrationProblem } from './registration.js';
import { addressKey, type LoginThrottle } from './loginThrottle.js';
import { apiScopeNames, findActiveApi } from './resources.js';
import { recordSignIn, type SignInOutcome, storable } from './signInEvents.js';

/** Where our JWT access tokens are revoked and introspected. */
const STRUCTURED_TOKEN_PATHS = new Set(['/oauth/revoke', '/oauth/introspect']);

/** Where clients authenticate. */
const CLIENT_AUTH_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/par', '/oauth/device/auth']);

/**
 * `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1), when that is what
 * the header holds.
 */
function parseBasicAuth(header: string): { clientId: string; secret: string } | undefined {
  if (!/^basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return undefined;
  try {
    const unescape = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    const credentials = { clientId: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
    // neither an id nor a secret ever holds a control character (NUL, say)
    return /[\u0000-\u001F\u007F]/.test(credentials.clientId + credentials.secret) ? undefined : credentials;
  } catch {
    return undefined;
  }
}

type ProviderError = { error?: string; error_detail?: string; message?: string };

/**
 * oidc-provider answers every refused grant with "grant request is invalid" and keeps the reason
 * to itself; integrators (and support staff reading sign-in events) need the reason. Each known
 * reason, by the detail oidc-provider gives it, with what it says and the sign-in event it is.
 */
const GRANT_REFUSALS: { pattern: RegExp; description: string; outcome?: SignInOutcome }[] = [
  { pattern: /authorization code is expired/, description: 'the authorization code has expired', outcome: 'bad_code' },
  { pattern: /authorization code not found/, description: 'the authorization code is invalid', outcome: 'bad_code' },
  { pattern: /authorization code already consumed/, description: 'the authorization code was already used', outcome: 'code_reused' },
  { pattern: /PKCE|code_verifier/i, description: 'PKCE: code_verifier does not match the code_challenge', outcome: 'bad_pkce' },
  { pattern: /redirect_uri mismatch/, description: 'redirect_uri differs from the one of the authorization request', outcome: 'bad_redirect_uri' },
  { pattern: /client mismatch/, description: 'the code or token was issued to another client', outcome: 'bad_code' },
  { pattern: /grant not found|grant is expired/, description: 'the sign-in behind this grant is no longer valid', outcome: 'bad_code' },
  { pattern: /refresh token already used/, description: 'the refresh token was already used: every token of this sign-in is revoked', outcome: 'refresh_reuse' },
  { pattern: /refresh token not found/, description: 'the refresh token is invalid' },
  { pattern: /refresh token is expired/, description: 'the refresh token has expired (or reached its absolute lifetime)' },
  { pattern: /account not found|no longer valid/, description: 'the user of this sign-in is no longer active', outcome: 'bad_code' },
  { pattern: /no longer an administrator/, description: 'the account is no longer an administrator: sign in again' },
];

/**
 * A refused token request: the reason to answer (an invalid grant), and the sign-in event it is. A
 * refused code exchange is always an event (bad_code when nothing more precise is known); a refused
 * refresh only when it is a reuse, which revokes the sign-in.
 */
function refusalOf(grantType: string, error: ProviderError): { description?: string; outcome?: SignInOutcome } {
  if (error.error === 'invalid_client') return { outcome: 'bad_client' };
  if (error.error !== 'invalid_grant') return {};
  const detail = `${error.error_detail ?? ''} ${error.message ?? ''}`;
  const known = GRANT_REFUSALS.find(({ pattern }) => pattern.test(detail));
  if (grantType === 'authorization_code') return { description: known?.description, outcome: known?.outcome ?? 'bad_code' };
  return { description: known?.description, outcome: grantType === 'refresh_token' && known?.outcome === 'refresh_reuse' ? 'refresh_reuse' : undefined };
}

/**
 * Our additions around oidc-provider's own handling, as Koa middleware:
 * - the token response carries `user` and `client` (the console's contract, docs/CONSOLE.md,
 *   "Signing in"), and each use of a grant is recorded as its last use (the sessions tab);
 * - every refused token request is a sign-in event (bad client, code reused, PKCE, refresh reuse);
 * - its HTML pages get the strict policy of our sign-in pages; redirects are 303 (a form post is
 *   never repeated);
 * - RP-initiated logout ends the sign-in its ID token names (the console's sign-ins have no browser
 *   session at the provider: the grant is the session).
 */
export function providerHooks(
  provider: Provider,
  ctx: AppContext,
  options: { pagePolicy: (redirectUri?: string) => string; log: FastifyBaseLogger; throttle: LoginThrottle },
) {
  const { db } = ctx;
  const { consoleClientId } = ctx.config;
  const errorsOf = new WeakMap<object, ProviderError>();
  const keep = (koa: KoaContextWithOIDC, error: ProviderError) => errorsOf.set(koa, error);
  provider.on('grant.error', keep);
  /** Where a request to oidc-provider came from, for its sign-in event. */
  const attemptOf = (koa: KoaContextWithOIDC) => ({ ip: koa.ip, userAgent: koa.get('user-agent') || undefined, log: options.log });
  provider.on('authorization.error', keep);

  provider.use(async (koa, next) => {
    // A preflight names no client yet: answer it only for an origin some active application allows
    // (the actual request is then answered for that application's origins only: clientBasedCORS).
    const origin = koa.get('origin');
    if (koa.method === 'OPTIONS' && !(origin && origin.length <= 500 && (await listedByAnApplication(db, origin)))) {
      koa.status = 403;
      koa.set('Vary', 'Origin');
      koa.body = { error: 'cors_refused', error_description: 'this origin is not allowed by any application' };
      return;
    }
    if (CLIENT_AUTH_PATHS.has(koa.path) && koa.method === 'POST' && !(await publicClientSecretChecked(koa))) {
      koa.status = 401;
      koa.set('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
      koa.body = { error: 'invalid_client', error_description: 'wrong client credentials' };
      return;
    }
    if (koa.path === '/oauth/register' && koa.method === 'POST') {
      const problem = registrationProblem((koa.req as { body?: unknown }).body);
      if (problem) {
        koa.status = 400;
        koa.set('Cache-Control', 'no-store');
        koa.body = problem;
        return;
      }
    }
    const ending = koa.path === '/oauth/logout/confirm' && koa.method === 'POST' ? await sessionGrants(koa) : undefined;
    const guessing = koa.path === '/oauth/device' && koa.method === 'POST' ? addressKey(koa.ip) : undefined;
    if (guessing) {
      const wait = await options.throttle.addressWait(guessing);
      if (wait > 0) return tooManyGuesses(koa, wait);
    }
    const unknownScope = koa.path === '/oauth/token' ? await clientCredentialsScope(koa) : undefined;
    if (unknownScope) {
      koa.status = 400;
      koa.body = { error: 'invalid_scope', error_description: `${unknownScope} is not a permission scope of this API` };
      return;
    }
    if (koa.path === '/oauth/logout' && !logoutTargetNamed(koa)) {
      koa.status = 400;
      koa.type = 'html';
      koa.body = renderErrorPage('post_logout_redirect_uri needs client_id or id_token_hint.');
      return;
    }
    await next();
    if (guessing && koa.status === 200 && /op\.deviceInputForm/.test(String(koa.body)) && /role="alert"/.test(String(koa.body))) {
      // the code page again, with its error: a wrong code
      await options.throttle.guessedWrong(guessing);
    }
    if (koa.status === 302) koa.status = 303;
    if (koa.status === 303) koa.set('Location', unauthorizedClientNamed(koa.response.get('Location')));
    if (koa.path === '/oauth/token') await afterToken(koa as KoaContextWithOIDC);
    if (STRUCTURED_TOKEN_PATHS.has(koa.path) && koa.status === 400 && (koa.body as { error?: string } | undefined)?.error === 'unsupported_token_type') {
      await structuredToken(koa as KoaContextWithOIDC);
    }
    // a registered client's secret is shown once, when it registers; reading it back (RFC 7591
    // read) would only show the stored hash
    if (koa.method === 'GET' && koa.path.startsWith('/oauth/register/') && koa.body && typeof koa.body === 'object') {
      delete (koa.body as Record<string, unknown>).client_secret;
    }
    if (koa.path === '/oauth/authorize' && koa.status === 400) await afterAuthorizationRefused(koa as KoaContextWithOIDC);
    if (koa.path === '/oauth/logout' && koa.status === 200) await endHintedSignIn(koa as KoaContextWithOIDC);
    if (ending?.length && koa.status === 303) {
      // oidc-provider keeps offline access past a logout; here a logout ends the sign-in, offline or not
      await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = ANY ($1) AND revoked_at IS NULL`, [ending]);
    }
    koa.set('X-Content-Type-Options', 'nosniff');
    koa.set('Referrer-Policy', 'no-referrer');
    // The policy of our sign-in pages on everything the provider answers: its pages and the
    // redirects out of them (Chrome checks form-action on the redirects after a form post too). An
    // auto-submitting page of oidc-provider's keeps the hash of its one script.
    const redirect = (koa as KoaContextWithOIDC).oidc?.params?.redirect_uri ?? (koa as KoaContextWithOIDC).oidc?.params?.post_logout_redirect_uri;
    const scriptHash = /script-src[^;]*('sha256-[^']+')/.exec(String(koa.response.get('Content-Security-Policy')))?.[1];
    koa.set('Content-Security-Policy', `${options.pagePolicy(typeof redirect === 'string' ? safeUrl(redirect) : undefined)}${scriptHash ? `; script-src ${scriptHash}` : ''}`);
    if (koa.response.is('html')) {
      koa.set('Cache-Control', 'no-store');
      koa.set('X-Frame-Options', 'DENY');
    }
  });

  /**
   * oidc-provider refuses our JWT access tokens at revocation and introspection (it cannot look
   * them up): once it has authenticated the client, they are answered here (accessTokens.ts).
   */
  async function structuredToken(koa: KoaContextWithOIDC) {
    const client = koa.oidc?.client;
    const token = koa.oidc?.params?.token;
    if (!client || typeof token !== 'string') return;
    koa.status = 200;
    koa.set('Cache-Control', 'no-store');
    if (koa.path === '/oauth/introspect') {
      koa.body = await introspectAccessToken(ctx, client, token);
      return;
    }
    await revokeAccessToken(ctx, client, token);
    koa.body = '';
  }

  /** A post-logout redirect URI is only followed for a named application (RP-Initiated Logout 1.0, 2). */
  function logoutTargetNamed(koa: Parameters<Parameters<Provider['use']>[0]>[0]): boolean {
    const params = { ...(koa.query as Record<string, unknown>), ...((koa.req as { body?: Record<string, unknown> }).body ?? {}) };
    return !params.post_logout_redirect_uri || !!params.client_id || !!params.id_token_hint;
  }

  /**
   * A public client (no authentication) that sends a secret anyway, with HTTP Basic: the secret
   * must be right. Then the request goes on as the public client's (oidc-provider takes no Basic
   * header from a client registered without authentication).
   */
  async function publicClientSecretChecked(koa: Parameters<Parameters<Provider['use']>[0]>[0]): Promise<boolean> {
    const header = koa.get('authorization');
    const basic = parseBasicAuth(header);
    // Basic credentials that cannot be read are failed authentication (RFC 6749 5.2: invalid_client)
    if (!basic) return !/^basic\s/i.test(header);
    const client = await provider.Client.find(basic.clientId).catch(() => undefined);
    const hash = client ? extrasOf(client).public_secret_hash : '';
    if (!client || !isPublicClient(client) || !hash) return true;
    // (a confidential client's secret is oidc-provider's to check)
    if (!secretMatches({ current: hash }, basic.secret)) return false;
    delete koa.req.headers.authorization;
    const body = (koa.req as { body?: Record<string, unknown> }).body;
    if (body) body.client_id = basic.clientId;
    return true;
  }

  /**
   * client_credentials without a scope parameter gets every permission scope of the API (an
   * application acting for itself; RBAC is about users).
   */
  async function clientCredentialsScope(koa: Parameters<Parameters<Provider['use']>[0]>[0]): Promise<string | undefined> {
    const body = (koa.req as { body?: Record<string, unknown> }).body;
    if (!body || body.grant_type !== 'client_credentials' || typeof body.resource !== 'string') return undefined;
    const clientId = parseBasicAuth(koa.get('authorization'))?.clientId ?? body.client_id;
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId).catch(() => undefined) : undefined;
    const api = client ? await findActiveApi(db, tenantOf(client), body.resource) : undefined;
    if (!api) return undefined;
    const names = await apiScopeNames(db, api.id);
    if (body.scope === undefined) body.scope = names.join(' ');
    // an unknown scope is refused, not dropped: the caller learns of its mistake
    return String(body.scope).split(' ').find((scope) => scope && !names.includes(scope));
  }

  async function afterToken(koa: KoaContextWithOIDC) {
    const body = koa.body as Record<string, unknown> | undefined;
    if (koa.status === 401) koa.set('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
    const client = koa.oidc?.client;
    const grantType = String(koa.oidc?.params?.grant_type ?? '');
    if (koa.status === 200 && body?.access_token && client) {
      const account = koa.oidc.entities.Account as { user?: KnownUser } | undefined;
      // the tenant signed in to: the person's own (for the console, the one her sign-in named)
      let tenant = tenantOf(client);
      if (account?.user) {
        const { id, username, displayName, email, companyId, domainId } = account.user;
        body.user = { id, username, displayName, email };
        tenant = { companyId, domainId };
      }
      body.client = { client_id: client.clientId, companyId: tenant.companyId, domain: tenant.domainId };
      const grant = koa.oidc.entities.Grant as { jti?: string } | undefined;
      if (grant?.jti) {
        await db.query(`UPDATE oauth_grants SET last_used_at = now(), last_ip = $2 WHERE id = $1`, [grant.jti, storable(koa.ip, 100)]);
      }
      return;
    }
    // RFC 6749 5.2 names this one unauthorized_client
    if (body?.error === 'invalid_request' && /grant type is not allowed/.test(String(body.error_description))) body.error = 'unauthorized_client';
    const error = errorsOf.get(koa);
    if (!error) return;
    const { description, outcome } = refusalOf(grantType, error);
    if (description && body) body.error_description = description;
    if (!outcome) return;
    const source = (koa.oidc?.entities.AuthorizationCode ?? koa.oidc?.entities.RefreshToken) as { accountId?: string } | undefined;
    let subject = source?.accountId;
    if (!subject && grantType === 'authorization_code' && typeof koa.oidc?.params?.code === 'string') {
      const { rows } = await db.query<{ accountId: string }>(`SELECT payload->>'accountId' AS "accountId" FROM oidc_payloads WHERE model = 'AuthorizationCode' AND id = $1`, [
        koa.oidc.params.code,
      ]);
      subject = rows[0]?.accountId;
    }
    const clientId = parseBasicAuth(koa.get('authorization'))?.clientId ?? (typeof koa.oidc?.params?.client_id === 'string' ? koa.oidc.params.client_id : undefined);
    const named = client ?? (clientId ? await provider.Client.find(clientId).catch(() => undefined) : undefined);
    // the event names the user the code or token was issued to (by her id in her domain), in her
    // tenant: the client's, or any for the console
    const person = subject && named ? await userOfSubject(db, { consoleClientId }, named, subject) : undefined;
    const who = named ? { id: named.clientId, ...(person ? { companyId: person.companyId, domainId: person.domainId } : tenantOf(named)) } : undefined;
    const userId = person?.id;
    const badClientDetail = /secret/.test(`${error.error_detail ?? ''} ${error.message ?? ''}`) ? 'wrong client credentials' : (error.error_detail ?? error.message);
    const detail = outcome === 'bad_client' ? badClientDetail : (description ?? error.error_detail);
    await recordSignIn(db, attemptOf(koa), { outcome, client: who, clientId, userId, detail });
  }

  /**
   * The sign-ins a logout confirmation ends: every one of the browser session when the user chose
   * to sign out, else the one of the application that asked.
   */
  async function sessionGrants(koa: Parameters<Parameters<Provider['use']>[0]>[0]): Promise<string[]> {
    const id = koa.cookies.get('iam_session', { signed: true });
    const session = id ? ((await provider.Session.find(id).catch(() => undefined)) as unknown as { authorizations?: Record<string, { grantId?: string }>; state?: { clientId?: string } } | undefined) : undefined;
    if (!session?.authorizations) return [];
    const everything = (koa.req as { body?: { logout?: unknown } }).body?.logout !== undefined;
    return Object.entries(session.authorizations)
      .filter(([clientId]) => everything || clientId === session.state?.clientId)
      .map(([, { grantId }]) => grantId)
      .filter((grantId): grantId is string => typeof grantId === 'string');
  }

  /** An authorization request refused with a page (not sent back): an unknown client or an unregistered redirect URI. */
  async function afterAuthorizationRefused(koa: KoaContextWithOIDC) {
    const error = errorsOf.get(koa);
    const params = koa.oidc?.params ?? {};
    const clientId = typeof params.client_id === 'string' ? params.client_id : (koa.query.client_id as string | undefined);
    const attempt = attemptOf(koa);
    if (error?.error === 'invalid_client') {
      await recordSignIn(db, attempt, { outcome: 'bad_client', clientId });
    } else if (error?.error === 'invalid_redirect_uri' && koa.oidc?.client) {
      const redirectUri = typeof params.redirect_uri === 'string' ? params.redirect_uri : String(koa.query.redirect_uri ?? '(none)');
      await recordSignIn(db, attempt, { outcome: 'bad_redirect_uri', client: { id: koa.oidc.client.clientId, ...tenantOf(koa.oidc.client) }, detail: `redirect_uri ${redirectUri}` });
    }
  }

  /**
   * The console's sign-ins (consoleLogin.ts) have no browser session at the provider: their ID
   * token's sid is the grant itself. Whoever holds that ID token asks to end its sign-in: done at
   * once (the console signs out with one request). Hosted sign-ins end with their browser session,
   * when the user confirms (oidc-provider).
   */
  async function endHintedSignIn(koa: KoaContextWithOIDC) {
    const hint = koa.oidc?.entities.IdTokenHint as { payload?: { sid?: unknown; aud?: unknown } } | undefined;
    const sid = hint?.payload?.sid;
    const clientId = koa.oidc?.client?.clientId;
    if (typeof sid !== 'string' || !clientId) return;
    const { rowCount } = await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND client_id = $2`, [sid, clientId]);
    // Nothing is left to confirm (no browser session): unless the application asked to be sent back,
    // say so here rather than through oidc-provider's self-submitting page.
    const sessionAccount = (koa.oidc.session as { accountId?: string } | undefined)?.accountId;
    if (rowCount > 0 && !sessionAccount && !koa.oidc.params?.post_logout_redirect_uri) {
      koa.type = 'html';
      koa.body = renderMessagePage('Signed out', 'You are signed out. You can close this window.');
    }
  }
}

/** 429 for an address that guessed too many device codes, as a page the user reads. */
function tooManyGuesses(koa: { status: number; type: string; body: unknown; set(name: string, value: string): void }, wait: number) {
  koa.status = 429;
  koa.set('Retry-After', String(wait));
  koa.type = 'html';
  koa.body = renderErrorPage(`Too many wrong codes from this network. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.`);
}

/**
 * oidc-provider calls a response type or grant type the client may not use invalid_request; RFC
 * 6749 (4.1.2.1, 5.2) names it unauthorized_client, which is what clients look for.
 */
function unauthorizedClientNamed(location: string): string {
  if (!/error=invalid_request/.test(location) || !/not\+allowed\+for\+this\+client/.test(location)) return location;
  return location.replace('error=invalid_request', 'error=unauthorized_client');
}

const safeUrl = (value: string) => {
  try {
    return new URL(value).toString();
  } catch {
    return undefined;
  }
};
