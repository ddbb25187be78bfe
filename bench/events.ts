/**
 * `npm run bench -- --parts events [--events N]`: the audit trail's and the sign-in events' lists at
 * scale. Loads N audit records and N sign-in events (default 1,000,000 each; `--large`: 10,000,000)
 * with INSERT ... SELECT generate_series into the real schema (every index in place, as rows arrive
 * in production), then times list calls through the HTTP API with an administrator of the large
 * tenant: right after the load (no statistics, no visibility map), after the server's maintenance
 * (ANALYZE on PostgreSQL; VACUUM and ANALYZE per table on PGlite) and, on PostgreSQL, after the VACUUM
 * autovacuum does in its own time. A call over 50 ms p95 prints the plans of the statements it ran.
 *
 * The data: 7 companies; `acme` holds 85% of the audit records (90% in its domain acme-main) and
 * acme-main 80% of the sign-ins, the rest spread over co1..co6. Audit records over a year, one
 * after the other in time as they are written, by 2,000 actors (a few busy, most occasional), on
 * every resource type with each type's actions (`update` common, `recover` about 1 in 2,000); 200,000
 * users, 2,000 groups, 200 applications. Sign-ins over 90 days (the default retention), 20,000
 * users, 24 applications, 90% successes and every failure outcome (`bad_pkce` about 1 in 2,000).
 */
import type { Database } from '../server/db/index.js';
import { startMaintenance } from '../server/db/maintenance.js';
import { describeWriteCost, measureWriteCost, prepareWriteMix, WRITE_COST_HEADER } from './auditCost.js';
import { apiTimer, createTenant, percentile, startBenchServer, type BenchServer } from './common.js';

interface Recorded {
  text: string;
  params: unknown[];
}

const DAY = 86_400_000;
const TARGET_MS = 50;

/** A uniform number in [0, 1) from row number i and a seed: deterministic, the same on PGlite and PostgreSQL. */
const r = (seed: number) => `abs(hashint8extended(i, ${seed})::float8) / 9223372036854775808.0`;

