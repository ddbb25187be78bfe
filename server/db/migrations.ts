import type { Database } from './index.js';

/**
 * One schema for PGlite and PostgreSQL. Migrations only ever append: an applied one is never edited.
 */
/**
 * Part of user_slices_apply (migration 6): after taking the shared lock of every list the changed
 * rows belong to, adds (+) or removes (-) each changed row to or from the slice holding its key.
 */
function sliceCounts(rows: 'old_rows' | 'new_rows', sign: '+' | '-') {
  return `    PERFORM pg_advisory_xact_lock_shared(4242, hashtext(company_id || '/' || domain_id || '/' || status))
      FROM (SELECT DISTINCT company_id, domain_id, status FROM ${rows}) lists;
    IF EXISTS (SELECT 1 FROM user_slices) THEN
      UPDATE user_slices s SET n = s.n ${sign} d.n
      FROM (SELECT x.company_id, x.domain_id, x.status, x.lo_name, x.lo_id, count(*) AS n
            FROM ${rows} r CROSS JOIN LATERAL (
              SELECT * FROM user_slices x
              WHERE x.company_id = r.company_id AND x.domain_id = r.domain_id AND x.status = r.status
                AND (x.lo_name, x.lo_id) <= (r.display_name, r.id)
              ORDER BY x.lo_name DESC, x.lo_id DESC LIMIT 1) x
            GROUP BY 1, 2, 3, 4, 5) d
      WHERE (s.company_id, s.domain_id, s.status, s.lo_name, s.lo_id) = (d.company_id, d.domain_id, d.status, d.lo_name, d.lo_id);
    END IF;`;
}

