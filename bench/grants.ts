/**
 * `npm run bench -- --parts grants [--grants-seconds N]`: what the authorization server issues per
 * second, through its HTTP contract only (nothing of server/ is imported), so that the same bench
 * measures it before and after a rewrite. The real program (server/main.ts, as npm start runs it)
 * in a child process of its own (bench/load/server.ts: one process, WEB_CONCURRENCY=1), on a fresh
 * PGlite in a temp dir, or with DATABASE_URL on a throw-away database of that PostgreSQL server.
 * Setup through the management API with the administrator's token: an API with a permission scope,
 * a machine application with a secret, USERS users with a password in the console's domain. Then:
 * - client credentials: autocannon, 10 then 50 connections, POST /oauth/token
 *   grant_type=client_credentials&audience=<the API> with the secret in HTTP Basic;
 * - password sign-ins: 10 then 50 clients, each the console's form post to /oauth/login (PKCE) and
 *   its code exchange at /oauth/token (bench/load/signIn.ts), round robin over the users; a sign-in
 *   counts when both steps succeed.
 * N seconds each (default 10) after 3 s of uncounted warm-up. Per phase: the rate of successful
 * grants, latency p50/p99, failures, the server process's CPU (from /proc: its threads, PGlite's and
 * libuv's bcrypt pool included, so a process may use more than one core) and the rate per core of
 * it, the server's event-loop delay p99 (bench/load/eventLoopMonitor.mjs) and a probe's p99 (GET
 * /.well-known/openid-configuration every 50 ms from a thread of its own).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import bcrypt from 'bcryptjs';
import { createDatabase, loopDelay, percentile, Probe, setPhase, startServer, stopChild, type Server } from './load/server.js';
import { signIn, signInStorm } from './load/signIn.js';

const PUBLIC_URL = 'http://localhost:8080';
const REDIRECT_URI = `${PUBLIC_URL}/callback`;
const ADMIN_EMAIL = 'admin@example.com';
/** Sign-ins go round robin over this many users, as a morning's do. */
const USERS = 64;
const PASSWORD = 'grants-bench-password';
const AUDIENCE = 'urn:bench:grants';
const CONNECTIONS = [10, 50];
const WARM_UP_SECONDS = 3;

interface Row {
  label: string;
  connections: number;
  /** Successful grants (complete sign-ins) per second. */
  rate: number;
  p50: number;
  p99: number;
  errors: string;
  /** Cores of CPU the server process used during the phase. */
  cores: number;
  loopP99?: number;
  probeP99: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (failures: Record<string, number>) => Object.entries(failures).map(([what, n]) => `${what}: ${n}`).join(', ') || '0';

/** CPU seconds a process has used, all its threads (Linux /proc; utime and stime in 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One measured phase: the server's event-loop histogram and the probe span exactly the run. */
async function measured(server: Server, probe: Probe, phase: string, run: () => Promise<Omit<Row, 'cores' | 'loopP99' | 'probeP99'>>): Promise<Row> {
  setPhase(server.eldDir, phase);
  await sleep(500); // the monitor looks every 200 ms
  probe.start();
  const cpu = cpuSeconds(server.process.pid!);
  const began = performance.now();
  const figures = await run();
  const cores = (cpuSeconds(server.process.pid!) - cpu) / ((performance.now() - began) / 1000);
  const probed = await probe.stop();
  setPhase(server.eldDir, `after-${phase}`);
  await sleep(500);
  const row = { ...figures, cores, loopP99: loopDelay(server.eldDir, phase)?.p99, probeP99: probed.p99 };
  console.log(`  ${row.label}, ${row.connections} conns: ${row.rate.toFixed(1)}/s, p50 ${row.p50.toFixed(0)} / p99 ${row.p99.toFixed(0)} ms, errors ${row.errors}, server CPU ${cores.toFixed(2)} cores (${(row.rate / cores).toFixed(1)}/s per core), loop delay p99 ${row.loopP99?.toFixed(1)} ms, probe p99 ${probed.p99.toFixed(1)} ms`);
  return row;
}

async function clientCredentials(baseUrl: string, authorization: string, connections: number, seconds: number) {
  const result = await autocannon({
    url: `${baseUrl}/oauth/token`,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience: AUDIENCE }).toString(),
      },
    ],
  });
  const failures: Record<string, number> = {};
  for (const [status, { count: n }] of Object.entries(result.statusCodeStats)) if (!status.startsWith('2')) failures[status] = n;
  if (result.timeouts) failures.timeout = result.timeouts;
  if (result.errors > result.timeouts) failures.socket = result.errors - result.timeouts;
  return {
    label: 'client credentials',
    connections,
    rate: (result.requests.total - result.non2xx) / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: count(failures),
  };
}

