import type { ServerConfig } from './config.js';
import type { Database } from './db/index.js';

/**
 * What the operator must hear at start-up about the data: API identifiers that clashed across
 * tenants and were renamed by migration 19 (said once; the stored signing key is replaced then, see
 * below), and a registration domain that does not exist or holds administrators. Runs before the
 * signing key is loaded.
 */
export async function startupNotices(db: Database, config: ServerConfig, keys: { replaceStored(): Promise<boolean> }): Promise<string[]> {
  const notices: string[] = [];
  const { rows } = await db.query<{ value: string }>(`DELETE FROM meta WHERE key = 'api identifiers renamed' RETURNING value`);
  for (const row of rows) {
    const renamed = JSON.parse(row.value) as { api: string; company: string; domain: string; was: string; now: string }[];
    for (const api of renamed) {
      notices.push(
        `API ${api.api} of ${api.company}/${api.domain} shared its identifier "${api.was}" with an older API of another domain; ` +
          `an identifier names one API in the whole provider, so it is now "${api.now}" and its sign-ins were ended: give it a new identifier of its own in the console.`,
      );
    }
    // Tokens that domain was given for the shared audience would still verify at the other
    // domain's API until they expire: a new signing key ends every token signed before.
    if (await keys.replaceStored()) {
      notices.push('The signing key was replaced, so that no token issued for a shared API identifier before the upgrade is valid anywhere: every application gets new tokens at its next sign-in or refresh.');
    } else {
      notices.push(
        'SIGNING_KEY is set, so it was not replaced: tokens issued before the upgrade for the shared identifiers above stay valid at both APIs until they expire (at most their token lifetime). Set a new SIGNING_KEY to end them now.',
      );
    }
  }
  const domain = config.registrationAccessToken ? config.registrationDomain : undefined;
  if (domain) {
    const { rows: found } = await db.query<{ admins: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM groups g JOIN group_members m ON m.company_id = g.company_id AND m.domain_id = g.domain_id AND m.group_id = g.id
                      WHERE g.company_id = d.company_id AND g.domain_id = d.id AND g.name = 'administrators' AND g.status = 'active') AS admins
       FROM domains d WHERE d.company_id = $1 AND d.id = $2`,
      [domain.companyId, domain.domainId],
    );
    if (!found[0]) notices.push(`REGISTRATION_DOMAIN ${domain.companyId}/${domain.domainId} does not exist: client registrations will fail until it does.`);
    else if (found[0].admins) {
      notices.push(
        `REGISTRATION_DOMAIN ${domain.companyId}/${domain.domainId} has administrators: self-registered clients can sign them in (never with user:admin). Prefer a domain of your applications' users.`,
      );
    }
  }
  return notices;
}
