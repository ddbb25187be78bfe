/**
 * `npm run bench -- --parts audit [--audit-seconds N]`: what the audit trail (migration 15) costs
 * writes. A write-heavy mix through the HTTP API (bench/writeMix.mjs: user updates, group members
 * added and removed, application updates; 8 requests at a time, on a thread of its own) with the
 * audit trail on, as it runs in production, and off: the nine audit triggers disabled
 * (ALTER TABLE ... DISABLE TRIGGER, on the benchmark's own database) and no caller named to the
 * transactions (no iam.actor: a plain BEGIN instead of BEGIN with its set_config). After a
 * warm-up round, rounds of N seconds (default 5) alternate on, off, off, on, ...,
 * four of each, so that both meet the same background load; writes per second over all rounds of a
 * state, the cost 1 - on / off and the median of the costs of each pair of neighbouring rounds.
 * On PGlite it runs with DATA_SYNC on (the default: an fsync per commit) and off.
 */
import { Worker } from 'node:worker_threads';
import { transactionSettings, type Database } from '../server/db/index.js';
import { maintainTables } from '../server/db/maintenance.js';
import { createTenant, startBenchServer, type BenchServer } from './common.js';

const TRIGGERS: [string, string][] = [
  ['companies', 'companies_audit'],
  ['domains', 'domains_audit'],
  ['users', 'users_audit'],
  ['groups', 'groups_audit'],
  ['applications', 'applications_audit'],
  ['apis', 'apis_audit'],
  ['group_members', 'group_members_audit'],
  ['group_permissions', 'group_permissions_audit'],
  ['permission_scopes', 'permission_scopes_audit'],
];

const USERS = 2000;
const GROUPS = 50;
const APPLICATIONS = 20;
const CONCURRENCY = 8;

