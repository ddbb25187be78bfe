import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIdp, type SamlResponseOptions, type SamlTestUser, startTestIdpServer, type TestIdp } from '../upstream/samlIdp.js';
import { call, createTenant, PUBLIC_URL, startServer, type TestServer } from './helpers.js';
import { addApplication, CONSOLE_REDIRECT, consoleLoginFields, CookieJar, injectBrowser, pkce, postLogin, postToken, redirectParams } from './oauthHelpers.js';

/**
 * A whole SAML sign-in to the console (docs/CONSOLE.md, "Connections"): the console's form post
 * names the connection, the browser goes to the samlify IdP with node-saml's AuthnRequest, the IdP's
 * answer is posted to the ACS, and the console's sign-in ends with a code, the person provisioned
 * just in time on the first sign-in and found again on the next.
 */

let server: TestServer;
let idp: TestIdp;
let connectionId: string;
let metadataServedAt: string;
const CONNECTIONS = '/api/companys/root/domainNames/default/connections';
const acsPath = (id: string) => `/oauth/upstream/root/default/${id}/saml/acs`;
const GRACE = { nameId: 'grace@navy.example', attributes: { mail: 'grace@navy.example', displayName: 'Grace Hopper' } };

beforeAll(async () => {
  server = await startServer();
  idp = await createTestIdp();
  const created = await call(server, server.adminToken, 'POST', CONNECTIONS, { displayName: 'Navy SAML', protocol: 'saml', enabled: true, samlMetadataXml: idp.metadataXml });
  expect(created.status).toBe(201);
  connectionId = created.body.id;
  metadataServedAt = created.body.samlMetadataServedAt;
});
afterAll(() => server?.close());

/** The console's form post naming the connection: a page that continues to the IdP, whose address it returns. */
async function startAtConsole(id = connectionId) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: undefined, company: 'root', connection: id }));
  expect(response.statusCode).toBe(200);
  const href = /id="continue" href="([^"]+)"/.exec(response.body)?.[1];
  expect(href).toBeDefined();
  const idpUrl = href!.replace(/&amp;/g, '&');
  return { idpUrl, relayState: new URL(idpUrl).searchParams.get('RelayState')!, verifier };
}

