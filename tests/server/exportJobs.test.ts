import bcrypt from 'bcryptjs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../server/jobs/runner.js';
import { call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';
import { csvOf, domainApi, finished, runner, upload } from './jobHelpers.js';

/**
 * Export jobs (docs/CONSOLE.md, "Import and export"): the domain's users written as CSV or JSON
 * Lines with the columns an import takes (an export imports back as it is), group names when
 * asked, password hashes only for an Owner (403 otherwise) and audited; tenancy and roles.
 */
let server: TestServer;
let acme: Tenant;
let jobs: JobRunner;
let ownerToken: string;
const hash = bcrypt.hashSync('exported password', 4);

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme');
  await createTenant(server, 'globex');
  jobs = runner(server, { batchRows: 40 });
  // root's administrators are Owners, over every company below root
  ownerToken = server.adminToken;
  const rows = Array.from({ length: 120 }, (_, i) => ({
    id: `e${String(i).padStart(3, '0')}`,
    email: `e${i}@acme.example`,
    displayName: i === 0 ? 'Zoë, "quoted"' : i === 4 ? '=HYPERLINK("https://evil.example")' : `E ${i}`,
    emailVerified: i % 2 === 0,
    blocked: i === 1,
    requiredActions: i === 2 ? 'verify-email;enrol-mfa' : '',
    notes: i === 3 ? 'line one\nline two' : '',
    externalId: `x-${i}`,
    passwordHash: hash,
    groups: i < 3 ? 'team-a;team-b' : '',
  }));
  const started = await upload(server, acme.adminToken, acme, csvOf(rows), { groups: true });
  expect(started.status).toBe(201);
  expect(await finished(server, acme.adminToken, acme, 'importJobs', started.body.id)).toMatchObject({ created: 120, failed: 0 });
});
afterAll(async () => {
  await jobs?.stop();
  await server?.close();
});

