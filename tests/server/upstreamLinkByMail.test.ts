import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptSecret } from '../../server/accounts/factors.js';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import { CONSOLE_REDIRECT, consoleLoginFields, CookieJar, injectBrowser, pkce, postLogin, postToken, setPassword } from './oauthHelpers.js';
import { start as startIdp, type OidcIdp } from '../upstream/oidcIdp.js';
import { LINK_MAIL_LIMITS } from '../../server/upstream/routes.js';
import { continueUrl, throughIdp } from './upstreamHelpers.js';

/**
 * Linking an upstream identity to an existing account by a link e-mailed to that account's address
 * (docs/CONSOLE.md, "Connections"; docs/DECISIONS.md item 47): the link page's second way. The link
 * goes to the account's stored address, opens a page whose button (never the GET) links, and links
 * only in the browser whose sign-in asked for it: an IdP account asserting someone's verified address
 * cannot have her link it by clicking in her own browser. Single use, throttled, refused for a
 * blocked account, and the only way for an account without a password.
 */

let server: TestServer;
let idp: OidcIdp;
let globex: Tenant;
const PASSWORD = 'link by mail tests password 1';
const LINK = '/oauth/upstream/link';
const MAIL = '/oauth/upstream/link/mail';
const CONFIRM = '/oauth/upstream/link/confirm';

async function addConnection(target: TestServer, tenant: { companyId: string; domainId: string }, id: string, issuerOf: OidcIdp) {
  await target.db.query(
    `INSERT INTO connections (company_id, domain_id, id, display_name, protocol, preset, settings, secret, trust_email)
     VALUES ($1, $2, $3, $4, 'oidc', 'custom', $5::jsonb, $6, true)`,
    [
      tenant.companyId,
      tenant.domainId,
      id,
      `IdP ${id}`,
      JSON.stringify({ issuer: issuerOf.issuer, clientId: issuerOf.clientId, scopes: 'openid email profile', claimMapping: {} }),
      await encryptSecret(target.db, issuerOf.clientSecret),
    ],
  );
}

