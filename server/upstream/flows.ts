import crypto from 'node:crypto';
import type { Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import type { Tenant } from '../accounts/accounts.js';
import type { ConnectionRef } from './connections.js';

/**
 * A sign-in sent to an upstream identity provider, until it comes back (upstream_flows, migration
 * 38): found by the hash of a random token (the OAuth `state`, the SAML RelayState, or a cookie's
 * value), used once (taken = deleted in the statement that reads it), five minutes at most. The
 * row names its connection: an answer that comes back at another connection's callback finds no
 * flow of that connection (IdP mix-up).
 */

export const FLOW_SECONDS = 5 * 60;

/** Where a sign-in returns once the upstream has answered. */
export type ReturnTo =
  /** the hosted sign-in page of an oidc-provider interaction */
  | { kind: 'interaction'; uid: string; clientId: string }
  /** the console's own form post (server/oauth/consoleLogin.ts): its checked authorization request */
  | { kind: 'console'; clientId: string; request: Record<string, string | undefined> }
  /** an administrator's test of the connection: a page of the mapped claims, nobody provisioned */
  | { kind: 'test' };

export interface FlowPayload {
  /** The domain whose sign-in used the connection: where a person is found or provisioned. */
  signInTenant: Tenant;
  returnTo: ReturnTo;
  nonce?: string;
  codeVerifier?: string;
  samlRequestId?: string;
  loginHint?: string;
  /** sha256 of the browser cookie that started the flow (OpenID Connect and OAuth 2 callbacks come back with it). */
  browser?: string;
  [more: string]: unknown;
}

export interface Flow {
  id: string;
  companyId: string;
  domainId: string;
  connectionId: string;
  purpose: string;
  payload: FlowPayload;
}

export const newToken = () => crypto.randomBytes(32).toString('base64url');

/** Stores a flow under the hash of a new token, which is returned (the state sent upstream). */
export async function saveFlow(db: Queryable, connection: ConnectionRef, purpose: string, payload: FlowPayload, options: { token?: string; seconds?: number } = {}): Promise<string> {
  const { token = newToken(), seconds = FLOW_SECONDS } = options;
  await db.query(
    `INSERT INTO upstream_flows (id, company_id, domain_id, connection_id, purpose, payload, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, now() + make_interval(secs => $7))`,
    [sha256(token), connection.companyId, connection.domainId, connection.id, purpose, JSON.stringify(payload), seconds],
  );
  return token;
}

const FLOW_COLUMNS = `id, company_id AS "companyId", domain_id AS "domainId", connection_id AS "connectionId", purpose, payload`;

/**
 * Takes (reads and deletes, once) the live flow of `token` for this connection and purpose. A token
 * of another connection's flow is spent too (it cannot be replayed at the right one afterwards).
 */
export async function takeFlow(db: Queryable, token: string | undefined, expected: { connection?: ConnectionRef; purposes: string[] }): Promise<Flow | undefined> {
  if (!token || token.length > 200) return undefined;
  const { rows } = await db.query<Flow>(`DELETE FROM upstream_flows WHERE id = $1 RETURNING ${FLOW_COLUMNS}, expires_at > now() AS live`, [sha256(token)]);
  const flow = rows[0] as (Flow & { live?: boolean }) | undefined;
  if (!flow || !flow.live || !expected.purposes.includes(flow.purpose)) return undefined;
  const { connection } = expected;
  if (connection && (flow.companyId !== connection.companyId || flow.domainId !== connection.domainId || flow.connectionId !== connection.id)) return undefined;
  delete flow.live;
  return flow;
}

/** Reads a live flow without spending it (a page shown before the answer that spends it). */
export async function peekFlow(db: Queryable, token: string | undefined, purposes: string[]): Promise<Flow | undefined> {
  if (!token || token.length > 200) return undefined;
  const { rows } = await db.query<Flow>(`SELECT ${FLOW_COLUMNS} FROM upstream_flows WHERE id = $1 AND expires_at > now()`, [sha256(token)]);
  return rows[0] && purposes.includes(rows[0].purpose) ? rows[0] : undefined;
}
