import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/index.js';

/**
 * Sign-in events (docs/CONSOLE.md, "Sign-ins and rights"): one row per attempt at the authorization
 * server, in the migration 14 table signin_events. Recording is a side effect: it never changes an
 * attempt's answer, so a failure to record is logged and swallowed.
 */

export type SignInOutcome =
  | 'success'
  | 'wrong_password'
  | 'unknown_user'
  | 'throttled'
  | 'bad_client'
  | 'bad_redirect_uri'
  | 'bad_pkce'
  | 'code_reused'
  | 'bad_code'
  | 'consent_denied'
  | 'refresh_reuse'
  | 'blocked'
  | 'second_factor_failed'
  /** the console's sign-in naming no organization: the password proved accounts in several, she is asked which (organizationSearch.ts) */
  | 'several_organizations'
  /** an upstream identity provider's answer was refused (state, signature, nonce, an address it may not give) (server/upstream/) */
  | 'upstream_failed'
  /** an upstream identity names an address of an account not linked to it: she must prove that account first */
  | 'upstream_not_linked';

/** Where an attempt came from: the request's client address, user agent and logger. */
export interface Attempt {
  ip: string;
  userAgent?: string;
  log: FastifyBaseLogger;
}

export const attemptOf = (request: FastifyRequest): Attempt => ({ ip: request.ip, userAgent: request.headers['user-agent'], log: request.log });

export interface SignInEvent {
  outcome: SignInOutcome;
  /** The application's tenant; unknown client: none (the event is kept but no tenant lists it). */
  client?: { id: string; companyId: string; domainId: string };
  /** The client_id as sent, when no application has it. */
  clientId?: string;
  userId?: string;
  /** The email or username typed; never a password. */
  login?: string;
  detail?: string;
  /** The upstream connection she signed in through (server/upstream/), when not a password. */
  connectionId?: string;
}

/** Text a client sent, made safe to store: PostgreSQL text cannot hold NUL, and nothing is kept at any length. */
export function storable(text: string | undefined, max: number): string | null {
  if (text === undefined) return null;
  // slicing by code points keeps a surrogate pair whole (a lone half is not valid UTF-8)
  return Array.from(text.replace(/\0/g, '').slice(0, max * 2)).slice(0, max).join('') || null;
}

const INSERT = `INSERT INTO signin_events (company_id, domain_id, client_id, user_id, login, outcome, detail, ip, user_agent, connection_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

function values(event: SignInEvent, attempt: Attempt): unknown[] {
  const { client } = event;
  return [
    client?.companyId ?? null,
    client?.domainId ?? null,
    storable(client?.id ?? event.clientId, 200),
    storable(event.userId, 200),
    storable(event.login, 254),
    event.outcome,
    storable(event.detail, 500),
    storable(attempt.ip, 100),
    storable(attempt.userAgent, 500),
    storable(event.connectionId, 200),
  ];
}

/** Records an attempt that has no writes of its own: one INSERT, errors logged. */
export async function recordSignIn(db: Queryable, attempt: Attempt, event: SignInEvent): Promise<void> {
  try {
    await db.query(INSERT, values(event, attempt));
  } catch (error) {
    attempt.log.error({ err: error, outcome: event.outcome }, 'sign-in event not recorded');
  }
  if (event.outcome === 'success' && event.client && event.userId) await noteSignIn(db, attempt, event.client, event.userId);
}

/**
 * The user's lastSignInAt (docs/CONSOLE.md, "Fields, filters and CSV export of the lists"): one
 * small UPDATE, only when the stored time is a minute old or more (a burst of sign-ins writes once),
 * and skipped without a word rather than waiting on a row another write holds (the sign-in never
 * waits for it, nor fails with it).
 */
async function noteSignIn(db: Queryable, attempt: Attempt, client: { companyId: string; domainId: string }, userId: string) {
  try {
    await db.query(
      `UPDATE users u SET last_sign_in_at = now()
       WHERE (u.company_id, u.domain_id, u.id) IN (
         SELECT company_id, domain_id, id FROM users
         WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND (last_sign_in_at IS NULL OR last_sign_in_at < now() - interval '1 minute')
         FOR UPDATE SKIP LOCKED)`,
      [client.companyId, client.domainId, userId],
    );
  } catch (error) {
    attempt.log.error({ err: error }, 'last sign-in time not recorded');
  }
}
