import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';

/** How long /readyz waits for the database before it says not ready. */
const READY_TIMEOUT_MS = 2000;

const favicon = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public', 'favicon.svg'));

/**
 * What an operator's probes and a browser ask of every server (docs/OPERATIONS.md, "Health"),
 * without authentication and never cached: `/healthz` says the process answers (liveness),
 * `/readyz` that it can reach its database (readiness: a load balancer sends it no traffic while it
 * cannot). And the icon of the server's own pages, which browsers ask for at `/favicon.ico`.
 */
export function registerHealth(app: FastifyInstance, ctx: AppContext) {
  const noStore = { 'Cache-Control': 'no-store' };
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => reply.headers(noStore).send({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([ctx.db.query('SELECT 1'), timeout]);
      return reply.headers(noStore).send({ status: 'ready' });
    } catch (error) {
      return reply
        .status(503)
        .headers({ ...noStore, 'Retry-After': '5' })
        .send({ status: 'not ready', message: `The database cannot be reached: ${(error as Error).message}` });
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(favicon),
  );
}