/** audit_events rows i in [$1, $2]: row $4 at time $3, the $5 rows from $4 on spread over $6 seconds. */
const AUDIT_SQL = `
INSERT INTO audit_events (occurred_at, company_id, domain_id, resource_type, resource_id, action, changes,
                          actor_user_id, actor_company_id, actor_domain_id, actor_client_id, actor_ip)
SELECT $3::timestamptz + ((i - $4)::float8 / $5::float8) * $6::float8 * interval '1 second',
       company,
       CASE WHEN type = 'companies' THEN NULL WHEN company = 'acme' AND r5 < 0.1 THEN 'acme-staff' ELSE company || '-main' END,
       type,
       CASE type WHEN 'users' THEN 'u' || floor(r2 * 200000)::int WHEN 'groups' THEN 'g' || floor(r2 * 2000)::int
                 WHEN 'applications' THEN 'app' || floor(r2 * 200)::int WHEN 'apis' THEN 'api' || floor(r2 * 100)::int
                 WHEN 'domains' THEN 'd' || floor(r2 * 20)::int ELSE 'c' || floor(r2 * 50)::int END,
       action,
       jsonb_build_object(CASE WHEN action LIKE '%Member' THEN 'member' WHEN action LIKE '%Scope' THEN 'scope' ELSE 'display_name' END,
                          jsonb_build_object('before', 'Name ' || (i % 9973), 'after', 'Name ' || (i % 9967))),
       'a' || CASE WHEN company = 'acme' THEN floor(2000 * r4 * r4)::int ELSE floor(100 * r4)::int END,
       company, company || '-main', 'iam-console', '10.' || (i % 200) || '.' || (i % 199) || '.' || (i % 197)
FROM (
  SELECT i, company, type, r2, r4, r5,
         CASE type
           WHEN 'users' THEN CASE WHEN r3 < 0.10 THEN 'create' WHEN r3 < 0.90 THEN 'update' WHEN r3 < 0.97 THEN 'delete' WHEN r3 < 0.9995 THEN 'purge' ELSE 'recover' END
           WHEN 'groups' THEN CASE WHEN r3 < 0.03 THEN 'create' WHEN r3 < 0.23 THEN 'update' WHEN r3 < 0.68 THEN 'addMember' WHEN r3 < 0.93 THEN 'removeMember'
                                   WHEN r3 < 0.97 THEN 'addPermission' WHEN r3 < 0.99 THEN 'removePermission' ELSE 'delete' END
           WHEN 'applications' THEN CASE WHEN r3 < 0.05 THEN 'create' WHEN r3 < 0.85 THEN 'update' WHEN r3 < 0.99 THEN 'rotateSecret' ELSE 'delete' END
           WHEN 'apis' THEN CASE WHEN r3 < 0.05 THEN 'create' WHEN r3 < 0.45 THEN 'update' WHEN r3 < 0.75 THEN 'addScope' WHEN r3 < 0.90 THEN 'updateScope' ELSE 'removeScope' END
           WHEN 'domains' THEN CASE WHEN r3 < 0.10 THEN 'create' WHEN r3 < 0.90 THEN 'update' WHEN r3 < 0.95 THEN 'setPrimary' ELSE 'delete' END
           ELSE CASE WHEN r3 < 0.20 THEN 'create' WHEN r3 < 0.95 THEN 'update' ELSE 'delete' END
         END AS action
  FROM (
    SELECT i, r2, r3, r4, r5,
           CASE WHEN r0 < 0.85 THEN 'acme' ELSE 'co' || (1 + floor((r0 - 0.85) / 0.025))::int END AS company,
           CASE WHEN r1 < 0.55 THEN 'users' WHEN r1 < 0.75 THEN 'groups' WHEN r1 < 0.85 THEN 'applications'
                WHEN r1 < 0.91 THEN 'apis' WHEN r1 < 0.96 THEN 'domains' ELSE 'companies' END AS type
    FROM (SELECT i, ${r(0)} AS r0, ${r(1)} AS r1, ${r(2)} AS r2, ${r(3)} AS r3, ${r(4)} AS r4, ${r(5)} AS r5
          FROM generate_series($1::bigint, $2::bigint) AS i) g
  ) h
) x`;

const OUTCOMES: [string, number][] = [
  ['success', 0.9],
  ['wrong_password', 0.06],
  ['unknown_user', 0.02],
  ['throttled', 0.008],
  ['consent_denied', 0.004],
  ['bad_client', 0.003],
  ['bad_redirect_uri', 0.002],
  ['bad_code', 0.001],
  ['code_reused', 0.001],
  ['refresh_reuse', 0.0005],
  ['bad_pkce', 0.0005],
];
const outcomeCase = (() => {
  let sum = 0;
  const arms = OUTCOMES.slice(0, -1).map(([outcome, share]) => `WHEN r3 < ${(sum += share).toFixed(4)} THEN '${outcome}'`);
  return `CASE ${arms.join(' ')} ELSE '${OUTCOMES[OUTCOMES.length - 1][0]}' END`;
})();

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'okhttp/4.12.0',
];

