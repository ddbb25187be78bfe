import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/ids.js';
import { call, createTenant, startServer, type Tenant, tokenFor, type TestServer } from './helpers.js';
import { setPassword } from './oauthHelpers.js';

/**
 * The outbox for Support (docs/CONSOLE.md, "E-mail, reset links and invitations"; issue 35): with
 * users:recover a caller lists the domain's messages and opens one (to whom, what, when, sent or
 * not) but never receives its text or HTML, which hold the live link; only users:write does. Resend
 * sends the person a fresh link of the message's kind, refused for a person the caller does not
 * contain. Another tenant: 404; a lesser role: 403; bad input: 4xx naming the field.
 */
let server: TestServer;
let acme: Tenant;
let other: Tenant;
let agent: string;
let reader: string;
const base = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;
const TOKEN = /token=([A-Za-z0-9_-]{43})/;

/** Every live token of the domain's messages, straight from the table: none may reach Support. */
async function liveTokens() {
  const { rows } = await server.db.query<{ text: string }>(`SELECT text_body AS text FROM mail_outbox WHERE company_id = 'acme'`);
  return rows.map((row) => TOKEN.exec(row.text)?.[1]).filter((token): token is string => Boolean(token));
}

const expectNoToken = async (text: string) => {
  expect(text).not.toMatch(/token=/);
  for (const token of await liveTokens()) expect(text).not.toContain(token);
};

