import * as jose from 'jose';
import type { AppContext } from '../context.js';
import { sha256 } from '../ids.js';
import { ScimError } from './errors.js';

/**
 * Who calls a domain's SCIM server (docs/CONSOLE.md, "Provisioning (SCIM)"): `Authorization: Bearer`
 * with either a long-lived token of THIS domain (scim_tokens, found by its SHA-256, not revoked;
 * made by server/api/scimTokens.ts), or an access token the provider issued by client credentials
 * to an application of this domain, for the audience that is this domain's SCIM base URL (an API
 * of the domain with that identifier), holding the `scim` scope, from an application a scim:write
 * holder has allowed (a scim_tokens record naming it, migration 42: registering an API and an
 * application is not enough). Anything else, a token of another domain or company included, is
 * 401 before any data is read.
 */

export interface ScimCaller {
  companyId: string;
  domainId: string;
  /** The SCIM token used, or the record that allows the application. */
  tokenId: string | null;
  /** The application whose client credentials gave the access token, or null for a SCIM token. */
  clientId: string | null;
}

export const SCIM_SCOPE = 'scim';
const TOKEN_PREFIX = 'scim_';

const refused = (detail = 'Send a SCIM token of this domain, or an access token for its SCIM server with the scim scope, as Authorization: Bearer') =>
  new ScimError(401, detail);

/** The SCIM base URL of a domain, which is also the audience of its access tokens. */
export const scimBaseUrl = (publicUrl: string, companyId: string, domainId: string) => `${publicUrl}/scim/v2/${encodeURIComponent(companyId)}/${encodeURIComponent(domainId)}`;

export async function authenticate(ctx: AppContext, authorization: string | undefined, companyId: string, domainId: string): Promise<ScimCaller> {
  const match = /^Bearer\s+([A-Za-z0-9\-_.~+/]+=*)$/i.exec(authorization ?? '');
  if (!match) throw refused();
  const presented = match[1];
  if (presented.startsWith(TOKEN_PREFIX)) return scimToken(ctx, presented, companyId, domainId);
  return accessToken(ctx, presented, companyId, domainId);
}

async function scimToken(ctx: AppContext, token: string, companyId: string, domainId: string): Promise<ScimCaller> {
  // the hash names one token of the whole provider; its company and domain must be the path's
  const { rows } = await ctx.db.query<{ id: string }>(
    `SELECT t.id FROM scim_tokens t JOIN domains d ON d.company_id = t.company_id AND d.id = t.domain_id
      WHERE t.token_hash = $1 AND t.company_id = $2 AND t.domain_id = $3 AND t.revoked_at IS NULL`,
    [sha256(token), companyId, domainId],
  );
  if (!rows[0]) throw refused('The token is not a SCIM token of this domain, or it has been revoked');
  await touch(ctx, companyId, domainId, rows[0].id);
  return { companyId, domainId, tokenId: rows[0].id, clientId: null };
}

/** lastUsedAt: at most one write a minute per token, however busy the client. */
async function touch(ctx: AppContext, companyId: string, domainId: string, id: string) {
  await ctx.db.query(
    `UPDATE scim_tokens SET last_used_at = now() WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [companyId, domainId, id],
  );
}

async function accessToken(ctx: AppContext, token: string, companyId: string, domainId: string): Promise<ScimCaller> {
  let claims: jose.JWTPayload;
  try {
    ({ payload: claims } = await jose.jwtVerify(token, ctx.keys.publicKey, {
      algorithms: ['RS256'],
      issuer: ctx.config.publicUrl,
      audience: scimBaseUrl(ctx.config.publicUrl, companyId, domainId),
      typ: 'at+jwt',
      requiredClaims: ['exp', 'jti', 'client_id', 'company', 'domain'],
    }));
  } catch {
    throw refused('The access token is invalid, expired, or not for this domain\'s SCIM server');
  }
  const scopes = String(claims.scope ?? '').split(' ');
  // client credentials only: a machine of the domain, never a person's sign-in; no DPoP binding (no proof is taken here)
  if (claims.company !== companyId || claims.domain !== domainId || claims.user_id !== undefined || claims.cnf !== undefined || !scopes.includes(SCIM_SCOPE)) {
    throw refused('The access token is not a client-credentials token of this domain with the scim scope');
  }
  const { rows } = await ctx.db.query<{ good: boolean; allowed: string | null }>(
    `SELECT NOT EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'RevokedAccessToken' AND id = $1)
        AND EXISTS (SELECT 1 FROM applications a WHERE a.id = $2 AND a.company_id = $3 AND a.domain_id = $4 AND a.status = 'active') AS good,
        (SELECT t.id FROM scim_tokens t WHERE t.company_id = $3 AND t.domain_id = $4 AND t.client_id = $2 AND t.revoked_at IS NULL LIMIT 1) AS allowed`,
    [String(claims.jti), String(claims.client_id), companyId, domainId],
  );
  if (!rows[0]?.good) throw refused('The access token has been revoked, or its application is no longer active');
  if (!rows[0].allowed) throw refused(`Application ${String(claims.client_id)} is not allowed to provision this domain: allow it in the domain's Provisioning tab`);
  await touch(ctx, companyId, domainId, rows[0].allowed);
  return { companyId, domainId, tokenId: rows[0].allowed, clientId: String(claims.client_id) };
}
