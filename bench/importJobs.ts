/**
 * `npm run bench -- --parts import [--large] [--import-users N]`: an import job of N generated users
 * (default 20,000; --large 1,000,000) into the console's domain, through the HTTP contract of the
 * real program (server/main.ts in a child process, whose job runner does the work), on a throw-away
 * database of the PostgreSQL server at DATABASE_URL, else PGlite in a temp dir. The file (CSV: id,
 * email, displayName, emailVerified and a bcrypt passwordHash per user) is generated as it is
 * uploaded. While the job runs, a probe on a thread of its own times a GET of the users list as the console opens it (every
 * 100 ms) and a complete password sign-in of the console (form post and code exchange, every 250 ms);
 * the same probe runs 10 s before the import for a baseline. Prints the upload and run times, the
 * rate, and the probes' p50/p99 (docs/PERFORMANCE.md, "Importing a million users").
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { createDatabase, loopDelay, percentile, setPhase, startServer, stopChild, type Server } from './load/server.js';
import { signIn } from './load/signIn.js';

const PUBLIC_URL = 'http://localhost:8080';
const REDIRECT_URI = `${PUBLIC_URL}/callback`;
const ADMIN_EMAIL = 'admin@example.com';
const USERS_PATH = '/api/companys/root/domainNames/default/users';
/** The console's users list as it opens: the first page by name, deleted users apart (tests/server/plans.test.ts). */
const LIST_QUERY = 'range=%5B0%2C24%5D&sort=%5B%22displayName%22%2C%22ASC%22%5D&condition=status%2C!%3D%2Cdeleted';

