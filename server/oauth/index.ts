import crypto from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as jose from 'jose';
import type Provider from 'oidc-provider';
import { DEFAULT_LOGIN_LIMITS } from '../config.js';
import { clientError, HttpError, RETRY_AFTER_SECONDS } from '../errors.js';
import { accountRoutes } from '../mfa/account.js';
import { registerMfaSteps } from '../mfa/steps.js';
import { accountPageRoutes } from './accountPages.js';
import { consoleLoginRoutes } from './consoleLogin.js';
// the required action of choosing a new password, a step of every sign-in (signInSteps.ts)
import './changePasswordStep.js';
import { deviceInput } from './deviceInput.js';
import { interactionRoutes } from './interactions.js';
import { loginPagePolicy, renderErrorPage, sendPage } from './loginPage.js';
import { DeviceCookies, LoginThrottle } from './loginThrottle.js';
import { providerHooks } from './providerHooks.js';
import { signUpRoutes } from './signUp.js';
import { managementAudience } from '../accounts/tokens.js';
import { createProvider, providerEndpoints } from './provider.js';
import { originOf, withRequestOrigin } from '../requestOrigin.js';
import { userinfoRoutes } from './userinfo.js';
import { upstreamRoutes } from '../upstream/routes.js';
import { auth0Aliases, webMessageResponseMode } from './auth0Aliases.js';

/**
 * The key of device cookies, derived from the signing key so that cookies survive restarts and
 * change when the signing key is rotated.
 */
async function deviceCookieSecret(privateKey: CryptoKey): Promise<Buffer> {
  const { d } = await jose.exportJWK(privateKey);
  return crypto.createHmac('sha256', d ?? crypto.randomBytes(32)).update('iam device cookie').digest();
}

/** The pages a browser navigates to: HTML errors, and never any CORS header (they are not APIs). */
async function signInRoutes(app: FastifyInstance, options: { provider: Provider; throttle: LoginThrottle }) {
  const { config, keys, db } = app.ctx;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refused = clientError(error) ?? (isProviderError(error) ? { status: 400, message: readable(error) } : undefined);
    if (!refused) request.log.error({ err: error }, 'sign-in page failed');
    // a refusal's own headers (an upstream start's Retry-After) go with its page
    if (refused && error instanceof HttpError) reply.headers(error.headers);
    if (refused?.status === 503) reply.header('Retry-After', RETRY_AFTER_SECONDS);
    return sendPage(reply, refused?.status ?? 500, renderErrorPage(refused?.message ?? 'Something went wrong. Please try again.'));
  });
  app.addHook('onSend', async (request, reply) => {
    for (const name of Object.keys(reply.getHeaders())) if (name.toLowerCase().startsWith('access-control-')) reply.removeHeader(name);
  });
  const { throttle } = options;
  const devices = new DeviceCookies(await deviceCookieSecret(keys.privateKey), config.publicUrl.startsWith('https:'));
  const shared = { provider: options.provider, db, throttle, devices, managementApi: managementAudience(app.ctx), consoleClientId: config.consoleClientId };
  const allowPrivate = config.allowPrivateCallbacks === true;
  await app.register(consoleLoginRoutes, { ...shared, issuer: config.publicUrl, allowPrivate });
  // the second factor and its enrolment at sign-in, and the account page (server/mfa)
  registerMfaSteps();
  await app.register(accountRoutes, { ...shared, issuer: config.publicUrl });
  await app.register(interactionRoutes, { ...shared, secure: config.publicUrl.startsWith('https:'), publicUrl: config.publicUrl, allowPrivate });
  // upstream identity providers: their starts, callbacks, SAML ACS and metadata, the link page (server/upstream/)
  await app.register(upstreamRoutes, { db, throttle, devices, publicUrl: config.publicUrl, allowPrivate, secure: config.publicUrl.startsWith('https:') });
  await app.register(accountPageRoutes, { provider: options.provider, consoleClientId: config.consoleClientId });
  await app.register(signUpRoutes, { throttle, consoleClientId: config.consoleClientId, publicUrl: config.publicUrl });
}

const isProviderError = (error: unknown): error is { error: string; error_description?: string; statusCode?: number } =>
  typeof error === 'object' && error !== null && typeof (error as { error?: unknown }).error === 'string';
