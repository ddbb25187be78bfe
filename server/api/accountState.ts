import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { DEFAULT_LOGIN_LIMITS } from '../config.js';
import { userAccountKey } from '../oauth/accounts.js';
import { recordAudit } from './audit.js';
import { assertUser } from './sessions.js';
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

/** The account's counters: the throttle's failures and sign-ins. */
const COUNTERS = ['failed-account', 'signed-in-account'];

export interface SignInState {
  failedSignIns: number;
  /** ISO time until which the throttle refuses the account, or null. */
  lockedUntil: string | null;
  /** Why, in words, when locked. */
  lockedBecause: string | null;
}

/** The state of a user's account under the throttle's limits (`failuresPerAccount`, `successesPerAccount`). */
async function signInState(db: Queryable, at: UserParams, limits: { failures: number; signIns: number }): Promise<SignInState> {
  const { rows } = await db.query<{ kind: string; n: number; expiresAt: Date }>(
    `SELECT kind, n, expires_at AS "expiresAt" FROM login_attempts WHERE kind = ANY ($1::text[]) AND key = $2 AND expires_at > now()`,
    [COUNTERS, userAccountKey(at, at.userId)],
  );
  const failed = rows.find((row) => row.kind === 'failed-account');
  const signedIn = rows.find((row) => row.kind === 'signed-in-account');
  const lock =
    failed && failed.n > limits.failures ? { until: failed.expiresAt, because: 'too many failed sign-ins' } : signedIn && signedIn.n > limits.signIns ? { until: signedIn.expiresAt, because: 'too many sign-ins in a short time' } : undefined;
  return { failedSignIns: failed?.n ?? 0, lockedUntil: lock ? new Date(lock.until).toISOString() : null, lockedBecause: lock?.because ?? null };
}

/** Clears the account's counters: the person may sign in again at once. */
export async function clearSignInCounters(db: Queryable, at: UserParams): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`DELETE FROM login_attempts WHERE kind = ANY ($1::text[]) AND key = $2 RETURNING n`, [COUNTERS, userAccountKey(at, at.userId)]);
  return rows.length;
}

export async function accountStateRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const { failuresPerAccount, successesPerAccount } = { ...DEFAULT_LOGIN_LIMITS, ...config.loginLimits };
  const limits = { failures: failuresPerAccount, signIns: successesPerAccount };
  const path = '/companys/:companyId/domainNames/:domainId/users/:userId';
  const tags = ['users'];
  const state = {
    type: 'object',
    properties: { failedSignIns: { type: 'integer' }, lockedUntil: { type: ['string', 'null'] }, lockedBecause: { type: ['string', 'null'] } },
  };

  app.get<{ Params: UserParams }>(
    `${path}/signInState`,
    {
      config: { permission: 'users:read' },
      schema: { tags, summary: "Why the user may not be able to sign in: the throttle's failed sign-ins and lock", params: params('companyId', 'domainId', 'userId'), response: { 200: state, ...errorResponses } },
    },
    async (request) => {
      await assertUser(db, request.params);
      return signInState(db, request.params, limits);
    },
  );

  app.post<{ Params: UserParams }>(
    `${path}/unlock`,
    {
      config: { permission: 'users:unlock' },
      schema: {
        tags,
        summary: "Clears the throttle's counters of the user's account: she may sign in again at once",
        params: params('companyId', 'domainId', 'userId'),
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: state, ...errorResponses },
      },
    },
    async (request) => {
      const at = request.params;
      return db.transaction(async (tx) => {
        await assertUser(tx, at);
        const before = await signInState(tx, at, limits);
        await clearSignInCounters(tx, at);
        await recordAudit(tx, { companyId: at.companyId, domainId: at.domainId, resourceType: 'users', resourceId: at.userId, action: 'unlock', changes: { failedSignIns: { before: before.failedSignIns, after: 0 }, lockedUntil: { before: before.lockedUntil, after: null } } });
        return signInState(tx, at, limits);
      });
    },
  );
}
