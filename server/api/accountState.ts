import { REQUIRED_ACTIONS, setRequiredActions } from '../accounts/requiredActions.js';
import { ACCOUNT_COUNTERS, checkPasswordHash, clearSignInCounters, setPassword } from '../accounts/passwords.js';
import { actsOnParam } from './containment.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { DEFAULT_LOGIN_LIMITS } from '../config.js';
import { isCaller, type Principal } from '../context.js';
import { badRequest } from '../errors.js';
import { blockUsers, unblockUsers } from '../accounts/administrators.js';
import { clearFactorGuesses, factorsLockedUntil } from '../accounts/factors.js';
import { userAccountKey } from '../accounts/accounts.js';
import { accountLimitsOf } from '../policies.js';
import { recordAudit } from '../accounts/audit.js';
import { assertUser } from './sessions.js';
import { setLockLimits } from './listFields.js';
import { errorResponses, params } from './schemas.js';

/**
 * Why a user cannot sign in, and the support agent's way to help (docs/CONSOLE.md, "A user's sign-in
 * state"): the sign-in throttle (server/oauth/loginThrottle.ts) counts failed and successful
 * sign-ins per account in login_attempts; past its limits the account is refused until the window
 * ends. The state reads those counters; Unlock clears them, as a new password set by someone else
 * does (users.ts).
 */

interface UserParams {
  companyId: string;
  domainId: string;
  userId: string;
}


export interface SignInState {
  failedSignIns: number;
  /** ISO time until which the throttle refuses the account, or null. */
  lockedUntil: string | null;
  /** Why, in words, when locked. */
  lockedBecause: string | null;
  /** ISO time the account was blocked, or null. */
  blockedAt: string | null;
  /** What she must do at her next sign-in (server/oauth/signInSteps.ts). */
  requiredActions: string[];
  emailVerified: boolean;
  /** She has a password (else an invitation lets her choose one: sendInvitation refuses her once she has). */
  hasPassword: boolean;
}