const readable = (error: { error: string; error_description?: string }) =>
  error.error === 'invalid_request' && /interaction/i.test(error.error_description ?? '') ? 'This sign-in has expired. Please start again.' : (error.error_description ?? error.error);

/**
 * OpenID Connect Core 11: oidc-provider drops offline_access unless the request has prompt=consent.
 * Our consent step answers by itself when nobody needs to be asked (interactions.ts), so asking for
 * the prompt costs a redirect, not a page; whether a refresh token is issued stays the
 * application's and the API's settings (provider.ts, issueRefreshToken).
 */
function offlineNeedsConsentPrompt(params: URLSearchParams | Record<string, unknown>) {
  const get = (name: string) => (params instanceof URLSearchParams ? params.get(name) : typeof params[name] === 'string' ? (params[name] as string) : null);
  const scope = get('scope');
  if (!scope || !scope.split(' ').includes('offline_access')) return;
  const prompt = (get('prompt') ?? '').split(' ').filter(Boolean);
  if (prompt.includes('consent') || prompt.includes('none')) return;
  const value = [...prompt, 'consent'].join(' ');
  if (params instanceof URLSearchParams) params.set('prompt', value);
  else params.prompt = value;
}

/**
 * The parameters of the provider's endpoints, declared as the routes' schema so that the OAuth
 * input checks (server/inputChecks.ts) refuse a control character in any of them, as on our own
 * routes; their values are oidc-provider's to validate (unknown ones are ignored, as OAuth asks).
 */
const PROVIDER_PARAMS = {
  type: 'object',
  properties: Object.fromEntries(
    `client_id redirect_uri response_type response_mode scope state code_challenge code_challenge_method nonce prompt audience resource
     max_age login_hint id_token_hint acr_values ui_locales claims_locales display request request_uri grant_type code code_verifier
     client_secret client_assertion client_assertion_type refresh_token token token_type_hint post_logout_redirect_uri logout_hint
     device_code user_code xsrf logout dpop_jkt connection`
      .split(/\s+/)
      .map((name) => [name, {}]),
  ),
} as const;
/** Endpoints a browser navigates to: their refusals are pages; the others answer RFC 6749 JSON. */
const PAGES = new Set(['/oauth/authorize', '/oauth/logout', '/oauth/logout/confirm', '/oauth/device', '/oauth/device/confirm']);
const CONTROL = /[\u0000-\u001F\u007F]/;

/**
 * oidc-provider's router ignores case and a trailing slash (`/oauth/Token/` is its token endpoint),
 * while our hooks around it (providerHooks.ts) and every check here name exact paths: only the
 * exact spelling of an endpoint reaches it. (Its paths with an id, /oauth/authorize/{uid} or
 * /oauth/register/{client_id}, are no endpoint's other spelling: ids keep their case.)
 */
function canonical(pathname: string, endpoints: Set<string>): boolean {
  if (pathname.length > 1 && pathname.endsWith('/')) return false;
  const folded = pathname.toLowerCase();
  return !endpoints.has(folded) || folded === pathname;
}

/**
 * Hands a request to oidc-provider (a Koa application) from inside Fastify. Fastify has parsed the
 * body already: oidc-provider reads it from `req.body`. `audience` (the parameter the console's
 * settings and Auth0-style clients use) is the RFC 8707 `resource`.
 */