async function exportOf(token: string, body: object) {
  const started = await call(server, token, 'POST', `${domainApi(acme)}/exportJobs`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  expect(started.body.kind).toBe('export');
  const job = await finished(server, token, acme, 'exportJobs', started.body.id);
  expect(job.status, JSON.stringify(job)).toBe('done');
  const file = await server.app.inject({ method: 'GET', url: `${domainApi(acme)}/exportJobs/${job.id}/file`, headers: { authorization: `Bearer ${token}` } });
  expect(file.statusCode).toBe(200);
  expect(file.headers['content-disposition']).toContain('attachment');
  return { job, file };
}

describe('exporting users', () => {
  it('CSV: every user in id order, the columns an import takes, lists with ;, no hashes unless asked; it imports back unchanged', async () => {
    const { job, file } = await exportOf(acme.adminToken, { format: 'csv', groups: true });
    expect(job).toMatchObject({ rowsRead: 122, options: { format: 'csv', passwordHashes: false, groups: true } });
    expect(job.options.cursor).toBeUndefined();
    expect(file.headers['content-type']).toContain('text/csv');
    const records = parse(file.body, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0])).toEqual(['id', 'username', 'displayName', 'email', 'emailVerified', 'status', 'blocked', 'requiredActions', 'notes', 'externalId', 'groups']);
    expect(records.map((record) => record.id)).toEqual([...records.map((record) => record.id)].sort());
    const byId = Object.fromEntries(records.map((record) => [record.id, record]));
    expect(byId.e000).toMatchObject({ displayName: 'Zoë, "quoted"', emailVerified: 'true', groups: 'team-a;team-b', externalId: 'x-0' });
    expect(byId.e001).toMatchObject({ blocked: 'true', emailVerified: 'false', groups: 'team-a;team-b' });
    expect(byId.e003.groups).toBe('');
    expect(byId.e002.requiredActions).toBe('verify-email;enrol-mfa');
    expect(byId.e003.notes).toBe('line one\nline two');
    // a formula is defused for spreadsheets (a leading quote), and the import takes the quote off again
    expect(byId.e004.displayName).toBe(`'=HYPERLINK("https://evil.example")`);
    expect(file.body).not.toContain('$2');

    // the file imports back into another domain as it is
    const globex = { companyId: 'globex', domainId: 'globex-domain' };
    const globexToken = await tokenFor(server.ctx, { companyId: 'globex', domainId: 'globex-domain', userId: 'boss' });
    const back = await upload(server, globexToken, globex, file.body, { groups: true, match: 'id' });
    expect(back.status).toBe(201);
    const imported = await finished(server, globexToken, globex, 'importJobs', back.body.id);
    // boss and worker are ids globex has too: updated by id; the 120 others are new
    expect(imported.created + imported.updated + imported.failed).toBe(122);
    expect(imported.created).toBe(120);
    const copy = await server.db.query(`SELECT display_name, notes, required_actions FROM users WHERE company_id = 'globex' AND id IN ('e000', 'e002', 'e003', 'e004') ORDER BY id`);
    expect(copy.rows).toEqual([
      { display_name: 'Zoë, "quoted"', notes: '', required_actions: [] },
      { display_name: 'E 2', notes: '', required_actions: ['verify-email', 'enrol-mfa'] },
      { display_name: 'E 3', notes: 'line one\nline two', required_actions: [] },
      { display_name: '=HYPERLINK("https://evil.example")', notes: '', required_actions: [] },
    ]);
  });

  it('JSON Lines with password hashes, by an Owner only; audited as such', async () => {
    const { job, file } = await exportOf(ownerToken, { format: 'jsonl', passwordHashes: true });
    expect(file.headers['content-type']).toContain('application/x-ndjson');
    const lines = file.body.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(job.rowsRead);
    const first = lines.find((line) => line.id === 'e002');
    expect(first).toEqual({ id: 'e002', username: 'e2@acme.example', displayName: 'E 2', email: 'e2@acme.example', emailVerified: true, status: 'active', blocked: false, requiredActions: ['verify-email', 'enrol-mfa'], notes: '', externalId: 'x-2', passwordHash: hash });
    const audit = await server.db.query(`SELECT action, actor_user_id AS actor, changes FROM audit_events WHERE company_id = 'acme' AND resource_type = 'exportJobs' AND resource_id = $1 ORDER BY id`, [job.id]);
    expect(audit.rows.map((row) => [row.action, row.actor])).toEqual([['create', 'admin'], ['export', 'admin']]);
    expect(audit.rows[0].changes.options.after).toMatchObject({ passwordHashes: true });
    // its file is an Owner's to download too: the domain's Administrator may not
    const byAdministrator = await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/exportJobs/${job.id}/file`);
    expect(byAdministrator.status).toBe(403);
    expect(byAdministrator.body.message).toContain('passwordHashes');
    expect(byAdministrator.body.code).toBe('job.hashesOwnerOnly');
  });

  it('password hashes: 403 for an Administrator and a User manager; Support cannot export; another tenant 404', async () => {
    const refused = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/exportJobs`, { passwordHashes: true });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('passwordHashes');
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'manager', 'manager', 'manager', 'manager@acme.example')`);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', 'acme-domain', 'user', 'manager', 'user-manager', 'acme')`);
    const manager = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'manager' });
    expect((await call(server, manager, 'POST', `${domainApi(acme)}/exportJobs`, { passwordHashes: true })).status).toBe(403);
    const allowed = await call(server, manager, 'POST', `${domainApi(acme)}/exportJobs`, { format: 'csv' });
    expect(allowed.status).toBe(201);
    await finished(server, manager, acme, 'exportJobs', allowed.body.id);

    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'helper', 'helper', 'helper', 'helper@acme.example')`);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', 'acme-domain', 'user', 'helper', 'support', 'acme')`);
    const support = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'helper' });
    expect((await call(server, support, 'POST', `${domainApi(acme)}/exportJobs`, {})).status).toBe(403);
    expect((await call(server, support, 'GET', `${domainApi(acme)}/exportJobs/${allowed.body.id}/file`)).status).toBe(403);

    const globex = { companyId: 'globex', domainId: 'globex-domain' };
    const globexToken = await tokenFor(server.ctx, { companyId: 'globex', domainId: 'globex-domain', userId: 'boss' });
    for (const [method, path] of [
      ['GET', `exportJobs/${allowed.body.id}`],
      ['GET', `exportJobs/${allowed.body.id}/file`],
      ['POST', `exportJobs/${allowed.body.id}/cancel`],
    ] as const) {
      expect((await call(server, globexToken, method, `${domainApi(globex)}/${path}`)).status, path).toBe(404);
      expect((await call(server, globexToken, method, `${domainApi(acme)}/${path}`)).status, path).toBe(404);
    }
    expect((await call(server, globexToken, 'POST', `${domainApi(acme)}/exportJobs`, {})).status).toBe(404);
    // an import job is not an export job
    const imports = await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/importJobs?range=[0,0]`);
    expect((await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/exportJobs/${imports.body[0].id}`)).status).toBe(404);
    expect((await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/exportJobs`, { format: 'xml' })).status).toBe(400);
  });

  it('a file is there once done (409 before), each user once', async () => {
    await jobs.stop();
    const started = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/exportJobs`, { format: 'jsonl' });
    expect((await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/exportJobs/${started.body.id}/file`)).status).toBe(409);
    jobs = runner(server);
    const job = await finished(server, acme.adminToken, acme, 'exportJobs', started.body.id);
    const file = await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/exportJobs/${job.id}/file`);
    const ids = file.text.trim().split('\n').map((line) => JSON.parse(line).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(job.rowsRead);
  });
});
