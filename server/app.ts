import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyPluginAsync, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import helmet from 'helmet';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { fastifyTrustProxy } from './config.js';
import type { AppContext } from './context.js';
import { HttpError, reasonPhrase, statusForDatabaseError } from './errors.js';
import { registerAuditActor } from './accounts/audit.js';
import { registerGuard } from './api/guard.js';
import { apiRoutes } from './api/index.js';
import { addListQueryRoutes } from './api/list.js';
import { emailFormats } from './api/schemas.js';
import { registerApiInputChecks, registerInputChecks } from './inputChecks.js';
import { oauthRoutes } from './oauth/index.js';
import { registerSameSiteForms } from './oauth/sameSiteForms.js';

export interface BuildOptions {
  logger?: boolean | object;
  /** More management API routes under /api, behind the guard like the built-in ones (a resource type a test declares). */
  apiRoutes?: FastifyPluginAsync[];
}

/**
 * The URL as the request log writes it: the value of every query parameter whose name says token
 * (`token`, `TOKEN`, `%74oken`, `access_token`…), whatever the path, replaced. A reset or invitation
 * link's token is a password while it lives (docs/CONSOLE.md, "E-mail, reset links and
 * invitations"), and a log is read by more people than the mailbox it was sent to.
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const pairs = url.slice(at + 1).split('&').map((pair) => {
    const name = pair.split('=', 1)[0];
    return /token/i.test(decodedName(name)) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, at)}?${pairs.join('&')}`;
}

/** A parameter's name as a query parser could read it: + and %XX decoded (again, for a doubly encoded one). */
function decodedName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  for (let round = 0; round < 3; round++) {
    const next = name.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === name) break;
    name = next;
  }
  return name;
}

/** Fastify's logger options with our request serializer (Fastify's own fields, the URL as loggedUrl writes it); none when logging is off. */
function requestLogger(logger: BuildOptions['logger']) {
  if (!logger) return false;
  const given = logger === true ? {} : (logger as { serializers?: Record<string, unknown> });
  const req = (request: FastifyRequest) => ({
    method: request.method,
    url: loggedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  });
  return { ...given, serializers: { ...given.serializers, req } };
}

/** Builds the provider: security headers, OpenAPI, management API, authorization server, console. No listen() here. */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: requestLogger(options.logger),
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

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let status = 500;
    let message = 'Internal error';
    if (error instanceof HttpError) {
      status = error.statusCode;
      message = error.message;
      reply.headers(error.headers);
    } else if (error.validation) {
      status = 400;
      message = error.message;
    } else if (statusForDatabaseError(error)) {
      ({ status, message } = statusForDatabaseError(error)!);
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      message = error.message;
    }
    if (status >= 500) request.log.error({ err: error }, 'unhandled error');
    reply.status(status).send({ statusCode: status, error: reasonPhrase(status), message });
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
  await registerConsole(app, ctx);
  return app;
}

/** Serves the built console with index.html for its client-side routes; a placeholder page before it is built. */
async function registerConsole(app: FastifyInstance, ctx: AppContext) {
  const index = path.join(ctx.config.consoleDir, 'index.html');
  const built = fs.existsSync(index);
  if (built) {
    await app.register(fastifyStatic, { root: ctx.config.consoleDir, wildcard: false, index: false });
  }
  const isConsolePath = (url: string) => !/^\/(api|oauth|\.well-known)(\/|$|\?)/.test(url);
  app.setNotFoundHandler((request, reply) => {
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    if (request.method === 'GET' && wantsHtml && isConsolePath(request.url)) {
      if (built) return reply.type('text/html').header('Cache-Control', 'no-cache').send(fs.createReadStream(index));
      return reply.type('text/html').send(placeholderPage(ctx));
    }
    reply.status(404).send({ statusCode: 404, error: 'Not Found', message: `Route ${request.method} ${request.url.split('?')[0]} not found` });
  });
}

function placeholderPage(ctx: AppContext) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>IAM provider</title></head>
<body><main><h1>IAM provider is running</h1>
<p>The console has not been built yet: run <code>npm run build</code> (npm start does it for you).</p>
<p>OpenID configuration: <a href="/.well-known/openid-configuration">/.well-known/openid-configuration</a>.
Management API: <a href="/api/docs">/api/docs</a>. Issuer: ${ctx.config.publicUrl.replace(/[<>&"]/g, '')}</p></main></body></html>`;
}