function passToProvider(provider: Provider, publicUrl: URL, endpoints: Set<string>) {
  const callback = provider.callback();
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.raw as typeof request.raw & { body?: unknown };
    // an Origin that cannot be one (a control character) is no origin at all
    if (CONTROL.test(String(raw.headers.origin ?? ''))) delete raw.headers.origin;
    if (request.body && typeof request.body === 'object') {
      const body = { ...(request.body as Record<string, unknown>) };
      if (typeof body.audience === 'string' && body.resource === undefined) body.resource = body.audience;
      delete body.audience;
      raw.body = body;
      // oidc-provider reads form posts only; a JSON token request means the same fields
      // (registration is the one endpoint that reads JSON: RFC 7591)
      if (String(raw.headers['content-type'] ?? '').startsWith('application/json') && !raw.url?.startsWith('/oauth/register')) {
        raw.headers['content-type'] = 'application/x-www-form-urlencoded';
      }
    }
    const url = new URL(raw.url ?? '/', 'http://x');
    if (!canonical(url.pathname, endpoints)) {
      const message = `${url.pathname} is not an endpoint of this provider`;
      // a browser's page (the device page, a resume step) gets a page; a client gets RFC 6749 JSON
      const page = PAGES.has(url.pathname.toLowerCase().replace(/\/+$/, '')) || /^\/oauth\/(authorize|device)\//i.test(url.pathname);
      if (page) return sendPage(reply, 404, renderErrorPage(`${message}. Open the page from its link again.`));
      return reply.status(404).header('Cache-Control', 'no-store').send({ error: 'not_found', error_description: message });
    }
    const query = url.searchParams;
    if (query.has('audience')) {
      if (!query.has('resource')) query.set('resource', query.get('audience')!);
      query.delete('audience');
    }
    offlineNeedsConsentPrompt(query);
    if (raw.body && typeof raw.body === 'object') offlineNeedsConsentPrompt(raw.body as Record<string, unknown>);
    // RP-initiated logout may be a form post (the console signs out with one); oidc-provider takes
    // it as a GET unless its cookies are SameSite=None, which ours are not
    if (raw.method === 'POST' && url.pathname === '/oauth/logout' && raw.body && typeof raw.body === 'object') {
      for (const [name, value] of Object.entries(raw.body as Record<string, unknown>)) if (typeof value === 'string' && !query.has(name)) query.set(name, value);
      raw.method = 'GET';
      delete raw.body;
    }
    raw.url = `${url.pathname}${url.search}`;
    // oidc-provider builds its URLs (and checks DPoP proofs) from the request: make it the public
    // URL's, with the client address Fastify worked out (TRUST_PROXY), never a header as sent
    raw.headers.host = publicUrl.host;
    raw.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
    raw.headers['x-forwarded-for'] = request.ip;
    delete raw.headers['x-forwarded-host'];
    reply.hijack();
    await withRequestOrigin(originOf(request), async () => {
      await new Promise<void>((resolve) => {
        reply.raw.once('finish', resolve);
        reply.raw.once('close', resolve);
        void callback(raw, reply.raw);
      });
    });
  };
}

/** The authorization server: oidc-provider at /oauth/* and discovery, with our sign-in pages and userinfo. */
export async function oauthRoutes(app: FastifyInstance) {
  const { config } = app.ctx;
  const provider = await createProvider(app.ctx, {
    pages: { interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` } },
    registrationToken: config.registrationAccessToken,
  });
  const throttle = new LoginThrottle(app.ctx.db, { ...DEFAULT_LOGIN_LIMITS, ...config.loginLimits }, { log: (message) => app.log.warn(message) });
  // Auth0's silent sign-in (auth0Aliases.ts): before providerHooks, so that it frames its own answer
  webMessageResponseMode(provider);
  providerHooks(provider, app.ctx, { pagePolicy: loginPagePolicy, log: app.log, throttle });
  deviceInput(provider);
  await app.register(signInRoutes, { provider, throttle });
  await app.register(userinfoRoutes);
  const handler = passToProvider(provider, new URL(config.publicUrl), providerEndpoints());
  app.register(async (scope) => {
    // what is refused before oidc-provider sees it (the input checks): a page where a browser
    // navigates, RFC 6749 JSON elsewhere
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const refused = clientError(error);
      if (!refused) request.log.error({ err: error }, 'authorization server failed');
      if (refused?.status === 503) reply.header('Retry-After', RETRY_AFTER_SECONDS);
      const message = refused?.message ?? 'Something went wrong. Please try again.';
      if (PAGES.has(new URL(request.url, 'http://x').pathname)) return sendPage(reply, refused?.status ?? 500, renderErrorPage(message));
      return reply
        .status(refused?.status ?? 500)
        .header('Cache-Control', 'no-store')
        .send({ error: refused ? 'invalid_request' : 'server_error', error_description: message });
    });
    const query = { hide: true, querystring: PROVIDER_PARAMS };
    scope.route({ method: ['GET', 'HEAD', 'OPTIONS', 'DELETE'], url: '/oauth/*', schema: query, handler });
    scope.route({ method: ['POST', 'PUT', 'PATCH'], url: '/oauth/*', schema: { ...query, body: PROVIDER_PARAMS }, handler });
    scope.get('/.well-known/openid-configuration', { schema: query }, handler);
    // Auth0's names of the authorization and end-session endpoints (auth0Aliases.ts)
    scope.register(auth0Aliases, { handler, params: PROVIDER_PARAMS });
  });
}