export const migrations: { id: number; name: string; sql: string }[] = [
  {
    id: 1,
    name: 'initial schema',
    sql: `
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE companies (
  id text PRIMARY KEY,
  name text NOT NULL,
  display_name text NOT NULL,
  description text NOT NULL DEFAULT '',
  type text NOT NULL CHECK (type IN ('root', 'reseller', 'customer')),
  parent text REFERENCES companies (id),
  -- root .. self: an administrator may act on a company when their own company is in this list
  ancestors text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX companies_children ON companies (parent, name, id);
CREATE INDEX companies_ancestors ON companies USING gin (ancestors);

CREATE TABLE domains (
  company_id text NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  id text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  is_primary boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id)
);
CREATE UNIQUE INDEX domains_one_primary ON domains (company_id) WHERE is_primary;

CREATE TABLE users (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  username text NOT NULL,
  display_name text NOT NULL,
  notes text NOT NULL DEFAULT '',
  email text NOT NULL,
  password_hash text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX users_username ON users (company_id, domain_id, lower(username));
CREATE UNIQUE INDEX users_email ON users (company_id, domain_id, lower(email));
-- the two lists people page through: partial indexes so "status <> 'deleted'" never scans deleted rows
CREATE INDEX users_live_by_name ON users (company_id, domain_id, display_name, id) WHERE status <> 'deleted';
CREATE INDEX users_deleted_by_name ON users (company_id, domain_id, display_name, id) WHERE status = 'deleted';
CREATE INDEX users_search ON users USING gin ((display_name || ' ' || username || ' ' || email) gin_trgm_ops);

CREATE TABLE groups (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  display_name text NOT NULL,
  notes text NOT NULL DEFAULT '',
  email text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX groups_name ON groups (company_id, domain_id, lower(name));
CREATE INDEX groups_live_by_name ON groups (company_id, domain_id, display_name, id) WHERE status <> 'deleted';

CREATE TABLE group_members (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  group_id text NOT NULL,
  member_type text NOT NULL CHECK (member_type IN ('user', 'group')),
  member_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, group_id, member_type, member_id),
  FOREIGN KEY (company_id, domain_id, group_id) REFERENCES groups (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX group_members_by_member ON group_members (company_id, domain_id, member_type, member_id);

CREATE TABLE applications (
  id text PRIMARY KEY, -- the client_id
  company_id text NOT NULL,
  domain_id text NOT NULL,
  client_name text NOT NULL,
  description text NOT NULL DEFAULT '',
  logo_uri text NOT NULL DEFAULT '',
  client_secret_hash text,
  app_type text NOT NULL DEFAULT 'SPA' CHECK (app_type IN ('SPA', 'web', 'native', 'machine')),
  client_uri text NOT NULL DEFAULT '',
  client_logout_uri jsonb NOT NULL DEFAULT '[]',
  redirect_uris jsonb NOT NULL DEFAULT '[]',
  allowed_web_orgins jsonb NOT NULL DEFAULT '[]',
  id_token_expiration integer NOT NULL DEFAULT 36000,
  refresh_token_rotation boolean NOT NULL DEFAULT false,
  refresh_reuse_interval integer NOT NULL DEFAULT 0,
  refresh_absolute_expiration boolean NOT NULL DEFAULT false,
  refresh_absolute_lifetime integer NOT NULL DEFAULT 31557600,
  grant_types jsonb NOT NULL DEFAULT '["authorization_code","refresh_token"]',
  audience text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX applications_name ON applications (company_id, domain_id, lower(client_name));
CREATE INDEX applications_by_domain ON applications (company_id, domain_id, client_name, id);

CREATE TABLE apis (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  name text NOT NULL,
  identifier text NOT NULL,
  token_expiration integer NOT NULL DEFAULT 86400,
  token_expiration_browser integer NOT NULL DEFAULT 7200,
  signing_algorithm text NOT NULL DEFAULT 'RS256' CHECK (signing_algorithm IN ('RS256', 'HS256')),
  signing_secret text,
  rbac boolean NOT NULL DEFAULT false,
  add_permission_access_token boolean NOT NULL DEFAULT false,
  allow_skipping_user_consent boolean NOT NULL DEFAULT true,
  allow_offline_access boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX apis_name ON apis (company_id, domain_id, lower(name));
CREATE UNIQUE INDEX apis_identifier ON apis (company_id, domain_id, identifier);
CREATE INDEX apis_by_domain ON apis (company_id, domain_id, name, id);

CREATE TABLE permission_scopes (
  api_id text NOT NULL REFERENCES apis (id) ON DELETE CASCADE,
  id text NOT NULL,
  permission text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_id, id)
);

-- one sign-in of one user into one client; every token carries its id so that it can be revoked
CREATE TABLE oauth_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text,
  scope text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text,
  code_challenge_method text,
  scope text NOT NULL DEFAULT '',
  nonce text,
  resource text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);
`,
  },
  {
    id: 2,
    name: 'maintained user counts',
    sql: `
-- Exact list totals at any size: counts per domain and status, kept by statement-level triggers
-- (one upsert per statement, not per row, so bulk writes stay fast).
CREATE TABLE user_counts (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (company_id, domain_id, status),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
INSERT INTO user_counts (company_id, domain_id, status, n)
  SELECT company_id, domain_id, status, count(*) FROM users GROUP BY 1, 2, 3;

CREATE FUNCTION user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE user_counts c SET n = c.n - o.n
    FROM (SELECT company_id, domain_id, status, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) o
    WHERE c.company_id = o.company_id AND c.domain_id = o.domain_id AND c.status = o.status;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO user_counts AS c (company_id, domain_id, status, n)
      SELECT company_id, domain_id, status, count(*) FROM new_rows GROUP BY 1, 2, 3
    ON CONFLICT (company_id, domain_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER users_counted_insert AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();
CREATE TRIGGER users_counted_update AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();
CREATE TRIGGER users_counted_delete AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();
`,
  },
  {
    id: 5,
    name: 'live applications and APIs: refresh tokens, secret rotation, group permissions, consent',
    sql: `
-- secret rotation: the secret being replaced keeps working until previous_secret_expires_at
ALTER TABLE applications ADD COLUMN previous_secret_hash text;
ALTER TABLE applications ADD COLUMN previous_secret_expires_at timestamptz;
-- CORS preflights ask "does any application allow this origin?" before any client is known
CREATE INDEX applications_web_origins ON applications USING gin (allowed_web_orgins jsonb_path_ops);

-- the API (identifier) a grant was made for; null = this provider's own management API
ALTER TABLE oauth_grants ADD COLUMN resource text;
CREATE INDEX oauth_grants_by_client ON oauth_grants (client_id) WHERE revoked_at IS NULL;

-- one row per refresh token ever issued; a grant is one family: reuse of a rotated token revokes the grant
CREATE TABLE oauth_refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  scope text NOT NULL DEFAULT '',
  resource text,
  -- the family's age (absolute lifetime) is counted from oauth_grants.created_at, with the application's current settings
  created_at timestamptz NOT NULL DEFAULT now(),
  -- set when a successor was issued (rotation): from then on only the reuse interval lets it through
  rotated_at timestamptz
);
CREATE INDEX oauth_refresh_tokens_by_grant ON oauth_refresh_tokens (grant_id);

-- RBAC: permission scopes of an API granted to a group; members (direct or nested) hold them
CREATE TABLE group_permissions (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  group_id text NOT NULL,
  api_id text NOT NULL,
  scope_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, group_id, api_id, scope_id),
  FOREIGN KEY (company_id, domain_id, group_id) REFERENCES groups (company_id, domain_id, id) ON DELETE CASCADE,
  FOREIGN KEY (api_id, scope_id) REFERENCES permission_scopes (api_id, id) ON DELETE CASCADE
);
CREATE INDEX group_permissions_by_api ON group_permissions (api_id, scope_id);

-- consent a user gave an application for scopes of an API, remembered so that it is asked once
CREATE TABLE oauth_consents (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  client_id text NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  resource text NOT NULL,
  scope text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, user_id, client_id, resource, scope),
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE
);
`,
  },
  {
    id: 6,
    name: 'user list slices: maintained positions for deep pages',
    sql: `
-- A large user list (one domain, one status) cut into consecutive slices of its display-name order:
-- each slice starts at key (lo_name, lo_id) (the first at ('', ''), below every key) and holds n
-- rows. n is kept exact by the statement-level trigger below, so the position of any slice is the
-- sum of the slices before it, and a jump to any page seeks to its slice and skips at most one
-- slice's rows (server/api/userSlices.ts builds them; docs/PERFORMANCE.md).
CREATE TABLE user_slices (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  status text NOT NULL,
  lo_name text NOT NULL,
  lo_id text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (company_id, domain_id, status, lo_name, lo_id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);

-- Writers take a shared lock per list they touch and the slice builder an exclusive one, so that
-- no change can slip between the builder's snapshot and its slices becoming visible.
CREATE FUNCTION user_slices_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
${sliceCounts('old_rows', '-')}
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
${sliceCounts('new_rows', '+')}
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER users_sliced_insert AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_slices_apply();
CREATE TRIGGER users_sliced_update AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_slices_apply();
CREATE TRIGGER users_sliced_delete AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION user_slices_apply();
`,
  },
  {
    id: 7,
    name: 'the API guard as one function',
    sql: `
-- The check behind every /api call (server/api/guard.ts): the token's grant is live, its user is
-- active, and the path's company lies inside the caller's subtree with the path's domain in it.
-- As a PL/pgSQL function its statements are planned once per connection, not on every call.
CREATE FUNCTION api_access(p_grant text, p_company text, p_domain text, p_user text, p_target_company text, p_target_domain text)
RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT coalesce((SELECT g.revoked_at IS NULL FROM oauth_grants g WHERE g.id = p_grant), false)
     OR NOT coalesce((SELECT u.status = 'active' FROM users u WHERE u.company_id = p_company AND u.domain_id = p_domain AND u.id = p_user), false) THEN
    RETURN 'revoked';
  END IF;
  IF p_target_company IS NOT NULL
     AND NOT coalesce((SELECT p_company = ANY (c.ancestors) FROM companies c WHERE c.id = p_target_company), false) THEN
    RETURN 'company';
  END IF;
  IF p_target_domain IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = p_target_company AND d.id = p_target_domain) THEN
    RETURN 'domain';
  END IF;
  RETURN 'ok';
END $$;
`,
  },
  {
    id: 8,
    name: 'rights follow the account: one membership walk, revocation in the same transaction',
    sql: `
-- The groups a user belongs to, directly or through nested groups, active groups only (a deleted
-- group passes nothing on). The one definition of membership: the administrator check, RBAC and
-- the API guard all read it. UNION (not UNION ALL) ends even on cyclic data.
CREATE FUNCTION user_groups(p_company text, p_domain text, p_user text) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  WITH RECURSIVE member_of(group_id) AS (
    SELECT gm.group_id FROM group_members gm
    JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.group_id AND g.status = 'active'
    WHERE gm.company_id = p_company AND gm.domain_id = p_domain AND gm.member_type = 'user' AND gm.member_id = p_user
    UNION
    SELECT gm.group_id FROM group_members gm
    JOIN member_of m ON gm.member_type = 'group' AND gm.member_id = m.group_id
    JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.group_id AND g.status = 'active'
    WHERE gm.company_id = p_company AND gm.domain_id = p_domain
  )
  SELECT group_id FROM member_of
$$;

CREATE FUNCTION is_administrator(p_company text, p_domain text, p_user text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM user_groups(p_company, p_domain, p_user) g WHERE g = 'administrators')
$$;

-- live sign-ins by user (revoking a user's sign-ins) and live management sign-ins that carry
-- user:admin (re-checking them after a membership change)
CREATE INDEX oauth_grants_live_by_user ON oauth_grants (company_id, domain_id, user_id) WHERE revoked_at IS NULL;
CREATE INDEX oauth_grants_live_admin ON oauth_grants (company_id, domain_id)
  WHERE revoked_at IS NULL AND resource IS NULL AND position('user:admin' in scope) > 0;

-- The guard also checks that the caller is still an administrator: rights are checked when a
-- token is used, not only when it was issued (the revocations below make this fail early).
CREATE OR REPLACE FUNCTION api_access(p_grant text, p_company text, p_domain text, p_user text, p_target_company text, p_target_domain text)
RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT coalesce((SELECT g.revoked_at IS NULL FROM oauth_grants g WHERE g.id = p_grant), false)
     OR NOT coalesce((SELECT u.status = 'active' FROM users u WHERE u.company_id = p_company AND u.domain_id = p_domain AND u.id = p_user), false)
     OR NOT is_administrator(p_company, p_domain, p_user) THEN
    RETURN 'revoked';
  END IF;
  IF p_target_company IS NOT NULL
     AND NOT coalesce((SELECT p_company = ANY (c.ancestors) FROM companies c WHERE c.id = p_target_company), false) THEN
    RETURN 'company';
  END IF;
  IF p_target_domain IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = p_target_company AND d.id = p_target_domain) THEN
    RETURN 'domain';
  END IF;
  RETURN 'ok';
END $$;

-- A membership taken away (member removed, group soft-deleted or purged): every live user:admin
-- sign-in of the domains touched whose user is no longer an administrator is revoked, in the
-- statement's own transaction, whatever code path made the change.
CREATE FUNCTION revoke_lost_admin() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE oauth_grants g SET revoked_at = now()
  FROM (SELECT DISTINCT company_id, domain_id FROM old_rows) d
  WHERE g.company_id = d.company_id AND g.domain_id = d.domain_id
    AND g.revoked_at IS NULL AND g.resource IS NULL AND position('user:admin' in g.scope) > 0
    AND NOT is_administrator(g.company_id, g.domain_id, g.user_id);
  RETURN NULL;
END $$;
CREATE TRIGGER group_members_revoke_admin AFTER DELETE ON group_members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_lost_admin();
CREATE TRIGGER groups_revoke_admin_update AFTER UPDATE ON groups
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_lost_admin();
CREATE TRIGGER groups_revoke_admin_delete AFTER DELETE ON groups
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_lost_admin();

-- A user soft-deleted or purged (also by the cascade of a domain or company deletion) loses every
-- sign-in at once; recovering the user later does not revive them.
CREATE FUNCTION revoke_user_grants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    UPDATE oauth_grants g SET revoked_at = now()
    FROM new_rows n JOIN old_rows o ON o.company_id = n.company_id AND o.domain_id = n.domain_id AND o.id = n.id
    WHERE n.status = 'deleted' AND o.status <> 'deleted'
      AND g.company_id = n.company_id AND g.domain_id = n.domain_id AND g.user_id = n.id AND g.revoked_at IS NULL;
  ELSE
    UPDATE oauth_grants g SET revoked_at = now()
    FROM old_rows o
    WHERE g.company_id = o.company_id AND g.domain_id = o.domain_id AND g.user_id = o.id AND g.revoked_at IS NULL;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER users_revoke_update AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_user_grants();
CREATE TRIGGER users_revoke_delete AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_user_grants();

-- A domain deleted (alone or with its company) ends every sign-in made in it, users' and
-- applications' alike.
CREATE FUNCTION revoke_domain_grants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE oauth_grants g SET revoked_at = now()
  FROM old_rows o
  WHERE g.company_id = o.company_id AND g.domain_id = o.id AND g.revoked_at IS NULL;
  RETURN NULL;
END $$;
CREATE TRIGGER domains_revoke_delete AFTER DELETE ON domains
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_domain_grants();
`,
  },
  {
    id: 9,
    name: 'sign-in throttling counters',
    sql: `
-- Sign-in attempt counters (server/oauth/loginThrottle.ts), shared by every server process and kept
-- across restarts. One row per counter: its window opens with the first attempt and ends at
-- expires_at; the next attempt after that starts a new window. Expired rows are purged in small batches.
CREATE TABLE login_attempts (
  kind text NOT NULL,
  key text NOT NULL,
  n integer NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX login_attempts_expiry ON login_attempts (expires_at);
`,
  },
  {
    id: 11,
    name: 'plans that hold before ANALYZE, searches right after writes: name and email indexes lead with the name, a small trigram pending list',
    sql: `
-- A lookup by primary key (company_id, domain_id, id) must use the primary key. Before a table's
-- first ANALYZE (a fresh bulk load) the planner takes "company_id = x AND domain_id = y" for about
-- one row, so any index starting with those two columns looked as good: the deep pages' join back
-- picked users_email or users_username and read the whole domain for each of its rows (and so could
-- any lookup by id, the access check of every API call among them). Uniqueness does not depend on
-- column order, so the unique name and email indexes now lead with the name: a lookup by name or
-- email still matches all of their columns, and the primary key is the only index for one by id
-- (tests/server/plans.test.ts).
DROP INDEX users_username;
CREATE UNIQUE INDEX users_username ON users (lower(username), company_id, domain_id);
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (lower(email), company_id, domain_id);
DROP INDEX groups_name;
CREATE UNIQUE INDEX groups_name ON groups (lower(name), company_id, domain_id);

-- A search reads the trigram index's pending list (rows inserted since the last VACUUM, merged
-- into the index in bulk) in full, on every call: up to 4 MB by default, which made searches right
-- after 10,000 new users 5-10x slower until the next VACUUM. With 256 kB the inserts merge it
-- themselves, a little at a time; bulk loads stay about as fast.
ALTER INDEX users_search SET (gin_pending_list_limit = 256);
`,
  },
  {
    id: 12,
    name: 'is_administrator in PL/pgSQL: planned once per connection',
    sql: `
-- The guard calls api_access on every API call, and api_access calls is_administrator. As a SQL
-- function called from an expression, is_administrator was planned anew on every call (with the
-- membership walk in it): about 0.6 ms of PostgreSQL's time per API call, four fifths of the access
-- check. PL/pgSQL keeps the plan of its statement for the connection's life, and user_groups is
-- still inlined into that statement. Same answer: tests/server/accountRights.test.ts.
CREATE OR REPLACE FUNCTION is_administrator(p_company text, p_domain text, p_user text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM user_groups(p_company, p_domain, p_user) g WHERE g = 'administrators');
END $$;
`,
  },
  {
    id: 13,
    name: 'one membership walk for users and groups: the administrator check, RBAC and the cycle check',
    sql: `
-- The groups a member (a user or a group) belongs to, directly or through nested groups: the one
-- definition of membership. With p_active_only, only active groups, each of which passes membership
-- on (a deleted group passes nothing on): the administrator check (is_administrator, so the guard's
-- api_access and the sign-in's user:admin) and RBAC (server/oauth/resources.ts). Without it, every
-- group: the structure that the member cycle check protects (server/api/members.ts), since a
-- soft-deleted group may be recovered. Each call site passes p_member_type and p_active_only as
-- literals, so once the function is inlined the planner sees the same walk as user_groups'
-- (migration 8), which it replaces. UNION (not UNION ALL) ends even on cyclic data.
CREATE FUNCTION member_groups(p_company text, p_domain text, p_member_type text, p_member text, p_active_only boolean)
RETURNS SETOF text LANGUAGE sql STABLE AS $$
  WITH RECURSIVE member_of(group_id) AS (
    SELECT gm.group_id FROM group_members gm
    JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.group_id
    WHERE gm.company_id = p_company AND gm.domain_id = p_domain AND gm.member_type = p_member_type AND gm.member_id = p_member
      AND (g.status = 'active' OR NOT p_active_only)
    UNION
    SELECT gm.group_id FROM group_members gm
    JOIN member_of m ON gm.member_type = 'group' AND gm.member_id = m.group_id
    JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.group_id
    WHERE gm.company_id = p_company AND gm.domain_id = p_domain AND (g.status = 'active' OR NOT p_active_only)
  )
  SELECT group_id FROM member_of
$$;

CREATE OR REPLACE FUNCTION is_administrator(p_company text, p_domain text, p_user text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM member_groups(p_company, p_domain, 'user', p_user, true) g WHERE g = 'administrators');
END $$;

-- This code no longer calls it; it stays, as member_groups, for servers of the previous version
-- that run against this database until they are replaced (several instances on one PostgreSQL).
CREATE OR REPLACE FUNCTION user_groups(p_company text, p_domain text, p_user text) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT g FROM member_groups(p_company, p_domain, 'user', p_user, true) g
$$;
`,
  },
  {
    id: 14,
    name: 'sign-in events: every attempt at the authorization server',
    sql: `
-- One row per attempt (server/oauth/signInEvents.ts). No foreign keys: an event outlives the
-- user, application or domain it names (an audit trail), and an attempt with an unknown client has
-- no tenant at all (company_id and domain_id null: kept for the operator, never listed by the API).
CREATE TABLE signin_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  company_id text,
  domain_id text,
  client_id text,
  user_id text,
  login text,
  outcome text NOT NULL CHECK (outcome IN ('success', 'wrong_password', 'unknown_user', 'throttled', 'bad_client',
    'bad_redirect_uri', 'bad_pkce', 'code_reused', 'bad_code', 'consent_denied', 'refresh_reuse')),
  detail text,
  ip text,
  user_agent text
);
-- the list: a domain's events, newest first
CREATE INDEX signin_events_list ON signin_events (company_id, domain_id, occurred_at DESC, id DESC);
CREATE INDEX signin_events_user ON signin_events (company_id, domain_id, user_id, occurred_at DESC, id DESC);
CREATE INDEX signin_events_client ON signin_events (company_id, domain_id, client_id, occurred_at DESC, id DESC);
-- retention deletes the oldest first
CREATE INDEX signin_events_age ON signin_events (occurred_at);
`,
  },
  {
    id: 15,
    name: 'audit trail: every write of the management API, recorded by the database in its own transaction',
    sql: `
-- One row per change of a company, domain, user, group, application or API (docs/CONSOLE.md,
-- "History and audit log"). The management API names its caller in the transaction-local setting
-- iam.actor (server/api/audit.ts); the triggers below write the record in the same transaction as
-- the change, so there is no change without its record and no record without its change. Writes
-- without a caller (start-up seed, the authorization server's own bookkeeping) are not recorded.
-- No foreign keys: a record outlives what it names.
CREATE TABLE audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  -- whose log holds it: the company of the record changed (for a company, its parent's)
  company_id text NOT NULL,
  domain_id text,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  action text NOT NULL,
  -- field -> {"before": v, "after": v}, or {"hidden": true} for a secret that changed
  changes jsonb NOT NULL,
  actor_user_id text,
  actor_company_id text,
  actor_domain_id text,
  actor_client_id text,
  actor_ip text
);
-- the lists: a company's log newest first, by resource type, one record's history, one actor's changes
CREATE INDEX audit_events_list ON audit_events (company_id, occurred_at DESC, id DESC);
CREATE INDEX audit_events_type ON audit_events (company_id, resource_type, occurred_at DESC, id DESC);
CREATE INDEX audit_events_resource ON audit_events (company_id, resource_type, resource_id, occurred_at DESC, id DESC);
CREATE INDEX audit_events_actor ON audit_events (company_id, actor_user_id, occurred_at DESC, id DESC);
CREATE INDEX audit_events_action ON audit_events (company_id, action, occurred_at DESC, id DESC);
-- retention deletes the oldest first
CREATE INDEX audit_events_age ON audit_events (occurred_at);

-- One record, with the caller from iam.actor; nothing without a caller.
CREATE FUNCTION audit_record(p_company text, p_domain text, p_type text, p_id text, p_action text, p_changes jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_actor jsonb := nullif(current_setting('iam.actor', true), '')::jsonb;
BEGIN
  IF v_actor IS NULL THEN RETURN; END IF;
  INSERT INTO audit_events (company_id, domain_id, resource_type, resource_id, action, changes,
                            actor_user_id, actor_company_id, actor_domain_id, actor_client_id, actor_ip)
  VALUES (p_company, p_domain, p_type, p_id, p_action, p_changes,
          v_actor ->> 'userId', v_actor ->> 'companyId', v_actor ->> 'domainId', v_actor ->> 'clientId', v_actor ->> 'ip');
END $$;

-- The fields that differ between two row images; a hidden one (a secret's hash) only says it changed.
CREATE FUNCTION audit_diff(p_old jsonb, p_new jsonb, p_hidden text[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(k, CASE WHEN k = ANY (p_hidden) THEN '{"hidden": true}'::jsonb
                                            ELSE jsonb_strip_nulls(jsonb_build_object('before', p_old -> k, 'after', p_new -> k)) END), '{}')
  FROM (SELECT jsonb_object_keys(coalesce(p_old, '{}') || coalesce(p_new, '{}')) AS k) keys
  WHERE coalesce(p_old -> k, 'null') IS DISTINCT FROM coalesce(p_new -> k, 'null')
$$;

-- A record of its own (company, domain, user, group, application, API): TG_ARGV[0] is its resource
-- type, TG_ARGV[1] its secret columns. Rows a cascade removes are part of the delete that removed
-- their parent, which has its record: a deleted row whose parent is gone too is not recorded
-- (PostgreSQL fires a cascade's row triggers after the statement, at the same trigger depth, so
-- the parent's absence is what tells them apart).
CREATE FUNCTION audit_resource_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_old jsonb;
  v_new jsonb;
  v_row jsonb;
  v_changes jsonb;
  v_action text;
  v_company text;
  v_domain text;
BEGIN
  IF nullif(current_setting('iam.actor', true), '') IS NULL THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN
    IF TG_TABLE_NAME = 'domains' THEN
      IF NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = OLD.company_id) THEN RETURN NULL; END IF;
    ELSIF TG_TABLE_NAME <> 'companies' THEN
      IF NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = OLD.company_id AND d.id = OLD.domain_id) THEN RETURN NULL; END IF;
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN v_old := to_jsonb(OLD) - '{created_at,updated_at,ancestors,company_id,domain_id}'::text[]; END IF;
  IF TG_OP <> 'DELETE' THEN v_new := to_jsonb(NEW) - '{created_at,updated_at,ancestors,company_id,domain_id}'::text[]; END IF;
  v_changes := audit_diff(v_old, v_new, TG_ARGV[1]::text[]);
  IF TG_OP = 'UPDATE' AND v_changes = '{}' THEN RETURN NULL; END IF;
  v_row := to_jsonb(coalesce(NEW, OLD));
  v_action := CASE
    WHEN TG_OP = 'INSERT' THEN 'create'
    WHEN TG_OP = 'DELETE' THEN CASE WHEN v_row ? 'status' THEN 'purge' ELSE 'delete' END
    WHEN v_changes -> 'status' ->> 'after' = 'deleted' THEN 'delete'
    WHEN v_changes -> 'status' ->> 'before' = 'deleted' THEN 'recover'
    WHEN v_changes ? 'client_secret_hash' THEN 'rotateSecret'
    WHEN (v_changes -> 'is_primary' ->> 'after')::boolean THEN 'setPrimary'
    ELSE 'update' END;
  IF TG_TABLE_NAME = 'companies' THEN
    v_company := coalesce(v_row ->> 'parent', v_row ->> 'id');
  ELSE
    v_company := v_row ->> 'company_id';
    v_domain := CASE WHEN TG_TABLE_NAME = 'domains' THEN v_row ->> 'id' ELSE v_row ->> 'domain_id' END;
  END IF;
  PERFORM audit_record(v_company, v_domain, TG_ARGV[0], v_row ->> 'id', v_action, v_changes);
  RETURN NULL;
END $$;

-- A row that belongs to a group or an API (a member, a permission, a permission scope): a record of
-- the owner, with the row as one value; none when the owner is gone (a cascade, as above).
CREATE FUNCTION audit_part_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row jsonb;
  v_part jsonb;
  v_company text;
  v_domain text;
  v_owner text;
  v_type text;
  v_name text;
BEGIN
  IF nullif(current_setting('iam.actor', true), '') IS NULL THEN RETURN NULL; END IF;
  v_row := to_jsonb(coalesce(NEW, OLD));
  -- (nested IFs: an expression may only name fields the table has)
  IF TG_OP = 'DELETE' AND TG_TABLE_NAME <> 'permission_scopes' THEN
    IF NOT EXISTS (SELECT 1 FROM groups g WHERE g.company_id = OLD.company_id AND g.domain_id = OLD.domain_id AND g.id = OLD.group_id) THEN
      RETURN NULL;
    END IF;
  END IF;
  IF TG_TABLE_NAME = 'group_members' THEN
    v_type := 'groups'; v_name := 'Member'; v_owner := v_row ->> 'group_id';
    v_company := v_row ->> 'company_id'; v_domain := v_row ->> 'domain_id';
    v_part := jsonb_build_object('type', v_row -> 'member_type', 'id', v_row -> 'member_id');
  ELSIF TG_TABLE_NAME = 'group_permissions' THEN
    v_type := 'groups'; v_owner := v_row ->> 'group_id';
    v_company := v_row ->> 'company_id'; v_domain := v_row ->> 'domain_id';
    v_name := (SELECT s.permission FROM permission_scopes s WHERE s.api_id = v_row ->> 'api_id' AND s.id = v_row ->> 'scope_id');
    -- the scope is gone: its grants went with it
    IF v_name IS NULL THEN RETURN NULL; END IF;
    v_part := jsonb_build_object('apiId', v_row -> 'api_id', 'scopeId', v_row -> 'scope_id', 'permission', v_name);
    v_name := 'Permission';
  ELSE
    v_type := 'apis'; v_name := 'Scope'; v_owner := v_row ->> 'api_id';
    SELECT a.company_id, a.domain_id INTO v_company, v_domain FROM apis a WHERE a.id = v_owner;
    IF v_company IS NULL THEN RETURN NULL; END IF;
    v_part := jsonb_build_object('id', v_row -> 'id', 'permission', v_row -> 'permission', 'description', v_row -> 'description');
  END IF;
  IF TG_OP = 'UPDATE' THEN
    IF to_jsonb(OLD) = to_jsonb(NEW) THEN RETURN NULL; END IF;
    PERFORM audit_record(v_company, v_domain, v_type, v_owner, 'update' || v_name,
      jsonb_build_object(lower(v_name), jsonb_build_object('before', jsonb_build_object('id', OLD.id, 'permission', OLD.permission, 'description', OLD.description), 'after', v_part)));
  ELSE
    PERFORM audit_record(v_company, v_domain, v_type, v_owner, CASE TG_OP WHEN 'INSERT' THEN 'add' ELSE 'remove' END || v_name,
      jsonb_build_object(lower(v_name), jsonb_build_object(CASE TG_OP WHEN 'INSERT' THEN 'after' ELSE 'before' END, v_part)));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER companies_audit AFTER INSERT OR UPDATE OR DELETE ON companies FOR EACH ROW EXECUTE FUNCTION audit_resource_row('companies', '{}');
CREATE TRIGGER domains_audit AFTER INSERT OR UPDATE OR DELETE ON domains FOR EACH ROW EXECUTE FUNCTION audit_resource_row('domains', '{}');
CREATE TRIGGER users_audit AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION audit_resource_row('users', '{password_hash}');
CREATE TRIGGER groups_audit AFTER INSERT OR UPDATE OR DELETE ON groups FOR EACH ROW EXECUTE FUNCTION audit_resource_row('groups', '{}');
CREATE TRIGGER applications_audit AFTER INSERT OR UPDATE OR DELETE ON applications
  FOR EACH ROW EXECUTE FUNCTION audit_resource_row('applications', '{client_secret_hash,previous_secret_hash}');
CREATE TRIGGER apis_audit AFTER INSERT OR UPDATE OR DELETE ON apis FOR EACH ROW EXECUTE FUNCTION audit_resource_row('apis', '{signing_secret}');
CREATE TRIGGER group_members_audit AFTER INSERT OR DELETE ON group_members FOR EACH ROW EXECUTE FUNCTION audit_part_row();
CREATE TRIGGER group_permissions_audit AFTER INSERT OR DELETE ON group_permissions FOR EACH ROW EXECUTE FUNCTION audit_part_row();
CREATE TRIGGER permission_scopes_audit AFTER INSERT OR UPDATE OR DELETE ON permission_scopes FOR EACH ROW EXECUTE FUNCTION audit_part_row();
`,
  },
  {
    id: 16,
    name: 'sessions: where and when each sign-in was made and last used, a user\'s live sessions in order',
    sql: `
-- Sessions (docs/CONSOLE.md, "Sign-ins and rights"): a grant is one sign-in of one user into one
-- application, and support staff list a user's live ones with where they came from and when they
-- were last used, to end them one by one or all at once. ip and user_agent are those of the
-- request that created the grant (the sign-in, or the consent that completed it); last_used_at
-- and last_ip those of the latest request that got tokens from it (the sign-in itself, the code
-- exchange, each refresh). server/oauth/token.ts sets them in the statement that already reads
-- the grant before issuing tokens, so no token request makes an extra round trip for them.
ALTER TABLE oauth_grants ADD COLUMN ip text, ADD COLUMN user_agent text, ADD COLUMN last_used_at timestamptz, ADD COLUMN last_ip text;
-- Live grants of earlier versions: their last known use is their sign-in. Revoked ones stay null
-- (nothing lists them, and rewriting every grant ever made would buy nothing).
UPDATE oauth_grants SET last_used_at = created_at WHERE revoked_at IS NULL;
-- after the backfill, so that it stays a cheap catalog change: a grant inserted by a server of the
-- previous version (a rolling upgrade) gets its first use too
ALTER TABLE oauth_grants ALTER COLUMN last_used_at SET DEFAULT now();
-- A user's live sessions, most recently used first (server/api/sessions.ts): the list walks this
-- index in its default order and stops at the page. Its leading columns are those of
-- oauth_grants_live_by_user (migration 8), which it replaces: revoking a user's sign-ins (the
-- triggers of migration 8, a password change, sign out everywhere) reads it as well. The price:
-- setting last_used_at is not a HOT update (an indexed column changes), once per token request of
-- a session, which is one per access token lifetime for a client that refreshes.
CREATE INDEX oauth_grants_sessions ON oauth_grants (company_id, domain_id, user_id, last_used_at DESC, id DESC) WHERE revoked_at IS NULL;
DROP INDEX oauth_grants_live_by_user;
`,
  },
  {
    id: 17,
    name: 'event lists at 10 million rows: sign-ins by failure outcome, audit records by resource id alone',
    sql: `
-- npm run bench -- --parts events --large (docs/PERFORMANCE.md, "Event lists at 10 million rows").
-- A domain's sign-ins of one failure outcome: without an index the list walked the domain's events
-- newest first until it had a page, and its total (counted up to 10,000) read every event of the
-- domain: 1.4 s for bad_pkce (1 in 2,000) at 8 million sign-ins. Partial: a success (most rows) is
-- no entry, so most sign-ins write one index entry fewer than a full index would cost; successes
-- are most of the list, which serves them.
CREATE INDEX signin_events_outcome ON signin_events (company_id, domain_id, outcome, occurred_at DESC, id DESC) WHERE outcome <> 'success';
-- One record's history: the resource id before its type, so that a filter on the id alone (the
-- API allows it; a user and a group may share an id) seeks too, where it read the whole company
-- (1.1-2.5 s at 8.5 million records); id and type together read it as before. Same size, same
-- cost per write.
DROP INDEX audit_events_resource;
CREATE INDEX audit_events_resource ON audit_events (company_id, resource_id, resource_type, occurred_at DESC, id DESC);
`,
  },
  {
    id: 18,
    name: 'the authorization server on oidc-provider: its storage',
    sql: `
-- What oidc-provider keeps (server/oauth/adapter.ts): authorization codes, access and refresh
-- tokens, browser sessions, interactions, device codes, pushed requests, registration tokens. One
-- row per model and id, its payload as the library wrote it, with the columns the adapter finds
-- rows by. Every process of a deployment reads and writes here: a code issued by one is redeemed
-- at another, a revocation at one holds at all.
CREATE TABLE oidc_payloads (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_payloads_user_code ON oidc_payloads (user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid) WHERE uid IS NOT NULL;
CREATE INDEX oidc_payloads_expiry ON oidc_payloads (expires_at);

-- A grant stays a row of oauth_grants: it is the sign-in the sessions tab lists, the guard checks
-- and the revocation triggers end. oidc-provider's Grant model is kept in it (payload), with its
-- expiry; a revoked grant is not found, so every token of it stops at its next use.
ALTER TABLE oauth_grants ADD COLUMN payload jsonb, ADD COLUMN expires_at timestamptz;

-- OpenID Connect Back-Channel Logout 1.0: where the provider posts a logout token when a sign-in
-- of the application ends.
ALTER TABLE applications ADD COLUMN backchannel_logout_uri text NOT NULL DEFAULT '';

-- Replaced by oidc_payloads. Codes live a minute; refresh tokens issued before the upgrade stop
-- working (their sign-ins have to be made again), which docs/OPERATIONS.md says.
DROP TABLE oauth_codes;
DROP TABLE oauth_refresh_tokens;
`,
  },
  {
    id: 19,
    name: 'the tenant boundary in the authorization server: subjects, one namespace of API identifiers, registered clients',
    sql: `
-- A person's subject (the sub of every token and the accountId of the provider's sessions, grants,
-- codes and device codes): generated, unique in the whole provider and never reassigned. A user id
-- is chosen by each domain, so two tenants (or a purged account and a new one) can share one; a
-- subject is 122 random bits, so a session, grant or token of one account can never name another.
ALTER TABLE users ADD COLUMN IF NOT EXISTS subject text NOT NULL DEFAULT gen_random_uuid()::text;
CREATE UNIQUE INDEX IF NOT EXISTS users_subject ON users (subject);

-- Every sign-in made before this named its user by the bare id: they end here (the browser signs
-- in again; docs/OPERATIONS.md, "Upgrading"). Registration access tokens are not sign-ins and stay.
UPDATE oauth_grants SET revoked_at = now() WHERE revoked_at IS NULL;
DELETE FROM oidc_payloads WHERE model <> 'RegistrationAccessToken';

-- An API identifier is the audience of tokens every resource server trusts whatever tenant issued
-- them (one issuer, one key): it names one API in the whole provider. Identifiers that already
-- clash keep their oldest API; each other one is renamed (its tokens stop being issued for the
-- shared audience, and its sign-ins are revoked above) and the start-up log says which
-- (server/main.ts reads the note left in meta).
CREATE TEMP TABLE renamed_apis ON COMMIT DROP AS
  SELECT id, company_id, domain_id, identifier AS was, identifier || '#renamed-' || id AS now
  FROM (SELECT a.*, row_number() OVER (PARTITION BY identifier ORDER BY created_at, id) AS n FROM apis a) ranked
  WHERE n > 1;
UPDATE apis a SET identifier = r.now, updated_at = now() FROM renamed_apis r WHERE a.id = r.id;
INSERT INTO meta (key, value)
  SELECT 'api identifiers renamed', json_agg(json_build_object('api', id, 'company', company_id, 'domain', domain_id, 'was', was, 'now', now))::text
  FROM renamed_apis HAVING count(*) > 0
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
DROP INDEX apis_identifier;
CREATE UNIQUE INDEX apis_identifier ON apis (identifier);

-- A purged API's identifier stays its tenant's until the last token issued for it has expired (a
-- resource server may still be trusting that audience): another tenant cannot take it before then.
-- A trigger, so that a purge by cascade (its domain or company deleted) retires it too. Tokens stop
-- being issued when the API is soft-deleted (updated_at) or purged while active (now()).
CREATE TABLE IF NOT EXISTS retired_api_identifiers (
  identifier text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  until timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION retire_api_identifier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO retired_api_identifiers (identifier, company_id, domain_id, until)
  VALUES (OLD.identifier, OLD.company_id, OLD.domain_id,
          (CASE WHEN OLD.status = 'deleted' THEN OLD.updated_at ELSE now() END) + make_interval(secs => greatest(OLD.token_expiration, OLD.token_expiration_browser)))
  ON CONFLICT (identifier) DO UPDATE SET company_id = EXCLUDED.company_id, domain_id = EXCLUDED.domain_id,
    until = greatest(retired_api_identifiers.until, EXCLUDED.until);
  RETURN OLD;
END $$;
DROP TRIGGER IF EXISTS apis_retire_identifier ON apis;
CREATE TRIGGER apis_retire_identifier AFTER DELETE ON apis FOR EACH ROW EXECUTE FUNCTION retire_api_identifier();

-- Clients that registered themselves (RFC 7591) never receive the management API's user:admin.
ALTER TABLE applications ADD COLUMN IF NOT EXISTS self_registered boolean NOT NULL DEFAULT false;
UPDATE applications SET self_registered = true WHERE description = 'registered through /oauth/register';
`,
  },
  {
    id: 20,
    name: 'roles: who may do what in the console, over a company subtree or one domain',
    sql: `
-- A role (server/api/roles.ts) held by a user or a group of a domain (the holder's company and
-- domain), over a company and its subtree (scope_domain_id NULL) or over one domain of a company.
-- The administrators group needs no row: its members hold Administrator over their company's
-- subtree (held_roles below), as they always did.
CREATE TABLE IF NOT EXISTS role_assignments (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  holder_type text NOT NULL CHECK (holder_type IN ('user', 'group')),
  holder_id text NOT NULL,
  role text NOT NULL,
  scope_company_id text NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  scope_domain_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (scope_company_id, scope_domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX IF NOT EXISTS role_assignments_once
  ON role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id, coalesce(scope_domain_id, ''));
CREATE INDEX IF NOT EXISTS role_assignments_by_scope ON role_assignments (scope_company_id);

-- A purged user or group takes its roles with it: an id given again later holds nothing.
CREATE OR REPLACE FUNCTION drop_holder_roles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM role_assignments a USING old_rows o
  WHERE a.company_id = o.company_id AND a.domain_id = o.domain_id AND a.holder_type = TG_ARGV[0] AND a.holder_id = o.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_drop_roles ON users;
CREATE TRIGGER users_drop_roles AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION drop_holder_roles('user');
DROP TRIGGER IF EXISTS groups_drop_roles ON groups;
CREATE TRIGGER groups_drop_roles AFTER DELETE ON groups
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION drop_holder_roles('group');

-- The roles a user holds that cover a target (the company and domain a request names), with one
-- walk of her groups: Administrator from the administrators group when the target is inside her
-- company's subtree; assigned roles whose scope covers the target. A role held over one domain of
-- the target company, when the target is the whole company, comes back as 'role@' (it gives only
-- what lets its holder start there; roles.ts). Without a target: every role she holds anywhere.
CREATE OR REPLACE FUNCTION held_roles(p_company text, p_domain text, p_user text, p_target_company text, p_target_domain text)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_groups text[];
  v_ancestors text[];
  v_held text[];
BEGIN
  IF p_target_company IS NOT NULL THEN
    SELECT c.ancestors INTO v_ancestors FROM companies c WHERE c.id = p_target_company;
    IF v_ancestors IS NULL THEN RETURN '{}'; END IF;
  END IF;
  v_groups := ARRAY(SELECT g FROM member_groups(p_company, p_domain, 'user', p_user, true) g);
  SELECT coalesce(array_agg(DISTINCT held.role), '{}') INTO v_held FROM (
    SELECT 'administrator' AS role
    WHERE 'administrators' = ANY (v_groups) AND (p_target_company IS NULL OR p_company = ANY (v_ancestors))
    UNION ALL
    SELECT CASE WHEN a.scope_domain_id IS NOT NULL AND p_target_company IS NOT NULL AND p_target_domain IS NULL THEN a.role || '@' ELSE a.role END
    FROM role_assignments a
    WHERE a.company_id = p_company AND a.domain_id = p_domain
      AND ((a.holder_type = 'user' AND a.holder_id = p_user) OR (a.holder_type = 'group' AND a.holder_id = ANY (v_groups)))
      AND (p_target_company IS NULL
        OR (a.scope_domain_id IS NULL AND a.scope_company_id = ANY (v_ancestors))
        OR (a.scope_domain_id IS NOT NULL AND a.scope_company_id = p_target_company AND (p_target_domain IS NULL OR a.scope_domain_id = p_target_domain)))
  ) held;
  RETURN v_held;
END $$;

-- Does the user hold any console role at all (what user:admin now stands for)?
CREATE OR REPLACE FUNCTION holds_console_role(p_company text, p_domain text, p_user text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN cardinality(held_roles(p_company, p_domain, p_user, NULL, NULL)) > 0;
END $$;

-- The guard's one statement (api_access of migration 8, with roles): '{revoked}' when the grant is
-- revoked, the user is not active or holds no role any more; '{company}' / '{domain}' when the target
-- is outside her company's subtree or not a domain of that company (404: nothing leaks); else 'ok'
-- followed by the roles that cover the target (guard.ts checks the route's permission against them).
CREATE OR REPLACE FUNCTION api_check(p_grant text, p_company text, p_domain text, p_user text, p_target_company text, p_target_domain text)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_held text[];
BEGIN
  IF NOT coalesce((SELECT g.revoked_at IS NULL FROM oauth_grants g WHERE g.id = p_grant), false)
     OR NOT coalesce((SELECT u.status = 'active' FROM users u WHERE u.company_id = p_company AND u.domain_id = p_domain AND u.id = p_user), false) THEN
    RETURN '{revoked}';
  END IF;
  IF p_target_company IS NOT NULL
     AND NOT coalesce((SELECT p_company = ANY (c.ancestors) FROM companies c WHERE c.id = p_target_company), false) THEN
    RETURN '{company}';
  END IF;
  IF p_target_domain IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = p_target_company AND d.id = p_target_domain) THEN
    RETURN '{domain}';
  END IF;
  v_held := held_roles(p_company, p_domain, p_user, p_target_company, p_target_domain);
  -- nothing held here: does she hold anything anywhere? Rights are checked at use.
  IF cardinality(v_held) = 0 AND NOT holds_console_role(p_company, p_domain, p_user) THEN
    RETURN '{revoked}';
  END IF;
  RETURN ARRAY['ok'] || v_held;
END $$;

-- Losing the administrators group ends the console sign-ins of those who hold no other role.
CREATE OR REPLACE FUNCTION revoke_lost_admin() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE oauth_grants g SET revoked_at = now()
  FROM (SELECT DISTINCT company_id, domain_id FROM old_rows) d
  WHERE g.company_id = d.company_id AND g.domain_id = d.domain_id
    AND g.revoked_at IS NULL AND g.resource IS NULL AND position('user:admin' in g.scope) > 0
    AND NOT holds_console_role(g.company_id, g.domain_id, g.user_id);
  RETURN NULL;
END $$;

-- Every assignment change is a record of the holder (a user or a group): addRole, removeRole.
CREATE OR REPLACE FUNCTION audit_role_assignment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row role_assignments;
BEGIN
  IF nullif(current_setting('iam.actor', true), '') IS NULL THEN RETURN NULL; END IF;
  v_row := coalesce(NEW, OLD);
  -- a holder or a domain purged took the assignment with it: that purge has its own record
  IF TG_OP = 'DELETE' AND NOT EXISTS (
    SELECT 1 FROM users u WHERE v_row.holder_type = 'user' AND u.company_id = v_row.company_id AND u.domain_id = v_row.domain_id AND u.id = v_row.holder_id
    UNION ALL
    SELECT 1 FROM groups g WHERE v_row.holder_type = 'group' AND g.company_id = v_row.company_id AND g.domain_id = v_row.domain_id AND g.id = v_row.holder_id) THEN
    RETURN NULL;
  END IF;
  PERFORM audit_record(v_row.company_id, v_row.domain_id, v_row.holder_type || 's', v_row.holder_id,
    CASE TG_OP WHEN 'INSERT' THEN 'addRole' ELSE 'removeRole' END,
    jsonb_build_object('role', jsonb_build_object(CASE TG_OP WHEN 'INSERT' THEN 'after' ELSE 'before' END,
      jsonb_build_object('id', v_row.id, 'role', v_row.role, 'companyId', v_row.scope_company_id, 'domainId', v_row.scope_domain_id))));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS role_assignments_audit ON role_assignments;
CREATE TRIGGER role_assignments_audit AFTER INSERT OR DELETE ON role_assignments FOR EACH ROW EXECUTE FUNCTION audit_role_assignment();

-- Who did what under which role: the roles the caller acted under (server/api/audit.ts).
ALTER TABLE audit_events ADD COLUMN IF NOT EXISTS actor_roles text;
CREATE OR REPLACE FUNCTION audit_record(p_company text, p_domain text, p_type text, p_id text, p_action text, p_changes jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_actor jsonb := nullif(current_setting('iam.actor', true), '')::jsonb;
BEGIN
  IF v_actor IS NULL THEN RETURN; END IF;
  INSERT INTO audit_events (company_id, domain_id, resource_type, resource_id, action, changes,
                            actor_user_id, actor_company_id, actor_domain_id, actor_client_id, actor_ip, actor_roles)
  VALUES (p_company, p_domain, p_type, p_id, p_action, p_changes,
          v_actor ->> 'userId', v_actor ->> 'companyId', v_actor ->> 'domainId', v_actor ->> 'clientId', v_actor ->> 'ip', nullif(v_actor ->> 'roles', ''));
END $$;

-- An upgraded installation: the root company's administrators become its Owners (someone must be
-- able to give roles); every other administrators group keeps Administrator, which is every right
-- they had before roles existed.
INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id)
SELECT g.company_id, g.domain_id, 'group', g.id, 'owner', g.company_id
FROM groups g JOIN companies c ON c.id = g.company_id AND c.type = 'root'
WHERE g.id = 'administrators'
ON CONFLICT DO NOTHING;
`,
  },
  {
    id: 21,
    name: 'account states: blocked accounts, required actions at next sign-in, verified e-mail, sign-in steps after the password',
    sql: `
-- Blocked (docs/CONSOLE.md, "Account states"): the account stays in every list and keeps its data,
-- but nobody signs in to it and every session it had ends. Separate from status, which is the
-- soft delete of lists and counts.
ALTER TABLE users ADD COLUMN IF NOT EXISTS blocked_at timestamptz;
-- What the person must do at the next sign-in before any application receives a code (Keycloak's
-- required actions).
ALTER TABLE users ADD COLUMN IF NOT EXISTS required_actions text[] NOT NULL DEFAULT '{}'
  CHECK (required_actions <@ ARRAY['change-password', 'verify-email', 'enrol-mfa']::text[]);
ALTER TABLE users ADD COLUMN IF NOT EXISTS email_verified boolean NOT NULL DEFAULT false;

ALTER TABLE signin_events DROP CONSTRAINT IF EXISTS signin_events_outcome_check;
ALTER TABLE signin_events ADD CONSTRAINT signin_events_outcome_check CHECK (outcome IN ('success', 'wrong_password',
  'unknown_user', 'throttled', 'bad_client', 'bad_redirect_uri', 'bad_pkce', 'code_reused', 'bad_code', 'consent_denied',
  'refresh_reuse', 'blocked', 'second_factor_failed'));

-- A sign-in between its password and its code: the steps still to do (a required action, a second
-- factor), bound to the browser by a cookie holding the token whose hash is the id.
CREATE TABLE IF NOT EXISTS sign_in_steps (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  -- how the sign-in ends: the console's form post ('console', request holds its authorization
  -- request) or a hosted page's interaction ('interaction', request holds its uid)
  kind text NOT NULL CHECK (kind IN ('console', 'interaction')),
  request jsonb NOT NULL,
  -- how she has proved who she is so far (the ID token's amr)
  amr text[] NOT NULL DEFAULT '{pwd}',
  client_id text NOT NULL,
  login text NOT NULL DEFAULT '',
  failures integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS sign_in_steps_age ON sign_in_steps (expires_at);

-- Blocking ends every sign-in of the account, like deleting it.
CREATE OR REPLACE FUNCTION revoke_user_grants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    UPDATE oauth_grants g SET revoked_at = now()
    FROM new_rows n JOIN old_rows o ON o.company_id = n.company_id AND o.domain_id = n.domain_id AND o.id = n.id
    WHERE ((n.status = 'deleted' AND o.status <> 'deleted') OR (n.blocked_at IS NOT NULL AND o.blocked_at IS NULL))
      AND g.company_id = n.company_id AND g.domain_id = n.domain_id AND g.user_id = n.id AND g.revoked_at IS NULL;
    DELETE FROM sign_in_steps s USING new_rows n
    WHERE n.blocked_at IS NOT NULL AND s.company_id = n.company_id AND s.domain_id = n.domain_id AND s.user_id = n.id;
  ELSE
    UPDATE oauth_grants g SET revoked_at = now()
    FROM old_rows o
    WHERE g.company_id = o.company_id AND g.domain_id = o.domain_id AND g.user_id = o.id AND g.revoked_at IS NULL;
  END IF;
  RETURN NULL;
END $$;

-- The audit trigger of resources (migration 15) names account actions: block, unblock, setPassword,
-- requiredActions, when that is all a write changed (what changed is the record's diff, as for any update).
CREATE OR REPLACE FUNCTION audit_resource_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_old jsonb;
  v_new jsonb;
  v_row jsonb;
  v_changes jsonb;
  v_action text;
  v_company text;
  v_domain text;
BEGIN
  IF nullif(current_setting('iam.actor', true), '') IS NULL THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN
    IF TG_TABLE_NAME = 'domains' THEN
      IF NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = OLD.company_id) THEN RETURN NULL; END IF;
    ELSIF TG_TABLE_NAME <> 'companies' THEN
      IF NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = OLD.company_id AND d.id = OLD.domain_id) THEN RETURN NULL; END IF;
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN v_old := to_jsonb(OLD) - '{created_at,updated_at,ancestors,company_id,domain_id}'::text[]; END IF;
  IF TG_OP <> 'DELETE' THEN v_new := to_jsonb(NEW) - '{created_at,updated_at,ancestors,company_id,domain_id}'::text[]; END IF;
  v_changes := audit_diff(v_old, v_new, TG_ARGV[1]::text[]);
  IF TG_OP = 'UPDATE' AND v_changes = '{}' THEN RETURN NULL; END IF;
  v_row := to_jsonb(coalesce(NEW, OLD));
  v_action := CASE
    WHEN TG_OP = 'INSERT' THEN 'create'
    WHEN TG_OP = 'DELETE' THEN CASE WHEN v_row ? 'status' THEN 'purge' ELSE 'delete' END
    WHEN v_changes -> 'status' ->> 'after' = 'deleted' THEN 'delete'
    WHEN v_changes -> 'status' ->> 'before' = 'deleted' THEN 'recover'
    WHEN v_changes ? 'client_secret_hash' THEN 'rotateSecret'
    -- an account action changes nothing else; a PUT that also sets a password stays an update
    WHEN v_changes ? 'blocked_at' AND v_changes - 'blocked_at' = '{}' THEN CASE WHEN v_changes -> 'blocked_at' ->> 'after' IS NULL THEN 'unblock' ELSE 'block' END
    WHEN v_changes ? 'password_hash' AND v_changes - '{password_hash,required_actions}'::text[] = '{}' THEN 'setPassword'
    WHEN v_changes ? 'required_actions' AND v_changes - 'required_actions' = '{}' THEN 'requiredActions'
    WHEN (v_changes -> 'is_primary' ->> 'after')::boolean THEN 'setPrimary'
    ELSE 'update' END;
  IF TG_TABLE_NAME = 'companies' THEN
    v_company := coalesce(v_row ->> 'parent', v_row ->> 'id');
  ELSE
    v_company := v_row ->> 'company_id';
    v_domain := CASE WHEN TG_TABLE_NAME = 'domains' THEN v_row ->> 'id' ELSE v_row ->> 'domain_id' END;
  END IF;
  PERFORM audit_record(v_company, v_domain, TG_ARGV[0], v_row ->> 'id', v_action, v_changes);
  RETURN NULL;
END $$;

-- The guard's statement (migration 20) with blocked accounts refused like deleted ones.
CREATE OR REPLACE FUNCTION api_check(p_grant text, p_company text, p_domain text, p_user text, p_target_company text, p_target_domain text)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_held text[];
BEGIN
  IF NOT coalesce((SELECT g.revoked_at IS NULL FROM oauth_grants g WHERE g.id = p_grant), false)
     OR NOT coalesce((SELECT u.status = 'active' AND u.blocked_at IS NULL FROM users u WHERE u.company_id = p_company AND u.domain_id = p_domain AND u.id = p_user), false) THEN
    RETURN '{revoked}';
  END IF;
  IF p_target_company IS NOT NULL
     AND NOT coalesce((SELECT p_company = ANY (c.ancestors) FROM companies c WHERE c.id = p_target_company), false) THEN
    RETURN '{company}';
  END IF;
  IF p_target_domain IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = p_target_company AND d.id = p_target_domain) THEN
    RETURN '{domain}';
  END IF;
  v_held := held_roles(p_company, p_domain, p_user, p_target_company, p_target_domain);
  IF cardinality(v_held) = 0 AND NOT holds_console_role(p_company, p_domain, p_user) THEN
    RETURN '{revoked}';
  END IF;
  RETURN ARRAY['ok'] || v_held;
END $$;
`,
  },
  {
    id: 24,
    name: 'security policy per domain: password length, common passwords, second factor, throttle limits, self sign-up',
    sql: `
-- A domain's security policy (server/policies.ts; docs/CONSOLE.md, "Domain security policy"). A domain
-- without a row has the defaults; NULL throttle limits are the server's own (LOGIN_MAX_FAILURES_PER_ACCOUNT,
-- LOGIN_FAILURE_WINDOW_SECONDS).
CREATE TABLE IF NOT EXISTS domain_policies (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  min_password_length integer NOT NULL DEFAULT 12 CHECK (min_password_length BETWEEN 8 AND 128),
  refuse_common_passwords boolean NOT NULL DEFAULT true,
  mfa text NOT NULL DEFAULT 'optional' CHECK (mfa IN ('off', 'optional', 'required', 'required-admins')),
  failures_per_account integer CHECK (failures_per_account BETWEEN 3 AND 10000),
  failure_window_seconds integer CHECK (failure_window_seconds BETWEEN 60 AND 604800),
  self_sign_up boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
`,
  },
  {
    id: 22,
    name: 'e-mail: account tokens (reset, invitation, verification links) and the outbox of messages',
    sql: `
-- A link sent by e-mail (docs/CONSOLE.md, "E-mail, reset links and invitations"): the token is 32
-- random bytes given to the person only; the id is its sha256, so the table alone opens nothing.
-- Single use (used_at), expiring, and always naming the account's company and domain.
CREATE TABLE IF NOT EXISTS account_tokens (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('reset', 'invite', 'verify')),
  -- the address it was sent to: following it proves that address only
  email text NOT NULL,
  -- the application the person asked from (a forgotten password), to send her back there
  client_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS account_tokens_user ON account_tokens (company_id, domain_id, user_id, purpose);
CREATE INDEX IF NOT EXISTS account_tokens_age ON account_tokens (expires_at);

-- Every message the server writes: sent through SMTP_URL when it is set (sent_at or error), and
-- read by administrators in the console either way. It holds live links: reading it needs users:write.
CREATE TABLE IF NOT EXISTS mail_outbox (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  user_id text,
  purpose text NOT NULL,
  language text NOT NULL,
  recipient text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  error text,
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS mail_outbox_list ON mail_outbox (company_id, domain_id, created_at DESC, id DESC);

-- A new address is not verified, and the links sent to the old one open nothing any more.
CREATE OR REPLACE FUNCTION users_email_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF lower(NEW.email) IS DISTINCT FROM lower(OLD.email) THEN
    NEW.email_verified := false;
    DELETE FROM account_tokens t WHERE t.company_id = OLD.company_id AND t.domain_id = OLD.domain_id AND t.user_id = OLD.id AND t.used_at IS NULL;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS users_email_changed ON users;
CREATE TRIGGER users_email_changed BEFORE UPDATE OF email ON users FOR EACH ROW EXECUTE FUNCTION users_email_changed();
`,
  },
  {
    id: 23,
    name: 'multi-factor authentication: factors, account page sessions, WebAuthn challenges',
    sql: `
-- A person's second factors (docs/CONSOLE.md, "Multi-factor authentication and the account page"):
-- an authenticator app (TOTP; its secret encrypted with the key of mfa_keys, never returned after
-- enrolment; last_step is the last time step used, so a code is good once), a passkey or security key
-- (WebAuthn: credential id, public key, signature counter, transports) or the set of recovery codes
-- (the sha256 of each unused code; a used one is removed).
CREATE TABLE IF NOT EXISTS user_factors (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('totp', 'webauthn', 'recovery')),
  label text NOT NULL DEFAULT '',
  secret text,
  last_step bigint,
  credential_id text UNIQUE,
  public_key text,
  counter bigint,
  transports text[],
  synced boolean,
  code_hashes text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS user_factors_user ON user_factors (company_id, domain_id, user_id);
-- one set of recovery codes per person: a new set replaces the old
CREATE UNIQUE INDEX IF NOT EXISTS user_factors_one_recovery ON user_factors (company_id, domain_id, user_id) WHERE kind = 'recovery';

-- The key that encrypts TOTP secrets (AES-256-GCM), made by the first server that needs it.
CREATE TABLE IF NOT EXISTS mfa_keys (
  id text PRIMARY KEY,
  key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The account page's sessions (/account): the id is the sha256 of the cookie's token; verified once
-- the password (and a second factor, when she has one) is proved; 15 minutes idle. pending holds an
-- enrolment under way (a TOTP secret not yet confirmed, encrypted; a WebAuthn challenge).
CREATE TABLE IF NOT EXISTS account_sessions (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  amr text[] NOT NULL DEFAULT '{pwd}',
  pending jsonb NOT NULL DEFAULT '{}',
  failures integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS account_sessions_age ON account_sessions (expires_at);

-- Single-use challenges of the sign-in steps (a WebAuthn assertion, a TOTP enrolment at sign-in):
-- the id is the sha256 of the challenge or token; a row is taken (deleted) when used.
CREATE TABLE IF NOT EXISTS mfa_challenges (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('webauthn-sign-in', 'totp-enrol')),
  value text NOT NULL DEFAULT '',
  expires_at timestamptz NOT NULL,
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS mfa_challenges_age ON mfa_challenges (expires_at);
`,
  },
  {
    id: 25,
    name: 'list fields: last sign-in, indexes of the users filters and sorts, counts untouched by updates that move no row',
    sql: `
-- Set on a successful sign-in, at most once a minute (server/oauth/signInEvents.ts).
ALTER TABLE users ADD COLUMN IF NOT EXISTS last_sign_in_at timestamptz;

-- The filters and sorts of the users list (server/api/listFields.ts; docs/PERFORMANCE.md, "Filters and
-- sorts of the users list"), on the live list (status <> 'deleted', what the console sends).
CREATE INDEX IF NOT EXISTS users_live_by_created ON users (company_id, domain_id, created_at, id) WHERE status <> 'deleted';
-- never signed in sorts as the oldest sign-in: one expression, no NULLs, the same in both orders
CREATE INDEX IF NOT EXISTS users_live_by_last_sign_in ON users (company_id, domain_id, (coalesce(last_sign_in_at, '-infinity'::timestamptz)), id)
  WHERE status <> 'deleted';
CREATE INDEX IF NOT EXISTS users_live_never_signed_in ON users (company_id, domain_id, display_name, id) WHERE status <> 'deleted' AND last_sign_in_at IS NULL;
CREATE INDEX IF NOT EXISTS users_live_by_email_domain ON users (company_id, domain_id, (lower(split_part(email, '@', -1))), display_name, id)
  WHERE status <> 'deleted';
CREATE INDEX IF NOT EXISTS users_live_by_verified ON users (company_id, domain_id, email_verified, display_name, id) WHERE status <> 'deleted';
CREATE INDEX IF NOT EXISTS users_blocked ON users (company_id, domain_id, display_name, id) WHERE blocked_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS applications_by_type ON applications (company_id, domain_id, app_type, client_name, id);
CREATE INDEX IF NOT EXISTS applications_grant_types ON applications USING gin (grant_types jsonb_path_ops);
CREATE INDEX IF NOT EXISTS apis_by_signing_algorithm ON apis (company_id, domain_id, signing_algorithm, name, id);
CREATE INDEX IF NOT EXISTS companies_by_type ON companies (parent, type, name, id);

-- An update that moves no row between lists (a sign-in's time, notes, an address) leaves the
-- maintained counts and slices as they are: no write of the domain's count row on every sign-in.
CREATE OR REPLACE FUNCTION user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- (nested: the transition tables exist only in an UPDATE's trigger, and an expression is planned whole)
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT company_id, domain_id, status FROM old_rows EXCEPT ALL SELECT company_id, domain_id, status FROM new_rows) THEN
      RETURN NULL;
    END IF;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE user_counts c SET n = c.n - o.n
    FROM (SELECT company_id, domain_id, status, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) o
    WHERE c.company_id = o.company_id AND c.domain_id = o.domain_id AND c.status = o.status;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO user_counts AS c (company_id, domain_id, status, n)
      SELECT company_id, domain_id, status, count(*) FROM new_rows GROUP BY 1, 2, 3
    ON CONFLICT (company_id, domain_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION user_slices_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT company_id, domain_id, status, display_name, id FROM old_rows
                   EXCEPT ALL SELECT company_id, domain_id, status, display_name, id FROM new_rows) THEN
      RETURN NULL;
    END IF;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
${sliceCounts('old_rows', '-')}
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
${sliceCounts('new_rows', '+')}
  END IF;
  RETURN NULL;
END $$;
`,
  },
  {
    id: 28,
    name: 'mail outbox: an index on its age, for the purge of messages past their links\' life',
    sql: `
-- The maintenance purge (server/db/maintenance.ts, purgeOldMail) deletes the oldest messages first.
CREATE INDEX IF NOT EXISTS mail_outbox_age ON mail_outbox (created_at);
`,
  },
  {
    id: 29,
    name: 'groups list: created time (sort and range) on its own index',
    sql: `
-- The groups list's Created filter and sort (server/api/listFields.ts), on the live list.
CREATE INDEX IF NOT EXISTS groups_live_by_created ON groups (company_id, domain_id, created_at, id) WHERE status <> 'deleted';
`,
  },
  {
    id: 30,
    name: 'group members in the users list\'s order: the member\'s display name on the membership, kept by triggers',
    sql: `
-- The users list filtered by memberOf reads the group's members in name order
-- (server/api/listFields.ts, NamedFilter.orderedFrom; docs/PERFORMANCE.md, "Filters and sorts of
-- the users list"): a copy of the user's display_name on each of her memberships (NULL for group
-- members), in the column's default collation like users.display_name, kept by the triggers below.
ALTER TABLE group_members ADD COLUMN IF NOT EXISTS member_name text;

-- a new membership takes the user's name; FOR SHARE: a rename committing meanwhile waits for the
-- membership (whose row its trigger then sees), or the membership for the rename (and reads the new name)
CREATE OR REPLACE FUNCTION group_members_member_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.member_type = 'user' THEN
    SELECT u.display_name INTO NEW.member_name FROM users u
    WHERE u.company_id = NEW.company_id AND u.domain_id = NEW.domain_id AND u.id = NEW.member_id
    FOR SHARE;
  ELSE
    NEW.member_name := NULL;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS group_members_member_name ON group_members;
CREATE TRIGGER group_members_member_name BEFORE INSERT OR UPDATE OF member_type, member_id ON group_members
  FOR EACH ROW EXECUTE FUNCTION group_members_member_name();

-- a renamed user's memberships follow her (group_members_by_member); only a change of the name
-- runs it (the WHEN), not a sign-in's time or a status
CREATE OR REPLACE FUNCTION users_member_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE group_members gm SET member_name = NEW.display_name
  WHERE gm.company_id = NEW.company_id AND gm.domain_id = NEW.domain_id AND gm.member_type = 'user' AND gm.member_id = NEW.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_member_name ON users;
CREATE TRIGGER users_member_name AFTER UPDATE OF display_name ON users
  FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name) EXECUTE FUNCTION users_member_name();
-- a user inserted after a membership naming her id (none through the API, which adds existing
-- users only) gives it her name: once per statement, not per row of a bulk insert
CREATE OR REPLACE FUNCTION users_member_name_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE group_members gm SET member_name = n.display_name
  FROM new_rows n
  WHERE gm.company_id = n.company_id AND gm.domain_id = n.domain_id AND gm.member_type = 'user' AND gm.member_id = n.id
    AND gm.member_name IS DISTINCT FROM n.display_name;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_member_name_new ON users;
CREATE TRIGGER users_member_name_new AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION users_member_name_new();

UPDATE group_members gm SET member_name = u.display_name
FROM users u
WHERE gm.member_type = 'user' AND u.company_id = gm.company_id AND u.domain_id = gm.domain_id AND u.id = gm.member_id
  AND gm.member_name IS DISTINCT FROM u.display_name;

-- a group's user members in the users list's order (display name, then id)
CREATE INDEX IF NOT EXISTS group_members_by_name ON group_members (company_id, domain_id, group_id, member_name, member_id)
  WHERE member_type = 'user';
`,
  },
  {
    id: 31,
    name: 'containment: the roles a principal holds, and the provider keeps an active Owner on every path',
    sql: `
-- Every role a user or group holds, with where (server/api/containment.ts): its own assignments,
-- those of every group it is in, directly or through nested groups, deleted groups included
-- (recovering one gives them back), and Administrator over its company's subtree from the
-- administrators group. What acting on the principal reaches: the caller must hold all of it.
CREATE OR REPLACE FUNCTION principal_roles(p_company text, p_domain text, p_type text, p_id text)
RETURNS TABLE (role text, scope_company text, scope_domain text) LANGUAGE sql STABLE AS $$
  WITH g(id) AS (
    SELECT x FROM member_groups(p_company, p_domain, p_type, p_id, false) x
    UNION SELECT p_id WHERE p_type = 'group'
  )
  SELECT 'administrator', p_company, NULL::text WHERE EXISTS (SELECT 1 FROM g WHERE g.id = 'administrators')
  UNION
  SELECT a.role, a.scope_company_id, a.scope_domain_id FROM role_assignments a
  WHERE a.company_id = p_company AND a.domain_id = p_domain
    AND ((a.holder_type = 'user' AND p_type = 'user' AND a.holder_id = p_id) OR (a.holder_type = 'group' AND a.holder_id IN (SELECT id FROM g)))
$$;

-- Is there an active, unblocked user holding Owner over the root company's whole subtree, herself
-- or through active groups? Without one nobody could ever give a role again.
CREATE OR REPLACE FUNCTION provider_has_owner() RETURNS boolean LANGUAGE sql STABLE AS $$
  WITH RECURSIVE owners AS (
    SELECT a.company_id, a.domain_id, a.holder_type, a.holder_id FROM role_assignments a
    JOIN companies c ON c.id = a.scope_company_id AND c.type = 'root'
    WHERE a.role = 'owner' AND a.scope_domain_id IS NULL
  ),
  owner_groups(company_id, domain_id, id) AS (
    SELECT o.company_id, o.domain_id, o.holder_id FROM owners o
    JOIN groups g ON g.company_id = o.company_id AND g.domain_id = o.domain_id AND g.id = o.holder_id AND g.status = 'active'
    WHERE o.holder_type = 'group'
    UNION
    SELECT gm.company_id, gm.domain_id, gm.member_id FROM owner_groups og
    JOIN group_members gm ON gm.company_id = og.company_id AND gm.domain_id = og.domain_id AND gm.group_id = og.id AND gm.member_type = 'group'
    JOIN groups g ON g.company_id = gm.company_id AND g.domain_id = gm.domain_id AND g.id = gm.member_id AND g.status = 'active'
  )
  SELECT EXISTS (
    SELECT 1 FROM owners o JOIN users u ON u.company_id = o.company_id AND u.domain_id = o.domain_id AND u.id = o.holder_id
    WHERE o.holder_type = 'user' AND u.status = 'active' AND u.blocked_at IS NULL
  ) OR EXISTS (
    SELECT 1 FROM owner_groups og
    JOIN group_members gm ON gm.company_id = og.company_id AND gm.domain_id = og.domain_id AND gm.group_id = og.id AND gm.member_type = 'user'
    JOIN users u ON u.company_id = gm.company_id AND u.domain_id = gm.domain_id AND u.id = gm.member_id
    WHERE u.status = 'active' AND u.blocked_at IS NULL
  )
$$;

-- The last Owner survives every path (block, soft delete, purge, leaving or emptying or deleting an
-- Owner-holding group, an assignment taken back, drop_holder_roles, a cascade): a statement that
-- leaves a provider which had an Owner with none fails with IA409 (server/errors.ts: 409 with this
-- sentence). Before a statement whether there was one is noted; a statement nested in it (a
-- trigger's, a cascade's) keeps the outer note, and the first check after it ends the note.
CREATE OR REPLACE FUNCTION note_provider_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('iam.had_owner', true), '') = '' THEN
    PERFORM set_config('iam.had_owner', provider_has_owner()::text, true);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION keep_provider_owner() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_had text := current_setting('iam.had_owner', true);
BEGIN
  PERFORM set_config('iam.had_owner', '', true);
  IF v_had = 'true' AND NOT provider_has_owner() THEN
    RAISE EXCEPTION 'This would leave the provider without an active Owner: nobody could give or take a role again. Give the Owner role over the root company to another active user first'
      USING ERRCODE = 'IA409';
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_owner_before ON users;
CREATE TRIGGER users_owner_before BEFORE UPDATE OF status, blocked_at OR DELETE ON users FOR EACH STATEMENT EXECUTE FUNCTION note_provider_owner();
DROP TRIGGER IF EXISTS users_owner_after ON users;
CREATE TRIGGER users_owner_after AFTER UPDATE OF status, blocked_at OR DELETE ON users FOR EACH STATEMENT EXECUTE FUNCTION keep_provider_owner();
DROP TRIGGER IF EXISTS groups_owner_before ON groups;
CREATE TRIGGER groups_owner_before BEFORE UPDATE OF status OR DELETE ON groups FOR EACH STATEMENT EXECUTE FUNCTION note_provider_owner();
DROP TRIGGER IF EXISTS groups_owner_after ON groups;
CREATE TRIGGER groups_owner_after AFTER UPDATE OF status OR DELETE ON groups FOR EACH STATEMENT EXECUTE FUNCTION keep_provider_owner();
DROP TRIGGER IF EXISTS group_members_owner_before ON group_members;
CREATE TRIGGER group_members_owner_before BEFORE DELETE ON group_members FOR EACH STATEMENT EXECUTE FUNCTION note_provider_owner();
DROP TRIGGER IF EXISTS group_members_owner_after ON group_members;
CREATE TRIGGER group_members_owner_after AFTER DELETE ON group_members FOR EACH STATEMENT EXECUTE FUNCTION keep_provider_owner();
DROP TRIGGER IF EXISTS role_assignments_owner_before ON role_assignments;
CREATE TRIGGER role_assignments_owner_before BEFORE UPDATE OR DELETE ON role_assignments FOR EACH STATEMENT EXECUTE FUNCTION note_provider_owner();
DROP TRIGGER IF EXISTS role_assignments_owner_after ON role_assignments;
CREATE TRIGGER role_assignments_owner_after AFTER UPDATE OR DELETE ON role_assignments FOR EACH STATEMENT EXECUTE FUNCTION keep_provider_owner();

-- A block (or a soft delete) spends every outstanding link of the account: a reset link or an
-- invitation mailed before it opens nothing after an unblock, whoever asked for it.
CREATE OR REPLACE FUNCTION users_spend_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE account_tokens t SET used_at = now()
  WHERE t.company_id = NEW.company_id AND t.domain_id = NEW.domain_id AND t.user_id = NEW.id AND t.used_at IS NULL;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_spend_links ON users;
CREATE TRIGGER users_spend_links AFTER UPDATE OF blocked_at, status ON users FOR EACH ROW
  WHEN ((NEW.blocked_at IS NOT NULL AND OLD.blocked_at IS NULL) OR (NEW.status = 'deleted' AND OLD.status <> 'deleted'))
  EXECUTE FUNCTION users_spend_links();
`,
  },
  {
    id: 32,
    name: "account page: its sessions end with the account's other sign-ins; its parked sign-in steps",
    sql: `
-- The account page's sessions (account_sessions, server/mfa/account.ts) end when her other sign-ins
-- do: a new password however it is set (reset link, an administrator, her own change), a block or a
-- delete (and stay ended after an unblock or a recovery), Sign out everywhere and a reset of her
-- factors. Triggers, so that every way to these writes ends them, present and future: the users row
-- itself, and the audit record that Sign out everywhere and Reset write in their own transaction
-- (Sign out everywhere of someone with no grant changes no other row).
CREATE INDEX IF NOT EXISTS account_sessions_user ON account_sessions (company_id, domain_id, user_id);
CREATE OR REPLACE FUNCTION end_account_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- (two statements: a record's fields are looked up when a statement runs, and the tables differ)
  IF TG_TABLE_NAME = 'users' THEN
    DELETE FROM account_sessions s WHERE s.company_id = NEW.company_id AND s.domain_id = NEW.domain_id AND s.user_id = NEW.id;
  ELSE
    DELETE FROM account_sessions s WHERE s.company_id = NEW.company_id AND s.domain_id = NEW.domain_id AND s.user_id = NEW.resource_id;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_end_account_sessions ON users;
CREATE TRIGGER users_end_account_sessions AFTER UPDATE OF password_hash, blocked_at, status ON users FOR EACH ROW
  WHEN (NEW.password_hash IS DISTINCT FROM OLD.password_hash OR (NEW.blocked_at IS NOT NULL AND OLD.blocked_at IS NULL)
        OR (NEW.status = 'deleted' AND OLD.status <> 'deleted'))
  EXECUTE FUNCTION end_account_sessions();
DROP TRIGGER IF EXISTS audit_events_end_account_sessions ON audit_events;
CREATE TRIGGER audit_events_end_account_sessions AFTER INSERT ON audit_events FOR EACH ROW
  WHEN (NEW.resource_type = 'users' AND NEW.action IN ('signOutEverywhere', 'resetFactors'))
  EXECUTE FUNCTION end_account_sessions();

-- The account page runs the sign-in's required actions before it shows anything: its parked sign-in
-- is a third kind of sign_in_steps row (server/oauth/signInSteps.ts).
ALTER TABLE sign_in_steps DROP CONSTRAINT IF EXISTS sign_in_steps_kind_check;
ALTER TABLE sign_in_steps ADD CONSTRAINT sign_in_steps_kind_check CHECK (kind IN ('console', 'interaction', 'account'));
`,
  },
  {
    id: 33,
    name: 'taking back the last role ends the console sign-ins for good, as leaving the administrators group does',
    sql: `
-- A role taken back (a role_assignments row deleted: by the API, or with its holder, its group, its
-- domain or its company) ends the console sign-ins of everyone of the holder's domain who holds no
-- role at all any more, in the same transaction: revoke_lost_admin (migration 20), as removal from
-- the administrators group does. The guard refused such a token already (api_check, '{revoked}'),
-- but only while she held nothing: a role given back later revived it. Now it stays refused
-- (docs/CONSOLE.md, "Roles" and "Sign-ins and rights").
DROP TRIGGER IF EXISTS role_assignments_revoke_admin ON role_assignments;
CREATE TRIGGER role_assignments_revoke_admin AFTER DELETE ON role_assignments
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION revoke_lost_admin();
`,
  },
  {
    id: 34,
    name: 'rights version: the roles a token holds are computed once per change of rights, not on every call',
    sql: `
-- Every input of held_roles (role assignments, memberships, a group's status, a company's place in
-- the tree) bumps this one counter in the same transaction as the change. The guard
-- (server/api/guard.ts) keeps the roles it found per sign-in and place with the version they were
-- found at and sends that version along: api_check_known answers '=' when nothing that decides
-- rights has changed since (read in the same statement, so in the same snapshot as the other checks),
-- and computes them again otherwise. The grant, the account's state and the place are checked on
-- every call as before.
CREATE TABLE IF NOT EXISTS rights_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL
);
INSERT INTO rights_version (id, version) VALUES (true, 1) ON CONFLICT (id) DO NOTHING;

CREATE OR REPLACE FUNCTION bump_rights_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE rights_version SET version = version + 1 WHERE id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS role_assignments_rights_version ON role_assignments;
CREATE TRIGGER role_assignments_rights_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON role_assignments FOR EACH STATEMENT EXECUTE FUNCTION bump_rights_version();
DROP TRIGGER IF EXISTS group_members_rights_version ON group_members;
CREATE TRIGGER group_members_rights_version AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF company_id, domain_id, group_id, member_type, member_id ON group_members FOR EACH STATEMENT EXECUTE FUNCTION bump_rights_version();
DROP TRIGGER IF EXISTS groups_rights_version ON groups;
CREATE TRIGGER groups_rights_version AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, status, company_id, domain_id ON groups FOR EACH STATEMENT EXECUTE FUNCTION bump_rights_version();
DROP TRIGGER IF EXISTS companies_rights_version ON companies;
CREATE TRIGGER companies_rights_version AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, parent, ancestors ON companies FOR EACH STATEMENT EXECUTE FUNCTION bump_rights_version();

-- api_check (migration 23) with the roles found before: p_known is the version they were found at
-- (-1: none). '=' after 'ok' means they still hold; else 'ok', 'v:<version>' and the roles now.
CREATE OR REPLACE FUNCTION api_check_known(p_grant text, p_company text, p_domain text, p_user text, p_target_company text, p_target_domain text, p_known bigint)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_held text[];
  v_version bigint := (SELECT version FROM rights_version WHERE id);
BEGIN
  IF NOT coalesce((SELECT g.revoked_at IS NULL FROM oauth_grants g WHERE g.id = p_grant), false)
     OR NOT coalesce((SELECT u.status = 'active' AND u.blocked_at IS NULL FROM users u WHERE u.company_id = p_company AND u.domain_id = p_domain AND u.id = p_user), false) THEN
    RETURN '{revoked}';
  END IF;
  IF p_target_company IS NOT NULL
     AND NOT coalesce((SELECT p_company = ANY (c.ancestors) FROM companies c WHERE c.id = p_target_company), false) THEN
    RETURN '{company}';
  END IF;
  IF p_target_domain IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.company_id = p_target_company AND d.id = p_target_domain) THEN
    RETURN '{domain}';
  END IF;
  IF p_known = v_version THEN
    RETURN ARRAY['ok', '='];
  END IF;
  v_held := held_roles(p_company, p_domain, p_user, p_target_company, p_target_domain);
  IF cardinality(v_held) = 0 AND NOT holds_console_role(p_company, p_domain, p_user) THEN
    RETURN '{revoked}';
  END IF;
  RETURN ARRAY['ok', 'v:' || v_version] || v_held;
END $$;
`,
  },
  {
    id: 35,
    name: "sign-in events: several_organizations, a console sign-in whose password proved accounts in several organizations",
    sql: `
-- The console's sign-in naming no organization whose password proves accounts in several
-- organizations asks which (server/oauth/organizationSearch.ts): one event per account proved, in
-- its organization, so that attempt is on record like every other (docs/CONSOLE.md, "Sign-ins and rights").
ALTER TABLE signin_events DROP CONSTRAINT IF EXISTS signin_events_outcome_check;
ALTER TABLE signin_events ADD CONSTRAINT signin_events_outcome_check CHECK (outcome IN ('success', 'wrong_password',
  'unknown_user', 'throttled', 'bad_client', 'bad_redirect_uri', 'bad_pkce', 'code_reused', 'bad_code', 'consent_denied',
  'refresh_reuse', 'blocked', 'second_factor_failed', 'several_organizations'));
`,
  },
  {
    id: 36,
    name: "account page opened from the console: its session is tied to the console's sign-in",
    sql: `
-- The account page opened from the console (server/mfa/account.ts, POST /account/console) takes the
-- console's sign-in (its grant) instead of a second password: its session names that grant, and ends
-- when the grant does (the console's Sign out, a session revoked, everything that revokes sign-ins).
-- NULL for the sessions opened with a password on the account page itself.
ALTER TABLE account_sessions ADD COLUMN IF NOT EXISTS grant_id text REFERENCES oauth_grants (id) ON DELETE CASCADE;
`,
  },
  {
    id: 37,
    name: "the provider's browser sessions end with her other sign-ins",
    sql: `
-- The provider's own browser session (oidc-provider's Session, a row of oidc_payloads, the
-- iam_session cookie) signed a person in to hosted applications again without a password after
-- Sign out everywhere or a new password: revoking her grants left it, and the next authorization
-- request made a new grant from it. It now ends exactly when her account page sessions do (migration
-- 32's triggers: a new password however set, a block or a soft delete, Sign out everywhere, a reset
-- of her factors); the browser then gets the sign-in form. Its account is her subject, unique in the
-- whole provider, read from her row by company, domain and id.
CREATE INDEX IF NOT EXISTS oidc_payloads_session_account ON oidc_payloads ((payload->>'accountId')) WHERE model = 'Session';
CREATE OR REPLACE FUNCTION end_account_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- (two statements: a record's fields are looked up when a statement runs, and the tables differ)
  IF TG_TABLE_NAME = 'users' THEN
    DELETE FROM account_sessions s WHERE s.company_id = NEW.company_id AND s.domain_id = NEW.domain_id AND s.user_id = NEW.id;
    DELETE FROM oidc_payloads p WHERE p.model = 'Session' AND p.payload->>'accountId' = NEW.subject;
  ELSE
    DELETE FROM account_sessions s WHERE s.company_id = NEW.company_id AND s.domain_id = NEW.domain_id AND s.user_id = NEW.resource_id;
    DELETE FROM oidc_payloads p WHERE p.model = 'Session' AND p.payload->>'accountId' =
      (SELECT u.subject FROM users u WHERE u.company_id = NEW.company_id AND u.domain_id = NEW.domain_id AND u.id = NEW.resource_id);
  END IF;
  RETURN NULL;
END $$;
`,
  },
  {
    id: 38,
    name: 'upstream identity providers: connections per domain, claimed e-mail domains, linked identities, upstream flows, SAML assertions seen',
    sql: `
-- A connection to an upstream identity provider (OpenID Connect, OAuth 2 with a user API, SAML 2.0),
-- declared on a domain: the people it signs in are that domain's users (docs/CONSOLE.md,
-- "Connections"). settings holds what is not secret (issuer or discovery URL, client id, scopes,
-- claim mapping, the IdP's SAML metadata); secret holds the client secret or private key, sealed
-- with the authenticator secrets' key (server/accounts/factors.ts encryptSecret), never returned.
CREATE TABLE IF NOT EXISTS connections (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  display_name text NOT NULL,
  protocol text NOT NULL CHECK (protocol IN ('oidc', 'oauth2', 'saml')),
  preset text NOT NULL DEFAULT 'custom' CHECK (preset IN ('custom', 'google', 'entra', 'github', 'apple', 'okta')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  enabled boolean NOT NULL DEFAULT true,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  secret text,
  -- the IdP's email_verified is believed (else every address it gives is unverified here)
  trust_email boolean NOT NULL DEFAULT false,
  -- the IdP's multi-factor sign-in (amr mfa/otp/hwk..., or its acr) stands for the domain's second factor
  mfa_from_idp boolean NOT NULL DEFAULT false,
  -- offered on the sign-in of the domains of the company's subtree too (a reseller's shared connection)
  shared_with_subtree boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);

-- An e-mail domain (the part after @, lower-case) whose addresses a connection signs in, claimed by
-- the company: routed to the connection only once verified (a DNS TXT record with the token, or an
-- administrator's confirmation). One claim per domain's sign-in: who types such an address there
-- is sent to that one IdP.
CREATE TABLE IF NOT EXISTS connection_email_domains (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  email_domain text NOT NULL CHECK (email_domain = lower(email_domain)),
  connection_id text NOT NULL,
  verification_token text NOT NULL,
  verified_at timestamptz,
  verified_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, domain_id, email_domain),
  FOREIGN KEY (company_id, domain_id, connection_id) REFERENCES connections (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS connection_email_domains_by_connection ON connection_email_domains (company_id, domain_id, connection_id);

-- A person's account at an upstream IdP, linked to her account here: (the connection, the IdP's
-- subject) names one user, of the user's own company and domain. The connection is named by its
-- company, domain and id (a shared connection may be a reseller's); nothing is matched by subject alone.
CREATE TABLE IF NOT EXISTS user_identities (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  user_id text NOT NULL,
  connection_company_id text NOT NULL,
  connection_domain_id text NOT NULL,
  connection_id text NOT NULL,
  subject text NOT NULL,
  email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  PRIMARY KEY (company_id, domain_id, connection_company_id, connection_domain_id, connection_id, subject),
  FOREIGN KEY (company_id, domain_id, user_id) REFERENCES users (company_id, domain_id, id) ON DELETE CASCADE,
  FOREIGN KEY (connection_company_id, connection_domain_id, connection_id) REFERENCES connections (company_id, domain_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS user_identities_by_user ON user_identities (company_id, domain_id, user_id);
CREATE INDEX IF NOT EXISTS user_identities_by_connection ON user_identities (connection_company_id, connection_domain_id, connection_id);

-- A sign-in sent to an upstream IdP, until it comes back: found by the hash of its state, used
-- once (deleted when it comes back), five minutes. payload: nonce, PKCE verifier, the SAML request
-- id, where the sign-in returns (a hosted interaction, the console's sign-in, a test, a link).
CREATE TABLE IF NOT EXISTS upstream_flows (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  domain_id text NOT NULL,
  connection_id text NOT NULL,
  purpose text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS upstream_flows_expiry ON upstream_flows (expires_at);

-- Each SAML assertion is used once: its id (with the connection) kept until it would have expired anyway.
CREATE TABLE IF NOT EXISTS saml_assertions_seen (
  id text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS saml_assertions_seen_expiry ON saml_assertions_seen (expires_at);

-- Which connection a sign-in came through (the sign-in logs and the user's History show it).
ALTER TABLE signin_events ADD COLUMN IF NOT EXISTS connection_id text;
ALTER TABLE signin_events DROP CONSTRAINT IF EXISTS signin_events_outcome_check;
ALTER TABLE signin_events ADD CONSTRAINT signin_events_outcome_check CHECK (outcome IN ('success', 'wrong_password',
  'unknown_user', 'throttled', 'bad_client', 'bad_redirect_uri', 'bad_pkce', 'code_reused', 'bad_code', 'consent_denied',
  'refresh_reuse', 'blocked', 'second_factor_failed', 'several_organizations', 'upstream_failed', 'upstream_not_linked'));
`,
  },
  {
    id: 39,
    name: "account tokens: the e-mailed proof of an account before an upstream identity is linked to it ('link-identity')",
    sql: `
-- A person whose upstream identity names an existing account's address proves that account by its
-- password or by a link e-mailed to its address (docs/CONSOLE.md, "Connections"): that link is an
-- account token of its own purpose, single use, 15 minutes.
ALTER TABLE account_tokens DROP CONSTRAINT IF EXISTS account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check CHECK (purpose IN ('reset', 'invite', 'verify', 'link-identity'));
`,
  },
  {
    id: 40,
    name: 'moving in: import and export jobs of a domain\'s users, SCIM provisioning (tokens, calls, external ids and attributes)',
    sql: `
-- The id a provisioning client (SCIM's externalId) or a migration file knows a user or group by.
ALTER TABLE users ADD COLUMN IF NOT EXISTS external_id text;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS external_id text;
CREATE INDEX IF NOT EXISTS users_external_id ON users (company_id, domain_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS groups_external_id ON groups (company_id, domain_id, external_id) WHERE external_id IS NOT NULL;
-- SCIM attributes that have no column here (name parts, phone numbers, the enterprise extension...),
-- kept as the provisioning client sent them and given back to it (docs/CONSOLE.md, "Provisioning").
ALTER TABLE users ADD COLUMN IF NOT EXISTS scim_attributes jsonb;

-- An import or export of a domain's users (docs/CONSOLE.md, "Import and export"): a job that runs in
-- the background on one server process at a time (lease_until), and after a restart goes on from
-- the last committed row (rows_read counts what is committed).
CREATE TABLE IF NOT EXISTS user_jobs (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('import', 'export')),
  status text NOT NULL CHECK (status IN ('uploading', 'queued', 'running', 'done', 'failed', 'cancelled')),
  -- format, dry run, upsert key, column mapping, groups, password hashes...
  options jsonb NOT NULL DEFAULT '{}'::jsonb,
  rows_read bigint NOT NULL DEFAULT 0,
  created bigint NOT NULL DEFAULT 0,
  updated bigint NOT NULL DEFAULT 0,
  skipped bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  -- bytes of the file received (an import) or written (an export)
  bytes bigint NOT NULL DEFAULT 0,
  error text,
  created_by jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  lease_owner text,
  lease_until timestamptz,
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS user_jobs_by_time ON user_jobs (company_id, domain_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS user_jobs_waiting ON user_jobs (lease_until) WHERE status IN ('queued', 'running');

-- A job's file in pieces, as it streams: the uploaded file of an import ('input'), the file an
-- export writes ('output'). Kept in the database so that any server process can go on with it.
CREATE TABLE IF NOT EXISTS user_job_chunks (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  job_id text NOT NULL,
  part text NOT NULL CHECK (part IN ('input', 'output')),
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (company_id, domain_id, job_id, part, seq),
  FOREIGN KEY (company_id, domain_id, job_id) REFERENCES user_jobs (company_id, domain_id, id) ON DELETE CASCADE
);

-- An import's refused rows: the error report to download.
CREATE TABLE IF NOT EXISTS user_job_errors (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  job_id text NOT NULL,
  row_number bigint NOT NULL,
  field text,
  message text NOT NULL,
  PRIMARY KEY (company_id, domain_id, job_id, row_number),
  FOREIGN KEY (company_id, domain_id, job_id) REFERENCES user_jobs (company_id, domain_id, id) ON DELETE CASCADE
);

-- A long-lived SCIM token of one domain: shown once, kept as its SHA-256, revocable.
CREATE TABLE IF NOT EXISTS scim_tokens (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_by jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);

-- The last calls of a domain's provisioning clients (its Provisioning tab), trimmed to the newest few hundred.
CREATE TABLE IF NOT EXISTS scim_calls (
  company_id text NOT NULL,
  domain_id text NOT NULL,
  id text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  method text NOT NULL,
  path text NOT NULL,
  status integer NOT NULL,
  token_id text,
  client_id text,
  detail text,
  PRIMARY KEY (company_id, domain_id, id),
  FOREIGN KEY (company_id, domain_id) REFERENCES domains (company_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS scim_calls_by_time ON scim_calls (company_id, domain_id, at DESC);
`,
  },
  {
    id: 43,
    name: 'a password re-hashed at sign-in ends no session',
    sql: `
-- A password re-hashed at sign-in (server/accounts/importedHashes.ts: an imported form replaced by
-- the provider's bcrypt of the password just proved) is no new password: it ends none of her account
-- page's sessions. The transaction that re-hashes says so (iam.rehash); any other change of the hash
-- ends them as before (migration 32).
DROP TRIGGER IF EXISTS users_end_account_sessions ON users;
CREATE TRIGGER users_end_account_sessions AFTER UPDATE OF password_hash, blocked_at, status ON users FOR EACH ROW
  WHEN ((NEW.password_hash IS DISTINCT FROM OLD.password_hash AND current_setting('iam.rehash', true) IS DISTINCT FROM 'on')
        OR (NEW.blocked_at IS NOT NULL AND OLD.blocked_at IS NULL)
        OR (NEW.status = 'deleted' AND OLD.status <> 'deleted'))
  EXECUTE FUNCTION end_account_sessions();
`,
  },
  {
    id: 42,
    name: 'SCIM: an application of the domain allowed to provision by client credentials',
    sql: `
-- An application allowed to call its domain's SCIM server with client-credentials access tokens
-- (docs/CONSOLE.md, "Provisioning (SCIM)"): a scim_tokens row that names the application instead
-- of holding a token's hash, made and revoked by scim:write like a token. Without it, an access
-- token for the SCIM base URL is refused: whoever may register APIs and applications (apis:write,
-- applications:write) must not gain the right to provision users by that alone.
ALTER TABLE scim_tokens ADD COLUMN IF NOT EXISTS client_id text;
ALTER TABLE scim_tokens ALTER COLUMN token_hash DROP NOT NULL;
ALTER TABLE scim_tokens ADD CONSTRAINT scim_tokens_token_or_client CHECK ((token_hash IS NULL) <> (client_id IS NULL));
CREATE INDEX IF NOT EXISTS scim_tokens_client ON scim_tokens (company_id, domain_id, client_id) WHERE client_id IS NOT NULL AND revoked_at IS NULL;
`,
  },
  {
    id: 44,
    name: 'resellers: branding per company (inherited down the tree), e-mail templates per company and language, languages of a domain and of a person',
    sql: `
-- A company's branding (docs/CONSOLE.md, "Branding"): what its people and its customers' people see
-- on the hosted pages, in e-mails and in the console. Each field left null is inherited from the
-- nearest ancestor that sets it (a customer without its own shows its reseller's). The logo and icon
-- are kept here (bytes and media type, size-checked, never SVG unless sanitised) and served by the
-- provider with their own cache headers.
CREATE TABLE IF NOT EXISTS company_branding (
  company_id text PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
  display_name text,
  logo bytea,
  logo_type text,
  icon bytea,
  icon_type text,
  -- colours: #rrggbb, for the light and the dark theme
  primary_light text,
  background_light text,
  primary_dark text,
  background_dark text,
  support_email text,
  support_url text,
  -- changes with every write: the logo's and icon's addresses carry it, so caches may keep them long
  version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A company's own subject and body of one e-mail (reset, invitation, verification, notice) in one
-- language; without one, the ancestor's, then the provider's default.
CREATE TABLE IF NOT EXISTS email_templates (
  company_id text NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  kind text NOT NULL,
  language text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, kind, language)
);

-- The languages a domain offers on its hosted pages and e-mails, and its default (null: all, English).
ALTER TABLE domains ADD COLUMN IF NOT EXISTS languages text[];
ALTER TABLE domains ADD COLUMN IF NOT EXISTS default_language text;
-- A person's own language (her account page, or the console's language menu): her pages and e-mails use it.
ALTER TABLE users ADD COLUMN IF NOT EXISTS language text;
`,
  },
];

export async function migrate(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    // IF NOT EXISTS is no guard against a second server creating the table at the same moment
    // (a unique violation in the catalog): instances starting together take turns here too.
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(4242001)');
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  });
  for (const migration of migrations) {
    await db.transaction(async (tx) => {
      // Two servers starting together on one PostgreSQL must not both apply a migration.
      if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(4242001)');
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE id = $1', [migration.id]);
      if (done.rowCount > 0) return;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
    });
  }
}
