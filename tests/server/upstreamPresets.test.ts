import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as jose from 'jose';
import { encryptSecret } from '../../server/accounts/factors.js';
import { createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer } from './helpers.js';
import { consoleLoginFields, CookieJar, injectBrowser, pkce, postLogin } from './oauthHelpers.js';
import { codeOf, continueUrl, refusalOf, throughIdp } from './upstreamHelpers.js';
import { start as startIdp, type OidcIdp } from '../upstream/oidcIdp.js';

/**
 * Client authentication by private_key_jwt (docs/CONSOLE.md, "Connections"), end to end: a
 * connection whose secret is a PEM key (and which is not Apple) signs a client assertion that the
 * upstream IdP, a second oidc-provider whose client is registered with
 * token_endpoint_auth_method 'private_key_jwt' and the public half in its JWKS, verifies at its token
 * endpoint. A key the IdP does not know is refused with a sentence (a 4xx), never a 5xx.
 */

let server: TestServer;
let rsaIdp: OidcIdp;
let ecIdp: OidcIdp;
let globex: Tenant;

async function addConnection(tenant: Tenant, id: string, idp: OidcIdp, secret: string) {
  await server.db.query(
    `INSERT INTO connections (company_id, domain_id, id, display_name, protocol, preset, settings, secret, trust_email, mfa_from_idp, shared_with_subtree, enabled)
     VALUES ($1, $2, $3, $4, 'oidc', 'custom', $5::jsonb, $6, true, false, false, true)`,
    [tenant.companyId, tenant.domainId, id, `IdP ${id}`, JSON.stringify({ issuer: idp.issuer, clientId: idp.clientId, scopes: 'openid email profile', claimMapping: {} }), await encryptSecret(server.db, secret)],
  );
}

/** The console's sign-in form posted with a connection; the browser goes through the IdP and back. */
async function consoleUpstream(fields: Record<string, string | undefined>) {
  const jar = new CookieJar();
  const { challenge } = pkce();
  const started = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', ...fields }));
  expect(started.statusCode, started.body.slice(0, 500)).toBe(200);
  jar.keep(started.headers['set-cookie'] as string[] | undefined);
  const callback = await throughIdp(continueUrl(started.body));
  const end = await injectBrowser(server, jar).get(callback.slice(PUBLIC_URL.length));
  return { callback, end };
}

async function userOfSubject(tenant: Tenant, connectionId: string, subject: string) {
  const { rows } = await server.db.query<{ userId: string }>(
    `SELECT user_id AS "userId" FROM user_identities WHERE company_id = $1 AND domain_id = $2 AND connection_id = $3 AND subject = $4`,
    [tenant.companyId, tenant.domainId, connectionId, subject],
  );
  return rows[0];
}

async function lastEvent() {
  const { rows } = await server.db.query<{ outcome: string; connectionId: string | null }>(`SELECT outcome, connection_id AS "connectionId" FROM signin_events ORDER BY id DESC LIMIT 1`);
  return rows[0];
}

beforeAll(async () => {
  [server, rsaIdp, ecIdp] = await Promise.all([
    startServer({ allowPrivateCallbacks: true }),
    startIdp({ clientId: 'pkjwt-rsa', clientAuth: 'private_key_jwt' }),
    startIdp({ clientId: 'pkjwt-ec', clientAuth: 'private_key_jwt', keyAlg: 'ES256' }),
  ]);
  globex = await createTenant(server, 'globex', 'root', 'reseller');
  const stranger = await jose.generateKeyPair('RS256', { extractable: true });
  await addConnection(globex, 'keyed', rsaIdp, rsaIdp.privateKeyPem!);
  await addConnection(globex, 'keyed-ec', ecIdp, ecIdp.privateKeyPem!);
  await addConnection(globex, 'wrong-key', rsaIdp, await jose.exportPKCS8(stranger.privateKey));
  await addConnection(globex, 'not-a-key', rsaIdp, '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n');
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.close(), rsaIdp?.close(), ecIdp?.close()]);
});

describe('client authentication by private_key_jwt', () => {
  it('the IdP registers the client with private_key_jwt and no secret, and gives the test its PKCS #8 key', async () => {
    expect(rsaIdp.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    // the client has no secret to fall back on: the secret-based authentication is refused
    const response = await fetch(`${rsaIdp.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`pkjwt-rsa:${rsaIdp.clientSecret}`).toString('base64')}` },
      body: 'grant_type=authorization_code&code=nothing&redirect_uri=http%3A%2F%2Flocalhost%2Fplaceholder',
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('a sign-in through a connection whose secret is the client\'s RSA key succeeds (its assertion verified by the IdP)', async () => {
    rsaIdp.setAccount({ sub: 'keyed-ann', email: 'keyed-ann@corp.example', email_verified: true, name: 'Keyed Ann' });
    const { end } = await consoleUpstream({ company: 'globex', connection: 'keyed' });
    expect(codeOf(end), `${end.status} ${end.location?.href} ${end.body.slice(0, 300)}`).toBeTruthy();
    const identity = await userOfSubject(globex, 'keyed', 'keyed-ann');
    expect(identity?.userId).toBeTruthy();
    const { rows } = await server.db.query(`SELECT display_name, email FROM users WHERE company_id = 'globex' AND domain_id = 'globex-domain' AND id = $1`, [identity.userId]);
    expect(rows[0]).toEqual({ display_name: 'Keyed Ann', email: 'keyed-ann@corp.example' });
    expect(await lastEvent()).toMatchObject({ outcome: 'success', connectionId: 'keyed' });
  });

  it('a sign-in through a connection whose secret is an EC key (PKCS #8, ES256) succeeds too', async () => {
    ecIdp.setAccount({ sub: 'keyed-bob', email: 'keyed-bob@corp.example', email_verified: true, name: 'Keyed Bob' });
    const { end } = await consoleUpstream({ company: 'globex', connection: 'keyed-ec' });
    expect(codeOf(end), `${end.status} ${end.location?.href} ${end.body.slice(0, 300)}`).toBeTruthy();
    expect((await userOfSubject(globex, 'keyed-ec', 'keyed-bob'))?.userId).toBeTruthy();
  });

  it('a key the IdP does not know is refused with a sentence, never a 5xx, and nobody is signed in', async () => {
    rsaIdp.setAccount({ sub: 'keyed-eve', email: 'keyed-eve@corp.example', email_verified: true, name: 'Keyed Eve' });
    const { end } = await consoleUpstream({ company: 'globex', connection: 'wrong-key' });
    expect(end.status).toBeLessThan(500);
    expect(codeOf(end)).toBeNull();
    expect(refusalOf(end)).toMatch(/refused while exchanging its code: invalid_client \(/);
    expect(await userOfSubject(globex, 'wrong-key', 'keyed-eve')).toBeUndefined();
    expect(await lastEvent()).toMatchObject({ outcome: 'upstream_failed', connectionId: 'wrong-key' });
  });

  it('a secret that looks like a PEM key but is none is a 400 with a sentence at the start', async () => {
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { email: undefined, password: '', company: 'globex', connection: 'not-a-key' }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('private key cannot be read');
  });
});
