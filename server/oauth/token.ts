import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { clientError } from '../errors.js';
import { safeEqual, sha256 } from '../ids.js';
import { allowedGrantTypes, findActiveClient, isPublicClient, type OAuthClient, parseBasicAuth, secretMatches } from './clients.js';
import { corsFor, setCorsClient } from './cors.js';
import { issueRefreshToken, useRefreshToken } from './refreshTokens.js';
import { type Attempt, attemptOf, recordSignIn, type SignInOutcome, storable } from './signInEvents.js';
import { apiScopeNames, type Audience, namedAudience, OFFLINE_ACCESS, resolveAudience, splitScope, userAccessForApi } from './resources.js';
import { ADMIN_SCOPE, isAdministrator, issueTokens, signAccessToken, type TokenResponse } from './tokens.js';

/** An RFC 6749 5.2 error: `{ error, error_description }`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly statusCode = 400,
  ) {
    super(description);
  }
}

const invalidClient = (description: string) => new OAuthError('invalid_client', description, 401);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
const invalidTarget = (description: string) => new OAuthError('invalid_target', description);

export interface TokenRequestBody {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  client_id?: string;
  client_secret?: string;
  refresh_token?: string;
  scope?: string;
  audience?: string;
  resource?: string;
}

/** One grant type: gets the authenticated client, the body and where the request came from, answers the token response. */
export type GrantHandler = (ctx: AppContext, client: OAuthClient, body: TokenRequestBody, attempt: Attempt) => Promise<TokenResponse>;

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

interface CodeRow {
  grantId: string;
  userId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string | null;
  scope: string;
  nonce: string | null;
  resource: string | null;
  expired: boolean;
}

/** grant_type=authorization_code (RFC 6749 4.1.3 with RFC 7636 PKCE). */
const exchangeAuthorizationCode: GrantHandler = async (ctx, client, body, attempt) => {
  const { db } = ctx;
  if (!body.code) throw invalidRequest('code is required');
  if (!body.redirect_uri) throw invalidRequest('redirect_uri is required');
  const codeHash = sha256(body.code);
  // Marking the code used is the first thing, in one statement: two racing exchanges cannot both win.
  const { rows } = await db.query<CodeRow>(
    `UPDATE oauth_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL
     RETURNING grant_id AS "grantId", (SELECT user_id FROM oauth_grants WHERE id = grant_id) AS "userId", client_id AS "clientId", redirect_uri AS "redirectUri",
               code_challenge AS "codeChallenge", scope, nonce, resource, expires_at < now() AS expired`,
    [codeHash],
  );
  const code = rows[0];
  /** The refusal, recorded as a sign-in event of this client (and of the code's user, when there is a code). */
  const refuse = async (outcome: SignInOutcome, description: string, userId = code?.userId) => {
    await recordSignIn(db, attempt, { outcome, client, userId, detail: description });
    return invalidGrant(description);
  };
  if (!code) {
    // A second use means the code leaked: revoke what the first use issued (RFC 6749 4.1.2).
    const revoked = await db.query<{ userId: string }>(
      `UPDATE oauth_grants SET revoked_at = now()
       WHERE id = (SELECT grant_id FROM oauth_codes WHERE code_hash = $1) AND revoked_at IS NULL
       RETURNING user_id AS "userId"`,
      [codeHash],
    );
    if (revoked.rows[0]) throw await refuse('code_reused', 'the authorization code was already used', revoked.rows[0].userId);
    throw await refuse('bad_code', 'the authorization code is invalid');
  }
  if (code.expired) throw await refuse('bad_code', 'the authorization code has expired');
  if (code.clientId !== client.id) throw await refuse('bad_code', 'the authorization code was issued to another client');
  if (code.redirectUri !== body.redirect_uri) throw await refuse('bad_redirect_uri', 'redirect_uri differs from the one of the authorization request');
  if (code.codeChallenge) {
    if (!body.code_verifier) throw await refuse('bad_pkce', 'PKCE: code_verifier is required');
    if (!VERIFIER.test(body.code_verifier) || !safeEqual(sha256(body.code_verifier), code.codeChallenge)) {
      throw await refuse('bad_pkce', 'PKCE: code_verifier does not match the code_challenge');
    }
  } else if (body.code_verifier) {
    // a verifier for a code issued without a challenge is a downgrade attempt (RFC 9700 2.1.1)
    throw await refuse('bad_pkce', 'PKCE: no code_challenge was sent with the authorization request');
  }

  const named = body.audience || body.resource;
  if (named && named !== (code.resource ?? named)) throw invalidTarget('the audience differs from the one of the authorization request');
  return tokensForGrant(ctx, client, attempt, { grantId: code.grantId, scope: code.scope, resource: code.resource, nonce: code.nonce, newRefreshToken: true });
};

