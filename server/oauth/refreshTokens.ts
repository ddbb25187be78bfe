import crypto from 'node:crypto';
import type { Database, Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import type { OAuthClient } from './clients.js';
import { type Attempt, recordSignInWith } from './signInEvents.js';
import { invalidGrant } from './token.js';

/**
 * Refresh tokens are opaque random strings; only their SHA-256 is stored. The tokens descending
 * from one sign-in form a family: its grant. Revoking the grant ends them all.
 */
export async function issueRefreshToken(
  db: Queryable,
  token: { grantId: string; clientId: string; scope: string; resource: string | null },
): Promise<string> {
  const value = crypto.randomBytes(32).toString('base64url');
  await db.query(`INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, resource) VALUES ($1, $2, $3, $4, $5)`, [
    sha256(value),
    token.grantId,
    token.clientId,
    token.scope,
    token.resource,
  ]);
  return value;
}

interface RefreshRow {
  grantId: string;
  clientId: string;
  userId: string;
  scope: string;
  resource: string | null;
  rotated: boolean;
  sinceRotated: number | null;
  familyAge: number;
  revoked: boolean;
}

type Outcome =
  | { kind: 'ok'; grantId: string; scope: string; resource: string | null; successor?: string }
  | { kind: 'refused'; message: string };

/**
 * Spends a refresh token under the application's current settings:
 * - absolute expiration: the family dies refresh_absolute_lifetime seconds after the sign-in;
 * - rotation: each use returns a successor and retires the token; a retired token still works for
 *   refresh_reuse_interval seconds (two tabs refreshing at once), and after that its use means it
 *   was stolen, so the whole family (the grant, with every token of it) is revoked.
 * The revocation must survive the refusal, so refusals are returned from the transaction, not thrown.
 */
export async function useRefreshToken(
  db: Database,
  client: OAuthClient,
  token: string,
  attempt: Attempt,
): Promise<{ grantId: string; scope: string; resource: string | null; successor?: string }> {
  const outcome = await db.transaction<Outcome>(async (tx) => {
    const { rows } = await tx.query<RefreshRow>(
      `SELECT rt.grant_id AS "grantId", rt.client_id AS "clientId", g.user_id AS "userId", rt.scope, rt.resource,
              rt.rotated_at IS NOT NULL AS rotated,
              extract(epoch FROM now() - rt.rotated_at)::float8 AS "sinceRotated",
              extract(epoch FROM now() - g.created_at)::float8 AS "familyAge",
              g.revoked_at IS NOT NULL AS revoked
       FROM oauth_refresh_tokens rt JOIN oauth_grants g ON g.id = rt.grant_id
       WHERE rt.token_hash = $1
       FOR UPDATE OF rt`,
      [sha256(token)],
    );
    const row = rows[0];
    if (!row || row.clientId !== client.id) return { kind: 'refused', message: 'the refresh token is invalid' };
    if (row.revoked) return { kind: 'refused', message: 'the refresh token has been revoked' };
    if (client.refreshAbsoluteExpiration && row.familyAge > client.refreshAbsoluteLifetime) {
      return { kind: 'refused', message: 'the refresh token has reached its absolute lifetime' };
    }
    if (row.rotated && (row.sinceRotated ?? 0) > client.refreshReuseInterval) {
      await tx.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [row.grantId]);
      // with the revocation: a theft is on record exactly when its family is gone
      await recordSignInWith(tx, attempt, { outcome: 'refresh_reuse', client, userId: row.userId, detail: 'every token of this sign-in is revoked' });
      return { kind: 'refused', message: 'the refresh token was already used: every token of this sign-in is revoked' };
    }
    let successor: string | undefined;
    if (client.refreshTokenRotation) {
      successor = await issueRefreshToken(tx, { grantId: row.grantId, clientId: client.id, scope: row.scope, resource: row.resource });
      await tx.query(`UPDATE oauth_refresh_tokens SET rotated_at = coalesce(rotated_at, now()) WHERE token_hash = $1`, [sha256(token)]);
    }
    return { kind: 'ok', grantId: row.grantId, scope: row.scope, resource: row.resource, successor };
  });
  if (outcome.kind === 'refused') throw invalidGrant(outcome.message);
  return outcome;
}