/** signin_events rows as AUDIT_SQL's; $7 the user agents. */
const SIGNIN_SQL = `
INSERT INTO signin_events (occurred_at, company_id, domain_id, client_id, user_id, login, outcome, detail, ip, user_agent)
SELECT $3::timestamptz + ((i - $4)::float8 / $5::float8) * $6::float8 * interval '1 second',
       company, domain, client,
       CASE WHEN outcome IN ('unknown_user', 'bad_client', 'bad_redirect_uri') THEN NULL ELSE person END,
       CASE WHEN outcome IN ('bad_client', 'bad_redirect_uri', 'bad_code', 'code_reused', 'refresh_reuse', 'bad_pkce') THEN NULL
            WHEN outcome = 'unknown_user' THEN 'nobody' || (i % 5000) || '@' || company || '.example'
            ELSE person || '@' || company || '.example' END,
       outcome,
       CASE WHEN outcome = 'success' AND r5 < 0.02 THEN 'consent asked' END,
       '10.' || (i % 200) || '.' || (i % 199) || '.' || (i % 197),
       ($7::text[])[1 + floor(r5 * 4)::int]
FROM (
  SELECT i, r5,
         CASE WHEN r0 < 0.85 THEN 'acme' ELSE 'co' || (1 + floor((r0 - 0.85) / 0.025))::int END AS company,
         CASE WHEN r0 < 0.80 THEN 'acme-main' WHEN r0 < 0.85 THEN 'acme-staff' ELSE 'co' || (1 + floor((r0 - 0.85) / 0.025))::int || '-main' END AS domain,
         CASE WHEN r1 < 0.45 THEN 'shop' WHEN r1 < 0.70 THEN 'mobile' WHEN r1 < 0.80 THEN 'iam-console'
              ELSE 'app' || (1 + floor((r1 - 0.80) * 100))::int END AS client,
         'u' || CASE WHEN r0 < 0.80 THEN floor(20000 * r2 * sqrt(r2))::int ELSE floor(3000 * r2)::int END AS person,
         ${outcomeCase} AS outcome
  FROM (SELECT i, ${r(10)} AS r0, ${r(11)} AS r1, ${r(12)} AS r2, ${r(13)} AS r3, ${r(15)} AS r5
        FROM generate_series($1::bigint, $2::bigint) AS i) g
) x`;

/**
 * Rows first .. first + count - 1 of `sql` in statements of 500,000, their times spread evenly from
 * `start` over `days` days; seconds taken.
 */
async function load(db: Database, what: string, sql: string, rows: { first: number; count: number; start: Date; days: number }, extra: unknown[] = []) {
  const started = Date.now();
  const batch = 500_000;
  const last = rows.first + rows.count - 1;
  for (let from = rows.first; from <= last; from += batch) {
    const to = Math.min(last, from + batch - 1);
    await db.query(sql, [from, to, rows.start.toISOString(), rows.first, rows.count, rows.days * 86_400, ...extra]);
    const seconds = (Date.now() - started) / 1000;
    const done = to - rows.first + 1;
    process.stdout.write(`  ${what}: ${done.toLocaleString('en')} rows, ${seconds.toFixed(0)} s (${Math.round(done / seconds).toLocaleString('en')}/s)\r`);
  }
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write('\n');
  return seconds;
}

const COMPANIES = ['acme', 'co1', 'co2', 'co3', 'co4', 'co5', 'co6'];

/** The indexes (or sequential scans) a statement's plan reads the events with. */
async function planReads(query: Database['query'], statement: Recorded): Promise<string> {
  const { rows } = await query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.params);
  const plan = rows[0]['QUERY PLAN'];
  const reads: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (typeof node['Index Name'] === 'string' && /events/.test(node['Index Name'])) reads.push(`${node['Node Type'] === 'Index Only Scan' ? 'only ' : ''}${node['Index Name']}`);
    else if (node['Node Type'] === 'Seq Scan' && /events/.test(node['Relation Name'] as string)) reads.push(`seq ${node['Relation Name']}`);
    else if (node['Node Type'] === 'Bitmap Index Scan') reads.push(`bitmap ${node['Index Name']}`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(((typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Record<string, unknown> }[])[0].Plan);
  return reads.join(' + ');
}

