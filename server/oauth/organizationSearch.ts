import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/index.js';
import { sha256 } from '../ids.js';
import { type KnownUser, passwordMatches, type Tenant, USER_COLUMNS, userAccountKey } from '../accounts/accounts.js';
import { rehashAfterSignIn } from '../accounts/importedHashes.js';
import { accountLimitsOf } from '../policies.js';
import { addressKey, type Attempt, type LoginThrottle } from './loginThrottle.js';

/**
 * The organization found, not demanded (docs/CONSOLE.md, "Sign-in form"): a console sign-in that
 * names no organization and whose password is not that of an account of the console's own tenant
 * looks at the accounts with that address or username, in any other organization, that hold a
 * console role: at most MAX_ORGANIZATIONS of them, each by company and domain. The password is
 * checked against exactly that many hashes whatever is found (a dummy for each missing one), so a
 * wrong password takes the same time whether none, one or several exist; nothing is said of them
 * before one is proved. One proved: she signs in there. Several: she picks among those proved
 * (organizationPick.ts).
 */
export const MAX_ORGANIZATIONS = 3;

export type SearchOutcome =
  | { kind: 'none' }
  | { kind: 'throttled'; retryAfter: number }
  | { kind: 'one'; user: KnownUser }
  | { kind: 'blocked'; user: KnownUser }
  /** the accounts the password proved (she picks one: organizationPick.ts), and the failures counted, to give back then */
  | { kind: 'several'; users: KnownUser[]; counted: Attempt['counted'] };

export async function signInAnywhere(
  options: { db: Database; throttle: LoginThrottle },
  request: FastifyRequest,
  input: { login: string; password: string; except: Tenant },
): Promise<SearchOutcome> {
  const { db, throttle } = options;
  const login = input.login.trim();
  if (!login || !input.password) return { kind: 'none' };
  const { rows: found } = await db.query<KnownUser>(
    `SELECT ${USER_COLUMNS} FROM users u
     WHERE (lower(u.email) = lower($1) OR lower(u.username) = lower($1)) AND u.status = 'active'
       AND NOT (u.company_id = $2 AND u.domain_id = $3) AND holds_console_role(u.company_id, u.domain_id, u.id)
     ORDER BY u.company_id, u.domain_id, u.id LIMIT ${MAX_ORGANIZATIONS}`,
    [login, input.except.companyId, input.except.domainId],
  );
  const keyOf = (user: KnownUser) => userAccountKey(user, user.id);
  const accounts = await Promise.all(found.map(async (user) => ({ key: keyOf(user), limits: await accountLimitsOf(db, user, throttle.limitsOfServer()) })));
  const attempt = await throttle.beginAnywhere(`anywhere:${sha256(login.toLowerCase())}`, accounts);
  if (attempt.retryAfter > 0) return { kind: 'throttled', retryAfter: attempt.retryAfter };
  // one check per place, found or not; an account past its own limit is checked against nothing
  const checked = await Promise.all(
    Array.from({ length: MAX_ORGANIZATIONS }, (_, i) => {
      const user = found[i] && attempt.open.includes(keyOf(found[i])) ? found[i] : undefined;
      return passwordMatches(user, input.password).then((matches) => (matches ? user : undefined));
    }),
  );
  const proved = checked.filter((user): user is KnownUser => user !== undefined);
  if (proved.length === 0) return { kind: 'none' };
  const open = proved.filter((user) => !user.blocked);
  // an imported hash becomes the provider's bcrypt (docs/CONSOLE.md, "Imported password hashes")
  await Promise.all(open.map((user) => rehashAfterSignIn(db, user, input.password)));
  if (open.length > 1) return { kind: 'several', users: open, counted: attempt.counted };
  const user = open[0] ?? proved[0];
  if (user.blocked) return { kind: 'blocked', user };
  const wait = await throttle.succeeded({ retryAfter: 0, counted: attempt.counted }, keyOf(user), addressKey(request.ip));
  return wait > 0 ? { kind: 'throttled', retryAfter: wait } : { kind: 'one', user };
}
