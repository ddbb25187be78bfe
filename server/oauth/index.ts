import type { FastifyInstance } from 'fastify';

/** The authorization server: /oauth/* and discovery. */
export async function oauthRoutes(app: FastifyInstance) {
  void app;
}