interface GrantUserRow {
  userId: string;
  username: string;
  displayName: string;
  email: string;
  authTime: number;
}

/**
 * The tokens of a live grant of an active user: the access token for its audience (the API it was
 * made for, which must still be active; else the management API), the ID token when openid was
 * granted, and a refresh token when asked for (offline_access), enabled for the application, and,
 * for an API, allowed by it.
 */
async function tokensForGrant(
  ctx: AppContext,
  client: OAuthClient,
  attempt: Attempt,
  grant: { grantId: string; scope: string; resource: string | null; nonce?: string | null; newRefreshToken: boolean; refreshToken?: string },
): Promise<TokenResponse> {
  const { db } = ctx;
  // The statement that reads the grant and its user also records this use of the session (its last
  // use and address, docs/CONSOLE.md, "Sign-ins and rights"): no round trip of its own. As an
  // UPDATE it also waits for a revocation in progress and then sees it.
  const { rows } = await db.query<GrantUserRow>(
    `UPDATE oauth_grants g SET last_used_at = now(), last_ip = $2
     FROM users u
     WHERE g.id = $1 AND g.revoked_at IS NULL
       AND u.company_id = g.company_id AND u.domain_id = g.domain_id AND u.id = g.user_id AND u.status = 'active'
     RETURNING u.id AS "userId", u.username, u.display_name AS "displayName", u.email,
               floor(extract(epoch FROM g.created_at))::integer AS "authTime"`,
    [grant.grantId, storable(attempt.ip, 100)],
  );
  const user = rows[0];
  if (!user) throw invalidGrant('the sign-in behind this grant is no longer valid');
  const audience = await resolveAudience(db, ctx.config.publicUrl, client, grant.resource ?? undefined);
  if (!audience) throw invalidGrant('the API of this grant is no longer available');
  let scope = grant.scope;
  let permissions: string[] | undefined;
  if (audience.kind === 'api') {
    ({ scope, permissions } = await userAccessForApi(db, audience.api, { companyId: client.companyId, domainId: client.domainId, userId: user.userId }, scope));
  } else if (splitScope(scope).includes(ADMIN_SCOPE)) {
    // Rights follow the account: a refresh never returns user:admin to someone who lost it since the
    // sign-in (membership changes revoke such grants; this holds even if one slipped through).
    const isAdmin = await isAdministrator(db, client.companyId, client.domainId, user.userId);
    if (!isAdmin) throw invalidGrant('the account is no longer an administrator: sign in again');
  }
  const offline = splitScope(scope).includes(OFFLINE_ACCESS) && allowedGrantTypes(client).includes('refresh_token');
  if (grant.refreshToken && !offline) throw invalidGrant('offline access is no longer allowed for this application or API');
  let refreshToken = grant.refreshToken;
  if (offline && grant.newRefreshToken) {
    refreshToken = await issueRefreshToken(db, { grantId: grant.grantId, clientId: client.id, scope: grant.scope, resource: grant.resource });
  }
  return issueTokens(ctx, {
    grantId: grant.grantId,
    user: { id: user.userId, username: user.username, displayName: user.displayName, email: user.email },
    client: { id: client.id, companyId: client.companyId, domainId: client.domainId, idTokenExpiration: client.idTokenExpiration },
    scope,
    nonce: grant.nonce,
    authTime: user.authTime,
    api: audience.kind === 'api' ? audience.api : undefined,
    browser: isPublicClient(client),
    permissions,
    refreshToken: offline ? refreshToken : undefined,
  });
}

