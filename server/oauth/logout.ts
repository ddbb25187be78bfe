import type { FastifyInstance, FastifyReply } from 'fastify';
import * as jose from 'jose';
import { findActiveClient } from './clients.js';
import { renderErrorPage, renderMessagePage, sendPage } from './loginPage.js';
import { sendRedirect } from './redirect.js';

interface LogoutParams {
  id_token_hint?: string;
  client_id?: string;
  post_logout_redirect_uri?: string;
  state?: string;
}

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0). This provider keeps no browser
 * session of its own: a sign-in is a grant, named by the `sid` of its ID token. Logging out with an
 * id_token_hint revokes that grant (its management tokens and refresh tokens). The redirect back
 * goes only to a URI listed exactly in the application's client_logout_uri.
 */
export async function logoutRoutes(app: FastifyInstance) {
  const { db, config, keys } = app.ctx;

  const handler = async (params: LogoutParams, reply: FastifyReply) => {
    let hintClient: string | undefined;
    let sid: string | undefined;
    if (params.id_token_hint) {
      try {
        // an expired ID token is still a fine hint (the spec says so); the signature and issuer are what matter
        const { payload } = await jose.compactVerify(params.id_token_hint, keys.publicKey, { algorithms: ['RS256'] });
        const claims = JSON.parse(new TextDecoder().decode(payload)) as jose.JWTPayload;
        if (claims.iss !== config.publicUrl || typeof claims.aud !== 'string') throw new Error('not our ID token');
        hintClient = claims.aud;
        sid = typeof claims.sid === 'string' ? claims.sid : undefined;
      } catch {
        return sendPage(reply, 400, renderErrorPage('The id_token_hint is not a valid ID token of this provider.'));
      }
    }
    if (params.client_id && hintClient && params.client_id !== hintClient) {
      return sendPage(reply, 400, renderErrorPage('client_id differs from the audience of the id_token_hint.'));
    }
    const clientId = params.client_id || hintClient;
    const client = clientId ? await findActiveClient(db, clientId) : undefined;
    if (clientId && !client) return sendPage(reply, 400, renderErrorPage('Unknown or inactive application (client_id).'));
    if (client && sid) {
      await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND client_id = $2 AND revoked_at IS NULL`, [sid, client.id]);
    }
    const target = params.post_logout_redirect_uri;
    if (target) {
      if (!client) return sendPage(reply, 400, renderErrorPage('post_logout_redirect_uri needs client_id or id_token_hint.'));
      if (!client.logoutUris.includes(target)) {
        return sendPage(reply, 400, renderErrorPage('The post_logout_redirect_uri is not registered for this application.'));
      }
      const location = new URL(target);
      if (params.state !== undefined) location.searchParams.set('state', params.state);
      return sendRedirect(reply, location.toString(), target);
    }
    return sendPage(reply, 200, renderMessagePage('Signed out', 'You are signed out. You can close this window.'));
  };

  const stringProperty = (maxLength: number) => ({ type: 'string', maxLength }) as const;
  const schema = {
    type: 'object',
    properties: {
      id_token_hint: stringProperty(8000),
      client_id: stringProperty(200),
      post_logout_redirect_uri: stringProperty(2000),
      state: stringProperty(2000),
      ui_locales: stringProperty(200),
      logout_hint: stringProperty(500),
    },
  } as const;
  const summary = 'RP-initiated logout: revokes the sign-in of the id_token_hint, then 303 to a registered post_logout_redirect_uri';
  app.get<{ Querystring: LogoutParams }>('/oauth/logout', { schema: { tags: ['oauth'], summary, security: [], querystring: schema } }, (request, reply) =>
    handler(request.query, reply),
  );
  app.post<{ Body: LogoutParams }>(
    '/oauth/logout',
    { schema: { tags: ['oauth'], summary, security: [], consumes: ['application/x-www-form-urlencoded'], body: schema } },
    (request, reply) => handler(request.body ?? {}, reply),
  );
}