/** The tenants and rows of the benchmark (on PostgreSQL with autovacuum off for both tables); seconds each load took. */
export async function loadEvents(db: Database, rows: number, auditStart: Date, signInStart: Date) {
  for (const company of COMPANIES) await createTenant(db, company, company === 'acme' ? ['acme-main', 'acme-staff'] : [`${company}-main`]);
  // the first state measured is the one right after the load: autovacuum waits until it is over
  if (db.kind === 'postgres') for (const table of ['audit_events', 'signin_events']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = off)`);
  console.log(`Event lists: loading ${rows.toLocaleString('en')} audit records and ${rows.toLocaleString('en')} sign-in events (every index in place)`);
  const audit = await load(db, 'audit_events', AUDIT_SQL, { first: 1, count: rows, start: auditStart, days: 365 });
  const signIns = await load(db, 'signin_events', SIGNIN_SQL, { first: 1, count: rows, start: signInStart, days: 90 }, [USER_AGENTS]);
  return { audit, signIns };
}

/** The calls timed: [name, path and query]. Values picked from the distribution of AUDIT_SQL and SIGNIN_SQL. */
export function eventCases(auditStart: Date, signInStart: Date): [string, string][] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const filter = (value: Record<string, unknown>) => `filter=${encodeURIComponent(JSON.stringify(value))}`;
  const between = (from: number, to: number) => `condition=${encodeURIComponent(`occurredAt,>=,${iso(from)}`)}&condition=${encodeURIComponent(`occurredAt,<,${iso(to)}`)}`;
  const audit = '/api/companys/acme/auditEvents?';
  const signIns = '/api/companys/acme/domainNames/acme-main/signInEvents?';
  const first = 'range=[0,24]';
  const auditWeek = between(auditStart.getTime() + 180 * DAY, auditStart.getTime() + 187 * DAY);
  const auditDay = between(auditStart.getTime() + 200 * DAY, auditStart.getTime() + 201 * DAY);
  const signInWeek = between(signInStart.getTime() + 40 * DAY, signInStart.getTime() + 47 * DAY);
  const signInDay = between(signInStart.getTime() + 60 * DAY, signInStart.getTime() + 61 * DAY);
  return [
    ['audit: first page', `${audit}${first}`],
    ['audit: page 500-524', `${audit}range=[500,524]`],
    ['audit: resourceType (groups, 20%)', `${audit}${first}&${filter({ resourceType: 'groups' })}`],
    ["audit: resourceType + resourceId (a user's history)", `${audit}${first}&${filter({ resourceType: 'users', resourceId: 'u4242' })}`],
    ['audit: resourceId alone (same user)', `${audit}${first}&${filter({ resourceId: 'u4242' })}`],
    ['audit: action, common (update)', `${audit}${first}&${filter({ action: 'update' })}`],
    ['audit: action, rare (recover)', `${audit}${first}&${filter({ action: 'recover' })}`],
    ['audit: actorUserId (a busy actor)', `${audit}${first}&${filter({ actorUserId: 'a3' })}`],
    ['audit: actorUserId (an occasional actor)', `${audit}${first}&${filter({ actorUserId: 'a1500' })}`],
    ['audit: a week', `${audit}${first}&${auditWeek}`],
    ['audit: a day', `${audit}${first}&${auditDay}`],
    ['audit: actor + a week', `${audit}${first}&${filter({ actorUserId: 'a3' })}&${auditWeek}`],
    ['audit: resourceType + a day', `${audit}${first}&${filter({ resourceType: 'applications' })}&${auditDay}`],
    // filters the API accepts and the console does not offer: no index of their own
    ['audit: domainId (acme-staff, 10%; no index)', `${audit}${first}&${filter({ domainId: 'acme-staff' })}`],
    ['sign-ins: first page', `${signIns}${first}`],
    ['sign-ins: page 500-524', `${signIns}range=[500,524]`],
    ['sign-ins: userId', `${signIns}${first}&${filter({ userId: 'u1000' })}`],
    ['sign-ins: clientId (45%)', `${signIns}${first}&${filter({ clientId: 'shop' })}`],
    ['sign-ins: clientId (1%)', `${signIns}${first}&${filter({ clientId: 'app7' })}`],
    ['sign-ins: outcome, common (success)', `${signIns}${first}&${filter({ outcome: 'success' })}`],
    ['sign-ins: outcome, rare (bad_pkce)', `${signIns}${first}&${filter({ outcome: 'bad_pkce' })}`],
    ['sign-ins: a week', `${signIns}${first}&${signInWeek}`],
    ['sign-ins: a day', `${signIns}${first}&${signInDay}`],
    ['sign-ins: outcome + user (wrong_password)', `${signIns}${first}&${filter({ outcome: 'wrong_password', userId: 'u1000' })}`],
    ['sign-ins: outcome (throttled, 0.8%) + a week', `${signIns}${first}&${filter({ outcome: 'throttled' })}&${signInWeek}`],
  ];
}

/** Milliseconds, 2 decimals under 100, whole above. */
const ms = (value: number) => (value < 100 ? value.toFixed(2) : value.toFixed(0));

/**
 * Times the cases through the API as acme's administrator `boss`: `iterations` calls each after 3
 * warm-ups, or fewer (at least 10) once a case has taken 15 s. Beside the API figures, each
 * statement the call sent, run alone (the median of 5 runs): the total (with the access check it
 * carries) and the page, and the indexes their plans read.
 */
export async function eventLists(server: BenchServer, cases: [string, string][], iterations: number) {
  const { db, base } = server;
  let recording: Recorded[] | undefined;
  const query = db.query.bind(db);
  (db as { query: Database['query'] }).query = (text: string, params: unknown[] = []) => {
    recording?.push({ text, params });
    return query(text, params);
  };
  const token = await server.token({ companyId: 'acme', domainId: 'acme-main', userId: 'boss' });
  const client = apiTimer(token);
  const over: string[] = [];
  const alone = async (statement: Recorded) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await query(statement.text, statement.params);
      times.push(performance.now() - started);
      if (times[0] > 1000) break;
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  };

  async function measure(title: string, state: string) {
    const lines: string[] = [`\n${title}\n`];
    lines.push(`| call | p50 ms | p95 ms | max ms | p95 under ${TARGET_MS} ms | total | total alone ms | page alone ms | page reads | total reads |`);
    lines.push('|---|---|---|---|---|---|---|---|---|---|');
    for (const [name, url] of cases) {
      recording = [];
      const recorded = recording;
      const probeStarted = performance.now();
      const probe = await fetch(base + url, { headers: { authorization: `Bearer ${token}` } });
      if (!probe.ok) throw new Error(`${name}: HTTP ${probe.status} ${await probe.text()}`);
      await probe.arrayBuffer();
      const probeMs = performance.now() - probeStarted;
      recording = undefined;
      const total = probe.headers.get('content-range')?.split('/')[1];
      const countStatement = recorded.find((statement) => / AS total\b/.test(statement.text))!;
      const page = recorded.find((statement) => statement !== countStatement && !/^EXPLAIN/.test(statement.text))!;
      const [pageReads, countReads] = [await planReads(query, page), await planReads(query, countStatement)];
      const [countAlone, pageAlone] = [await alone(countStatement), await alone(page)];
      const samples: number[] = [];
      const started = performance.now();
      let warmups = probeMs > 1000 ? 0 : 3;
      while (samples.length < iterations && (samples.length < 10 || performance.now() - started < 15_000)) {
        samples.push(...(await client.samples(base + url, Math.min(10, iterations - samples.length), warmups)));
        warmups = 0;
      }
      samples.sort((a, b) => a - b);
      const p95 = percentile(samples, 95);
      lines.push(
        `| ${name} | ${ms(percentile(samples, 50))} | ${ms(p95)} | ${ms(samples[samples.length - 1])} | ${p95 < TARGET_MS ? 'yes' : '**NO**'} | ${total} | ${ms(countAlone)} | ${ms(pageAlone)} | ${pageReads} | ${countReads} |`,
      );
      if (p95 >= TARGET_MS) over.push(`${state}: ${name} (${ms(p95)} ms)`);
      if (p95 >= TARGET_MS || process.env.BENCH_EXPLAIN) {
        for (const statement of recorded) {
          // the estimate is a plain EXPLAIN: it plans, it does not run
          const explain = /^EXPLAIN/.test(statement.text) ? statement.text.replace(/^EXPLAIN \(FORMAT JSON\)/, 'EXPLAIN') : `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`;
          const plan = await query(explain, statement.params);
          console.log(`-- ${state}: ${name}\n${explain}\n${plan.rows.map((row) => Object.values(row)[0]).join('\n')}`);
        }
      }
    }
    console.log(lines.join('\n'));
  }
  return {
    measure,
    over,
    query,
    close: () => client.close(),
  };
}

export async function eventsBench({ rows, iterations, auditSeconds }: { rows: number; iterations: number; auditSeconds: number }) {
  const now = Date.now();
  const auditStart = new Date(now - 365 * DAY);
  const signInStart = new Date(now - 90 * DAY);
  const loaded: string[] = [];
  const server = await startBenchServer('iam_bench_events', async (db) => {
    const seconds = await loadEvents(db, rows, auditStart, signInStart);
    await prepareWriteMix(db, 'acme', 'acme-main');
    loaded.push(`audit_events ${seconds.audit.toFixed(0)} s, signin_events ${seconds.signIns.toFixed(0)} s`);
  });
  try {
    const { db } = server;
    const sizes = await db.query<{ name: string; table: string; indexes: string }>(
      `SELECT c.relname AS name, pg_size_pretty(pg_table_size(c.oid)) AS table, pg_size_pretty(pg_indexes_size(c.oid)) AS indexes
       FROM pg_class c WHERE c.relname IN ('audit_events', 'signin_events') ORDER BY 1`,
    );
    console.log(`  loaded in ${loaded[0]}; ${sizes.rows.map((s) => `${s.name} ${s.table} + indexes ${s.indexes}`).join(', ')}`);
    const lists = await eventLists(server, eventCases(auditStart, signInStart), iterations);
    const scale = `${rows.toLocaleString('en')} audit records and ${rows.toLocaleString('en')} sign-in events`;
    await lists.measure(`Event lists, right after a bulk load of ${scale} (no statistics at all: no ANALYZE yet${db.kind === 'postgres' ? ', autovacuum off' : ''})`, 'fresh');

    // The server's own maintenance, as it runs in production, until it has seen to both tables.
    const started = performance.now();
    const steps: string[] = [];
    await new Promise<void>((resolve) => {
      const seen = new Set<string>();
      const stop = startMaintenance(db, {
        firstAfterMs: 0,
        onStep: (step) => {
          steps.push(`${step.sql} ${ms(step.ms)} ms`);
          const table = /^ANALYZE public\.(audit_events|signin_events)$/.exec(step.sql)?.[1];
          if (table) seen.add(table);
          if (seen.size === 2) {
            stop();
            resolve();
          }
        },
      });
    });
    console.log(`\n  the server's maintenance (started after the load) analyzed both tables ${((performance.now() - started) / 1000).toFixed(1)} s after it started: ${steps.join(', ')}`);
    if (db.kind === 'postgres') {
      await lists.measure(`Event lists, ${scale}, after ANALYZE (the server's maintenance; no VACUUM yet)`, 'analyzed');
      for (const table of ['audit_events', 'signin_events']) {
        const vacuumStarted = performance.now();
        await lists.query(`VACUUM ${table}`);
        console.log(`  then autovacuum's part, VACUUM ${table}: ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);
      }
      await lists.measure(`Event lists, ${scale}, after ANALYZE and VACUUM`, 'vacuumed');
    } else {
      await lists.measure(`Event lists, ${scale}, after the server's maintenance (VACUUM and ANALYZE)`, 'maintained');
    }

    // Bulk writes again, just under the server's threshold for a new ANALYZE (50 rows + 10% of the table).
    const more = Math.floor(rows * 0.09);
    console.log(`\nEvent lists: ${more.toLocaleString('en')} more of each, in bulk (9%: the server's maintenance waits for 10%)`);
    // the newest rows: written now, in a few minutes, as an import through the API writes its records
    const recent = { first: rows + 1, count: more, start: new Date(), days: 10 / 1440 };
    await load(db, 'audit_events', AUDIT_SQL, recent);
    await load(db, 'signin_events', SIGNIN_SQL, recent, [USER_AGENTS]);
    await lists.measure(`Event lists, right after ${more.toLocaleString('en')} more of each in bulk (statistics from before them, no VACUUM since)`, 'after more writes');
    console.log(lists.over.length ? `\nOver ${TARGET_MS} ms p95: ${lists.over.join('; ')}` : `\nEvery event list call under ${TARGET_MS} ms p95.`);
    await lists.close();

    // What the audit trail costs writes when its table is this large (bench/auditCost.ts).
    const cost = await measureWriteCost(server, 'acme', 'acme-main', auditSeconds);
    console.log(`\nCost of the audit trail with ${(rows + more).toLocaleString('en')} audit records\n\n${WRITE_COST_HEADER}\n${describeWriteCost(db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite', cost)}`);
  } finally {
    await server.close();
  }
}
