import crypto from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../server/jobs/runner.js';
import { purgeOldJobs } from '../../server/jobs/store.js';
import { closePasswordPool } from '../../server/passwords.js';
import { call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';
import { csvOf, domainApi, finished, runner, upload } from './jobHelpers.js';
import { addApplication, consoleLoginFields, pkce, postLogin } from './oauthHelpers.js';

/**
 * Import jobs (docs/CONSOLE.md, "Import and export"): a file streamed into the job, run in the
 * background by the runner, each row checked as the users API checks it, the refused ones reported,
 * a dry run that writes nothing, matching by id or e-mail, groups, imported hashes that sign in,
 * containment, tenancy, and a runner killed half way through whose job another one finishes with
 * no row lost or doubled.
 */
let server: TestServer;
let acme: Tenant;
let jobs: JobRunner;
const PASSWORD = 'moving in from elsewhere 1';

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme');
  await createTenant(server, 'globex');
  jobs = runner(server);
});
afterAll(async () => {
  await jobs?.stop();
  await server?.close();
  await closePasswordPool();
});

const users = async (at: Tenant, where = 'true') =>
  (
    await server.db.query(
      `SELECT id, username, display_name AS "displayName", email, email_verified AS "emailVerified", status, blocked_at IS NOT NULL AS blocked,
              required_actions AS "requiredActions", notes, external_id AS "externalId", password_hash AS "passwordHash"
       FROM users WHERE company_id = $1 AND domain_id = $2 AND ${where} ORDER BY id`,
      [at.companyId, at.domainId],
    )
  ).rows;

async function importFile(token: string, at: Tenant, file: string, query: Record<string, string | boolean> = {}, contentType?: string) {
  const started = await upload(server, token, at, file, query, contentType);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  expect(started.body.kind).toBe('import');
  // the runner may have begun already
  expect(['queued', 'running', 'done']).toContain(started.body.status);
  return finished(server, token, at, 'importJobs', started.body.id);
}

async function errorsOf(token: string, at: Tenant, jobId: string) {
  const response = await server.app.inject({ method: 'GET', url: `${domainApi(at)}/importJobs/${jobId}/errors`, headers: { authorization: `Bearer ${token}` } });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toContain('text/csv');
  expect(response.headers['content-disposition']).toContain('attachment');
  return response.body;
}

