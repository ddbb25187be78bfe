import crypto from 'node:crypto';
import bcrypt from '@node-rs/bcrypt';
import type { FastifyInstance } from 'fastify';
import type { Database, Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import { type AuthorizationParams, authorizationParamsSchema, checkAuthorizationRequest, responseLocation } from './authorizationRequest.js';
import type { OAuthClient } from './clients.js';
import { describeScopes, signConsentTicket } from './consent.js';
import { HOSTED_ORIGIN, renderConsentPage, renderErrorPage, renderLoginPage, sendPage } from './loginPage.js';
import { addressKey, type DeviceCookies, type LoginThrottle } from './loginThrottle.js';
import { sendRedirect } from './redirect.js';
import { type Attempt, attemptOf, recordSignIn, recordSignInWith } from './signInEvents.js';
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

interface KnownUser extends SignedInUser {
  passwordHash: string | null;
}

/** The active user of the client's domain whose email or username is `login` (case-folded), if any. */
async function findUser(db: Queryable, client: OAuthClient, login: string): Promise<KnownUser | undefined> {
  if (!login) return undefined;
  const { rows } = await db.query<KnownUser>(
    `SELECT id, display_name AS "displayName", password_hash AS "passwordHash" FROM users
     WHERE company_id = $1 AND domain_id = $2 AND status = 'active' AND (lower(email) = lower($3) OR lower(username) = lower($3))
     ORDER BY (lower(email) = lower($3)) DESC LIMIT 1`,
    [client.companyId, client.domainId, login],
  );
  return rows[0];
}

/**
 * For the sign-in event of an unknown login only (never the answer, which stays "Wrong email or
 * password"): the soft-deleted user it names, so that support staff see why she cannot sign in.
 */
async function deletedUserId(db: Queryable, client: OAuthClient, login: string): Promise<string | undefined> {
  if (!login) return undefined;
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM users
     WHERE company_id = $1 AND domain_id = $2 AND status = 'deleted' AND (lower(email) = lower($3) OR lower(username) = lower($3))
     ORDER BY (lower(email) = lower($3)) DESC LIMIT 1`,
    [client.companyId, client.domainId, login],
  );
  return rows[0]?.id;
}

/**
 * The throttle's key of the account `login` names: the user, however they typed their name (email
 * or username, any case), or when nobody has that name the name itself (hashed: people type their
 * password into the name field), so that guessing at unknown names is throttled too.
 */
function accountKey(client: OAuthClient, login: string, user: KnownUser | undefined): string {
  const domain = `${client.companyId}/${client.domainId}`;
  return user ? `user:${domain}/${user.id}` : `name:${domain}/${sha256(login.toLowerCase())}`;
}

let dummyHash: Promise<string> | undefined;

/**
 * Does `password` match the user's? Unknown users (and users without a password) cost a bcrypt
 * comparison too, so timing does not reveal who exists.
 */
async function passwordMatches(user: KnownUser | undefined, password: string): Promise<boolean> {
  dummyHash ??= bcrypt.hash(crypto.randomBytes(16).toString('hex'), 10);
  const hash = user?.passwordHash ?? (await dummyHash);
  let matches = false;
  try {
    // native and asynchronous: the comparison runs on libuv's thread pool, never on the event loop
    matches = await bcrypt.verify(password, hash);
  } catch {
    matches = false;
  }
  return Boolean(user?.passwordHash && password && matches);
}

/** "Try again in 5 minutes." / "in 40 seconds." */
function tryAgainIn(seconds: number): string {
  if (seconds < 60) return `Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  const minutes = Math.ceil(seconds / 60);
  return `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
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
  /** A password sign-in: its success is recorded with the grant (a consent's answer is not a sign-in). */
  signIn?: { attempt: Attempt; login: string };
  /** The request that completes the sign-in (the password form, or the consent page's answer): the session's address and user agent. */
  from: { ip: string; userAgent?: string };
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
      from: request.from,
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
    if (request.signIn) {
      await recordSignInWith(tx, request.signIn.attempt, { outcome: 'success', client, userId: request.userId, login: request.signIn.login });
    }
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
      const seen = attemptOf(request);
      if (checked.kind === 'page') {
        await recordSignIn(db, seen, { outcome: checked.reason, client: checked.client, clientId: form.client_id, login: form.email, detail: checked.reason === 'bad_redirect_uri' ? `redirect_uri ${form.redirect_uri ?? '(none)'}` : undefined });
        return sendPage(reply, 400, renderErrorPage(checked.message));
      }
      if (checked.kind === 'redirect') return sendRedirect(reply, checked.location, form.redirect_uri);
      const authorization = checked.request;
      const { client, redirectUri } = authorization;

      const login = (form.email ?? '').trim();
      const user = await findUser(db, client, login);
      const account = accountKey(client, login, user);
      const address = addressKey(request.ip);
      // counted before the password is checked: a throttled attempt never reaches bcrypt
      const attempt = await throttle.begin(account, address, devices.deviceId(request.headers.cookie, account));
      if (attempt.retryAfter > 0) {
        await recordSignIn(db, seen, { outcome: 'throttled', client, userId: user?.id, login, detail: `retry after ${attempt.retryAfter} s` });
        reply.header('Retry-After', String(attempt.retryAfter));
        const error = `Too many failed sign-in attempts. ${tryAgainIn(attempt.retryAfter)}`;
        return sendPage(reply, 429, renderLoginPage(authorization, { email: login, error }), redirectUri);
      }

      const matches = await passwordMatches(user, form.password ?? '');
      if (!user || !matches) {
        if (user) await recordSignIn(db, seen, { outcome: 'wrong_password', client, userId: user.id, login });
        else {
          const deleted = await deletedUserId(db, client, login).catch(() => undefined);
          await recordSignIn(db, seen, { outcome: 'unknown_user', client, userId: deleted, login, detail: deleted ? 'the account is deleted' : undefined });
        }
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

      const wait = await throttle.succeeded(attempt, account, address);
      if (wait > 0) {
        await recordSignIn(db, seen, { outcome: 'throttled', client, userId: user.id, login, detail: `too many sign-ins: retry after ${wait} s` });
        reply.header('Retry-After', String(wait));
        const error = `Too many sign-ins in a short time. ${tryAgainIn(wait)}`;
        return sendPage(reply, 429, renderLoginPage(authorization, { email: login, error }), redirectUri);
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
          await recordSignIn(db, seen, { outcome: 'success', client, userId: user.id, login, detail: 'consent asked' });
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
        signIn: { attempt: seen, login },
        from: seen,
      });
      return sendRedirect(reply, responseLocation(redirectUri, issuer, { code, state: authorization.state }), redirectUri);
    },
  );
}
