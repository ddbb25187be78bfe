import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/index.js';
import { accountKey, deletedUserId, findUserByLogin, type KnownUser, passwordMatches, type Tenant, userAccountKey } from '../accounts/accounts.js';
import { rehashAfterSignIn } from '../accounts/importedHashes.js';
import { addressKey, type DeviceCookies, type LoginThrottle } from './loginThrottle.js';
import { attemptOf, recordSignIn } from './signInEvents.js';

export interface PasswordStepOptions {
  db: Database;
  throttle: LoginThrottle;
  devices: DeviceCookies;
}

export type PasswordOutcome =
  | { kind: 'signed-in'; user: KnownUser; login: string }
  | { kind: 'throttled'; retryAfter: number; message: string; login: string }
  /** `record` writes its sign-in event, when the caller deferred it (deferWrongEvent) */
  | { kind: 'wrong'; login: string; record: () => Promise<void> }
  | { kind: 'blocked'; message: string; login: string };

/** Said only to whoever typed the right password: nobody else learns the account exists. */
export const BLOCKED_MESSAGE = 'This account is blocked. Ask your administrator to unblock it.';

/** "Try again in 5 minutes." / "in 40 seconds." */
/** The refusal of a throttled attempt, whichever counter refused it. */
export const tooManyFailures = (retryAfter: number, login: string): PasswordOutcome => ({
  kind: 'throttled',
  retryAfter,
  login,
  message: `Too many failed sign-in attempts. ${tryAgainIn(retryAfter)}`,
});

/** The refusal of a right password past the successes allowed ("Too many sign-ins in a short time. Try again in …"). */
export const tooManySignIns = (retryAfter: number) => `Too many sign-ins in a short time. ${tryAgainIn(retryAfter)}`;

function tryAgainIn(seconds: number): string {
  if (seconds < 60) return `Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  const minutes = Math.ceil(seconds / 60);
  return `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/**
 * One password sign-in into an application (the console's form post and the hosted page alike):
 * throttled per account, address and device (loginThrottle.ts, shared by every process through the
 * database), the password checked with bcrypt off the event loop, every failure recorded as a
 * sign-in event. A success is recorded by the caller, with what it creates. Sets Retry-After on the
 * reply; the device cookie is the caller's to set once the whole sign-in is done (trustDevice).
 */
export async function passwordStep(
  options: PasswordStepOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { tenant: Tenant; client: { id: string; companyId: string; domainId: string }; login: string; password: string; deferWrongEvent?: boolean },
): Promise<PasswordOutcome> {
  const { db, throttle, devices } = options;
  const { tenant, client } = input;
  const login = input.login.trim();
  const seen = attemptOf(request);
  const user = await findUserByLogin(db, tenant, login);
  const account = accountKey(tenant, login, user);
  const address = addressKey(request.ip);
  // counted before the password is checked: a throttled attempt never reaches bcrypt
  const attempt = await throttle.begin(account, address, devices.deviceId(request.headers.cookie, account), tenant);
  if (attempt.retryAfter > 0) {
    await recordSignIn(db, seen, { outcome: 'throttled', client, userId: user?.id, login, detail: `retry after ${attempt.retryAfter} s` });
    reply.header('Retry-After', String(attempt.retryAfter));
    return tooManyFailures(attempt.retryAfter, login);
  }

  // bcrypt runs whether or not the login names someone (passwordMatches checks a dummy hash for
  // nobody): a wrong password takes as long for an unknown address as for a real one, so timing
  // tells nobody which addresses have accounts (docs/CONSOLE.md, "Sign-in form")
  const matches = await passwordMatches(user, input.password);
  if (!user || !matches) {
    const record = async () => {
      if (user) await recordSignIn(db, seen, { outcome: 'wrong_password', client, userId: user.id, login });
      else {
        const deleted = await deletedUserId(db, tenant, login).catch(() => undefined);
        await recordSignIn(db, seen, { outcome: 'unknown_user', client, userId: deleted, login, detail: deleted ? 'the account is deleted' : undefined });
      }
    };
    // the caller may look further first (organizationSearch.ts): a sign-in found elsewhere is no failure here
    if (!input.deferWrongEvent) await record();
    return { kind: 'wrong', login, record };
  }

  if (user.blocked) {
    // counted as a failure (no refund): a blocked account is no oracle at the success rate
    await recordSignIn(db, seen, { outcome: 'blocked', client, userId: user.id, login });
    return { kind: 'blocked', message: BLOCKED_MESSAGE, login };
  }

  const wait = await throttle.succeeded(attempt, account, address);
  if (wait > 0) {
    await recordSignIn(db, seen, { outcome: 'throttled', client, userId: user.id, login, detail: `too many sign-ins: retry after ${wait} s` });
    reply.header('Retry-After', String(wait));
    return { kind: 'throttled', retryAfter: wait, login, message: tooManySignIns(wait) };
  }
  // an imported hash becomes the provider's bcrypt (docs/CONSOLE.md, "Imported password hashes")
  await rehashAfterSignIn(db, user, input.password);
  return { kind: 'signed-in', user, login };
}

/**
 * The device cookie (the throttle's relief for a known browser, loginThrottle.ts), set when a
 * sign-in is complete: after its last step (a second factor, a required action), where the code or
 * the interaction result is made. Never after the password alone, or whoever knows the password
 * but not the second factor would get a browser the throttle trusts.
 */
export function trustDevice(devices: DeviceCookies, reply: FastifyReply, user: KnownUser): void {
  reply.header('Set-Cookie', devices.issue(userAccountKey({ companyId: user.companyId, domainId: user.domainId }, user.id)));
}