describe('importing users', () => {
  it('imports CSV: defaults, booleans, lists, states; a bad row is reported and the good ones imported; the error file', async () => {
    const file = csvOf([
      { id: 'c1', email: 'ann@acme.example', displayName: 'Ann', emailVerified: 'yes', requiredActions: 'verify-email;enrol-mfa', notes: 'from "old", idp', externalId: 'ext-1' },
      { id: 'c2', email: 'bob@acme.example', username: 'bob', emailVerified: '0', blocked: 'true', status: 'deleted' },
      { id: 'c3', email: 'not an address' },
      { id: 'c4', email: 'cat@acme.example', requiredActions: 'fly' },
      { id: 'c5', email: 'dan@acme.example', status: 'gone' },
      { id: 'c6', email: 'eve@acme.example', emailVerified: 'perhaps' },
      { id: 'c7', email: 'ann@ACME.example' },
      { id: 'bad id!', email: 'fay@acme.example' },
      { id: 'c9', email: 'gil@acme.example', passwordHash: 'plain text' },
      { id: 'c10', email: 'boss@acme.example' },
    ], ['id', 'email', 'username', 'displayName', 'emailVerified', 'blocked', 'status', 'requiredActions', 'notes', 'externalId', 'passwordHash']);
    const job = await importFile(acme.adminToken, acme, file, { fileName: 'people.csv' });
    expect(job).toMatchObject({ status: 'done', rowsRead: 10, created: 2, updated: 0, skipped: 1, failed: 7, error: null, options: { format: 'csv', dryRun: false, match: 'none', groups: false, fileName: 'people.csv' } });
    expect(job.createdBy).toEqual({ userId: 'boss', companyId: 'acme', domainId: 'acme-domain' });
    expect(job.bytes).toBe(Buffer.byteLength(file));
    expect(await users(acme, `id IN ('c1', 'c2')`)).toEqual([
      { id: 'c1', username: 'ann@acme.example', displayName: 'Ann', email: 'ann@acme.example', emailVerified: true, status: 'active', blocked: false, requiredActions: ['verify-email', 'enrol-mfa'], notes: 'from "old", idp', externalId: 'ext-1', passwordHash: null },
      { id: 'c2', username: 'bob', displayName: 'bob', email: 'bob@acme.example', emailVerified: false, status: 'deleted', blocked: true, requiredActions: [], notes: '', externalId: null, passwordHash: null },
    ]);
    const errors = await errorsOf(acme.adminToken, acme, job.id);
    const lines = errors.trim().split(/\r?\n/);
    expect(lines[0]).toBe('row,field,message');
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual(['3,email', '4,requiredActions', '5,status', '6,emailVerified', '7,email', '8,id', '9,passwordHash']);
    expect(errors).toContain('is also in row 1 of the file');
    // an existing user (boss) with match=none is skipped, unchanged
    expect((await users(acme, `id = 'boss'`))[0].displayName).toBe('boss');
  });

  it('imports JSON Lines: arrays, booleans, blank lines, a line that is not JSON', async () => {
    const file = [
      JSON.stringify({ id: 'j1', email: 'jo@acme.example', requiredActions: ['change-password'], emailVerified: true, blocked: false }),
      '',
      '{ not json',
      JSON.stringify([1, 2]),
      JSON.stringify({ email: 'kim@acme.example', username: 'kim', extra: 'ignored' }),
    ].join('\r\n');
    const job = await importFile(acme.adminToken, acme, file, { format: 'jsonl' }, 'application/x-ndjson');
    expect(job).toMatchObject({ status: 'done', rowsRead: 4, created: 2, failed: 2 });
    expect(await users(acme, `email = 'jo@acme.example'`)).toMatchObject([{ id: 'j1', requiredActions: ['change-password'], emailVerified: true }]);
    expect(await users(acme, `email = 'kim@acme.example'`)).toMatchObject([{ username: 'kim', displayName: 'kim' }]);
    const errors = await errorsOf(acme.adminToken, acme, job.id);
    expect(errors).toContain('2,,the line is not JSON');
    expect(errors).toContain('3,,the line is not a JSON object');
  });

  it('takes any content type, or none, and a mapping of source columns; refuses a bad mapping, an empty file, a file without e-mails', async () => {
    const file = 'user_id,mail,name\nm1,mo@acme.example,Mo\n';
    const mapping = JSON.stringify({ user_id: 'id', mail: 'email', name: 'displayName' });
    const job = await importFile(acme.adminToken, acme, file, { mapping }, 'application/json');
    expect(job).toMatchObject({ status: 'done', created: 1, options: { mapping: { mail: 'email' } } });
    expect((await users(acme, `id = 'm1'`))[0]).toMatchObject({ email: 'mo@acme.example', displayName: 'Mo' });
    const none = await upload(server, acme.adminToken, acme, 'email\nnone@acme.example\n', {}, '');
    expect(none.status, JSON.stringify(none.body)).toBe(201);
    expect((await finished(server, acme.adminToken, acme, 'importJobs', none.body.id)).created).toBe(1);

    const bad = await upload(server, acme.adminToken, acme, file, { mapping: JSON.stringify({ mail: 'mailbox' }) });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('mapping');
    expect(bad.body).toMatchObject({ code: 'job.mappingUnknownField', params: { column: 'mail', field: '"mailbox"', fields: expect.stringContaining('email') } });
    expect((await upload(server, acme.adminToken, acme, file, { mapping: 'not json' })).body.code).toBe('job.mappingNotObject');
    expect((await upload(server, acme.adminToken, acme, file, { format: 'xml' })).status).toBe(400);
    const empty = await upload(server, acme.adminToken, acme, '');
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain('empty');
    expect(empty.body.code).toBe('job.fileEmpty');
    const binary = await upload(server, acme.adminToken, acme, 'email\nnul\u0000@acme.example\n');
    expect(binary.status).toBe(400);
    expect(binary.body.message).toContain('NUL');
    expect(binary.body.code).toBe('job.fileNul');
    const noEmail = await importFile(acme.adminToken, acme, 'id,name\nx,y\n');
    expect(noEmail).toMatchObject({ status: 'failed', error: expect.stringContaining('no email column'), created: 0 });
  });

  it('a dry run checks everything (the database and the file) and changes nothing; then imported for real on the same file', async () => {
    const before = await users(acme);
    const groupsBefore = (await server.db.query(`SELECT count(*)::int AS n FROM groups WHERE company_id = 'acme'`)).rows[0].n;
    const file = csvOf([
      { id: 'd1', email: 'dry1@acme.example', groups: 'dry-team' },
      { id: 'd2', email: 'dry2@acme.example', groups: 'dry-team;other-dry' },
      { id: 'd3', email: 'DRY1@acme.example' },
      { id: 'd4', email: 'ann@acme.example' },
      { id: 'd5', email: 'dry5@acme.example', username: 'bob' },
    ], ['id', 'email', 'username', 'groups']);
    const dry = await importFile(acme.adminToken, acme, file, { dryRun: true, groups: true, match: 'id' });
    expect(dry, await errorsOf(acme.adminToken, acme, dry.id)).toMatchObject({ status: 'done', rowsRead: 5, created: 2, updated: 0, failed: 3, options: { dryRun: true } });
    expect(await users(acme)).toEqual(before);
    expect((await server.db.query(`SELECT count(*)::int AS n FROM groups WHERE company_id = 'acme'`)).rows[0].n).toBe(groupsBefore);
    const errors = await errorsOf(acme.adminToken, acme, dry.id);
    expect(errors).toContain('3,email,email dry1@acme.example is also in row 1');
    expect(errors).toContain("4,email,email ann@acme.example is already another user's");
    expect(errors).toContain("5,username,username bob is already another user's");

    // a real job is refused on a real job; the dry run goes for real
    const real = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/importJobs/${dry.id}/import`);
    expect(real.status, JSON.stringify(real.body)).toBe(201);
    // (the runner may have taken it up before the answer is read)
    expect(real.body).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/), options: { dryRun: false, inputJob: dry.id, groups: true, match: 'id' } });
    const done = await finished(server, acme.adminToken, acme, 'importJobs', real.body.id);
    expect(done).toMatchObject({ status: 'done', created: 2, failed: 3 });
    const members = await server.db.query(`SELECT group_id, member_id FROM group_members WHERE company_id = 'acme' AND group_id IN ('dry-team', 'other-dry') ORDER BY 1, 2`);
    expect(members.rows).toEqual([
      { group_id: 'dry-team', member_id: 'd1' },
      { group_id: 'dry-team', member_id: 'd2' },
      { group_id: 'other-dry', member_id: 'd2' },
    ]);
    const again = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/importJobs/${real.body.id}/import`);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('not a dry run');
    expect(again.body).toMatchObject({ code: 'job.notDryRun', params: { id: real.body.id } });
  });

  it('updates by id and by e-mail (fields not given keep their value), never another domain\'s user', async () => {
    await importFile(acme.adminToken, acme, csvOf([{ id: 'u1', email: 'up1@acme.example', displayName: 'Up One', notes: 'kept' }, { id: 'u2', email: 'up2@acme.example' }]));
    const byId = await importFile(acme.adminToken, acme, csvOf([{ id: 'u1', email: 'up1-new@acme.example', emailVerified: 'true' }, { id: 'u9', email: 'up9@acme.example' }]), { match: 'id' });
    expect(byId).toMatchObject({ created: 1, updated: 1, failed: 0 });
    expect((await users(acme, `id = 'u1'`))[0]).toMatchObject({ email: 'up1-new@acme.example', displayName: 'Up One', notes: 'kept', emailVerified: true });
    const byEmail = await importFile(acme.adminToken, acme, csvOf([{ email: 'UP2@acme.example', displayName: 'Up Two', blocked: 'yes' }]), { match: 'email' });
    expect(byEmail).toMatchObject({ created: 0, updated: 1 });
    expect((await users(acme, `id = 'u2'`))[0]).toMatchObject({ displayName: 'Up Two', blocked: true, email: 'UP2@acme.example' });
    // another domain's user with that id or address is no match: a new user here
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('globex', 'globex-domain', 'only-globex', 'og', 'og', 'og@globex.example')`);
    const globexUsers = (await server.db.query(`SELECT id, display_name FROM users WHERE company_id = 'globex' ORDER BY id`)).rows;
    const other = await importFile(acme.adminToken, acme, csvOf([{ id: 'only-globex', email: 'og@globex.example', displayName: 'not globex' }]), { match: 'email' });
    expect(other).toMatchObject({ created: 1, updated: 0 });
    expect((await server.db.query(`SELECT id, display_name FROM users WHERE company_id = 'globex' ORDER BY id`)).rows).toEqual(globexUsers);
    // match=email with an id that is another user's
    const clash = await importFile(acme.adminToken, acme, csvOf([{ id: 'u1', email: 'up9@acme.example' }]), { match: 'email' });
    expect(clash).toMatchObject({ failed: 1, updated: 0 });
  });

  it('imported hashes sign in (bcrypt, argon2id, pbkdf2-sha256, salted MD5 with a new password asked)', async () => {
    const salt = crypto.randomBytes(16);
    const pbkdf2 = `$pbkdf2-sha256$i=1000$${salt.toString('base64')}$${crypto.pbkdf2Sync(PASSWORD, salt, 1000, 32, 'sha256').toString('base64')}`;
    const md5 = `$md5$prefix$${salt.toString('base64')}$${crypto.createHash('md5').update(Buffer.concat([salt, Buffer.from(PASSWORD)])).digest('hex')}`;
    const forms = {
      bcrypt: await bcrypt.hash(PASSWORD, 6),
      argon2id: await argon2Hash(PASSWORD, { memoryCost: 4096, timeCost: 2, parallelism: 1, algorithm: 2 }),
      pbkdf2,
      md5,
    };
    const file = csvOf(Object.entries(forms).map(([name, hash]) => ({ id: `h-${name}`, email: `${name}@acme.example`, passwordHash: hash })));
    const job = await importFile(acme.adminToken, acme, file);
    expect(job, await errorsOf(acme.adminToken, acme, job.id)).toMatchObject({ created: 4, failed: 0 });
    expect((await users(acme, `id = 'h-md5'`))[0].requiredActions).toEqual(['change-password']);
    await addApplication(server, { id: 'acme-spa', companyId: 'acme', domainId: 'acme-domain', redirectUris: ['https://acme-spa.example/cb'] });
    for (const name of Object.keys(forms)) {
      const signIn = async (password: string) => {
        const { challenge } = pkce();
        const response = await postLogin(server, {
          ...consoleLoginFields(challenge, { email: `${name}@acme.example`, password, company: 'acme' }),
          client_id: 'acme-spa',
          redirect_uri: 'https://acme-spa.example/cb',
          scope: 'openid',
        });
        const location = new URL(String(response.headers.location ?? '/none'), 'http://localhost:8080');
        return { status: response.statusCode, location, code: location.searchParams.get('code'), body: response.body };
      };
      const wrong = await signIn('not the password');
      expect(wrong.location.searchParams.get('error'), name).toBe('access_denied');
      const right = await signIn(PASSWORD);
      // MD5: the password is right, and she chooses another one first (the change-password step)
      if (name === 'md5') expect(right.location.pathname, `${name}: ${right.status} ${right.location}`).not.toBe('/cb');
      else expect(right.code, `${name}: ${right.status} ${right.location} ${right.body.slice(0, 300)}`).toBeTruthy();
      expect(right.location.searchParams.get('error'), name).toBeNull();
    }
  });

  it('groups: created by name, memberships added; a group that gives a role needs roles:write', async () => {
    await server.db.query(
      `INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', 'acme-domain', 'user', 'manager', 'user-manager', 'acme')`,
    ).catch(() => undefined);
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'manager', 'manager', 'manager', 'manager@acme.example') ON CONFLICT DO NOTHING`);
    await server.db.query(
      `INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', 'acme-domain', 'user', 'manager', 'user-manager', 'acme') ON CONFLICT DO NOTHING`,
    );
    const manager = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'manager' });
    const job = await importFile(manager, acme, csvOf([
      { id: 'g1', email: 'g1@acme.example', groups: 'sales;Sales;support' },
      { id: 'g2', email: 'g2@acme.example', groups: 'administrators' },
      { id: 'g3', email: 'g3@acme.example', groups: 'bad group!' },
    ]), { groups: true });
    expect(job).toMatchObject({ created: 1, failed: 2 });
    const errors = await errorsOf(manager, acme, job.id);
    expect(errors).toContain('2,groups,');
    expect(errors).toContain('roles:write');
    expect(errors).toContain('3,groups,');
    const memberships = await server.db.query(`SELECT group_id FROM group_members WHERE company_id = 'acme' AND member_id IN ('g1', 'g2') ORDER BY 1`);
    expect(memberships.rows.map((row) => row.group_id)).toEqual(['sales', 'support']);
    // the administrator (roles:write) may
    const admin = await importFile(acme.adminToken, acme, csvOf([{ id: 'g2', email: 'g2@acme.example', groups: 'administrators' }]), { groups: true });
    expect(admin).toMatchObject({ created: 1, failed: 0 });
  });

  it("a User manager cannot change an Administrator's account by import; Support cannot import (403); another tenant's jobs are 404 on every route", async () => {
    const manager = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'manager' });
    const job = await importFile(manager, acme, csvOf([{ id: 'boss', email: 'boss@acme.example', displayName: 'taken over', passwordHash: await bcrypt.hash('x', 4) }]), { match: 'id' });
    expect(job).toMatchObject({ updated: 0, failed: 1 });
    expect(await errorsOf(manager, acme, job.id)).toContain('You cannot act on user boss');
    expect((await users(acme, `id = 'boss'`))[0]).toMatchObject({ displayName: 'boss', passwordHash: null });

    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'helper', 'helper', 'helper', 'helper@acme.example')`);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', 'acme-domain', 'user', 'helper', 'support', 'acme')`);
    const support = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'helper' });
    const refused = await upload(server, support, acme, 'email\nx@acme.example\n');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('users:import');
    expect((await call(server, support, 'GET', `${domainApi(acme)}/importJobs`)).status).toBe(403);
    expect((await call(server, support, 'GET', `${domainApi(acme)}/importJobs/${job.id}`)).status).toBe(403);

    const globex = { companyId: 'globex', domainId: 'globex-domain' };
    const globexToken = await tokenFor(server.ctx, { companyId: 'globex', domainId: 'globex-domain', userId: 'boss' });
    // acme's job through globex's own path: not found; globex's admin at acme's path: not found
    for (const [method, path] of [
      ['GET', `importJobs/${job.id}`],
      ['GET', `importJobs/${job.id}/errors`],
      ['POST', `importJobs/${job.id}/cancel`],
      ['POST', `importJobs/${job.id}/import`],
    ] as const) {
      expect((await call(server, globexToken, method, `${domainApi(globex)}/${path}`)).status, path).toBe(404);
      expect((await call(server, globexToken, method, `${domainApi(acme)}/${path}`)).status, path).toBe(404);
    }
    expect((await call(server, globexToken, 'GET', `${domainApi(acme)}/importJobs`)).status).toBe(404);
    expect((await upload(server, globexToken, acme, 'email\nx@acme.example\n')).status).toBe(404);
    const list = await call(server, globexToken, 'GET', `${domainApi(globex)}/importJobs`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });

  it('lists jobs newest first; cancels a queued job (409 once finished); the job is audited once, not per row', async () => {
    const list = await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/importJobs?range=[0,1]`);
    expect(list.status).toBe(200);
    expect(list.headers['content-range']).toMatch(/^importJobs 0-1\/\d+$/);
    expect(new Date(list.body[0].createdAt) >= new Date(list.body[1].createdAt)).toBe(true);

    await jobs.stop();
    try {
      const started = await upload(server, acme.adminToken, acme, 'email\ncancelled@acme.example\n');
      const cancelled = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/importJobs/${started.body.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled' });
      const twice = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/importJobs/${started.body.id}/cancel`);
      expect(twice.status).toBe(409);
      expect(twice.body).toMatchObject({ code: 'job.cancelFinished', params: { id: started.body.id, status: 'cancelled' } });
    } finally {
      jobs = runner(server);
    }
    const done = await importFile(acme.adminToken, acme, csvOf([1, 2, 3].map((i) => ({ email: `audited${i}@acme.example` }))));
    const audit = await server.db.query(`SELECT action, resource_type AS type, actor_user_id AS actor, changes FROM audit_events WHERE company_id = 'acme' AND resource_id = $1 ORDER BY id`, [done.id]);
    expect(audit.rows.map((row) => [row.type, row.action, row.actor])).toEqual([['importJobs', 'create', 'boss'], ['importJobs', 'import', 'boss']]);
    expect(audit.rows[1].changes).toMatchObject({ created: { after: 3 }, status: { after: 'done' } });
    const perUser = await server.db.query(`SELECT count(*)::int AS n FROM audit_events WHERE company_id = 'acme' AND resource_type = 'users' AND resource_id IN (SELECT id FROM users WHERE email LIKE 'audited%')`);
    expect(perUser.rows[0].n).toBe(0);
  });
});

