import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from './helpers.js';

/**
 * The plans of the very statements the list API runs (recorded as it sends them), on a table just
 * bulk-loaded (never analyzed: the planner has no statistics) and again after ANALYZE: lists must
 * use their intended index in both states (docs/PERFORMANCE.md, "How lists stay fast"). Before
 * migration 11 a fresh table's deferred join looked rows up through users_email and read the whole
 * domain for each row.
 */

const USERS = 20_000;
const GROUPS = 20_000;
const onPostgres = Boolean(process.env.DATABASE_URL);

let server: TestServer;
let recording: { text: string; params: unknown[] }[] | undefined;

beforeAll(async () => {
  server = await startServer();
  const { db } = server;
  // the fresh state must last the whole test: no autovacuum analyzing behind its back
  if (onPostgres) for (const table of ['users', 'groups']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await db.query(`INSERT INTO domains (company_id, id, name) VALUES ('root', 'plans', 'plans')`);
  await db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, status)
     SELECT 'root', 'plans', 'u' || i, 'user' || i, 'User ' || (i * 7919 % $1), 'user' || i || '@plans.example',
            CASE WHEN i % 20 = 0 THEN 'deleted' ELSE 'active' END
     FROM generate_series(1, $1::int) AS i`,
    [USERS],
  );
  await db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email)
     SELECT 'root', 'plans', 'g' || i, 'group' || i, 'Group ' || (i * 7919 % $1), 'group' || i || '@plans.example'
     FROM generate_series(1, $1::int) AS i`,
    [GROUPS],
  );
  const query = db.query.bind(db);
  db.query = (text: string, params: unknown[] = []) => {
    recording?.push({ text, params });
    return query(text, params);
  };
});
afterAll(() => server?.close());

const base = '/api/companys/root/domainNames/plans';
const half = Math.floor((USERS * 0.95) / 2);
const cases: Record<string, string> = {
  'users, first page': `${base}/users?range=[0,24]&sort=["displayName","ASC"]&condition=status,!=,deleted`,
  'users, deep page': `${base}/users?range=[${half},${half + 24}]&sort=["displayName","ASC"]&condition=status,!=,deleted`,
  'users, deep page descending': `${base}/users?range=[${half / 2},${half / 2 + 24}]&sort=["displayName","DESC"]&condition=status,!=,deleted`,
  'users, deleted': `${base}/users?range=[0,24]&sort=["displayName","ASC"]&condition=status,=,deleted`,
  'users, deep page by username': `${base}/users?range=[${half},${half + 24}]&sort=["username","ASC"]&condition=status,!=,deleted`,
  'groups, deep page': `${base}/groups?range=[${GROUPS / 2},${GROUPS / 2 + 24}]&sort=["displayName","ASC"]&condition=status,!=,deleted`,
  'users, search': `${base}/users?range=[0,24]&filter=${encodeURIComponent(JSON.stringify({ q: 'user4242' }))}&condition=status,!=,deleted`,
};

interface Scan {
  node: string;
  table: string;
  alias: string;
  index?: string;
}

/** Every scan of a table in a plan (JSON form), with its index. */
function scans(plan: Record<string, unknown>, out: Scan[] = []): Scan[] {
  if (typeof plan['Relation Name'] === 'string' || typeof plan['Index Name'] === 'string') {
    out.push({ node: plan['Node Type'] as string, table: plan['Relation Name'] as string, alias: plan.Alias as string, index: plan['Index Name'] as string | undefined });
  }
  for (const child of (plan.Plans as Record<string, unknown>[] | undefined) ?? []) scans(child, out);
  for (const value of Object.values(plan)) if (value && typeof value === 'object' && !Array.isArray(value)) scans(value as Record<string, unknown>, out);
  return out;
}