/** The mix's users and groups in `company`'s first domain (bulk SQL, before the server starts). */
export async function prepareWriteMix(db: Database, company: string, domain: string) {
  await db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
     SELECT $1, $2, 'u' || i, 'user' || i, 'User ' || i, 'user' || i || '@' || $1 || '.example' FROM generate_series(1, $3::int) AS i`,
    [company, domain, USERS],
  );
  await db.query(
    `INSERT INTO groups (company_id, domain_id, id, name, display_name, email)
     SELECT $1, $2, 'g' || i, 'group' || i, 'Group ' || i, 'group' || i || '@' || $1 || '.example' FROM generate_series(0, $3::int - 1) AS i`,
    [company, domain, GROUPS],
  );
}

export interface WriteCost {
  on: number;
  off: number;
  /** The cost in each pair of neighbouring rounds (one on, one off), their median. */
  medianPairCost: number;
  /** Audit records written per successful write in the rounds with the trail on. */
  recordsPerWrite: number;
  rounds: string;
}

/**
 * Alternating rounds of the mix on a running server whose `company` has the mix's rows (and
 * `boss`, an administrator): writes per second with the audit trail on and off.
 */
export async function measureWriteCost(server: BenchServer, company: string, domain: string, seconds: number, rounds = 4): Promise<WriteCost> {
  const { db, base } = server;
  const token = await server.token({ companyId: company, domainId: domain, userId: 'boss' });
  const apps: string[] = [];
  for (let i = 0; i < APPLICATIONS; i++) {
    const res = await fetch(`${base}/api/${company}/${domain}/application`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: `Bench app ${i}`, app_type: 'web', redirect_uris: ['https://app.example/callback'] }),
    });
    if (res.status !== 201) throw new Error(`creating an application: HTTP ${res.status} ${await res.text()}`);
    apps.push(((await res.json()) as { id: string }).id);
  }
  // Off: no caller named, so a plain BEGIN (db.transaction reads the context when it begins).
  let auditOn = true;
  const transaction = db.transaction.bind(db);
  (db as { transaction: Database['transaction'] }).transaction = (fn) => (auditOn ? transaction(fn) : transactionSettings.exit(() => transaction(fn)));
  const setAudit = async (on: boolean) => {
    for (const [table, trigger] of TRIGGERS) await db.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
    auditOn = on;
  };
  const records = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0].n;

  const worker = new Worker(new URL('./writeMix.mjs', import.meta.url), {
    workerData: { base, token, company, domain, users: USERS, groups: Array.from({ length: GROUPS }, (_, i) => `g${i}`), apps, concurrency: CONCURRENCY },
  });
  const run = async (ms: number) => {
    const reply = new Promise<{ done: Record<string, number>; errors: Record<string, string>; ms: number }>((resolve) => worker.once('message', resolve));
    worker.postMessage({ ms });
    const result = await reply;
    if (Object.keys(result.errors).length) throw new Error(`write mix: ${JSON.stringify(result.errors)}`);
    return { writes: Object.values(result.done).reduce((a, b) => a + b, 0), ms: result.ms };
  };
  try {
    await run(seconds * 1000); // warm-up, with the trail on (the first seconds of a fresh server run slower)
    const totals = { on: { writes: 0, ms: 0 }, off: { writes: 0, ms: 0 } };
    const perRound: string[] = [];
    const pairCosts: number[] = [];
    let recorded = 0;
    for (let round = 0; round < rounds; round++) {
      const rates: Record<string, number> = {};
      for (const on of round % 2 === 0 ? [true, false] : [false, true]) {
        await setAudit(on);
        const before = on ? await records() : 0;
        const { writes, ms } = await run(seconds * 1000);
        if (on) recorded += (await records()) - before;
        totals[on ? 'on' : 'off'].writes += writes;
        totals[on ? 'on' : 'off'].ms += ms;
        rates[on ? 'on' : 'off'] = (writes * 1000) / ms;
        perRound.push(`${on ? 'on' : 'off'} ${rates[on ? 'on' : 'off'].toFixed(0)}`);
      }
      pairCosts.push(1 - rates.on / rates.off);
    }
    pairCosts.sort((a, b) => a - b);
    await setAudit(true);
    return {
      on: (totals.on.writes * 1000) / totals.on.ms,
      off: (totals.off.writes * 1000) / totals.off.ms,
      medianPairCost: (pairCosts[Math.floor((pairCosts.length - 1) / 2)] + pairCosts[Math.ceil((pairCosts.length - 1) / 2)]) / 2,
      recordsPerWrite: recorded / totals.on.writes,
      rounds: perRound.join(', '),
    };
  } finally {
    (db as { transaction: Database['transaction'] }).transaction = transaction;
    await worker.terminate();
  }
}

export function describeWriteCost(where: string, cost: WriteCost) {
  const percent = (1 - cost.on / cost.off) * 100;
  return `| ${where} | ${cost.on.toFixed(0)} | ${cost.off.toFixed(0)} | ${percent.toFixed(1)}% | ${(cost.medianPairCost * 100).toFixed(1)}% | ${percent < 20 ? 'yes' : '**NO**'} | ${cost.recordsPerWrite.toFixed(2)} | ${cost.rounds} |`;
}

export const WRITE_COST_HEADER = `| database | writes/s, audit on | writes/s, audit off | cost | cost, median of pairs | under 20% | audit records per write | rounds (writes/s) |\n|---|---|---|---|---|---|---|---|`;

export async function auditCostBench({ seconds }: { seconds: number }) {
  const onPostgres = Boolean(process.env.DATABASE_URL);
  const lines = [`\nCost of the audit trail: write mix through the API, ${CONCURRENCY} at a time, ${seconds} s rounds alternating\n`, WRITE_COST_HEADER];
  for (const sync of onPostgres ? [undefined] : [true, false]) {
    const server = await startBenchServer('iam_bench_audit', async (db) => {
      await createTenant(db, 'acme', ['acme-main']);
      await prepareWriteMix(db, 'acme', 'acme-main');
    }, { sync });
    try {
      await maintainTables(server.db, { all: true });
      const cost = await measureWriteCost(server, 'acme', 'acme-main', seconds);
      lines.push(describeWriteCost(onPostgres ? 'PostgreSQL' : `PGlite, DATA_SYNC=${sync ? 'on' : 'off'}`, cost));
    } finally {
      await server.close();
    }
  }
  console.log(lines.join('\n'));
}
