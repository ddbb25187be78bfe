import type { ServerConfig } from './config.js';
import type { Database } from './db/index.js';
import { randomAlphanumeric } from './ids.js';
import { hashPassword } from './passwords.js';
import { ADMIN_GROUP } from './oauth/tokens.js';

export const ROOT_COMPANY = 'root';
export const DEFAULT_DOMAIN = 'default';

/**
 * First run only (a `meta` row remembers it, so deleting what was seeded never brings it back):
 * the root company, its primary domain, the console application, the administrators group and
 * the first administrator. Returns the generated password when ADMIN_PASSWORD was not given.
 */
export async function seedFirstRun(db: Database, config: ServerConfig): Promise<{ seeded: boolean; generatedPassword?: string }> {
  return db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(4242002)');
    const done = await tx.query(`SELECT 1 FROM meta WHERE key = 'seeded'`);
    if (done.rowCount > 0) return { seeded: false };

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
    await tx.query(
      `INSERT INTO applications (id, company_id, domain_id, client_name, description, app_type, client_uri, redirect_uris,
                                 client_logout_uri, allowed_web_orgins, grant_types, audience)
       VALUES ($1, $2, $3, 'IAM Console', 'This administration console', 'SPA', $4, $5, $6, $7, '["authorization_code"]', $8)`,
      [
        config.consoleClientId,
        ROOT_COMPANY,
        DEFAULT_DOMAIN,
        config.publicUrl,
        JSON.stringify([`${config.publicUrl}/callback`]),
        JSON.stringify([`${config.publicUrl}/`]),
        JSON.stringify([config.publicUrl]),
        `${config.publicUrl}/api`,
      ],
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