/** The account's state: the throttle's counters against its limits (`failuresPerAccount`, `successesPerAccount`), and the user's own columns. */
async function signInState(db: Queryable, at: UserParams, limits: { failures: number; signIns: number }): Promise<SignInState> {
  const { rows } = await db.query<{ kind: string; n: number; expiresAt: Date }>(
    `SELECT kind, n, expires_at AS "expiresAt" FROM login_attempts WHERE kind = ANY ($1::text[]) AND key = $2 AND expires_at > now()`,
    [ACCOUNT_COUNTERS, userAccountKey(at, at.userId)],
  );
  const failed = rows.find((row) => row.kind === 'failed-account');
  const signedIn = rows.find((row) => row.kind === 'signed-in-account');
  // the domain's security policy may set its own failure limit (server/policies.ts), as the throttle reads it
  const { failuresPerAccount } = await accountLimitsOf(db, at, { failuresPerAccount: limits.failures, failureWindowSeconds: 0 });
  const factorLock = await factorsLockedUntil(db, { companyId: at.companyId, domainId: at.domainId, id: at.userId });
  const lock =
    failed && failed.n > failuresPerAccount
      ? { until: failed.expiresAt, because: 'too many failed sign-ins' }
      : signedIn && signedIn.n > limits.signIns
        ? { until: signedIn.expiresAt, because: 'too many sign-ins in a short time' }
        : factorLock
          ? { until: factorLock, because: 'too many wrong second-factor codes' }
          : undefined;
  const user = await db.query<{ blockedAt: Date | null; requiredActions: string[]; emailVerified: boolean; hasPassword: boolean }>(
    `SELECT blocked_at AS "blockedAt", required_actions AS "requiredActions", email_verified AS "emailVerified", password_hash IS NOT NULL AS "hasPassword"
       FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
    [at.companyId, at.domainId, at.userId],
  );
  const { blockedAt, requiredActions, emailVerified, hasPassword } = user.rows[0] ?? { blockedAt: null, requiredActions: [], emailVerified: false, hasPassword: false };
  return {
    failedSignIns: failed?.n ?? 0,
    lockedUntil: lock ? new Date(lock.until).toISOString() : null,
    lockedBecause: lock?.because ?? null,
    blockedAt: blockedAt ? new Date(blockedAt).toISOString() : null,
    requiredActions,
    emailVerified,
    hasPassword,
  };
}


export async function accountStateRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const { failuresPerAccount, successesPerAccount } = { ...DEFAULT_LOGIN_LIMITS, ...config.loginLimits };
  const limits = { failures: failuresPerAccount, signIns: successesPerAccount };
  // the users list's Locked filter reads the same limits (listFields.ts)
  setLockLimits({ failuresPerAccount, successesPerAccount });
  const path = '/companys/:companyId/domainNames/:domainId/users/:userId';
  const tags = ['users'];
  const state = {
    type: 'object',
    properties: {
      failedSignIns: { type: 'integer' },
      lockedUntil: { type: ['string', 'null'] },
      lockedBecause: { type: ['string', 'null'] },
      blockedAt: { type: ['string', 'null'] },
      requiredActions: { type: 'array', items: { type: 'string' } },
      emailVerified: { type: 'boolean' },
      hasPassword: { type: 'boolean' },
    },
  };
  const userParams = params('companyId', 'domainId', 'userId');
  const noBody = { type: 'object', additionalProperties: false, properties: {} };
  const requiredActions = { type: 'array', uniqueItems: true, maxItems: REQUIRED_ACTIONS.length, items: { type: 'string', enum: [...REQUIRED_ACTIONS] } };

  /** One account action: in a transaction, on a user of this domain (404 otherwise), answering the new state. */
  const action = <B>(
    name: string,
    permission: string,
    summary: string,
    body: object,
    run: (tx: Queryable, at: UserParams, body: B, caller: Principal) => Promise<void>,
    method: 'POST' | 'PUT' = 'POST',
  ) =>
    app.route<{ Params: UserParams; Body: B }>({
      method,
      url: `${path}/${name}`,
      config: { permission, acts: actsOnParam('user', 'userId') },
      schema: { tags, summary, params: userParams, body, response: { 200: state, ...errorResponses } },
      handler: async (request) =>
        db.transaction(async (tx) => {
          await assertUser(tx, request.params);
          await run(tx, request.params, request.body as B, request.principal);
          return signInState(tx, request.params, limits);
        }),
    });

  app.get<{ Params: UserParams }>(
    `${path}/signInState`,
    {
      config: { permission: 'users:read' },
      schema: { tags, summary: "Why the user may not be able to sign in: blocked, the throttle's failed sign-ins and lock, required actions", params: userParams, response: { 200: state, ...errorResponses } },
    },
    async (request) => {
      await assertUser(db, request.params);
      return signInState(db, request.params, limits);
    },
  );

  action('unlock', 'users:unlock', "Clears the throttle's counters of the user's account: she may sign in again at once", noBody, async (tx, at) => {
    const before = await signInState(tx, at, limits);
    await clearSignInCounters(tx, at);
    await clearFactorGuesses(tx, { companyId: at.companyId, domainId: at.domainId, id: at.userId });
    await recordAudit(tx, { companyId: at.companyId, domainId: at.domainId, resourceType: 'users', resourceId: at.userId, action: 'unlock', changes: { failedSignIns: { before: before.failedSignIns, after: 0 }, lockedUntil: { before: before.lockedUntil, after: null } } });
  });

  action('block', 'users:block', 'Blocks the account: every session ends and nobody signs in to it until it is unblocked', noBody, async (tx, at, _body, caller) => {
    if (isCaller(caller, at, at.userId)) throw badRequest('userId: you cannot block yourself').as('user.blockSelf', { field: 'userId' });
    // the last active administrator of a domain cannot be blocked: nobody could manage it (409)
    await blockUsers(tx, at, [at.userId]);
  });

  action('unblock', 'users:block', 'Unblocks the account: she may sign in again', noBody, async (tx, at) => {
    await unblockUsers(tx, at, [at.userId]);
  });

  action<{ authVerification: string; requireChange?: boolean }>(
    'password',
    'users:write',
    'Sets a new password (a bcrypt hash made in the browser): every session of the user ends, and so does the throttle lock; requireChange asks her for a new one at her next sign-in',
    {
      type: 'object',
      additionalProperties: false,
      required: ['authVerification'],
      properties: { authVerification: { type: 'string', maxLength: 100, description: 'bcrypt hash of the password (cost 10 to 14)' }, requireChange: { type: 'boolean' } },
    },
    async (tx, at, body, caller) => {
      checkPasswordHash(body.authVerification);
      await setPassword(tx, at, { hash: body.authVerification, requireChange: body.requireChange === true, caller });
    },
  );

  action<{ requiredActions: string[] }>(
    'requiredActions',
    'users:write',
    'What the user must do at her next sign-in before any application receives a code: change-password, verify-email, enrol-mfa',
    { type: 'object', additionalProperties: false, required: ['requiredActions'], properties: { requiredActions } },
    async (tx, at, body) => {
      await setRequiredActions(tx, at, body.requiredActions);
    },
    'PUT',
  );
}