/** The page statement a list call sends (the other one is the total), and its plan's scans. */
async function pagePlan(url: string): Promise<Scan[]> {
  recording = [];
  const res = await call(server, server.adminToken, 'GET', url);
  const recorded = recording;
  recording = undefined;
  expect(res.status).toBe(200);
  const pages = recorded.filter((statement) => !/ AS total\b/.test(statement.text) && !/^EXPLAIN/.test(statement.text));
  expect(pages).toHaveLength(1);
  const { rows } = await server.db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${pages[0].text}`, pages[0].params);
  const plan = rows[0]['QUERY PLAN'];
  const json = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Record<string, unknown> }[];
  return scans(json[0].Plan);
}

const describeScans = (found: Scan[]) => found.map((scan) => [scan.node, scan.table, scan.alias, scan.index].filter(Boolean).join(' '));

/**
 * What each list's page must use, by table alias: t is the statement's outer table (the page's rows),
 * t_1 the deferred join's walk of the keys.
 *
 * Lookups by key use the primary key whatever the statistics: since migration 11 it is the only
 * index a lookup by id can use. Where a page starts, which index gives its order, needs statistics:
 * without them the planner takes "company_id = x AND domain_id = y" for about one row, and then the
 * primary key plus a sort costs the same as the list's own index (the cheaper by a hair, depending
 * on the indexes' sizes). Maintenance analyzes a table within seconds of a bulk change (PGlite and
 * PostgreSQL alike, server/db/maintenance.ts), so that state does not last.
 */
const lookups: Record<string, Record<string, string>> = {
  'users, deep page': { t: 'users_pkey' },
  'users, deep page descending': { t: 'users_pkey' },
  'users, deep page by username': { t: 'users_pkey' },
  'groups, deep page': { t: 'groups_pkey' },
};
const withStatistics: Record<string, Record<string, string>> = {
  'users, first page': { t: 'users_live_by_name' },
  'users, deep page': { t_1: 'users_live_by_name' },
  'users, deep page descending': { t_1: 'users_live_by_name' },
  'users, deleted': { t: 'users_deleted_by_name' },
  'groups, deep page': { t_1: 'groups_live_by_name' },
};

/** Indexes that lead with the name or email (migration 11), never the way to a row by its id. */
const WRONG = ['users_email', 'users_username', 'groups_name'];

async function checkPlans(analyzed: boolean) {
  const plans: Record<string, Scan[]> = {};
  for (const [name, url] of Object.entries(cases)) plans[name] = await pagePlan(url);
  for (const [name, found] of Object.entries(plans)) {
    const table = name.split(',')[0];
    const context = `${name}: ${describeScans(found).join(' | ')}`;
    const expected = { ...lookups[name], ...(analyzed ? withStatistics[name] : {}) };
    for (const [alias, index] of Object.entries(expected)) {
      const scan = found.find((candidate) => candidate.table === table && candidate.alias === alias);
      expect(scan?.index, context).toBe(index);
      // a lookup reads the rows; a walk of the keys may stay in the index
      expect(scan?.node, context).toMatch(index.endsWith('_pkey') ? /^Index Scan$/ : /^Index (Only )?Scan$/);
    }
    expect(found.filter((scan) => WRONG.includes(scan.index ?? '')), context).toEqual([]);
  }
  return plans;
}

describe('list plans', () => {
  it('look rows up by primary key on a freshly bulk-loaded table (no statistics yet)', async () => {
    const { rows } = await server.db.query<{ relname: string; reltuples: number }>(
      `SELECT relname, reltuples::float8 AS reltuples FROM pg_class WHERE relname IN ('users', 'groups')`,
    );
    expect(rows.map((row) => row.reltuples)).toEqual([-1, -1]); // never analyzed
    await checkPlans(false);
  });

  it('use the intended indexes after ANALYZE', async () => {
    await server.db.exec('ANALYZE users');
    await server.db.exec('ANALYZE groups');
    await checkPlans(true);
  });

  it('use the intended indexes after VACUUM, and a search of a rare term takes the trigram index', async () => {
    // the rest of what maintenance does after bulk writes (server/db/maintenance.ts; autovacuum on PostgreSQL)
    await server.db.exec('VACUUM users');
    await server.db.exec('VACUUM groups');
    const plans = await checkPlans(true);
    expect(plans['users, search'].map((scan) => scan.index)).toContain('users_search');
  });
});