/** grant_type=refresh_token (RFC 6749 6), with rotation and reuse detection as the application says. */
const exchangeRefreshToken: GrantHandler = async (ctx, client, body, attempt) => {
  if (!body.refresh_token) throw invalidRequest('refresh_token is required');
  const used = await useRefreshToken(ctx.db, client, body.refresh_token, attempt);
  if (body.scope !== undefined) {
    // RFC 6749 6: a refresh may narrow the scope, never widen it
    const original = splitScope(used.scope);
    const asked = splitScope(body.scope);
    if (asked.some((scope) => !original.includes(scope))) throw new OAuthError('invalid_scope', 'a refresh cannot add scopes');
    // offline_access stays: it is what the refresh token itself stands for
    if (original.includes(OFFLINE_ACCESS) && !asked.includes(OFFLINE_ACCESS)) asked.push(OFFLINE_ACCESS);
    used.scope = asked.join(' ');
  }
  const named = body.audience || body.resource;
  if (named && named !== (used.resource ?? named)) throw invalidTarget('a refresh token stays with the audience it was issued for');
  return tokensForGrant(ctx, client, attempt, {
    grantId: used.grantId,
    scope: used.scope,
    resource: used.resource,
    newRefreshToken: false,
    refreshToken: used.successor ?? body.refresh_token,
  });
};

/**
 * grant_type=client_credentials (RFC 6749 4.4): a confidential application acting for itself,
 * always for an API (the management API needs a signed-in administrator). Without a scope
 * parameter it gets every permission scope of the API; RBAC is about users and does not apply.
 */
const exchangeClientCredentials: GrantHandler = async (ctx, client, body) => {
  if (isPublicClient(client)) throw new OAuthError('unauthorized_client', 'client_credentials needs a confidential application (with a secret)');
  const named = namedAudience(client, body);
  if (named === null) throw invalidRequest('audience and resource name different APIs');
  if (!named) throw invalidRequest('name the API: audience (or resource) is required');
  const audience: Audience | undefined = await resolveAudience(ctx.db, ctx.config.publicUrl, client, named);
  if (!audience || audience.kind !== 'api') throw invalidTarget('the audience is not an active API of this application\'s domain');
  const { api } = audience;
  const apiScopes = await apiScopeNames(ctx.db, api.id);
  const asked = body.scope === undefined ? apiScopes : splitScope(body.scope);
  const unknown = asked.find((scope) => !apiScopes.includes(scope));
  if (unknown) throw new OAuthError('invalid_scope', `${unknown} is not a permission scope of this API`);
  const scope = asked.join(' ');
  const access = await signAccessToken(ctx, {
    subject: client.id,
    client: { id: client.id, companyId: client.companyId, domainId: client.domainId, idTokenExpiration: client.idTokenExpiration },
    scope,
    api,
    browser: false,
    permissions: asked,
  });
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    scope,
    client: { client_id: client.id, companyId: client.companyId, domain: client.domainId },
  };
};

/** Grant types by name. */
export const grantHandlers: Record<string, GrantHandler> = {
  authorization_code: exchangeAuthorizationCode,
  refresh_token: exchangeRefreshToken,
  client_credentials: exchangeClientCredentials,
};

/**
 * Client authentication (RFC 6749 2.3): confidential clients with HTTP Basic only; public clients
 * name themselves (body or Basic without secret), and a secret they do send must be right.
 */
