import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailerOf, SENT_TOKEN } from '../../server/mail/mailer.js';
import { call, capturedLog, createTenant, listQuery, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';
import { consoleLoginFields, pkce, postLogin, redirectParams } from './oauthHelpers.js';
import { freePort } from './program.js';

/**
 * Smaller holes of least privilege (issue 34): sign-in timing, tokens in the request log, times
 * out of range in list filters, links kept in the outbox after sending, a role given back reviving
 * an old token.
 */
let server: TestServer;
let acme: Tenant;
// the request log, captured: what an operator's log would hold
const { lines, stream } = capturedLog();

beforeAll(async () => {
  server = await startServer({}, { logger: { level: 'info', stream } });
  acme = await createTenant(server, 'acme');
}, 120_000);
afterAll(() => server?.close());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('a wrong password', () => {
  it('takes as long for an unknown address as for a real one (median of 15 within 20%)', async () => {
    const attempt = async (email: string) => {
      const { challenge } = pkce();
      const started = performance.now();
      const response = await postLogin(server, consoleLoginFields(challenge, { email, password: 'not the password' }));
      const elapsed = performance.now() - started;
      expect(redirectParams(response)?.params.error).toBe('access_denied');
      return elapsed;
    };
    // the first of each pays for what is made once (the dummy hash, prepared statements)
    await attempt('nobody@example.com');
    await attempt('admin@example.com');
    const unknown: number[] = [];
    const known: number[] = [];
    for (let i = 0; i < 15; i++) {
      unknown.push(await attempt(`nobody${i}@example.com`));
      known.push(await attempt('admin@example.com'));
    }
    const [a, b] = [median(unknown), median(known)];
    expect(Math.abs(a - b) / Math.max(a, b), `unknown ${a.toFixed(1)} ms, known ${b.toFixed(1)} ms`).toBeLessThan(0.2);
  }, 60_000);
});

describe('the request log', () => {
  it('never records the value of a token query parameter, however the URL is spelled', async () => {
    const urls = [
      '/account/reset/?token=SECRET-A1',
      '/Account/Reset?TOKEN=SECRET-A2',
      '//account//reset?%74oken=SECRET-A3',
      '/account/resets?to%6Ben=SECRET-A4',
      '/oauth/authorize?a=1&token=SECRET-A5&token=SECRET-A6',
      '/api/users?Token=SECRET-A7',
      '/somewhere?%2574oken=SECRET-A8',
      '/api/anything?access_token=SECRET-A9',
      '/elsewhere?token%5B%5D=SECRET-B1',
      '/other?+token=SECRET-B2',
    ];
    lines.length = 0;
    for (const url of urls) await server.app.inject({ method: 'GET', url });
    const log = lines.join('');
    // every request was logged, with its path (never its query)...
    for (const url of urls) expect(log).toContain(`"path":"${url.split('?')[0]}"`);
    // ...without any token's value
    expect(log).not.toMatch(/SECRET-/);
  });
});

describe('times out of range in list filters', () => {
  it('answer 400 naming the field, never 500, in the users, groups, audit and sign-in event lists', async () => {
    const lists: [string, string][] = [
      ['/api/companys/acme/domainNames/acme-domain/users', 'createdAt'],
      ['/api/companys/acme/domainNames/acme-domain/groups', 'createdAt'],
      ['/api/companys/acme/auditEvents', 'occurredAt'],
      ['/api/companys/acme/domainNames/acme-domain/signInEvents', 'occurredAt'],
    ];
    // out of PostgreSQL's range or not a time at all: every list refuses them
    const bad = ['+275760-09-13T00:00:00Z', '-271821-04-20T00:00:00Z', '0000-01-01', '2026-13-45', '2026-01-01T00:00:00+99:00', '-infinityx'];
    const failures: string[] = [];
    for (const [path, field] of lists) {
      // every list reads its time as a time: past the year 9999 is refused too
      for (const value of [...bad, '99999-01-01', '99999']) {
        for (const query of [{ filter: { [field]: value } }, { condition: `${field},>=,${value}` }, { condition: `${field},<,${value}`, total: 'deferred' }]) {
          const response = await call(server, acme.adminToken, 'GET', `${path}?${listQuery(query)}`);
          if (response.status !== 400 || !response.body?.message?.includes(field)) failures.push(`${path} ${JSON.stringify(query)}: ${response.status} ${response.body?.message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('the outbox once the mail server has a message', () => {
  it('keeps its body without a usable link', async () => {
    const port = await freePort();
    const received: string[] = [];
    const receiver = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let body = '';
        stream.on('data', (chunk) => (body += chunk));
        stream.on('end', () => {
          received.push(body);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    const mailing = await startServer({ smtpUrl: `smtp://127.0.0.1:${port}` });
    try {
      const tenant = await createTenant(mailing, 'mailco');
      const sent = await call(mailing, tenant.adminToken, 'POST', `/api/companys/mailco/domainNames/${tenant.domainId}/users/worker/sendResetLink`, {});
      expect(sent.status, sent.text).toBe(200);
      await mailerOf(mailing.ctx).settled();
      // the person got her link...
      const mail = received.join('').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const token = /\/account\/reset\?token=([A-Za-z0-9_-]{43})/.exec(mail)?.[1];
      expect(token).toBeDefined();
      // ...and the outbox keeps the message without it
      const { rows } = await mailing.db.query<{ text: string; html: string; sentAt: Date | null }>(
        `SELECT text_body AS text, html_body AS html, sent_at AS "sentAt" FROM mail_outbox WHERE id = $1`,
        [sent.body.messageId],
      );
      expect(rows[0].sentAt).not.toBeNull();
      for (const body of [rows[0].text, rows[0].html]) {
        expect(body).not.toContain(token);
        expect(body).toContain(`/account/reset?token=${SENT_TOKEN}`);
      }
      // and the link still works for her
      const page = await mailing.app.inject({ method: 'GET', url: `/account/reset?token=${token}` });
      expect(page.statusCode).toBe(200);
    } finally {
      await mailing.close();
      await new Promise<void>((resolve) => receiver.close(resolve));
    }
  }, 60_000);
});

describe('a role taken back', () => {
  it('ends her console sign-in for good: given back, the old token is still refused', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'helper', 'helper', 'helper', 'helper@acme.example')`);
    const give = () => call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role: 'support', holderType: 'user', holderId: 'helper', holderCompanyId: 'acme', holderDomainId: 'acme-domain' });
    const given = await give();
    expect(given.status, given.text).toBe(201);
    const old = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'helper' });
    expect((await call(server, old, 'GET', '/api/companys/acme/domainNames/acme-domain/users')).status).toBe(200);

    const taken = await call(server, server.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${given.body.id}`);
    expect(taken.status, taken.text).toBe(200);
    expect((await call(server, old, 'GET', '/api/companys/acme/domainNames/acme-domain/users')).status).toBe(401);

    expect((await give()).status).toBe(201);
    expect((await call(server, old, 'GET', '/api/companys/acme/domainNames/acme-domain/users')).status).toBe(401);
    // a new sign-in has the role again
    const fresh = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'helper' });
    expect((await call(server, fresh, 'GET', '/api/companys/acme/domainNames/acme-domain/users')).status).toBe(200);
  });

  it('a sign-in of someone who still holds another role is kept', async () => {
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', 'acme-domain', 'two-roles', 'two-roles', 'two-roles', 'two@acme.example')`);
    const give = (role: string) => call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role, holderType: 'user', holderId: 'two-roles', holderCompanyId: 'acme', holderDomainId: 'acme-domain' });
    const support = await give('support');
    expect((await give('auditor')).status).toBe(201);
    const token = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'two-roles' });
    expect((await call(server, server.adminToken, 'DELETE', `/api/companys/acme/roleAssignments/${support.body.id}`)).status).toBe(200);
    expect((await call(server, token, 'GET', '/api/companys/acme/domainNames/acme-domain/users')).status).toBe(200);
  });
});