/** The IdP's auto-submitted form: SAMLResponse and RelayState posted to the ACS (from another site: no cookie of ours). */
const postAcs = (fields: { SAMLResponse: string; RelayState: string }, id = connectionId) =>
  server.app.inject({ method: 'POST', url: acsPath(id), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

const cookieOf = (response: { headers: Record<string, unknown> }, name: string) =>
  [response.headers['set-cookie']].flat().map(String).find((value) => value.startsWith(`${name}=`))?.split(';')[0];

async function peopleCounts() {
  const { rows } = await server.db.query(`SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM user_identities)::int AS identities`);
  return rows[0];
}

/** A refusal after the IdP answered: the console's sign-in goes back to its form with why (as a refused password does), no code. */
function consoleRefusal(response: { statusCode: number; headers: Record<string, unknown> }) {
  expect(response.statusCode).toBe(303);
  const back = redirectParams(response)!;
  expect(`${back.url.origin}${back.url.pathname}`).toBe(CONSOLE_REDIRECT);
  expect(back.params).toMatchObject({ error: 'access_denied', state: 'state-123' });
  expect(back.params.code).toBeUndefined();
  return back.params.error_description;
}

/** The whole round: console → IdP → ACS → the console's finish → the code, exchanged for tokens. */
async function signInThroughIdp(user: SamlTestUser = GRACE, options: Partial<SamlResponseOptions> = {}) {
  const { idpUrl, relayState, verifier } = await startAtConsole();
  const SAMLResponse = await idp.respond({ request: idpUrl, user, ...options });
  const acs = await postAcs({ SAMLResponse, RelayState: relayState });
  expect(acs.statusCode).toBe(303);
  expect(acs.headers.location).toBe('/oauth/login/upstream');
  const finished = await server.app.inject({ method: 'GET', url: '/oauth/login/upstream', headers: { cookie: cookieOf(acs, 'iam_upstream_done')! } });
  expect(finished.statusCode).toBe(303);
  const landed = redirectParams(finished)!;
  expect(`${landed.url.origin}${landed.url.pathname}`).toBe(CONSOLE_REDIRECT);
  expect(landed.params.state).toBe('state-123');
  return { landed, verifier };
}

describe('SAML sign-in to the console through a connection', () => {
  it('serves the SP metadata at the address the connection shows, and 404 for a connection that is not there', async () => {
    expect(metadataServedAt).toBe(`${PUBLIC_URL}/oauth/upstream/root/default/${connectionId}/saml/metadata`);
    const metadata = await server.app.inject({ method: 'GET', url: new URL(metadataServedAt).pathname });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/);
    expect(metadata.body).toContain(`entityID="${metadataServedAt}"`);
    expect(metadata.body).toContain(`Location="${PUBLIC_URL}${acsPath(connectionId)}"`);
    const missing = await server.app.inject({ method: 'GET', url: '/oauth/upstream/root/default/no-such-connection/saml/metadata' });
    expect(missing.statusCode).toBe(404);
  });

  it('provisions her just in time on the first sign-in and finds the same account on the second', async () => {
    const before = await peopleCounts();
    const first = await signInThroughIdp();
    expect(first.landed.params.code).toBeTruthy();
    const tokens = await postToken(server, { grant_type: 'authorization_code', code: first.landed.params.code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: first.verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.body.id_token).toBeTruthy();

    const { rows: [grace] } = await server.db.query(`SELECT id, display_name AS "displayName", email_verified AS "emailVerified", password_hash AS "passwordHash" FROM users WHERE company_id = 'root' AND domain_id = 'default' AND email = 'grace@navy.example'`);
    // the address is not called verified: this connection does not trust the IdP's addresses (trustEmail off)
    expect(grace).toMatchObject({ displayName: 'Grace Hopper', emailVerified: false, passwordHash: null });
    const { rows: identities } = await server.db.query(`SELECT user_id AS "userId", subject, last_used_at IS NOT NULL AS used FROM user_identities WHERE connection_id = $1`, [connectionId]);
    expect(identities).toEqual([{ userId: grace.id, subject: 'grace@navy.example', used: true }]);
    expect(await peopleCounts()).toEqual({ users: before.users + 1, identities: before.identities + 1 });
    const { rows: events } = await server.db.query(`SELECT outcome FROM signin_events WHERE user_id = $1 AND connection_id = $2`, [grace.id, connectionId]);
    expect(events.map((event) => event.outcome)).toEqual(['success']);

    const second = await signInThroughIdp();
    expect(second.landed.params.code).toBeTruthy();
    expect(await peopleCounts()).toEqual({ users: before.users + 1, identities: before.identities + 1 });
  });

  it('signs in through the IdP\'s own page: its form posts the answer to the ACS', async () => {
    const idpServer = await startTestIdpServer({ nameId: 'katherine@navy.example', attributes: { mail: 'katherine@navy.example', displayName: 'Katherine Johnson' } });
    try {
      const created = await call(server, server.adminToken, 'POST', CONNECTIONS, { displayName: 'Navy IdP page', protocol: 'saml', enabled: true, samlMetadataXml: idpServer.idp.metadataXml });
      expect(created.status).toBe(201);
      const { idpUrl, verifier } = await startAtConsole(created.body.id);
      const page = await (await fetch(idpUrl)).text();
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1];
      const action = /action="([^"]+)"/.exec(page)?.[1];
      expect(action).toBe(`${PUBLIC_URL}${acsPath(created.body.id)}`);
      const acs = await postAcs({ SAMLResponse: field('SAMLResponse')!, RelayState: field('RelayState')! }, created.body.id);
      expect(acs.statusCode).toBe(303);
      const finished = await server.app.inject({ method: 'GET', url: acs.headers.location as string, headers: { cookie: cookieOf(acs, 'iam_upstream_done')! } });
      const code = redirectParams(finished)?.params.code;
      expect(code).toBeTruthy();
      const tokens = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier });
      expect(tokens.status).toBe(200);
      const { rows } = await server.db.query(`SELECT display_name AS "displayName" FROM users WHERE email = 'katherine@navy.example'`);
      expect(rows).toEqual([{ displayName: 'Katherine Johnson' }]);
    } finally {
      await idpServer.close();
    }
  });

  it("signs in to another application through the hosted page's button: the IdP's answer ends the interaction with a code", async () => {
    await addApplication(server, { id: 'navy-app', companyId: 'root', domainId: 'default', redirectUris: ['https://app.navy.example/cb'] });
    const { challenge } = pkce();
    const authorize = `/oauth/authorize?${new URLSearchParams({ client_id: 'navy-app', redirect_uri: 'https://app.navy.example/cb', response_type: 'code', scope: 'openid email', state: 'hosted-1', code_challenge: challenge, code_challenge_method: 'S256' })}`;
    const browser = injectBrowser(server, new CookieJar());
    const page = await browser.get(authorize);
    expect(page.status).toBe(200);
    const button = /<a class="connection" href="([^"]+)">Sign in with Navy SAML<\/a>/.exec(page.body)?.[1];
    expect(button, page.body.slice(0, 2000)).toBeTruthy();
    // the button, then on to the IdP (outside the provider: where the browser stops)
    const atIdp = await browser.get(button!.replace(/&amp;/g, '&'));
    expect(atIdp.location?.origin).toBe(new URL(idp.ssoUrl).origin);
    const idpUrl = atIdp.location!.href;
    const SAMLResponse = await idp.respond({ request: idpUrl, user: GRACE });
    const end = await browser.post(acsPath(connectionId), { SAMLResponse, RelayState: new URL(idpUrl).searchParams.get('RelayState')! });
    expect(`${end.location?.origin}${end.location?.pathname}`, end.body.slice(0, 500)).toBe('https://app.navy.example/cb');
    expect(end.location?.searchParams.get('state')).toBe('hosted-1');
    expect(end.location?.searchParams.get('code')).toBeTruthy();
    const { rows } = await server.db.query(`SELECT e.outcome FROM signin_events e WHERE e.client_id = 'navy-app' AND e.connection_id = $1`, [connectionId]);
    expect(rows.map((row) => row.outcome)).toEqual(['success']);
  });

  it('refuses a blocked account whatever the IdP says', async () => {
    const ada = { nameId: 'ada@navy.example', attributes: { mail: 'ada@navy.example' } };
    await signInThroughIdp(ada);
    await server.db.query(`UPDATE users SET blocked_at = now() WHERE company_id = 'root' AND domain_id = 'default' AND email = 'ada@navy.example'`);
    const { idpUrl, relayState } = await startAtConsole();
    const refused = await postAcs({ SAMLResponse: await idp.respond({ request: idpUrl, user: ada }), RelayState: relayState });
    expect(consoleRefusal(refused)).toMatch(/blocked/);
  });

  it('asks the password of an existing account with her address before linking, and never links an address the connection does not trust', async () => {
    await server.db.query(
      `INSERT INTO users (company_id, domain_id, id, username, display_name, email, password_hash) VALUES ('root', 'default', 'linus', 'linus', 'Linus', 'linus@navy.example', 'x')`,
    );
    const linus = { nameId: 'linus-at-idp', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', attributes: { mail: 'linus@navy.example' } };
    // trustEmail off: no link at all, and nobody made
    const before = await peopleCounts();
    const untrusted = await startAtConsole();
    const refused = await postAcs({ SAMLResponse: await idp.respond({ request: untrusted.idpUrl, user: linus }), RelayState: untrusted.relayState });
    expect(consoleRefusal(refused)).toMatch(/already exists/);
    expect(await peopleCounts()).toEqual(before);

    // trustEmail on: the password page first (the link is made only after it)
    expect((await call(server, server.adminToken, 'PUT', `${CONNECTIONS}/${connectionId}`, { trustEmail: true })).status).toBe(200);
    try {
      const trusted = await startAtConsole();
      const prove = await postAcs({ SAMLResponse: await idp.respond({ request: trusted.idpUrl, user: linus }), RelayState: trusted.relayState });
      expect(prove.statusCode).toBe(303);
      expect(prove.headers.location).toBe('/oauth/upstream/link');
      expect(await peopleCounts()).toEqual(before);
    } finally {
      await call(server, server.adminToken, 'PUT', `${CONNECTIONS}/${connectionId}`, { trustEmail: false });
    }
  });

  it('refuses a wrapped response at the ACS: a page that says why, nobody provisioned, the failure in the sign-in log', async () => {
    const before = await peopleCounts();
    const { idpUrl, relayState } = await startAtConsole();
    const SAMLResponse = await idp.respond({ request: idpUrl, user: { nameId: 'eve@navy.example' }, wrap: { nameId: 'mallory@navy.example', placement: 'extensions' } });
    const refused = await postAcs({ SAMLResponse, RelayState: relayState });
    expect(consoleRefusal(refused)).toMatch(/The SAML response was refused: Invalid signature/);
    expect(await peopleCounts()).toEqual(before);
    const { rows } = await server.db.query(`SELECT outcome FROM signin_events WHERE connection_id = $1 AND outcome = 'upstream_failed'`, [connectionId]);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('refuses an unsigned response and a replayed one at the ACS', async () => {
    const before = await peopleCounts();
    const unsigned = await startAtConsole();
    const refused = await postAcs({ SAMLResponse: await idp.respond({ request: unsigned.idpUrl, user: { nameId: 'eve@navy.example' }, sign: 'none' }), RelayState: unsigned.relayState });
    expect(consoleRefusal(refused)).toMatch(/Invalid signature/);

    const { idpUrl, relayState } = await startAtConsole();
    const SAMLResponse = await idp.respond({ request: idpUrl, user: GRACE });
    expect((await postAcs({ SAMLResponse, RelayState: relayState })).statusCode).toBe(303);
    // the same post again: its flow is spent (an error page: no flow, so no sign-in to go back to)
    expect((await postAcs({ SAMLResponse, RelayState: relayState })).statusCode).toBe(400);
    // and under a new flow's RelayState: an answer to another request, and an assertion already used
    const again = await startAtConsole();
    const replayed = await postAcs({ SAMLResponse, RelayState: again.relayState });
    expect(consoleRefusal(replayed)).toMatch(/InResponseTo/);
    expect(await peopleCounts()).toEqual(before);
  });

  it('does not take a flow at another connection\'s ACS, nor a connection of another organization', async () => {
    const other = await call(server, server.adminToken, 'POST', CONNECTIONS, { displayName: 'Other SAML', protocol: 'saml', enabled: true, samlMetadataXml: idp.metadataXml });
    expect(other.status).toBe(201);
    const acme = await createTenant(server, 'acme-saml');
    const theirs = await call(server, acme.adminToken, 'POST', `/api/companys/${acme.companyId}/domainNames/${acme.domainId}/connections`, { displayName: 'Acme SAML', protocol: 'saml', enabled: true, samlMetadataXml: idp.metadataXml });
    expect(theirs.status).toBe(201);
    const before = await peopleCounts();
    const { idpUrl, relayState } = await startAtConsole();
    const SAMLResponse = await idp.respond({ request: idpUrl, user: { nameId: 'eve@navy.example' } });
    expect((await postAcs({ SAMLResponse, RelayState: relayState }, other.body.id)).statusCode).toBe(400);
    expect(await peopleCounts()).toEqual(before);

    // another organization's connection (not shared): unknown at this organization's sign-in, and at its address under ours
    for (const named of [theirs.body.id, 'not-here']) {
      const { challenge } = pkce();
      const unknown = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: undefined, company: 'root', connection: named }));
      expect(unknown.statusCode).toBe(404);
    }
    expect((await server.app.inject({ method: 'GET', url: `/oauth/upstream/root/default/${theirs.body.id}/saml/metadata` })).statusCode).toBe(404);
    expect((await postAcs({ SAMLResponse, RelayState: relayState }, theirs.body.id)).statusCode).toBe(400);
    expect(await peopleCounts()).toEqual(before);
  });
});
