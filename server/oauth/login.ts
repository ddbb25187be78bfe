import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { FastifyInstance } from 'fastify';
import type { Database, Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import { type AuthorizationParams, authorizationParamsSchema, checkAuthorizationRequest, responseLocation } from './authorizationRequest.js';
import type { OAuthClient } from './clients.js';
import { describeScopes, signConsentTicket } from './consent.js';
import { HOSTED_ORIGIN, renderConsentPage, renderErrorPage, renderLoginPage, sendPage } from './loginPage.js';
import type { DeviceCookies, LoginThrottle } from './loginThrottle.js';
import { sendRedirect } from './redirect.js';
import { apiScopeNames, hasConsent, scopeForApi } from './resources.js';
import { createGrant, grantedScopes, isAdministrator } from './tokens.js';

/** Authorization codes live one minute (RFC 6749 4.1.2 recommends at most ten). */
export const CODE_TTL_SECONDS = 60;

export interface LoginOptions {
  throttle: LoginThrottle;
  devices: DeviceCookies;
}

interface LoginForm extends AuthorizationParams {
  email?: string;
  password?: string;
  prompt_origin?: string;
}

interface SignedInUser {
  id: string;
  displayName: string;
}

let dummyHash: Promise<string> | undefined;

/**
 * The active user of the client's domain whose email or username is `login` and whose password
 * matches. Unknown users cost a bcrypt comparison too, so timing does not reveal who exists.
 */
async function authenticate(db: Queryable, client: OAuthClient, login: string, password: string): Promise<SignedInUser | undefined> {
  const { rows } = await db.query<{ id: string; displayName: string; passwordHash: string | null }>(
    `SELECT id, display_name AS "displayName", password_hash AS "passwordHash" FROM users
     WHERE company_id = $1 AND domain_id = $2 AND status = 'active' AND (lower(email) = lower($3) OR lower(username) = lower($3))
     ORDER BY (lower(email) = lower($3)) DESC LIMIT 1`,
    [client.companyId, client.domainId, login],
  );
  const user = rows[0];
  dummyHash ??= bcrypt.hash(crypto.randomBytes(16).toString('hex'), 10);
  const hash = user?.passwordHash ?? (await dummyHash);
  let matches = false;
  try {
    matches = await bcrypt.compare(password, hash);
  } catch {
    matches = false;
  }
  return user?.passwordHash && login && password && matches ? { id: user.id, displayName: user.displayName } : undefined;
}

/** What an authorization code is bound to. */
export interface CodeRequest {
  client: OAuthClient;
  userId: string;
  redirectUri: string;
  scope: string;
  codeChallenge?: string;
  nonce?: string;
  /** The API identifier; null for this provider's management API. */
  resource: string | null;
}

/** Creates the grant (the sign-in) and its one-minute, single-use authorization code. */
export async function issueCode(db: Database, request: CodeRequest): Promise<string> {
  const { client } = request;
  const code = crypto.randomBytes(32).toString('base64url');
  await db.transaction(async (tx) => {
    const grantId = await createGrant(tx, {
      clientId: client.id,
      companyId: client.companyId,
      domainId: client.domainId,
      userId: request.userId,
      scope: request.scope,
      resource: request.resource,
    });
    await tx.query(
      `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, code_challenge_method, scope, nonce, resource, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))`,
      [
        sha256(code),
        grantId,
        client.id,
        request.redirectUri,
        request.codeChallenge ?? null,
        request.codeChallenge ? 'S256' : null,
        request.scope,
        request.nonce ?? null,
        request.resource,
        CODE_TTL_SECONDS,
      ],
    );
  });
  return code;
}

/** POST /oauth/login: the console's native form post and the hosted page's form. */
export async function loginRoutes(app: FastifyInstance, options: LoginOptions) {
  const { db, config } = app.ctx;
  const { throttle, devices } = options;
  const issuer = config.publicUrl;

  app.post<{ Body: LoginForm }>(
    '/oauth/login',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Sign in with email (or username) and password; 303 to the redirect URI with code, state and iss',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          ...authorizationParamsSchema,
          properties: {
            ...authorizationParamsSchema.properties,
            email: { type: 'string', maxLength: 254 },
            password: { type: 'string', maxLength: 1024 },
            prompt_origin: { type: 'string', maxLength: 20 },
          },
        },
      },
    },
    async (request, reply) => {
      const form = request.body ?? {};
      const checked = await checkAuthorizationRequest(db, form, { issuer, responseTypeRequired: false });
      if (checked.kind === 'page') return sendPage(reply, 400, renderErrorPage(checked.message));
      if (checked.kind === 'redirect') return sendRedirect(reply, checked.location, form.redirect_uri);
      const authorization = checked.request;
      const { client, redirectUri } = authorization;

      const login = (form.email ?? '').trim();
      const account = `${client.companyId}/${client.domainId}/${login.toLowerCase()}`;
      const trustedDevice = devices.trusts(request.headers.cookie, account);
      const wait = throttle.retryAfter(account, request.ip, trustedDevice);
      if (wait > 0) {
        reply.header('Retry-After', String(wait));
        const error = `Too many failed sign-in attempts. Try again in ${Math.ceil(wait / 60)} minutes.`;
        return sendPage(reply, 429, renderLoginPage(authorization, { email: login, error }), redirectUri);
      }

      const user = await authenticate(db, client, login, form.password ?? '');
      if (!user) {
        throttle.recordFailure(account, request.ip, trustedDevice);
        if (form.prompt_origin === HOSTED_ORIGIN) {
          return sendPage(reply, 401, renderLoginPage(authorization, { email: login, error: 'Wrong email or password.' }), redirectUri);
        }
        const location = responseLocation(redirectUri, issuer, {
          error: 'access_denied',
          error_description: 'Wrong email or password',
          state: authorization.state,
        });
        return sendRedirect(reply, location, redirectUri);
      }

      reply.header('Set-Cookie', devices.issue(account));
      const { api } = authorization;
      let scope: string;
      if (api) {
        scope = scopeForApi(authorization.scope, api, await apiScopeNames(db, api.id));
        const who = { companyId: client.companyId, domainId: client.domainId, userId: user.id, clientId: client.id, resource: api.identifier };
        if (!api.allowSkippingUserConsent && !(await hasConsent(db, who, scope))) {
          const ticket = await signConsentTicket(app.ctx, {
            clientId: client.id,
            userId: user.id,
            redirectUri,
            scope,
            state: authorization.state,
            codeChallenge: authorization.codeChallenge,
            nonce: authorization.nonce,
            resource: api.identifier,
          });
          const page = renderConsentPage({
            clientName: client.name,
            apiName: api.name,
            userName: user.displayName,
            scopes: await describeScopes(db, api.id, scope),
            ticket,
          });
          return sendPage(reply, 200, page, redirectUri);
        }
      } else {
        const isAdmin = await isAdministrator(db, client.companyId, client.domainId, user.id);
        scope = grantedScopes(authorization.scope, { isAdmin, sameDomain: true });
      }
      const code = await issueCode(db, {
        client,
        userId: user.id,
        redirectUri,
        scope,
        codeChallenge: authorization.codeChallenge,
        nonce: authorization.nonce,
        resource: api?.identifier ?? null,
      });
      return sendRedirect(reply, responseLocation(redirectUri, issuer, { code, state: authorization.state }), redirectUri);
    },
  );
}
