import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import formbody from '@fastify/formbody';
import helmet from 'helmet';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { fastifyTrustProxy } from './config.js';
import type { AppContext } from './context.js';
import { errorAnswer, reasonPhrase, RETRY_AFTER_SECONDS } from './errors.js';
import { registerAuditActor } from './accounts/audit.js';
import { registerGuard } from './api/guard.js';
import { apiRoutes } from './api/index.js';
import { addListQueryRoutes } from './api/list.js';
import { emailFormats } from './api/schemas.js';
import { registerApiInputChecks, registerInputChecks } from './inputChecks.js';
import { oauthRoutes } from './oauth/index.js';
import { registerSameSiteForms } from './oauth/sameSiteForms.js';
import { registerHealth } from './health.js';
import { registerHostedPages } from './i18n/index.js';
import { scimRoutes } from './scim/routes.js';
import { brandingPublicRoutes } from './branding/public.js';

export interface BuildOptions {
  logger?: boolean | object;
  /** More management API routes under /api, behind the guard like the built-in ones (a resource type a test declares). */
  apiRoutes?: FastifyPluginAsync[];
}

/**
 * One log line per request, when it is answered (Fastify writes two: incoming and completed): the
 * method, the path (never its query: a reset link's token is a password while it lives), the status
 * and the time; the line's reqId is the request id.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    const line = { method: request.method, path: request.url.split('?', 1)[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request');
    else reply.log.info(line, 'request');
  }
}

/** Builds the provider: security headers, OpenAPI, management API, authorization server, console. No listen() here. */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    logController: new OneLinePerRequest(),
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false }, plugins: [emailFormats] },
  });
  app.decorate('ctx', ctx);

  const https = ctx.config.publicUrl.startsWith('https:');
  // Built once, applied to every response. (@fastify/helmet builds helmet's middleware again for
  // each request, which re-parses the policy: a tenth of the server's time on a GET of one record.)
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // MUI (emotion) injects <style> elements at run time
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
    },
    hsts: https ? { maxAge: 31536000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));
  // the language and branding of the hosted pages a request renders (server/i18n/)
  registerHostedPages(app);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  registerInputChecks(app);

  await app.register(swagger, {
    openapi: {
      info: { title: 'IAM provider management API', version: '1.0.0', description: 'The management API (docs/CONSOLE.md, "Resources" and "Data provider conventions"), under /api' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  // docs/CONSOLE.md, "Errors and messages": the English message, a stable code and its params
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, message, code, params, headers } = errorAnswer(error);
    if (headers) reply.headers(headers);
    if (status === 503) {
      reply.header('Retry-After', RETRY_AFTER_SECONDS);
      request.log.warn({ err: error }, 'database unavailable');
    } else if (status >= 500) request.log.error({ err: error }, 'unhandled error');
    reply.status(status).send({ statusCode: status, error: reasonPhrase(status), message, code, ...(params && { params }) });
  });

  await app.register(
    async (api) => {
      registerGuard(api);
      registerAuditActor(api);
      registerApiInputChecks(api);
      addListQueryRoutes(api);
      await api.register(apiRoutes);
      for (const routes of options.apiRoutes ?? []) await api.register(routes);
    },
    { prefix: '/api' },
  );
  // before the hosted pages' routes: each form route declares config.sameSiteForm
  registerSameSiteForms(app, ctx.config.publicUrl);
  await app.register(oauthRoutes);
  await app.register(scimRoutes, { prefix: '/scim/v2' });
  await app.register(brandingPublicRoutes);
  registerHealth(app, ctx);
  await registerConsole(app, ctx);
  return app;
}

/** Serves the built console with index.html for its client-side routes; a placeholder page before it is built. */
async function registerConsole(app: FastifyInstance, ctx: AppContext) {
  const index = path.join(ctx.config.consoleDir, 'index.html');
  const built = fs.existsSync(index);
  if (built) {
    await app.register(fastifyStatic, {
      root: ctx.config.consoleDir,
      wildcard: false,
      index: false,
      // the .br and .gz copies written at build time (scripts/compress.mjs), as the browser accepts them
      preCompressed: true,
      // a built file's name carries its content's hash: it never changes under that name
      setHeaders: (res, file) => {
        if (file.includes(`${path.sep}assets${path.sep}`)) res.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
    });
  }
  const isConsolePath = (url: string) => !/^\/(api|oauth|\.well-known)(\/|$|\?)/.test(url);
  app.setNotFoundHandler((request, reply) => {
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    if (request.method === 'GET' && wantsHtml && isConsolePath(request.url)) {
      if (built) return reply.type('text/html').header('Cache-Control', 'no-cache').send(fs.createReadStream(index));
      return reply.type('text/html').send(placeholderPage(ctx));
    }
    const what = `Route ${request.method} ${request.url.split('?')[0]}`;
    reply.status(404).send({ statusCode: 404, error: 'Not Found', message: `${what} not found`, code: 'not_found', params: { what } });
  });
}

function placeholderPage(ctx: AppContext) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>IAM provider</title><link rel="icon" href="/favicon.ico" type="image/svg+xml"></head>
<body><main><h1>IAM provider is running</h1>
<p>The console has not been built yet: run <code>npm run build</code> (npm start does it for you).</p>
<p>OpenID configuration: <a href="/.well-known/openid-configuration">/.well-known/openid-configuration</a>.
Management API: <a href="/api/docs">/api/docs</a>. Issuer: ${ctx.config.publicUrl.replace(/[<>&"]/g, '')}</p></main></body></html>`;
}
