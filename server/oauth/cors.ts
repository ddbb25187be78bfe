import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/index.js';

/**
 * CORS for the endpoints a browser application calls itself (token, userinfo). An origin is
 * allowed when an active application lists it exactly in allowed_web_orgins; once the request's
 * application is known, only that application's origins are answered. No credentials: these
 * endpoints never read cookies.
 */
interface CorsState {
  origin?: string;
  clientOrigins?: string[];
}

const states = new WeakMap<FastifyRequest, CorsState>();

/** Narrows the answer to the origins of the application the request turned out to come from. */
export function setCorsClient(request: FastifyRequest, origins: string[]) {
  const state = states.get(request);
  if (state) state.clientOrigins = origins;
}

/** Does some active application allow this origin (its allowed web origins)? */
export async function listedByAnApplication(db: Queryable, origin: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM applications WHERE status = 'active' AND allowed_web_orgins @> jsonb_build_array($1::text) LIMIT 1`, [origin]);
  return rows.length > 0;
}

export function corsFor(app: FastifyInstance, path: string, methods: string[]) {
  const { db } = app.ctx;


  app.addHook('onRequest', async (request, reply) => {
    // the answer differs by Origin: caches must keep one copy per origin
    reply.header('Vary', 'Origin');
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || origin.length > 500) return;
    states.set(request, (await listedByAnApplication(db, origin)) ? { origin } : {});
  });

  app.addHook('onSend', async (request, reply) => {
    const state = states.get(request);
    if (!state?.origin) return;
    if (state.clientOrigins && !state.clientOrigins.includes(state.origin)) return;
    reply.header('Access-Control-Allow-Origin', state.origin);
    reply.header('Access-Control-Expose-Headers', 'WWW-Authenticate');
  });

  app.options(path, { schema: { hide: true } }, async (request, reply) => {
    const state = states.get(request);
    const method = String(request.headers['access-control-request-method'] ?? '');
    if (!state?.origin || !methods.includes(method)) {
      states.delete(request); // a refused preflight carries no CORS header at all
      return reply.status(403).send({ error: 'cors_refused', error_description: 'this origin is not allowed by any application' });
    }
    return reply
      .status(204)
      .header('Access-Control-Allow-Methods', methods.join(', '))
      .header('Access-Control-Allow-Headers', 'Authorization, Content-Type')
      .header('Access-Control-Max-Age', '600')
      .send();
  });
}
