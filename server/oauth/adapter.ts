import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Database } from '../db/index.js';
import { sha256 } from '../ids.js';
import type { Tenant } from '../accounts/accounts.js';
import { clientMetadata, DEVICE_CODE_GRANT, type ApplicationRow, APPLICATION_COLUMNS } from './clients.js';
import { forgetRead, oncePerRequest, requestOrigin } from '../requestOrigin.js';
import { storable } from './signInEvents.js';

/**
 * oidc-provider's storage in our database (migration 18), so that every server process of a
 * deployment shares codes, tokens, sessions and interactions:
 * - Client: read from the applications table (active ones), never written here;
 * - Grant: a row of oauth_grants, the sign-in the console lists as a session and the revocation
 *   triggers end; a revoked grant is not found, so every token of it stops at its next use;
 * - everything else: one row of oidc_payloads per model and id, with its expiry.
 */
export function adapterFactory(db: Database, publicUrl: string, registrationDomain: Tenant | undefined, consoleClientId: string) {
  const managementApi = `${publicUrl}/api`;
  return (model: string): Adapter => {
    if (model === 'Client') return new ClientAdapter(db, registrationDomain);
    if (model === 'Grant') return new GrantAdapter(db, managementApi, consoleClientId);
    return new PayloadAdapter(db, model);
  };
}

const expiry = (expiresIn: number | undefined) => (expiresIn ? new Date(Date.now() + expiresIn * 1000) : null);

