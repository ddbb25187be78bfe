import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderErrorPage, sendPage } from './loginPage.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes form posts from the provider's own pages only (login CSRF and its likes): a
     * post from another site is refused with a 403 page saying this sentence. Declared on the route;
     * one hook (registerSameSiteForms) checks every such route, GET and HEAD left alone.
     */
    sameSiteForm?: string;
  }
}

/**
 * Was this request posted from another site? Browsers say where a post comes from: Sec-Fetch-Site
 * (our pages' no-referrer policy makes Chromium send Origin: null even from our own pages), else
 * Origin. Scripts, which say neither, carry no victim's cookies. SameSite=Lax keeps our cookies off
 * other sites' posts as well.
 */
export function fromAnotherSite(request: FastifyRequest, ownOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  return site !== undefined ? site !== 'same-origin' : origin !== undefined && origin !== ownOrigin;
}

/** Where the hosted pages' forms post (oidc-provider's own endpoints under /oauth are called by applications, from anywhere). */
const HOSTED_FORMS = /^\/(account(\/|$)|oauth\/(login|signup|steps|interaction\/))/;

/** The one same-site check of the hosted pages' forms, for every route that declares `sameSiteForm`. */
export function registerSameSiteForms(app: FastifyInstance, publicUrl: string) {
  const ownOrigin = new URL(publicUrl).origin;
  app.addHook('onRoute', (route) => {
    const sentence = route.config?.sameSiteForm;
    const methods = [route.method].flat();
    // fails closed: a form of the hosted pages that forgets to declare it stops the server from starting
    if (!sentence && methods.includes('POST') && HOSTED_FORMS.test(route.url)) throw new Error(`POST ${route.url}: a hosted page's form declares config.sameSiteForm`);
    if (!sentence) return;
    const check = async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.method === 'GET' || request.method === 'HEAD' || !fromAnotherSite(request, ownOrigin)) return;
      sendPage(reply, 403, renderErrorPage(sentence));
      return reply;
    };
    const existing = route.preHandler ? (Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]) : [];
    route.preHandler = [check, ...existing];
  });
}