async function authenticateClient(ctx: AppContext, request: FastifyRequest<{ Body: TokenRequestBody }>, attempt: Attempt): Promise<OAuthClient> {
  const basic = parseBasicAuth(request.headers.authorization);
  const body = request.body;
  /** The refusal, recorded as a bad_client sign-in event (of the application when there is one). */
  const refuse = async (description: string, client?: OAuthClient) => {
    await recordSignIn(ctx.db, attempt, { outcome: 'bad_client', client, clientId: basic?.clientId ?? body.client_id, detail: description });
    return invalidClient(description);
  };
  if (basic === null) throw await refuse('the Basic authorization header cannot be read');
  if (body.client_secret !== undefined) throw await refuse('send the client secret with HTTP Basic (client_secret_basic)');
  if (basic && body.client_id && body.client_id !== basic.clientId) throw await refuse('client_id differs from the Basic credentials');
  const client = await findActiveClient(ctx.db, basic?.clientId ?? body.client_id);
  if (!client) throw await refuse('unknown or inactive client');
  if (basic?.secret) {
    if (!secretMatches(client, basic.secret)) throw await refuse('wrong client credentials', client);
  } else if (!isPublicClient(client)) {
    throw await refuse('this client must authenticate with HTTP Basic', client);
  }
  return client;
}

const stringProperty = (maxLength: number) => ({ type: 'string', maxLength }) as const;

const tokenResponseSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer' },
    scope: { type: 'string' },
    id_token: { type: 'string' },
    refresh_token: { type: 'string' },
    user: {
      type: 'object',
      properties: { id: { type: 'string' }, username: { type: 'string' }, displayName: { type: 'string' }, email: { type: 'string' } },
    },
    client: {
      type: 'object',
      properties: { client_id: { type: 'string' }, companyId: { type: 'string' }, domain: { type: 'string' } },
    },
  },
} as const;

const oauthErrorSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
} as const;

/** POST /oauth/token. Its own error handler answers every failure in the RFC 6749 shape. */
export async function tokenRoutes(app: FastifyInstance) {
  corsFor(app, '/oauth/token', ['POST']);
  app.setErrorHandler((error: FastifyError | OAuthError, request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (error instanceof OAuthError) {
      if (error.statusCode === 401) reply.header('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
      return reply.status(error.statusCode).send({ error: error.error, error_description: error.description });
    }
    // a value the database refused (NUL in a code, say) is the request's fault too
    const refused = clientError(error);
    if (!refused) {
      request.log.error({ err: error }, 'token endpoint failed');
      return reply.status(500).send({ error: 'server_error', error_description: 'internal error' });
    }
    return reply.status(refused.status).send({ error: 'invalid_request', error_description: refused.message });
  });

  app.post<{ Body: TokenRequestBody }>(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token endpoint: authorization_code (PKCE), refresh_token, client_credentials; confidential clients authenticate with HTTP Basic',
        security: [],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: {
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: stringProperty(100),
            code: stringProperty(200),
            redirect_uri: stringProperty(2000),
            code_verifier: stringProperty(200),
            client_id: stringProperty(200),
            client_secret: stringProperty(500),
            refresh_token: stringProperty(500),
            scope: stringProperty(2000),
            audience: stringProperty(2000),
            resource: stringProperty(2000),
          },
        },
        response: { 200: tokenResponseSchema, 400: oauthErrorSchema, 401: oauthErrorSchema },
      },
    },
    async (request, reply) => {
      const handler = Object.hasOwn(grantHandlers, request.body.grant_type!) ? grantHandlers[request.body.grant_type!] : undefined;
      if (!handler) throw new OAuthError('unsupported_grant_type', `grant_type ${request.body.grant_type} is not supported`);
      const attempt = attemptOf(request);
      const client = await authenticateClient(app.ctx, request, attempt);
      setCorsClient(request, client.webOrigins);
      if (!allowedGrantTypes(client).includes(request.body.grant_type!)) {
        throw new OAuthError('unauthorized_client', `this client may not use grant_type ${request.body.grant_type}`);
      }
      const tokens = await handler(app.ctx, client, request.body, attempt);
      return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(tokens);
    },
  );
}