class PayloadAdapter implements Adapter {
  constructor(
    private readonly db: Database,
    private readonly model: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    await this.db.query(
      `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
         user_code = EXCLUDED.user_code, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
      [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiry(expiresIn)],
    );
  }

  private async findWhere(where: string, value: string): Promise<AdapterPayload | undefined> {
    const refresh = this.model === 'RefreshToken';
    const { rows } = await this.db.query<{ payload: AdapterPayload; consumed: number | null; reusable: boolean; aged: boolean }>(
      `SELECT p.payload, extract(epoch FROM p.consumed_at)::integer AS consumed,
              ${refresh ? REUSABLE : 'false'} AS reusable, ${refresh ? AGED : 'false'} AS aged
       FROM oidc_payloads p
       WHERE p.model = $1 AND ${where} = $2`,
      [this.model, value],
    );
    const row = rows[0];
    if (!row) return undefined;
    // (expired rows are found: oidc-provider checks the expiry in the payload and says so)
    const payload = row.aged ? { ...row.payload, exp: Math.floor(Date.now() / 1000) - 1 } : row.payload;
    // A rotated refresh token still works during its application's reuse interval (two tabs
    // refreshing at once); after it, its use is a theft and oidc-provider revokes the grant.
    return row.consumed && !row.reusable ? { ...payload, consumed: row.consumed } : payload;
  }

  find(id: string) {
    return this.findWhere('p.id', id);
  }

  findByUserCode(userCode: string) {
    return this.findWhere('p.user_code', userCode);
  }

  findByUid(uid: string) {
    return this.findWhere('p.uid', uid);
  }

  async consume(id: string): Promise<void> {
    if (this.model === 'AuthorizationCode') {
      // One statement marks the code used: of two exchanges racing with one code, one wins and the
      // other is a reuse, which revokes what the code issued (RFC 6749 4.1.2).
      const { rows } = await this.db.query<{ grantId: string | null }>(
        `UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2 AND consumed_at IS NULL RETURNING grant_id AS "grantId"`,
        [this.model, id],
      );
      if (rows.length === 0) {
        await this.db.query(
          `UPDATE oauth_grants SET revoked_at = now() WHERE id = (SELECT grant_id FROM oidc_payloads WHERE model = $1 AND id = $2) AND revoked_at IS NULL`,
          [this.model, id],
        );
        throw new errors.InvalidGrant('authorization code already consumed');
      }
      return;
    }
    // the first consumption counts: a refresh token's reuse interval runs from it
    await this.db.query(`UPDATE oidc_payloads SET consumed_at = coalesce(consumed_at, now()) WHERE model = $1 AND id = $2`, [this.model, id]);
  }

  async destroy(id: string): Promise<void> {
    await this.db.query(`DELETE FROM oidc_payloads WHERE model = $1 AND id = $2`, [this.model, id]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    if (this.model === 'AuthorizationCode') {
      // kept, used up: a later attempt with it is still known as a reuse (and names its user)
      await this.db.query(`UPDATE oidc_payloads SET consumed_at = coalesce(consumed_at, now()) WHERE model = $1 AND grant_id = $2`, [this.model, grantId]);
      return;
    }
    await this.db.query(`DELETE FROM oidc_payloads WHERE model = $1 AND grant_id = $2`, [this.model, grantId]);
  }
}

/** Is this consumed refresh token still within its application's reuse interval? */
const REUSABLE = `coalesce(p.consumed_at > now() - make_interval(secs => (
  SELECT a.refresh_reuse_interval FROM applications a WHERE a.id = p.payload->>'clientId')), false)`;

/**
 * Has this refresh token's sign-in outlived its application's absolute lifetime, under the
 * application's current settings? Then the token is expired, whatever expiry it was issued with.
 */
const AGED = `coalesce((SELECT a.refresh_absolute_expiration AND g.created_at < now() - make_interval(secs => a.refresh_absolute_lifetime)
  FROM oauth_grants g JOIN applications a ON a.id = g.client_id WHERE g.id = p.grant_id), false)`;

class GrantAdapter implements Adapter {
  constructor(
    private readonly db: Database,
    private readonly managementApi: string,
    private readonly consoleClientId: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const resources = Object.entries((payload.resources ?? {}) as Record<string, string>);
    const scopes = new Set(String((payload.openid as { scope?: string } | undefined)?.scope ?? '').split(' '));
    for (const [, scope] of resources) for (const name of scope.split(' ')) scopes.add(name);
    scopes.delete('');
    // the API of the sign-in; none for the management API (what the revocation triggers look for)
    const resource = resources.map(([indicator]) => indicator).find((indicator) => indicator !== this.managementApi) ?? null;
    const from = requestOrigin();
    // The grant's user is the account with this subject in the application's own company and
    // domain (the console's: in any, signInTenant.ts), and the grant is of her tenant: a grant can
    // name no one else (no row, and the sign-in fails, when she is not there).
    const { rowCount } = await this.db.query(
      `INSERT INTO oauth_grants (id, client_id, company_id, domain_id, user_id, scope, resource, ip, user_agent, last_ip, last_used_at, payload, expires_at)
       SELECT $1, a.id, coalesce(u.company_id, a.company_id), coalesce(u.domain_id, a.domain_id), u.id, $4, $5, $6, $7, $6, now(), $8, $9
       FROM applications a LEFT JOIN users u ON u.subject = $3 AND ((u.company_id = a.company_id AND u.domain_id = a.domain_id) OR a.id = $10)
       WHERE a.id = $2 AND ($3::text IS NULL OR u.id IS NOT NULL)
       ON CONFLICT (id) DO UPDATE SET scope = EXCLUDED.scope, resource = EXCLUDED.resource, payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at`,
      [
        id,
        payload.clientId,
        payload.accountId ?? null,
        [...scopes].join(' '),
        resource,
        storable(from?.ip, 100),
        storable(from?.userAgent, 500),
        JSON.stringify(payload),
        expiry(expiresIn),
        this.consoleClientId,
      ],
    );
    if (rowCount === 0) throw new errors.InvalidGrant('the account of this sign-in is not an account of the application\'s domain');
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.db.query<{ payload: AdapterPayload }>(
      `SELECT payload FROM oauth_grants WHERE id = $1 AND revoked_at IS NULL AND payload IS NOT NULL AND (expires_at IS NULL OR expires_at > now())`,
      [id],
    );
    return rows[0]?.payload;
  }

  async destroy(id: string): Promise<void> {
    await this.db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [id]);
  }

  async findByUid(): Promise<undefined> {
    return undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(): Promise<void> {}

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.destroy(grantId);
  }
}

/**
 * Registered applications are the clients, edited through the management API. A client that
 * registers itself (RFC 7591, only with the initial access token) becomes an application of the
 * registration domain, its secret hashed like any other: the console lists and edits it.
 */
class ClientAdapter implements Adapter {
  constructor(
    private readonly db: Database,
    private readonly registrationDomain: Tenant | undefined,
  ) {}

  find(id: string): Promise<AdapterPayload | undefined> {
    return oncePerRequest(`client:${id}`, async () => {
      const { rows } = await this.db.query<ApplicationRow>(`SELECT ${APPLICATION_COLUMNS} FROM applications WHERE id = $1 AND status = 'active'`, [id]);
      return rows[0] ? (clientMetadata(rows[0]) as AdapterPayload) : undefined;
    });
  }

  async upsert(id: string, metadata: AdapterPayload): Promise<void> {
    // (clientAuthMethods in provider.ts: a registration can only ask for a secret, or for none)
    const strings = (value: unknown) => JSON.stringify(Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
    const publicClient = metadata.token_endpoint_auth_method === 'none';
    const appType = publicClient ? (metadata.application_type === 'native' ? 'native' : 'SPA') : 'web';
    const grants = (Array.isArray(metadata.grant_types) ? metadata.grant_types : []).map((type) => (type === DEVICE_CODE_GRANT ? 'device_code' : type));
    const name = typeof metadata.client_name === 'string' && metadata.client_name.trim() ? metadata.client_name.trim().slice(0, 200) : `Registered client ${id}`;
    const secret = typeof metadata.client_secret === 'string' ? sha256(metadata.client_secret) : null;
    const domain = this.registrationDomain;
    // (configuration refuses registration without a domain: config.ts)
    if (!domain) throw new Error('REGISTRATION_DOMAIN is not set');
    const insert = (clientName: string) =>
      this.db.query(
        `INSERT INTO applications (id, company_id, domain_id, client_name, app_type, client_secret_hash, redirect_uris, client_logout_uri, grant_types, backchannel_logout_uri, description, self_registered)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'registered through /oauth/register', true)`,
        [id, domain.companyId, domain.domainId, clientName, appType, secret, strings(metadata.redirect_uris), strings(metadata.post_logout_redirect_uris), JSON.stringify(grants), typeof metadata.backchannel_logout_uri === 'string' ? metadata.backchannel_logout_uri : ''],
      );
    forgetRead(`client:${id}`);
    // a name taken in the domain gets the id beside it
    await insert(name).catch((error: { code?: string }) => (error.code === '23505' ? insert(`${name} (${id})`) : Promise.reject(error)));
  }

  async destroy(): Promise<void> {}
  async consume(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
}
