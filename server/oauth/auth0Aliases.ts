import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { extrasOf } from './clients.js';
import { renderErrorPage } from './loginPage.js';

/**
 * Applications written for Auth0 (docs/PROTECT-YOUR-APP.md, "Moving from Auth0"). Auth0's browser
 * SDK (@auth0/auth0-spa-js) reads no discovery: it sends people to `{domain}/authorize`, asks
 * `{domain}/oauth/token` (our token endpoint already, form or JSON), and signs out at
 * `{domain}/v2/logout?client_id=…&returnTo=…`. Those two are the standard endpoints under Auth0's
 * names: the request is handed on as `/oauth/authorize` and `/oauth/logout` (returnTo as
 * post_logout_redirect_uri, checked as it is), so they answer exactly as those do: same checks,
 * same errors, same CORS. Its silent sign-in without refresh tokens asks for
 * `response_mode=web_message` in a hidden iframe: served below, for the application's allowed web
 * origins only.
 */

/** Auth0's names of the standard endpoints. */
const ALIASES: Record<string, string> = { '/authorize': '/oauth/authorize', '/v2/logout': '/oauth/logout' };

/** What Auth0's SDK adds that no standard endpoint reads: its own name and version (auth0Client), and `federated`. */
const AUTH0_ONLY = ['auth0Client', 'federated'];

/** `/v2/logout`'s query as the end-session endpoint's: every returnTo becomes a post_logout_redirect_uri (two of them are refused as duplicates). */
function logoutQuery(query: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [name, value] of query) {
    if (AUTH0_ONLY.includes(name)) continue;
    out.append(name === 'returnTo' ? 'post_logout_redirect_uri' : name, value);
  }
  return out;
}

/**
 * Serves Auth0's endpoint names in the scope of the provider's routes (server/oauth/index.ts): the
 * request's URL becomes the standard endpoint's before anything reads it (the OAuth input checks,
 * the scope's error pages, oidc-provider), then the provider's own handler answers.
 */
export async function auth0Aliases(scope: FastifyInstance, options: { handler: RouteHandlerMethod; params: { type: 'object'; properties: Record<string, object> } }) {
  // returnTo is post_logout_redirect_uri, checked as it is; what no standard endpoint reads stays unchecked, as there
  const logoutParams = { ...options.params, properties: { ...options.params.properties, returnTo: {} } };
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    const url = new URL(request.raw.url ?? '/', 'http://x');
    const target = ALIASES[url.pathname];
    if (!target) return;
    // (the authorization request's query goes on as sent, byte for byte)
    const search = target === '/oauth/logout' ? logoutQuery(url.searchParams).toString() : url.search.slice(1);
    request.raw.url = `${target}${search ? `?${search}` : ''}`;
  });
  const schema = { hide: true, querystring: options.params };
  scope.route({ method: ['GET', 'HEAD', 'OPTIONS'], url: '/authorize', schema, handler: options.handler });
  scope.route({ method: 'POST', url: '/authorize', schema: { ...schema, body: options.params }, handler: options.handler });
  scope.route({ method: ['GET', 'HEAD', 'OPTIONS'], url: '/v2/logout', schema: { ...schema, querystring: logoutParams }, handler: options.handler });
}

/** The origin a web message answer was sent to: the one page that may frame it. */
const framedBy = new WeakMap<object, string>();

/** A script's text made safe inside <script>: no closing tag, no line separators. */
const scriptSafe = (json: string) => json.replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * OAuth 2.0 Web Message Response Mode (Auth0's silent sign-in, and its popup): the authorization
 * response is posted to the window that opened or framed the page, addressed to the redirect URI's
 * origin only (the browser drops it for any other), and the page may be framed by that origin only.
 * As Auth0 does, the origin must also be one of the application's allowed web origins (the list
 * that already gives it CORS at the token endpoint); otherwise nothing is posted.
 *
 * Call before providerHooks (providerHooks.ts): this middleware then runs around it and has the
 * last word on the framing headers of the one answer it sent.
 */
export function webMessageResponseMode(provider: Provider) {
  provider.registerResponseMode('web_message', (koa: KoaContextWithOIDC, redirectUri: string, response: Record<string, unknown>) => {
    let origin: string | undefined;
    try {
      origin = new URL(redirectUri).origin;
    } catch {
      origin = undefined;
    }
    koa.type = 'html';
    const client = koa.oidc.client;
    if (!client || !origin || !/^https?:/.test(origin) || !extrasOf(client).web_origins.includes(origin)) {
      koa.status = 400;
      koa.body = renderErrorPage(`response_mode=web_message answers only an allowed web origin of the application; ${origin ?? 'the redirect_uri'} is not one.`);
      return;
    }
    if (![200, 400, 500].includes(koa.status)) koa.status = 'error' in response ? 400 : 200;
    const message = scriptSafe(JSON.stringify({ type: 'authorization_response', response }));
    const script = `(window.opener || window.parent).postMessage(${message}, ${scriptSafe(JSON.stringify(origin))});`;
    // providerHooks.ts keeps this hash as the page's one allowed script
    koa.set('Content-Security-Policy', `script-src 'sha256-${crypto.createHash('sha256').update(script).digest('base64')}'`);
    framedBy.set(koa, origin);
    koa.body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head><body><script>${script}</script></body></html>`;
  });
  provider.use(async (koa, next) => {
    await next();
    const origin = framedBy.get(koa);
    if (!origin) return;
    koa.remove('X-Frame-Options');
    koa.set('Content-Security-Policy', String(koa.response.get('Content-Security-Policy')).replace(/frame-ancestors [^;]*/, `frame-ancestors ${origin}`));
  });
}
