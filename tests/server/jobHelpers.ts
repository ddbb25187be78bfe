import { expect } from 'vitest';
import { startJobRunner, type JobRunner, type JobRunnerOptions } from '../../server/jobs/runner.js';
import { call, type TestServer } from './helpers.js';

/** Helpers of the import and export job tests (importJobs.test.ts, exportJobs.test.ts). */

export const domainApi = (at: { companyId: string; domainId: string }) => `/api/companys/${at.companyId}/domainNames/${at.domainId}`;

/** POST importJobs with the file as the raw body. */
export async function upload(server: TestServer, token: string, at: { companyId: string; domainId: string }, file: string | Buffer, query: Record<string, string | boolean> = {}, contentType = 'text/csv') {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
  const response = await server.app.inject({
    method: 'POST',
    url: `${domainApi(at)}/importJobs?${search}`,
    headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
    payload: file,
  });
  let body: any;
  try {
    body = response.json();
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body };
}

/** Polls the job until it has finished (done, failed or cancelled). */
export async function finished(server: TestServer, token: string, at: { companyId: string; domainId: string }, kind: 'importJobs' | 'exportJobs', jobId: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(server, token, 'GET', `${domainApi(at)}/${kind}/${jobId}`);
    expect(status, JSON.stringify(body)).toBe(200);
    if (['done', 'failed', 'cancelled'].includes(body.status)) return body;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${body.status}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A runner for the test's server, stopped by the returned function. */
export function runner(server: TestServer, options: JobRunnerOptions = {}): JobRunner {
  return startJobRunner(server.db, { pollMs: 50, log: (message) => console.error(message), ...options });
}

export const csvOf = (rows: Record<string, unknown>[], columns = Object.keys(rows[0])) =>
  [columns.join(','), ...rows.map((row) => columns.map((name) => {
    const value = row[name];
    const text = value === undefined || value === null ? '' : Array.isArray(value) ? value.join(';') : String(value);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(','))].join('\n') + '\n';