async function signIns(baseUrl: string, clients: number, seconds: number) {
  const account = (n: number) => ({ email: `grants${1 + (n % USERS)}@bench.example`, password: PASSWORD });
  const { samples, seconds: elapsed, failures } = await signInStorm(baseUrl, REDIRECT_URI, clients, seconds, account);
  return { label: 'password sign-ins', connections: clients, rate: samples.length / elapsed, p50: percentile(samples, 50), p99: percentile(samples, 99), errors: count(failures) };
}

/** The management API as the console calls it; throws on anything but 2xx. */
async function setUp(baseUrl: string, token: string) {
  const call = async (method: string, url: string, body: unknown) => {
    const res = await fetch(baseUrl + url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  };
  const api = await call('POST', '/api/api', { companyId: 'root', domain: 'default', name: 'Grants bench API', identifier: AUDIENCE });
  await call('POST', `/api/api/${api.id}/PermissionScopes`, { permission: 'bench:read', description: 'read' });
  const app = await call('POST', '/api/application', { companyId: 'root', domain: 'default', client_name: 'Grants bench job', app_type: 'machine', grant_types: ['client_credentials'] });
  // the API takes a bcrypt hash (the console hashes passwords): one, computed once, for every user
  const hash = await bcrypt.hash(PASSWORD, 10);
  for (let i = 1; i <= USERS; i++) {
    await call('POST', '/api/companys/root/domainNames/default/users', { username: `grants${i}`, displayName: `Grants ${i}`, email: `grants${i}@bench.example`, authVerification: hash });
  }
  // client_secret_basic: form-urlencoded id and secret (RFC 6749 2.3.1)
  return `Basic ${Buffer.from(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(app.client_secret)}`).toString('base64')}`;
}

export async function grantsBench({ seconds }: { seconds: number }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-grants-'));
  const database = process.env.DATABASE_URL ? await createDatabase(process.env.DATABASE_URL) : undefined;
  const adminPassword = crypto.randomBytes(12).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    DATA_DIR: path.join(tmp, 'data'),
    DATABASE_URL: database?.url,
    PUBLIC_URL,
    ADMIN_EMAIL,
    ADMIN_PASSWORD: adminPassword,
    // info logs two lines per request: at hundreds a second that would be much of what is measured
    LOG_LEVEL: 'warn',
    // thousands of sign-ins a minute from one address, dozens per account: far above the default limits
    LOGIN_MAX_SUCCESSES_PER_ACCOUNT: '1000000000',
    LOGIN_MAX_SUCCESSES_PER_ADDRESS: '1000000000',
  };
  if (!database) delete env.DATABASE_URL;
  console.log(`\nGrants per second: the server in one process on ${database ? 'PostgreSQL' : 'PGlite'}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  let server: Server | undefined;
  let probe: Probe | undefined;
  try {
    server = await startServer(env, path.join(tmp, 'eld'), 1);
    probe = new Probe(`${server.baseUrl}/.well-known/openid-configuration`);
    const token = await signIn(new http.Agent(), server.baseUrl, REDIRECT_URI, ADMIN_EMAIL, adminPassword);
    const authorization = await setUp(server.baseUrl, token);
    // one grant by hand first: a refusal says why here, rather than as a column of non-2xx
    const first = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: AUDIENCE }),
    });
    if (first.status !== 200) throw new Error(`client_credentials: HTTP ${first.status} ${await first.text()}`);

    const rows: Row[] = [];
    await clientCredentials(server.baseUrl, authorization, CONNECTIONS[0], WARM_UP_SECONDS);
    for (const connections of CONNECTIONS) {
      rows.push(await measured(server, probe, `cc-${connections}`, () => clientCredentials(server!.baseUrl, authorization, connections, seconds)));
    }
    await signIns(server.baseUrl, CONNECTIONS[0], WARM_UP_SECONDS);
    for (const clients of CONNECTIONS) {
      rows.push(await measured(server, probe, `signin-${clients}`, () => signIns(server!.baseUrl, clients, seconds)));
    }
    const lines = [
      `\n| ${database ? 'PostgreSQL' : 'PGlite'}, ${seconds} s each | conns | per second | p50 / p99 ms | errors | server CPU, cores | per server core | loop delay p99 ms | probe p99 ms |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (row) =>
          `| ${row.label} | ${row.connections} | ${row.rate.toFixed(1)} | ${row.p50.toFixed(0)} / ${row.p99.toFixed(0)} | ${row.errors} | ${row.cores.toFixed(2)} | ${(row.rate / row.cores).toFixed(1)} | ${row.loopP99?.toFixed(1) ?? ''} | ${row.probeP99.toFixed(1)} |`,
      ),
    ];
    console.log(`${lines.join('\n')}\n`);
    const warnings = server.warnings();
    if (warnings > 0) console.log(`the server logged ${warnings} warning/error line(s):\n${server.tail(10)}`);
  } finally {
    await probe?.close();
    if (server) await stopChild(server);
    await database?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