describe('cancelling a running job', () => {
  it('stops it at the next batch, keeping the rows committed before; the runner then takes the next job', async () => {
    await jobs.stop();
    let jobId = '';
    let batches = 0;
    const cancelled: { status?: number; body?: any } = {};
    jobs = runner(server, { owner: 'cancelled-under', batchRows: 50, afterBatch: async () => {
      if (++batches !== 2) return;
      const answer = await call(server, acme.adminToken, 'POST', `${domainApi(acme)}/importJobs/${jobId}/cancel`);
      Object.assign(cancelled, { status: answer.status, body: answer.body });
    } });
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: `x${i}`, email: `x${i}@acme.example` }));
    const started = await upload(server, acme.adminToken, acme, csvOf(rows));
    expect(started.status).toBe(201);
    jobId = started.body.id;
    const done = await finished(server, acme.adminToken, acme, 'importJobs', jobId);
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect(done).toMatchObject({ status: 'cancelled', rowsRead: 100, created: 100 });
    const count = await server.db.query(`SELECT count(*)::int AS n FROM users WHERE company_id = 'acme' AND id ~ '^x[0-9]+$'`);
    expect(count.rows[0].n).toBe(100);
    // nothing more is written for it, and the same runner goes on with the next job
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/importJobs/${jobId}`)).body).toMatchObject({ status: 'cancelled', rowsRead: 100 });
    const next = await importFile(acme.adminToken, acme, csvOf([{ email: 'after-cancel@acme.example' }]));
    expect(next).toMatchObject({ status: 'done', created: 1 });
  });
});

describe('keeping', () => {
  it('a file larger than 2 GB is refused (413) before it is read; finished jobs go with their files and errors after 7 days', async () => {
    const huge = await server.app.inject({
      method: 'POST',
      url: `${domainApi(acme)}/importJobs`,
      headers: { authorization: `Bearer ${acme.adminToken}`, 'content-type': 'text/csv', 'content-length': String(3 * 1024 ** 3) },
      payload: 'email\n',
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().message).toContain('2 GB');
    expect(huge.json().code).toBe('job.fileTooLarge');

    const old = await importFile(acme.adminToken, acme, 'email\nold1@acme.example\nnot an address\n');
    const key = ['acme', 'acme-domain', old.id];
    await server.db.query(`UPDATE user_jobs SET finished_at = now() - interval '8 days' WHERE company_id = $1 AND domain_id = $2 AND id = $3`, key);
    expect(await purgeOldJobs(server.db, 7)).toBeGreaterThanOrEqual(1);
    for (const table of ['user_jobs', 'user_job_chunks', 'user_job_errors']) {
      const column = table === 'user_jobs' ? 'id' : 'job_id';
      expect((await server.db.query(`SELECT 1 FROM ${table} WHERE company_id = $1 AND domain_id = $2 AND ${column} = $3`, key)).rowCount, table).toBe(0);
    }
    expect((await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/importJobs/${old.id}`)).status).toBe(404);
  });
});