async function send(userId: string, route = 'sendResetLink') {
  const sent = await call(server, acme.adminToken, 'POST', `${base(acme)}/users/${userId}/${route}`, {});
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return sent.body.messageId as string;
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  other = await createTenant(server, 'other', 'root', 'customer');
  await setPassword(server, 'acme', acme.domainId, 'worker', 'the worker password 1');
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'agent', 'agent', 'Agent', 'agent@acme.example'), ('acme', $1, 'reader', 'reader', 'Reader', 'reader@acme.example'), ('acme', $1, 'newcomer', 'newcomer', 'Newcomer', 'newcomer@acme.example')`,
    [acme.domainId],
  );
  for (const [holder, role] of [['agent', 'support'], ['reader', 'auditor']]) {
    const given = await call(server, server.adminToken, 'POST', '/api/companys/acme/roleAssignments', { role, holderType: 'user', holderId: holder, holderCompanyId: 'acme', holderDomainId: acme.domainId });
    expect(given.status).toBe(201);
  }
  agent = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'agent' });
  reader = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId: 'reader' });
}, 60_000);
afterAll(() => server?.close());

describe('Support and the outbox', () => {
  it('Support lists and opens messages without their text; an administrator reads the text as before', async () => {
    const messageId = await send('worker');
    await send('newcomer', 'sendInvitation');

    const list = await call(server, agent, 'GET', `${base(acme)}/outbox`);
    expect(list.status).toBe(200);
    expect(list.body[0]).toMatchObject({ recipient: 'newcomer@acme.example', purpose: 'invite', sentAt: null, userId: 'newcomer' });
    expect(list.body[1]).toMatchObject({ id: messageId, recipient: 'worker@acme.example', purpose: 'reset', subject: expect.stringContaining('password') });
    await expectNoToken(list.text);
    const csv = await server.app.inject({ method: 'GET', url: `${base(acme)}/outbox/export.csv`, headers: { authorization: `Bearer ${agent}` } });
    expect(csv.statusCode).toBe(200);
    expect(csv.body).toContain('worker@acme.example');
    await expectNoToken(csv.body);

    const one = await call(server, agent, 'GET', `${base(acme)}/outbox/${messageId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: messageId, recipient: 'worker@acme.example', purpose: 'reset', userId: 'worker', sentAt: null, error: null, createdAt: expect.any(String) });
    expect(one.body.text).toBeUndefined();
    expect(one.body.html).toBeUndefined();
    await expectNoToken(one.text);

    const full = await call(server, acme.adminToken, 'GET', `${base(acme)}/outbox/${messageId}`);
    expect(full.status).toBe(200);
    expect(full.body.text).toMatch(TOKEN);
    expect(full.body.html).toMatch(TOKEN);
  });

  it('Support resends: a fresh link of its kind to her address, the older one spent, recorded on her history; the answer holds no link', async () => {
    const first = await send('worker');
    const firstToken = (await liveTokens()).find(Boolean)!;
    const before = await server.db.query(`SELECT count(*)::int AS n FROM account_tokens WHERE company_id = 'acme' AND user_id = 'worker' AND purpose = 'reset' AND used_at IS NULL`);
    expect(before.rows[0].n).toBe(1);
    const resent = await call(server, agent, 'POST', `${base(acme)}/outbox/${first}/resend`, {});
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(resent.body).toEqual({ messageId: expect.any(String), recipient: 'worker@acme.example', mailConfigured: false });
    expect(resent.body.messageId).not.toBe(first);
    await expectNoToken(resent.text);
    const { rows } = await server.db.query<{ purpose: string; text: string }>(`SELECT purpose, text_body AS text FROM mail_outbox WHERE company_id = 'acme' AND id = $1`, [resent.body.messageId]);
    expect(rows[0].purpose).toBe('reset');
    const newToken = TOKEN.exec(rows[0].text)![1];
    expect(newToken).not.toBe(firstToken);
    // one live reset link: the new one
    const live = await server.db.query<{ id: string }>(`SELECT id FROM account_tokens WHERE company_id = 'acme' AND user_id = 'worker' AND purpose = 'reset' AND used_at IS NULL`);
    expect(live.rows).toEqual([{ id: sha256(newToken) }]);
    const history = await call(server, acme.adminToken, 'GET', `/api/companys/acme/auditEvents?filter=${encodeURIComponent(JSON.stringify({ resourceId: 'worker', action: 'sendResetLink' }))}`);
    const byAgent = history.body.find((event: { actorUserId: string }) => event.actorUserId === 'agent');
    expect(byAgent?.changes).toEqual({ recipient: { after: 'worker@acme.example' }, resentFrom: { after: first } });
    expect(JSON.stringify(history.body)).not.toContain(newToken);

    // an invitation resent once she has a password: refused as sendInvitation is
    const invitation = (await call(server, agent, 'GET', `${base(acme)}/outbox?filter=${encodeURIComponent(JSON.stringify({ q: 'newcomer' }))}`)).body[0].id;
    expect((await call(server, agent, 'POST', `${base(acme)}/outbox/${invitation}/resend`, {})).status).toBe(200);
    await setPassword(server, 'acme', acme.domainId, 'newcomer', 'the newcomer password 1');
    const refused = await call(server, agent, 'POST', `${base(acme)}/outbox/${invitation}/resend`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/has a password already/);
  });

  it('refuses another tenant (404), a lesser role (403) and Support aimed at a higher-ranked account (403)', async () => {
    const workerMessage = await send('worker');
    const bossMessage = await send('boss');
    const routes: [string, string, object?][] = [
      ['GET', `${base(acme)}/outbox`],
      ['GET', `${base(acme)}/outbox/export.csv`],
      ['GET', `${base(acme)}/outbox/${workerMessage}`],
      ['POST', `${base(acme)}/outbox/${workerMessage}/resend`, {}],
    ];
    const count = async () => (await server.db.query(`SELECT count(*)::int AS n FROM mail_outbox`)).rows[0].n;
    const messages = await count();
    for (const [method, url, body] of routes) {
      const foreign = await call(server, other.adminToken, method, url, body);
      expect(foreign.status, `${method} ${url}`).toBe(404);
      const auditor = await call(server, reader, method, url, body);
      expect(auditor.status, `${method} ${url}`).toBe(403);
      expect(auditor.body.message).toMatch(/users:recover/);
      expect((await call(server, acme.userToken, method, url, body)).status, `${method} ${url}`).toBe(403);
      expect((await call(server, undefined, method, url, body)).status).toBe(401);
    }
    // acme's message through another tenant's own domain path: not found there
    expect((await call(server, other.adminToken, 'GET', `${base(other)}/outbox/${workerMessage}`)).status).toBe(404);
    expect((await call(server, other.adminToken, 'POST', `${base(other)}/outbox/${workerMessage}/resend`, {})).status).toBe(404);
    expect(await count()).toBe(messages);

    // the boss is an administrator of the domain: Support holds less than she does
    const aimedHigher = await call(server, agent, 'POST', `${base(acme)}/outbox/${bossMessage}/resend`, {});
    expect(aimedHigher.status).toBe(403);
    expect(aimedHigher.body.message).toMatch(/cannot act on user boss/);
    expect(await count()).toBe(messages);
    // her administrator may
    expect((await call(server, acme.adminToken, 'POST', `${base(acme)}/outbox/${bossMessage}/resend`, {})).status).toBe(200);
  });

  it("a mail server's refusal quoting the link reaches Support without the token", async () => {
    const messageId = await send('worker');
    const { rows } = await server.db.query<{ text: string }>(`SELECT text_body AS text FROM mail_outbox WHERE company_id = 'acme' AND id = $1`, [messageId]);
    const link = /http\S+token=[A-Za-z0-9_-]{43}/.exec(rows[0].text)![0];
    await server.db.query(`UPDATE mail_outbox SET error = $2 WHERE company_id = 'acme' AND id = $1`, [messageId, `550 rejected: ${link}`]);
    const one = await call(server, agent, 'GET', `${base(acme)}/outbox/${messageId}`);
    expect(one.body.error).toMatch(/^550 rejected: http\S+token=\[removed-once-sent\]$/);
    await expectNoToken(one.text.replace('token=[removed-once-sent]', ''));
    const list = await call(server, agent, 'GET', `${base(acme)}/outbox`);
    expect(list.body.find((message: { id: string }) => message.id === messageId).error).toContain('[removed-once-sent]');
    await expectNoToken(list.text.replace(/token=\[removed-once-sent\]/g, ''));
    // an administrator reads the refusal as it was
    expect((await call(server, acme.adminToken, 'GET', `${base(acme)}/outbox/${messageId}`)).body.error).toBe(`550 rejected: ${link}`);
  });

  it('bad input is a 4xx naming the field; a message for nobody or a deleted person is a 409', async () => {
    const messageId = await send('worker');
    const bad = await call(server, agent, 'POST', `${base(acme)}/outbox/${encodeURIComponent('../x')}/resend`, {});
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/messageId/);
    const extra = await call(server, agent, 'POST', `${base(acme)}/outbox/${messageId}/resend`, { to: 'evil@example.com' });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/to|additional/);
    expect((await call(server, agent, 'POST', `${base(acme)}/outbox/${messageId}/resend`, [])).status).toBe(400);
    const odd = await call(server, agent, 'GET', `${base(acme)}/outbox/${encodeURIComponent('a b')}`);
    expect(odd.status).toBe(400);
    expect(odd.body.message).toMatch(/messageId/);
    // longer than any route parameter: the router's own 414
    expect((await call(server, agent, 'GET', `${base(acme)}/outbox/${'x'.repeat(300)}`)).status).toBe(414);
    expect((await call(server, agent, 'POST', `${base(acme)}/outbox/no-such-message/resend`, {})).status).toBe(404);
    expect((await call(server, agent, 'GET', `${base(acme)}/outbox/no-such-message`)).status).toBe(404);

    await server.db.query(
      `INSERT INTO mail_outbox (company_id, domain_id, id, user_id, purpose, language, recipient, subject, text_body, html_body) VALUES ('acme', $1, 'orphan', NULL, 'reset', 'en', 'gone@acme.example', 's', 't', 'h')`,
      [acme.domainId],
    );
    expect((await call(server, agent, 'POST', `${base(acme)}/outbox/orphan/resend`, {})).status).toBe(409);
    await server.db.query(`UPDATE users SET status = 'deleted' WHERE company_id = 'acme' AND id = 'worker'`);
    const deleted = await call(server, agent, 'POST', `${base(acme)}/outbox/${messageId}/resend`, {});
    expect(deleted.status).toBe(409);
    expect(deleted.body.message).toMatch(/deleted/);
    await server.db.query(`UPDATE users SET status = 'active' WHERE company_id = 'acme' AND id = 'worker'`);
  });
});
