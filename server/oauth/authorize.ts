import type { FastifyInstance } from 'fastify';
import { type AuthorizationParams, authorizationParamsSchema, checkAuthorizationRequest } from './authorizationRequest.js';
import { renderErrorPage, renderLoginPage, sendPage } from './loginPage.js';
import { sendRedirect } from './redirect.js';
import { attemptOf, recordSignIn } from './signInEvents.js';

/** GET /oauth/authorize: the standard entry point; shows the hosted login page of any registered application. */
export async function authorizeRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;

  app.get<{ Querystring: AuthorizationParams }>(
    '/oauth/authorize',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Authorization endpoint (code flow with PKCE S256); answers the hosted login page',
        security: [],
        querystring: authorizationParamsSchema,
      },
    },
    async (request, reply) => {
      const checked = await checkAuthorizationRequest(db, request.query, { issuer: config.publicUrl, responseTypeRequired: true });
      if (checked.kind === 'page') {
        const { client_id: clientId } = request.query;
        await recordSignIn(db, attemptOf(request), { outcome: checked.reason, client: checked.client, clientId, detail: checked.reason === 'bad_redirect_uri' ? `redirect_uri ${request.query.redirect_uri ?? '(none)'}` : undefined });
        return sendPage(reply, 400, renderErrorPage(checked.message));
      }
      if (checked.kind === 'redirect') return sendRedirect(reply, checked.location, request.query.redirect_uri);
      return sendPage(reply, 200, renderLoginPage(checked.request), checked.request.redirectUri);
    },
  );
}
