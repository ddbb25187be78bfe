import type { FastifyInstance } from 'fastify';
import * as jose from 'jose';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { responseLocation } from './authorizationRequest.js';
import { findActiveClient, isRegisteredRedirect } from './clients.js';
import { issueCode } from './login.js';
import { renderErrorPage, sendPage } from './loginPage.js';
import { sendRedirect } from './redirect.js';
import { attemptOf, recordSignIn } from './signInEvents.js';
import { rememberConsent, resolveAudience, scopeForApi, apiScopeNames, splitScope } from './resources.js';

/** A sign-in waiting for the user's consent. It travels in the consent form, signed by us. */
export interface ConsentTicket {
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  codeChallenge?: string;
  nonce?: string;
  resource: string;
}

/** Long enough to read a page and decide, short enough that a leaked page is soon worthless. */
const TICKET_TTL_SECONDS = 600;
const TICKET_TYPE = 'consent+jwt';
const ticketAudience = (ctx: AppContext) => `${ctx.config.publicUrl}/oauth/consent`;

export async function signConsentTicket(ctx: AppContext, ticket: ConsentTicket): Promise<string> {
  return new jose.SignJWT({ ticket })
    .setProtectedHeader({ alg: 'RS256', kid: ctx.keys.kid, typ: TICKET_TYPE })
    .setIssuer(ctx.config.publicUrl)
    .setAudience(ticketAudience(ctx))
    .setIssuedAt()
    .setExpirationTime(`${TICKET_TTL_SECONDS}s`)
    .sign(ctx.keys.privateKey);
}

async function readConsentTicket(ctx: AppContext, token: string): Promise<ConsentTicket | undefined> {
  try {
    const { payload } = await jose.jwtVerify(token, ctx.keys.publicKey, {
      algorithms: ['RS256'],
      issuer: ctx.config.publicUrl,
      audience: ticketAudience(ctx),
      typ: TICKET_TYPE,
    });
    const ticket = payload.ticket as ConsentTicket | undefined;
    return ticket && typeof ticket.clientId === 'string' && typeof ticket.userId === 'string' ? ticket : undefined;
  } catch {
    return undefined;
  }
}

/** The API scopes of `scope` with their descriptions, for the consent page. */
export async function describeScopes(db: Queryable, apiId: string, scope: string): Promise<{ name: string; description: string }[]> {
  const { rows } = await db.query<{ name: string; description: string }>(
    `SELECT id AS name, description FROM permission_scopes WHERE api_id = $1 AND id = ANY ($2) ORDER BY id`,
    [apiId, splitScope(scope)],
  );
  return rows;
}

/** POST /oauth/consent: the answer to the consent page. Allow remembers the consent and issues the code. */
export async function consentRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const issuer = config.publicUrl;

  app.post<{ Body: { ticket?: string; decision?: string } }>(
    '/oauth/consent',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Answer of the consent page: allow (303 with a code) or deny (303 with access_denied)',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          properties: { ticket: { type: 'string', maxLength: 8000 }, decision: { type: 'string', maxLength: 10 } },
        },
      },
    },
    async (request, reply) => {
      const ticket = await readConsentTicket(app.ctx, request.body?.ticket ?? '');
      if (!ticket) return sendPage(reply, 400, renderErrorPage('This consent request is invalid or has expired. Please sign in again.'));
      // everything is checked again: the application, its redirect URI or the API may have changed meanwhile
      const client = await findActiveClient(db, ticket.clientId);
      if (!client || !isRegisteredRedirect(client, ticket.redirectUri)) {
        return sendPage(reply, 400, renderErrorPage('Unknown or inactive application.'));
      }
      const respond = (params: Record<string, string | undefined>) =>
        sendRedirect(reply, responseLocation(ticket.redirectUri, issuer, { ...params, state: ticket.state }), ticket.redirectUri);
      if (request.body?.decision !== 'allow') {
        await recordSignIn(db, attemptOf(request), { outcome: 'consent_denied', client, userId: ticket.userId, detail: ticket.resource });
        return respond({ error: 'access_denied', error_description: 'the user did not give consent' });
      }

      const audience = await resolveAudience(db, issuer, client, ticket.resource);
      if (!audience || audience.kind !== 'api') return respond({ error: 'invalid_target', error_description: 'the API is no longer available' });
      const { rows } = await db.query(`SELECT 1 FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND status = 'active'`, [
        client.companyId,
        client.domainId,
        ticket.userId,
      ]);
      if (rows.length === 0) return respond({ error: 'access_denied', error_description: 'the user is no longer active' });
      const scope = scopeForApi(ticket.scope, audience.api, await apiScopeNames(db, audience.api.id));
      const who = { companyId: client.companyId, domainId: client.domainId, userId: ticket.userId, clientId: client.id, resource: ticket.resource };
      await rememberConsent(db, who, scope);
      const code = await issueCode(db, {
        client,
        userId: ticket.userId,
        redirectUri: ticket.redirectUri,
        scope,
        codeChallenge: ticket.codeChallenge,
        nonce: ticket.nonce,
        resource: ticket.resource,
        from: attemptOf(request),
      });
      return respond({ code });
    },
  );
}