describe('a runner that dies half way', () => {
  it('its job is taken up by another runner once the lease lapses, from the last committed row: no row lost or doubled', async () => {
    await jobs.stop();
    let batches = 0;
    let dying: JobRunner | undefined;
    const died = new Promise<void>((resolve) => {
      dying = runner(server, { owner: 'doomed', batchRows: 50, leaseSeconds: 2, afterBatch: async () => {
        if (++batches === 3) {
          void dying!.abandon();
          resolve();
        }
      } });
    });
    const rows = Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, email: `r${i}@acme.example`, groups: i % 2 ? 'odd' : 'even' }));
    const started = await upload(server, acme.adminToken, acme, csvOf(rows), { groups: true });
    expect(started.status).toBe(201);
    await died;
    const halfway = (await call(server, acme.adminToken, 'GET', `${domainApi(acme)}/importJobs/${started.body.id}`)).body;
    expect(halfway).toMatchObject({ status: 'running', rowsRead: 150, created: 150 });
    // another process: it waits for the lease to lapse, then goes on
    const startedAt = Date.now();
    jobs = runner(server, { owner: 'survivor', batchRows: 70 });
    const done = await finished(server, acme.adminToken, acme, 'importJobs', started.body.id);
    expect(Date.now() - startedAt).toBeGreaterThan(500);
    expect(done).toMatchObject({ status: 'done', rowsRead: 400, created: 400, failed: 0, skipped: 0 });
    const count = await server.db.query(`SELECT count(*)::int AS n FROM users WHERE company_id = 'acme' AND id ~ '^r[0-9]+$'`);
    expect(count.rows[0].n).toBe(400);
    const memberships = await server.db.query(`SELECT count(*)::int AS n FROM group_members WHERE company_id = 'acme' AND member_id ~ '^r[0-9]+$'`);
    expect(memberships.rows[0].n).toBe(400);
  });

  it('two runners on one database never run one job twice', async () => {
    const second = runner(server, { owner: 'second', batchRows: 30 });
    try {
      const rows = Array.from({ length: 300 }, (_, i) => ({ email: `twice${i}@acme.example` }));
      const started = await upload(server, acme.adminToken, acme, csvOf(rows));
      const done = await finished(server, acme.adminToken, acme, 'importJobs', started.body.id);
      expect(done).toMatchObject({ status: 'done', rowsRead: 300, created: 300, failed: 0 });
    } finally {
      await second.stop();
    }
  });
});
