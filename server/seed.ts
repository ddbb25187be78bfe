import type { ServerConfig } from './config.js';
import type { Database, Queryable } from './db/index.js';
import { randomAlphanumeric } from './ids.js';
import { hashPassword } from './passwords.js';
import { ADMIN_GROUP } from './accounts/accounts.js';

export const ROOT_COMPANY = 'root';
export const DEFAULT_DOMAIN = 'default';

/**
 * The console application's security settings: they follow PUBLIC_URL and nothing else, since it is
 * the provider's own door (whoever could add a redirect URI to it would receive an Owner's code and
 * console token: docs/CONSOLE.md, "Applications"). The management API refuses any change of them
 * (server/api/applications.ts); every start brings a stored console application back in line.
 */
export function consoleDoor(config: Pick<ServerConfig, 'publicUrl'>) {
  const url = config.publicUrl;
  return {
    app_type: 'SPA',
    client_uri: url,
    redirect_uris: [`${url}/callback`],
    client_logout_uri: [`${url}/`],
    allowed_web_orgins: [url],
    grant_types: ['authorization_code'],
    audience: `${url}/api`,
    backchannel_logout_uri: '',
  };
}
const DOOR_JSON = ['redirect_uris', 'client_logout_uri', 'allowed_web_orgins', 'grant_types'] as const;

/** At every start (PUBLIC_URL may have changed): the console application's door as consoleDoor says; no write when it already is. */
async function alignConsoleDoor(tx: Queryable, config: ServerConfig): Promise<void> {
  const door = consoleDoor(config);
  await tx.query(
    `UPDATE applications SET app_type = $4, client_uri = $5, redirect_uris = $6::jsonb, client_logout_uri = $7::jsonb,
       allowed_web_orgins = $8::jsonb, grant_types = $9::jsonb, audience = $10, backchannel_logout_uri = $11, updated_at = now()
     WHERE id = $1 AND company_id = $2 AND domain_id = $3
       AND (app_type, client_uri, redirect_uris, client_logout_uri, allowed_web_orgins, grant_types, audience, backchannel_logout_uri)
           IS DISTINCT FROM ($4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11)`,
    [config.consoleClientId, ROOT_COMPANY, DEFAULT_DOMAIN, door.app_type, door.client_uri, ...DOOR_JSON.map((name) => JSON.stringify(door[name])), door.audience, door.backchannel_logout_uri],
  );
}

/**
 * First run only (a `meta` row remembers it, so deleting what was seeded never brings it back):
 * the root company, its primary domain, the console application, the administrators group and
 * the first administrator. Returns the generated password when ADMIN_PASSWORD was not given. On
 * every later start, the console application's door is brought in line with PUBLIC_URL.
 */
export async function seedFirstRun(db: Database, config: ServerConfig): Promise<{ seeded: boolean; generatedPassword?: string }> {
  return db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(4242002)');
    const done = await tx.query(`SELECT 1 FROM meta WHERE key = 'seeded'`);
    if (done.rowCount > 0) {
      await alignConsoleDoor(tx, config);
      return { seeded: false };
    }

    const generatedPassword = config.adminPassword ? undefined : randomAlphanumeric(20);
    const password = config.adminPassword ?? generatedPassword!;
    const passwordHash = await hashPassword(password);

    await tx.query(
      `INSERT INTO companies (id, name, display_name, description, type, parent, ancestors)
       VALUES ($1, $1, 'Root', 'The provider itself', 'root', NULL, ARRAY[$1])`,
      [ROOT_COMPANY],
    );
    await tx.query(
      `INSERT INTO domains (company_id, id, name, description, is_primary) VALUES ($1, $2, $2, 'Default domain', true)`,
      [ROOT_COMPANY, DEFAULT_DOMAIN],
    );
    const door = consoleDoor(config);
    await tx.query(
      `INSERT INTO applications (id, company_id, domain_id, client_name, description, app_type, client_uri, redirect_uris,
                                 client_logout_uri, allowed_web_orgins, grant_types, audience)
       VALUES ($1, $2, $3, 'IAM Console', 'This administration console', $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10)`,
      [config.consoleClientId, ROOT_COMPANY, DEFAULT_DOMAIN, door.app_type, door.client_uri, ...DOOR_JSON.map((name) => JSON.stringify(door[name])), door.audience],
    );
    await tx.query(
      `INSERT INTO groups (company_id, domain_id, id, name, display_name, notes, email)
       VALUES ($1, $2, $3, $3, 'Administrators', 'Members administer this company and its descendants', $4)`,
      [ROOT_COMPANY, DEFAULT_DOMAIN, ADMIN_GROUP, config.adminEmail],
    );
    const adminId = 'admin';
    await tx.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash)
       VALUES ($1, $2, $3, $4, 'Administrator', $4, $5)`,
      [ROOT_COMPANY, DEFAULT_DOMAIN, adminId, config.adminEmail, passwordHash],
    );
    await tx.query(
      `INSERT INTO group_members (company_id, domain_id, group_id, member_type, member_id) VALUES ($1, $2, $3, 'user', $4)`,
      [ROOT_COMPANY, DEFAULT_DOMAIN, ADMIN_GROUP, adminId],
    );
    // the first administrator of a new installation is its Owner: she can give roles (docs/CONSOLE.md, "Roles")
    await tx.query(
      `INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ($1, $2, 'user', $3, 'owner', $1)`,
      [ROOT_COMPANY, DEFAULT_DOMAIN, adminId],
    );
    await tx.query(`INSERT INTO meta (key, value) VALUES ('seeded', now()::text)`);
    return { seeded: true, generatedPassword };
  });
}