async function addUser(id: string, username: string, email: string, extra: { password?: string } = {}) {
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('globex', 'globex-domain', $1, $2, $1, $3)`, [id, username, email]);
  if (extra.password) await setPassword(server, 'globex', 'globex-domain', id, extra.password);
}

/** The console's sign-in through the connection `corp`, in a browser of its own, ending where our server sends it. */
async function consoleUpstream(jar = new CookieJar()) {
  const { verifier, challenge } = pkce();
  const started = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'globex', connection: 'corp' }));
  expect(started.statusCode, started.body.slice(0, 500)).toBe(200);
  jar.keep(started.headers['set-cookie'] as string[] | undefined);
  const callback = await throughIdp(continueUrl(started.body));
  const browser = injectBrowser(server, jar);
  const end = await browser.get(callback.slice(PUBLIC_URL.length));
  return { browser, end, verifier };
}

/** A sign-in of `account` (the IdP's claims) that stops on the link page, in a new browser. */
async function atLinkPage(sub: string, email: string) {
  idp.setAccount({ sub, email, email_verified: true, name: sub });
  const started = await consoleUpstream();
  expect(started.end.path).toBe(LINK);
  expect(started.end.body).toContain('Link your account');
  return started;
}

const codeOf = (end: { location?: URL }) => (end.location && end.location.href.startsWith(CONSOLE_REDIRECT) ? end.location.searchParams.get('code') : null);

async function identityOf(subject: string) {
  const { rows } = await server.db.query<{ userId: string }>(`SELECT user_id AS "userId" FROM user_identities WHERE company_id = 'globex' AND connection_id = 'corp' AND subject = $1`, [subject]);
  return rows[0];
}

async function messagesTo(userId: string) {
  const { rows } = await server.db.query<{ recipient: string; subject: string; text: string; html: string }>(
    `SELECT recipient, subject, text_body AS text, html_body AS html FROM mail_outbox WHERE company_id = 'globex' AND user_id = $1 AND purpose = 'link-identity' ORDER BY created_at, id`,
    [userId],
  );
  return rows;
}

/** The token of the last link e-mailed to `userId`. */
async function mailedToken(userId: string): Promise<string> {
  const last = (await messagesTo(userId)).at(-1);
  const token = last && /\/oauth\/upstream\/link\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(last.text)?.[1];
  if (!token) throw new Error(`no link e-mailed to ${userId}: ${last?.text}`);
  return token;
}

async function eventsOf(userId: string) {
  const { rows } = await server.db.query<{ outcome: string; detail: string | null; connectionId: string | null }>(
    `SELECT outcome, detail, connection_id AS "connectionId" FROM signin_events WHERE company_id = 'globex' AND user_id = $1 ORDER BY id`,
    [userId],
  );
  return rows;
}

beforeAll(async () => {
  [server, idp] = await Promise.all([startServer({ allowPrivateCallbacks: true }), startIdp()]);
  globex = await createTenant(server, 'globex', 'root', 'reseller');
  await addConnection(server, globex, 'corp', idp);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.close(), idp?.close()]);
});

describe('linking by an e-mailed link', () => {
  it('goes to the account\'s stored address, opens a page that links nothing, and its button links and finishes the sign-in in the browser that asked', async () => {
    // the IdP's address names the account by its username; its stored address is another one
    await addUser('ann', 'ann@corp.example', 'ann.stored@mailbox.example', { password: PASSWORD });
    const { browser, end, verifier } = await atLinkPage('ann-at-idp', 'ann@corp.example');
    expect(end.body).toContain('E-mail me a link instead');
    expect(end.body).toContain(`action="${MAIL}"`);

    // an address in the request is never where the link goes
    const asked = await browser.post(MAIL, { email: 'attacker@evil.example' });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('We have e-mailed a link to ann.stored@mailbox.example');
    const messages = await messagesTo('ann');
    expect(messages).toHaveLength(1);
    expect(messages[0].recipient).toBe('ann.stored@mailbox.example');
    expect(messages[0].text).toContain('Someone signing in with IdP corp asked to link that identity to your globex account');
    expect(messages[0].text).toContain('If it was not you, ignore this message');
    expect(messages[0].html).toContain('IdP corp');
    const { rows: none } = await server.db.query(`SELECT 1 FROM mail_outbox WHERE recipient = 'attacker@evil.example'`);
    expect(none).toEqual([]);
    expect(await eventsOf('ann')).toContainEqual({ outcome: 'upstream_not_linked', detail: 'a link proving the account was e-mailed to its address', connectionId: 'corp' });

    // a GET (a mail scanner, or her click) shows a button and links nothing
    const token = await mailedToken('ann');
    const page = await browser.get(`${CONFIRM}?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<button type="submit">Link and sign in</button>');
    expect(page.body).toContain('IdP corp');
    expect(await browser.get(`${CONFIRM}?token=${token}`)).toMatchObject({ status: 200 });
    expect(await identityOf('ann-at-idp')).toBeUndefined();

    const confirmed = await browser.post(CONFIRM, { token });
    const code = codeOf(confirmed);
    expect(code, `${confirmed.status} ${confirmed.path} ${confirmed.body.slice(0, 300)}`).toBeTruthy();
    expect((await identityOf('ann-at-idp'))?.userId).toBe('ann');
    const tokens = await postToken(server, { grant_type: 'authorization_code', code: code!, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.user).toMatchObject({ id: 'ann' });
    // the sign-in's events: the proof asked, the link e-mailed, then the sign-in through the connection
    expect((await eventsOf('ann')).map((event) => [event.outcome, event.detail])).toEqual([
      ['upstream_not_linked', 'her password or an e-mailed link is asked before the link'],
      ['upstream_not_linked', 'a link proving the account was e-mailed to its address'],
      ['success', null],
    ]);

    // her history says how the link was proved
    const { rows: audit } = await server.db.query<{ changes: { identity: { after: Record<string, string> } }; actorUserId: string }>(
      `SELECT changes, actor_user_id AS "actorUserId" FROM audit_events WHERE company_id = 'globex' AND resource_type = 'users' AND resource_id = 'ann' AND action = 'linkIdentity'`,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0].actorUserId).toBe('ann');
    expect(audit[0].changes.identity.after).toEqual({ connectionId: 'corp', connectionName: 'IdP corp', subject: 'ann-at-idp', provedBy: 'e-mailed link' });

    // the token and the pending link are used once
    const again = await browser.post(CONFIRM, { token });
    expect(again.status).toBe(400);
    expect(codeOf(again)).toBeNull();
    expect((await browser.get(`${CONFIRM}?token=${token}`)).status).toBe(400);

    // from now on the IdP alone signs her in
    expect(codeOf((await consoleUpstream()).end)).toBeTruthy();
  });

  it('in another browser the link is refused with a sentence and links nothing, even where that browser has a pending link of its own', async () => {
    await addUser('vic', 'vic@corp.example', 'vic@corp.example', { password: PASSWORD });
    // her own browser waits on a link of her own IdP account, its link asked
    const own = await atLinkPage('vic-own-sub', 'vic@corp.example');
    expect((await own.browser.post(MAIL, {})).status).toBe(200);
    // then the attacker's IdP account asserts her verified address, and asks for a link too
    const attacker = await atLinkPage('attacker-sub', 'vic@corp.example');
    expect((await attacker.browser.post(MAIL, {})).status).toBe(200);
    const token = await mailedToken('vic');

    // she opens the newest link in a browser with no pending link
    const victim = injectBrowser(server);
    const shown = await victim.get(`${CONFIRM}?token=${token}`);
    expect(shown.status).toBe(400);
    expect(shown.body).toContain('Open this link in the browser where you started signing in');
    expect(shown.body).not.toContain('<button type="submit">Link and sign in</button>');
    const posted = await victim.post(CONFIRM, { token });
    expect(posted.status).toBe(400);
    expect(posted.body).toContain('Open this link in the browser where you started signing in');
    expect(codeOf(posted)).toBeNull();

    // and in her browser whose pending link waits for another token: this one confirms only the sign-in that asked for it
    const crossed = await own.browser.post(CONFIRM, { token });
    expect(crossed.status).toBe(400);
    expect(crossed.body).toContain('Open this link in the browser where you started signing in');
    expect(await identityOf('attacker-sub')).toBeUndefined();
    expect(await identityOf('vic-own-sub')).toBeUndefined();
    const { rows } = await server.db.query(`SELECT 1 FROM user_identities WHERE company_id = 'globex' AND user_id = 'vic'`);
    expect(rows).toEqual([]);
  });

  it('a form posted from another site asks for no link', async () => {
    await addUser('cross', 'cross@corp.example', 'cross@corp.example', { password: PASSWORD });
    const { browser } = await atLinkPage('cross-sub', 'cross@corp.example');
    const response = await server.app.inject({
      method: 'POST',
      url: MAIL,
      headers: { cookie: browser.jar.header(), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      payload: '',
    });
    expect(response.statusCode).toBe(403);
    expect(await messagesTo('cross')).toEqual([]);
  });

  it('an account without a password (invited, never accepted) is offered the e-mailed link alone, and links by it', async () => {
    await addUser('invited', 'invited@corp.example', 'invited@corp.example');
    const { browser, end } = await atLinkPage('invited-sub', 'invited@corp.example');
    expect(end.body).not.toContain('type="password"');
    expect(end.body).toContain('E-mail me a link');
    expect((await browser.post(LINK, { password: 'anything at all' })).status).toBe(401);
    expect((await browser.post(MAIL, {})).status).toBe(200);
    const token = await mailedToken('invited');
    expect((await browser.get(`${CONFIRM}?token=${token}`)).status).toBe(200);
    expect(codeOf(await browser.post(CONFIRM, { token }))).toBeTruthy();
    expect((await identityOf('invited-sub'))?.userId).toBe('invited');
    const { rows } = await server.db.query(`SELECT password_hash FROM users WHERE company_id = 'globex' AND id = 'invited'`);
    expect(rows).toEqual([{ password_hash: null }]);
  });

  it('a newer link spends the older one', async () => {
    await addUser('twice', 'twice@corp.example', 'twice@corp.example', { password: PASSWORD });
    const { browser } = await atLinkPage('twice-sub', 'twice@corp.example');
    await browser.post(MAIL, {});
    const first = await mailedToken('twice');
    await browser.post(MAIL, {});
    const second = await mailedToken('twice');
    expect(second).not.toBe(first);
    expect((await browser.post(CONFIRM, { token: first })).status).toBe(400);
    expect(await identityOf('twice-sub')).toBeUndefined();
    expect(codeOf(await browser.post(CONFIRM, { token: second }))).toBeTruthy();
  });

  it("is not resent from the outbox by support staff (it is bound to the browser that asked): a 409 with a sentence, never a 5xx", async () => {
    await addUser('resend', 'resend@corp.example', 'resend@corp.example', { password: PASSWORD });
    const { browser } = await atLinkPage('resend-sub', 'resend@corp.example');
    await browser.post(MAIL, {});
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM mail_outbox WHERE company_id = 'globex' AND user_id = 'resend' AND purpose = 'link-identity'`);
    expect(rows).toHaveLength(1);
    const resent = await call(server, globex.adminToken, 'POST', `/api/companys/globex/domainNames/${globex.domainId}/outbox/${rows[0].id}/resend`, {});
    expect(resent.status).toBe(409);
    expect(resent.body.message).toContain('is not resent');
    const { rows: after } = await server.db.query(`SELECT 1 FROM mail_outbox WHERE company_id = 'globex' AND user_id = 'resend' AND purpose = 'link-identity'`);
    expect(after).toHaveLength(1);
  });

  it('the sending is throttled per account: a flood gets a 429 and no more mail', async () => {
    await addUser('flooded', 'flooded@corp.example', 'flooded@corp.example', { password: PASSWORD });
    const { browser } = await atLinkPage('flood-sub', 'flooded@corp.example');
    for (let n = 0; n < LINK_MAIL_LIMITS.perAccount; n++) expect((await browser.post(MAIL, {})).status).toBe(200);
    const refused = await browser.post(MAIL, {});
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Too many links were e-mailed for this account');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // another sign-in (another pending link) for the same account counts on the same counter
    const other = await atLinkPage('flood-sub-2', 'flooded@corp.example');
    expect((await other.browser.post(MAIL, {})).status).toBe(429);
    expect(await messagesTo('flooded')).toHaveLength(LINK_MAIL_LIMITS.perAccount);
    expect(await eventsOf('flooded')).toContainEqual(expect.objectContaining({ outcome: 'throttled' }));
  });

  it('a blocked account is refused: no mail for it, and a link e-mailed before the block links nothing', async () => {
    await addUser('soon-blocked', 'blocked@corp.example', 'blocked@corp.example', { password: PASSWORD });
    const { browser } = await atLinkPage('blocked-sub', 'blocked@corp.example');
    expect((await browser.post(MAIL, {})).status).toBe(200);
    const token = await mailedToken('soon-blocked');
    await server.db.query(`UPDATE users SET blocked_at = now() WHERE company_id = 'globex' AND id = 'soon-blocked'`);
    const refused = await browser.post(CONFIRM, { token });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('blocked');
    expect(codeOf(refused)).toBeNull();
    expect(await identityOf('blocked-sub')).toBeUndefined();
    expect(await eventsOf('soon-blocked')).toContainEqual({ outcome: 'blocked', detail: 'proved by an e-mailed link', connectionId: 'corp' });

    // blocked already: the page answers as ever, and nothing is sent
    const later = await atLinkPage('blocked-sub-2', 'blocked@corp.example');
    expect((await later.browser.post(MAIL, {})).status).toBe(200);
    expect(await messagesTo('soon-blocked')).toHaveLength(1);
  });

  it('a token that is not one is refused with a sentence, never a 5xx', async () => {
    const browser = injectBrowser(server);
    for (const token of ['', 'short', 'x'.repeat(43), 'é'.repeat(43)]) {
      expect((await browser.get(`${CONFIRM}?token=${encodeURIComponent(token)}`)).status).toBe(400);
      expect((await browser.post(CONFIRM, { token })).status).toBe(400);
    }
    expect((await browser.post(MAIL, {})).status).toBe(400);
  });
});