/** The probe: its own thread and event loop, so that generating the file never delays its timings. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const crypto = require('node:crypto');
const { base, token, email, password, redirectUri } = workerData;
const LIST_QUERY = '${LIST_QUERY}';
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const send = (url, method, body, headers) => new Promise((resolve, reject) => {
  const request = http.request(url, { agent, method, headers }, (response) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk) => (text += chunk));
    response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body: text }));
  });
  request.setTimeout(10000, () => request.destroy(new Error('timeout')));
  request.on('error', reject);
  request.end(body);
});
const form = (fields) => new URLSearchParams(fields).toString();
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
async function get() {
  const r = await send(base + '${USERS_PATH}?' + LIST_QUERY, 'GET', undefined, { authorization: 'Bearer ' + token });
  if (r.status !== 200) throw new Error('GET ' + r.status);
}
async function signIn() {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const login = await send(base + '/oauth/login', 'POST', form({ email, password, client_id: 'iam-console', redirect_uri: redirectUri, scope: 'openid username email user:admin',
    state: 's', code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n' }), formHeaders);
  const code = login.status === 303 ? new URL(login.headers.location).searchParams.get('code') : null;
  if (!code) throw new Error('login ' + login.status);
  const t = await send(base + '/oauth/token', 'POST', form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'iam-console', code_verifier: verifier }), formHeaders);
  if (t.status !== 200) throw new Error('token ' + t.status);
}
let running = false;
let samples = { get: [], signIn: [] };
let failures = 0;
const loop = async (name, fn, everyMs) => {
  while (running) {
    const started = performance.now();
    try { await fn(); samples[name].push(performance.now() - started); } catch { failures++; }
    const wait = everyMs - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
};
let loops = [];
parentPort.on('message', async (message) => {
  if (message === 'start') {
    running = true;
    samples = { get: [], signIn: [] };
    failures = 0;
    loops = [loop('get', get, 100), loop('signIn', signIn, 250)];
  } else {
    running = false;
    await Promise.all(loops);
    parentPort.postMessage({ samples, failures });
  }
});`;

interface Figures {
  get: { n: number; p50: number; p99: number; max: number };
  signIn: { n: number; p50: number; p99: number; max: number };
  failures: number;
}

class ImportProbe {
  private worker: Worker;
  constructor(data: { base: string; token: string; email: string; password: string; redirectUri: string }) {
    this.worker = new Worker(PROBE, { eval: true, workerData: data });
  }
  start() {
    this.worker.postMessage('start');
  }
  async stop(): Promise<Figures> {
    const answer = new Promise<{ samples: { get: number[]; signIn: number[] }; failures: number }>((resolve) => this.worker.once('message', resolve));
    this.worker.postMessage('stop');
    const { samples, failures } = await answer;
    const figures = (values: number[]) => {
      values.sort((a, b) => a - b);
      return { n: values.length, p50: percentile(values, 50), p99: percentile(values, 99), max: values.at(-1) ?? 0 };
    };
    return { get: figures(samples.get), signIn: figures(samples.signIn), failures };
  }
  close() {
    return this.worker.terminate();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const describe = (f: Figures) =>
  `GET users p50 ${f.get.p50.toFixed(1)} / p99 ${f.get.p99.toFixed(1)} / max ${f.get.max.toFixed(0)} ms (${f.get.n}), sign-in p50 ${f.signIn.p50.toFixed(1)} / p99 ${f.signIn.p99.toFixed(1)} / max ${f.signIn.max.toFixed(0)} ms (${f.signIn.n}), failures ${f.failures}`;

/** Streams the generated CSV as the request's body; answers the job. */
async function uploadUsers(base: string, token: string, users: number, hash: string) {
  const request = http.request(`${base}/api/companys/root/domainNames/default/importJobs?format=csv&match=none&fileName=bench.csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
  });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
  });
  request.write('id,email,displayName,emailVerified,passwordHash\n');
  const step = 5000;
  for (let from = 1; from <= users; from += step) {
    let text = '';
    for (let i = from; i < Math.min(users + 1, from + step); i++) text += `m${i},person${i}@import${i % 50}.example,Person ${i},${i % 2 === 0},${hash}\n`;
    if (!request.write(text)) await once(request, 'drain');
    // the generator never holds the bench's event loop for long
    await new Promise((resolve) => setImmediate(resolve));
  }
  request.end();
  const { status, body } = await answered;
  if (status !== 201) throw new Error(`POST importJobs: HTTP ${status} ${body}`);
  return JSON.parse(body) as { id: string; bytes: number };
}

export async function importBench({ users }: { users: number }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-import-'));
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
    LOG_LEVEL: 'warn',
    LOGIN_MAX_SUCCESSES_PER_ACCOUNT: '1000000000',
    LOGIN_MAX_SUCCESSES_PER_ADDRESS: '1000000000',
  };
  if (!database) delete env.DATABASE_URL;
  console.log(`\nImport job of ${users.toLocaleString('en')} users on ${database ? 'PostgreSQL' : 'PGlite'}, the server in one process, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  let server: Server | undefined;
  let probe: ImportProbe | undefined;
  try {
    server = await startServer(env, path.join(tmp, 'eld'), 1);
    const token = await signIn(new http.Agent(), server.baseUrl, REDIRECT_URI, ADMIN_EMAIL, adminPassword);
    probe = new ImportProbe({ base: server.baseUrl, token, email: ADMIN_EMAIL, password: adminPassword, redirectUri: REDIRECT_URI });
    probe.start();
    await sleep(10_000);
    const baseline = await probe.stop();
    console.log(`  before the import: ${describe(baseline)}`);

    // one hash for every user (an import only reads its form; cost 10 as a provider would have it)
    const hash = await bcrypt.hash('imported password', 10);
    setPhase(server.eldDir, 'import');
    probe.start();
    const began = performance.now();
    const job = await uploadUsers(server.baseUrl, token, users, hash);
    const uploadMs = performance.now() - began;
    console.log(`  uploaded ${(job.bytes / 1024 ** 2).toFixed(0)} MB in ${(uploadMs / 1000).toFixed(1)} s`);
    let last = 0;
    let finished: Record<string, unknown>;
    for (;;) {
      const response = await fetch(`${server.baseUrl}/api/companys/root/domainNames/default/importJobs/${job.id}`, { headers: { authorization: `Bearer ${token}` } });
      finished = (await response.json()) as Record<string, unknown>;
      if (['done', 'failed', 'cancelled'].includes(String(finished.status))) break;
      const read = Number(finished.rowsRead);
      if (read - last >= users / 10) {
        console.log(`  ${read.toLocaleString('en')} rows after ${((performance.now() - began) / 1000).toFixed(0)} s`);
        last = read;
      }
      await sleep(1000);
    }
    const totalMs = performance.now() - began;
    const during = await probe.stop();
    setPhase(server.eldDir, 'after');
    await sleep(500);
    const loop = loopDelay(server.eldDir, 'import');
    const listed = await fetch(`${server.baseUrl}${USERS_PATH}?range=[0,0]`, { headers: { authorization: `Bearer ${token}` } });
    const total = listed.headers.get('content-range');
    console.log(
      `  job ${finished.status}: created ${finished.created}, failed ${finished.failed}, in ${(totalMs / 1000).toFixed(1)} s (upload included), ${Math.round((users / totalMs) * 1000).toLocaleString('en')} users/s; users list: ${total}`,
    );
    console.log(`  during the import: ${describe(during)}; the server's event-loop delay p99 ${loop?.p99?.toFixed(1)} ms, max ${loop?.max?.toFixed(0)} ms`);
    console.log(
      `\n| ${database ? 'PostgreSQL' : 'PGlite'} | users | upload s | total s | users/s | GET p50 / p99 ms | sign-in p50 / p99 ms |\n|---|---|---|---|---|---|---|\n` +
        `| before | | | | | ${baseline.get.p50.toFixed(1)} / ${baseline.get.p99.toFixed(1)} | ${baseline.signIn.p50.toFixed(1)} / ${baseline.signIn.p99.toFixed(1)} |\n` +
        `| during | ${users.toLocaleString('en')} | ${(uploadMs / 1000).toFixed(1)} | ${(totalMs / 1000).toFixed(1)} | ${Math.round((users / totalMs) * 1000).toLocaleString('en')} | ${during.get.p50.toFixed(1)} / ${during.get.p99.toFixed(1)} | ${during.signIn.p50.toFixed(1)} / ${during.signIn.p99.toFixed(1)} |\n`,
    );
    const warnings = server.warnings();
    if (warnings > 0) console.log(`the server logged ${warnings} warning/error line(s):\n${server.tail(10)}`);
  } finally {
    await probe?.close();
    if (server) await stopChild(server);
    await database?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
