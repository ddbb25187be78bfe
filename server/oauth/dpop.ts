import crypto from 'node:crypto';
import * as jose from 'jose';
import type { Database } from '../db/index.js';

/** Signature algorithms a DPoP proof may use (the ones oidc-provider accepts at the token endpoint). */
const PROOF_ALGORITHMS = ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'];
/** How old a proof may be, and how far in the future its clock may run. */
const PROOF_MAX_AGE_SECONDS = 300;

/**
 * Checks the DPoP proof (RFC 9449 4.3, 7.1) that comes with a DPoP-bound access token at a
 * resource of ours (/oauth/userinfo): signed by the key the token is bound to (`jkt`), for this
 * method and URL and this very token (`ath`), recent, and used once (its jti is remembered until
 * it could no longer be accepted). Throws with the reason when anything is wrong.
 */
export async function checkDpopProof(
  db: Database,
  input: { proof: string | undefined; jkt: string; accessToken: string; method: string; url: string },
): Promise<void> {
  if (!input.proof) throw new Error('the DPoP proof is missing');
  const header = jose.decodeProtectedHeader(input.proof);
  if (header.typ !== 'dpop+jwt' || !header.jwk || !PROOF_ALGORITHMS.includes(String(header.alg))) throw new Error('the DPoP proof is malformed');
  const key = await jose.importJWK(header.jwk, header.alg);
  const { payload } = await jose.jwtVerify(input.proof, key, { typ: 'dpop+jwt', algorithms: PROOF_ALGORITHMS, maxTokenAge: PROOF_MAX_AGE_SECONDS, clockTolerance: 5 });
  if ((await jose.calculateJwkThumbprint(header.jwk)) !== input.jkt) throw new Error('the DPoP proof is signed with another key than the token is bound to');
  if (payload.htm !== input.method || payload.htu !== input.url) throw new Error('the DPoP proof is for another request');
  if (payload.ath !== crypto.createHash('sha256').update(input.accessToken).digest('base64url')) throw new Error('the DPoP proof is for another access token');
  if (typeof payload.jti !== 'string' || !payload.jti) throw new Error('the DPoP proof has no jti');
  const { rowCount } = await db.query(
    `INSERT INTO oidc_payloads (model, id, payload, expires_at) VALUES ('DPoPProof', $1, '{}', now() + make_interval(secs => $2))
     ON CONFLICT (model, id) DO NOTHING`,
    [`${input.jkt}:${payload.jti}`, PROOF_MAX_AGE_SECONDS * 2],
  );
  if (rowCount === 0) throw new Error('the DPoP proof was already used');
}
