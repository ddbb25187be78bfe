import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestIdp } from '../upstream/samlIdp.js';
import { upstreamPaths } from '../../server/accounts/upstream.js';
import { sha256 } from '../../server/ids.js';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';

/**
 * Connections to upstream identity providers (docs/CONSOLE.md, "Connections"): CRUD per domain, the
 * secret sealed and never returned, validation by protocol, claimed e-mail domains and their proof,
 * the test sign-in's ticket; another tenant 404, lesser roles 403, every write audited.
 */

// The DNS answers the tests control: name -> TXT records (each a list of chunks), or an error code.
const dnsAnswers = vi.hoisted(() => new Map<string, string[][] | string>());
vi.mock('node:dns/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:dns/promises')>();
  class Resolver {
    async resolveTxt(name: string) {
      const answer = dnsAnswers.get(name) ?? 'ENOTFOUND';
      if (typeof answer === 'string') throw Object.assign(new Error(`queryTxt ${answer} ${name}`), { code: answer });
      return answer;
    }
  }
  return { ...original, Resolver, default: { ...original, Resolver } };
});

let server: TestServer;
let acme: Tenant;
let beta: Tenant;
const tokens: Record<string, string> = {};
const SECRET = 'the-client-secret-nobody-sees-0123456789';
const base = () => `/api/companys/acme/domainNames/${acme.domainId}/connections`;
const oidc = (extra: object = {}) => ({ displayName: 'Okta', protocol: 'oidc', preset: 'okta', issuer: 'https://acme.okta.com', clientId: 'okta-client', clientSecret: SECRET, ...extra });
/** A real IdP's metadata (the samlify test IdP's: entity id, redirect SSO address, signing certificate), made in beforeAll. */
let SAML_METADATA = '';
/** Well-formed metadata that names an IdP but gives no certificate: no assertion of it could be checked. */
const UNSIGNED_METADATA =
  '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const as = (token: string, method: Method, url: string, body?: unknown) => call(server, token, method, url, body);
const admin = (method: Method, url: string, body?: unknown) => as(acme.adminToken, method, url, body);

beforeAll(async () => {
  SAML_METADATA = (await createTestIdp()).metadataXml;
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  for (const role of ['owner', 'administrator', 'support', 'user-manager', 'application-manager', 'auditor']) {
    const userId = `as-${role}`;
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example')`, [acme.domainId, userId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', $2, $3, 'acme')`, [acme.domainId, userId, role]);
    tokens[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId });
  }
}, 120_000);
afterAll(() => server?.close());

async function storedRow(connectionId: string) {
  const { rows } = await server.db.query<{ secret: string | null; settings: Record<string, unknown> }>(`SELECT secret, settings FROM connections WHERE company_id = 'acme' AND id = $1`, [connectionId]);
  return rows[0];
}

async function auditOf(connectionId: string) {
  const filter = encodeURIComponent(JSON.stringify({ resourceType: 'connections', resourceId: connectionId }));
  return (await admin('GET', `/api/companys/acme/auditEvents?filter=${filter}&sort=${encodeURIComponent('["occurredAt","ASC"]')}&range=[0,99]`)).body as { action: string; changes: Record<string, unknown>; actorUserId: string }[];
}

describe('connections: create, read, change, delete', () => {
  it('round-trips a connection with its computed addresses, the secret sealed and never answered', async () => {
    const created = await admin('POST', base(), oidc({ id: 'okta', claimMapping: { groups: 'roles' }, trustEmail: true }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const paths = upstreamPaths('acme', acme.domainId, 'okta');
    expect(created.body).toMatchObject({
      id: 'okta',
      displayName: 'Okta',
      protocol: 'oidc',
      preset: 'okta',
      enabled: true,
      status: 'active',
      issuer: 'https://acme.okta.com',
      clientId: 'okta-client',
      scopes: 'openid profile email',
      claimMapping: { groups: 'roles' },
      trustEmail: true,
      mfaFromIdp: false,
      sharedWithSubtree: false,
      hasSecret: true,
      callbackUrl: `${PUBLIC_URL}${paths.callback}`,
      samlMetadataServedAt: `${PUBLIC_URL}${paths.samlMetadata}`,
    });
    expect(created.body).not.toHaveProperty('clientSecret');
    expect(created.text).not.toContain(SECRET);

    // stored sealed: the column is not the secret, nor does it hold it
    const stored = await storedRow('okta');
    expect(stored.secret).toMatch(/^v1\./);
    expect(stored.secret).not.toContain(SECRET);
    expect(JSON.stringify(stored.settings)).not.toContain(SECRET);

    const read = await admin('GET', `${base()}/okta`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const list = await admin('GET', base());
    expect(list.headers['content-range']).toBe('connections 0-0/1');
    expect(list.body.map((c: { id: string }) => c.id)).toEqual(['okta']);
    const csv = await admin('GET', `${base()}/export.csv`);
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('okta-client');
    expect(csv.text).toContain('hasSecret');
    for (const answer of [read, list, csv]) expect(answer.text).not.toContain(SECRET);
  });

  it('changes settings, replaces the secret only when one is sent, and records every write without the secret', async () => {
    const sealedBefore = (await storedRow('okta')).secret;
    const renamed = await admin('PUT', `${base()}/okta`, { displayName: 'Okta SSO', enabled: false, clientSecret: '' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ displayName: 'Okta SSO', enabled: false, hasSecret: true, issuer: 'https://acme.okta.com' });
    expect((await storedRow('okta')).secret).toBe(sealedBefore);

    const rotated = await admin('PUT', `${base()}/okta`, { clientSecret: 'another-secret-entirely-9876' });
    expect(rotated.status).toBe(200);
    expect((await storedRow('okta')).secret).not.toBe(sealedBefore);

    const trail = await auditOf('okta');
    expect(trail.map((record) => record.action)).toEqual(['create', 'update', 'update']);
    expect(trail[0].changes).toMatchObject({ displayName: { after: 'Okta' }, clientSecret: { hidden: true } });
    expect(trail[1].changes).toEqual({ displayName: { before: 'Okta', after: 'Okta SSO' }, enabled: { before: true, after: false } });
    expect(trail[2].changes).toEqual({ clientSecret: { hidden: true } });
    expect(JSON.stringify(trail)).not.toContain(SECRET);
    expect(JSON.stringify(trail)).not.toContain('another-secret-entirely-9876');
    expect(trail[0].actorUserId).toBe('boss');
  });

  it('soft-deletes, recovers, and purges only what is deleted', async () => {
    expect((await admin('POST', base(), oidc({ id: 'doomed', displayName: 'Doomed' }))).status).toBe(201);
    const active = await admin('DELETE', `${base()}/doomed`);
    expect(active.status).toBe(409);
    expect(active.body.message).toContain('Doomed');
    expect(active.body).toMatchObject({ code: 'connection.activePurge', params: { name: 'Doomed' } });
    expect((await admin('PUT', `${base()}/doomed`, { status: 'deleted' })).body.status).toBe('deleted');
    expect((await admin('PUT', `${base()}/doomed`, { status: 'active' })).body.status).toBe('active');
    expect((await admin('PUT', base(), [{ id: 'doomed', status: 'deleted' }])).status).toBe(200);
    const purged = await admin('DELETE', `${base()}/doomed`);
    expect(purged.status).toBe(200);
    expect(purged.body.id).toBe('doomed');
    expect((await admin('GET', `${base()}/doomed`)).status).toBe(404);
    expect((await auditOf('doomed')).map((record) => record.action)).toEqual(['create', 'delete', 'recover', 'delete', 'purge']);
  });

  it('fills a preset in: Google, Entra (its tenant), GitHub (OAuth 2), and SAML from metadata', async () => {
    const google = await admin('POST', base(), { displayName: 'Google', preset: 'google', clientId: 'g-client' });
    expect(google.status, JSON.stringify(google.body)).toBe(201);
    expect(google.body).toMatchObject({ protocol: 'oidc', issuer: 'https://accounts.google.com', hasSecret: false });
    const entra = await admin('POST', base(), { displayName: 'Entra', preset: 'entra', entraTenant: 'contoso.onmicrosoft.com', clientId: 'e-client' });
    expect(entra.body).toMatchObject({ protocol: 'oidc', issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0' });
    // the tenant changes, the issuer follows; an issuer sent back for a preset changes nothing
    const moved = await admin('PUT', `${base()}/${entra.body.id}`, { entraTenant: 'fabrikam.onmicrosoft.com', issuer: entra.body.issuer });
    expect(moved.body.issuer).toBe('https://login.microsoftonline.com/fabrikam.onmicrosoft.com/v2.0');
    expect((await admin('PUT', `${base()}/${google.body.id}`, { issuer: 'https://evil.example' })).body.issuer).toBe('https://accounts.google.com');
    const github = await admin('POST', base(), { displayName: 'GitHub', preset: 'github', clientId: 'gh-client', clientSecret: 'gh-secret' });
    expect(github.body).toMatchObject({ protocol: 'oauth2', issuer: 'https://github.com', scopes: 'read:user user:email', hasSecret: true });
    const apple = await admin('POST', base(), { displayName: 'Apple', preset: 'apple', clientId: 'com.acme.web', appleTeamId: 'TEAM123456', appleKeyId: 'KEY1234567', clientSecret: '-----BEGIN PRIVATE KEY-----\nMIG...\n-----END PRIVATE KEY-----' });
    expect(apple.status, JSON.stringify(apple.body)).toBe(201);
    expect(apple.body).toMatchObject({ protocol: 'oidc', issuer: 'https://appleid.apple.com', appleTeamId: 'TEAM123456', appleKeyId: 'KEY1234567', hasSecret: true });
    expect(apple.text).not.toContain('PRIVATE KEY');
    const saml = await admin('POST', base(), { id: 'saml-idp', displayName: 'SAML', protocol: 'saml', samlMetadataXml: SAML_METADATA });
    expect(saml.status, JSON.stringify(saml.body)).toBe(201);
    expect(saml.body.samlMetadataServedAt).toBe(`${PUBLIC_URL}/oauth/upstream/acme/${acme.domainId}/saml-idp/saml/metadata`);
  });

  it('answers 400 naming the field for what a protocol needs or refuses', async () => {
    const cases: [object, string][] = [
      [{ protocol: 'oidc', issuer: 'https://idp.example', clientId: 'x' }, 'displayName'],
      [{ displayName: 'x', issuer: 'https://idp.example', clientId: 'x' }, 'protocol'],
      [{ displayName: 'x', protocol: 'oidc', clientId: 'x' }, 'issuer'],
      [{ displayName: 'x', protocol: 'oidc', issuer: 'http://idp.example', clientId: 'x' }, 'issuer'],
      [{ displayName: 'x', protocol: 'oidc', issuer: 'http://127.0.0.1:9000', clientId: 'x' }, 'issuer'],
      [{ displayName: 'x', protocol: 'oidc', issuer: 'not a url', clientId: 'x' }, 'issuer'],
      [{ displayName: 'x', protocol: 'oidc', issuer: 'https://user:pw@idp.example', clientId: 'x' }, 'issuer'],
      [{ displayName: 'x', protocol: 'oauth2', issuer: 'https://idp.example' }, 'clientId'],
      [{ displayName: 'x', protocol: 'saml' }, 'samlMetadataXml'],
      [{ displayName: 'x', protocol: 'saml', samlMetadataXml: '<html></html>' }, 'samlMetadataXml'],
      // read as the sign-in reads it: no signing certificate, no redirect SSO address, not XML
      [{ displayName: 'x', protocol: 'saml', samlMetadataXml: UNSIGNED_METADATA }, 'samlMetadataXml'],
      [{ displayName: 'x', protocol: 'saml', samlMetadataXml: UNSIGNED_METADATA.replace('HTTP-Redirect', 'HTTP-POST') }, 'samlMetadataXml'],
      [{ displayName: 'x', protocol: 'saml', samlMetadataXml: '<md:EntityDescriptor xmlns:md="x" entityID="y">' }, 'samlMetadataXml'],
      [{ displayName: 'x', protocol: 'saml', samlMetadataUrl: 'ftp://idp.example/metadata' }, 'samlMetadataUrl'],
      [{ displayName: 'x', preset: 'facebook', clientId: 'x' }, 'preset'],
      [{ displayName: 'x', protocol: 'ldap' }, 'protocol'],
      [{ displayName: 'x', preset: 'github', protocol: 'oidc', clientId: 'x' }, 'protocol'],
      [{ displayName: 'x', preset: 'google', clientId: 'x', entraTenant: 'common' }, 'entraTenant'],
      [{ displayName: 'x', preset: 'apple', clientId: 'x', appleKeyId: 'K' }, 'appleTeamId'],
      [oidc({ appleKeyId: 'K' }), 'appleKeyId'],
      [oidc({ id: 'has space' }), 'id'],
      [oidc({ claimMapping: { email: 'mail', extra: 'x' } }), 'claimMapping'],
      [oidc({ unknownField: 1 }), 'unknownField'],
    ];
    for (const [body, field] of cases) {
      const answer = await admin('POST', base(), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toContain(field);
    }
    // each refusal has its code and what its sentence names, for the console's translation (docs/CONSOLE.md, "Errors and messages")
    const coded: [object, string, object | undefined][] = [
      [{ displayName: 'x', protocol: 'oidc', issuer: 'http://idp.example', clientId: 'x' }, 'connection.url.notHttps', { field: 'issuer', value: 'http://idp.example' }],
      [{ displayName: 'x', protocol: 'saml', samlMetadataUrl: 'ftp://idp.example/metadata' }, 'connection.url.notHttps', { field: 'samlMetadataUrl', value: 'ftp://idp.example/metadata' }],
      [{ displayName: 'x', protocol: 'oauth2', issuer: 'https://idp.example' }, 'connection.clientIdRequired', { protocol: 'oauth2' }],
      [{ displayName: 'x', preset: 'github', protocol: 'oidc', clientId: 'x' }, 'connection.presetProtocol', { preset: 'github', expected: 'oauth2', protocol: 'oidc' }],
      [{ displayName: 'x', preset: 'apple', clientId: 'x', appleKeyId: 'K' }, 'connection.appleRequired', { field: 'appleTeamId' }],
      [{ displayName: 'x', protocol: 'saml', samlMetadataXml: UNSIGNED_METADATA }, 'saml.noSigningCertificate', undefined],
      [oidc({ id: 'okta' }), 'connection.idTaken', { id: 'okta' }],
    ];
    for (const [body, code, params] of coded) {
      const answer = await admin('POST', base(), body);
      expect(answer.body.code, JSON.stringify(body)).toBe(code);
      expect(answer.body.params, JSON.stringify(body)).toEqual(params);
    }
    // read-only fields sent back (react-admin sends the record it read) change nothing
    const sentBack = await admin('POST', base(), oidc({ id: 'sent-back', clientSecret: undefined, hasSecret: true, callbackUrl: 'https://evil.example/cb' }));
    expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(201);
    expect(sentBack.body).toMatchObject({ hasSecret: false, callbackUrl: `${PUBLIC_URL}${upstreamPaths('acme', acme.domainId, 'sent-back').callback}` });
    const protocolChange = await admin('PUT', `${base()}/okta`, { protocol: 'saml', samlMetadataXml: SAML_METADATA });
    expect(protocolChange.status).toBe(400);
    expect(protocolChange.body.message).toContain('protocol');
    const idChange = await admin('PUT', `${base()}/okta`, { id: 'other' });
    expect(idChange.status).toBe(400);
    const duplicate = await admin('POST', base(), oidc({ id: 'okta' }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toContain('okta');
  });

  it('takes http issuers on loopback only when ALLOW_PRIVATE_CALLBACKS', async () => {
    const allowing = await startServer({ allowPrivateCallbacks: true });
    try {
      const url = '/api/companys/root/domainNames/default/connections';
      const loopback = await call(allowing, allowing.adminToken, 'POST', url, { displayName: 'Local', protocol: 'oidc', issuer: 'http://127.0.0.1:9000', clientId: 'x' });
      expect(loopback.status, JSON.stringify(loopback.body)).toBe(201);
      const elsewhere = await call(allowing, allowing.adminToken, 'POST', url, { displayName: 'Far', protocol: 'oidc', issuer: 'http://idp.example', clientId: 'x' });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.message).toContain('issuer');
      expect(elsewhere.body).toMatchObject({ code: 'connection.url.notHttpsLoopback', params: { field: 'issuer', value: 'http://idp.example' } });
    } finally {
      await allowing.close();
    }
  });
});

describe('connections: who may', () => {
  it('another tenant finds nothing (404): neither acme\'s company nor its domain under beta', async () => {
    for (const [method, url] of [
      ['GET', base()],
      ['GET', `${base()}/okta`],
      ['PUT', `${base()}/okta`],
      ['DELETE', `${base()}/okta`],
      ['POST', base()],
      ['GET', `${base()}/okta/emailDomains`],
      ['POST', `${base()}/okta/test`],
      ['GET', `/api/companys/beta/domainNames/${acme.domainId}/connections`],
      ['GET', `/api/companys/beta/domainNames/${beta.domainId}/connections/okta`],
    ] as [Method, string][]) {
      const answer = await as(beta.adminToken, method, url, method === 'GET' || method === 'DELETE' ? undefined : oidc({ displayName: 'Beta' }));
      expect(answer.status, `${method} ${url}`).toBe(404);
      expect(answer.text).not.toContain('okta-client');
    }
  });

  it('Support, User manager and Application manager may neither read nor write; an Auditor reads and never writes; Administrator and Owner write', async () => {
    for (const role of ['support', 'user-manager', 'application-manager']) {
      for (const [method, url] of [['GET', base()], ['GET', `${base()}/okta`], ['POST', base()], ['PUT', `${base()}/okta`], ['POST', `${base()}/okta/test`]] as [Method, string][]) {
        const answer = await as(tokens[role], method, url, method === 'GET' ? undefined : oidc({ displayName: role }));
        expect(answer.status, `${role} ${method} ${url}`).toBe(403);
        expect(answer.body.message).toContain('connections:');
      }
    }
    expect((await as(tokens.auditor, 'GET', `${base()}/okta`)).status).toBe(200);
    expect((await as(tokens.auditor, 'GET', `${base()}/okta`)).text).not.toContain(SECRET);
    expect((await as(tokens.auditor, 'GET', `${base()}/okta/emailDomains`)).status).toBe(200);
    for (const [method, url] of [['POST', base()], ['PUT', `${base()}/okta`], ['DELETE', `${base()}/okta`], ['POST', `${base()}/okta/emailDomains`], ['POST', `${base()}/okta/test`]] as [Method, string][]) {
      const answer = await as(tokens.auditor, method, url, method === 'DELETE' ? undefined : { ...oidc({ displayName: 'Audited' }), ...(url.endsWith('emailDomains') ? { emailDomain: 'x.example' } : {}) });
      expect(answer.status, `auditor ${method} ${url}`).toBe(403);
    }
    for (const role of ['administrator', 'owner']) {
      const created = await as(tokens[role], 'POST', base(), oidc({ displayName: `by ${role}` }));
      expect(created.status, role).toBe(201);
      expect((await as(tokens[role], 'PUT', `${base()}/${created.body.id}`, { enabled: false })).status, role).toBe(200);
    }
  });
});

describe('connections: claimed e-mail domains', () => {
  const domains = () => `${base()}/okta/emailDomains`;

  it('answers the TXT record on a claim; a second claim of the domain is 409 naming it', async () => {
    const claimed = await admin('POST', domains(), { emailDomain: 'Acme.Example' });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    expect(claimed.body).toMatchObject({ emailDomain: 'acme.example', verifiedAt: null });
    expect(claimed.body.verificationToken).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(claimed.body.txtRecord).toBe(`_iam-console-challenge.acme.example TXT iam-console-verification=${claimed.body.verificationToken}`);
    const again = await admin('POST', `${base()}/saml-idp/emailDomains`, { emailDomain: 'acme.example' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('acme.example');
    for (const bad of ['not a domain', 'localhost', '-bad.example', 'a..example']) {
      const answer = await admin('POST', domains(), { emailDomain: bad });
      expect(answer.status, bad).toBe(400);
      expect(answer.body.message).toContain('emailDomain');
      expect(answer.body).toMatchObject({ code: 'connection.emailDomainInvalid', params: { value: bad } });
    }
    // another tenant may claim the same e-mail domain in its own domain: a claim routes its own sign-ins only
    const elsewhere = await as(beta.adminToken, 'POST', `/api/companys/beta/domainNames/${beta.domainId}/connections`, oidc({ id: 'beta-okta' }));
    expect(elsewhere.status).toBe(201);
    expect((await as(beta.adminToken, 'POST', `/api/companys/beta/domainNames/${beta.domainId}/connections/beta-okta/emailDomains`, { emailDomain: 'acme.example' })).status).toBe(201);
    expect((await as(beta.adminToken, 'GET', `/api/companys/beta/domainNames/${beta.domainId}/connections/okta/emailDomains`)).status).toBe(404);
  });

  it('verifies by DNS only when the TXT record holds the token, with a clear 409 otherwise', async () => {
    const { body: claim } = await admin('POST', domains(), { emailDomain: 'dns.example' });
    const record = '_iam-console-challenge.dns.example';
    const missing = await admin('POST', `${domains()}/dns.example/verify`, { method: 'dns' });
    expect(missing.status).toBe(409);
    expect(missing.body.message).toContain(`there is no TXT record at ${record}`);
    expect(missing.body.message).toContain(claim.txtRecord);
    expect(missing.body).toMatchObject({ code: 'connection.emailDomainNoTxt', params: { emailDomain: 'dns.example', name: record, record: claim.txtRecord } });
    dnsAnswers.set(record, 'ESERVFAIL');
    const broken = await admin('POST', `${domains()}/dns.example/verify`, { method: 'dns' });
    expect(broken.status).toBe(409);
    expect(broken.body.message).toContain('ESERVFAIL');
    expect(broken.body).toMatchObject({ code: 'connection.emailDomainLookupFailed', params: { failure: 'ESERVFAIL', record: claim.txtRecord } });
    dnsAnswers.set(record, [['iam-console-verification=', 'somebody-else']]);
    const other = await admin('POST', `${domains()}/dns.example/verify`, { method: 'dns' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'connection.emailDomainTxtMissing', params: { name: record, expected: `iam-console-verification=${claim.verificationToken}` } });
    expect((await admin('GET', domains())).body.find((d: { emailDomain: string }) => d.emailDomain === 'dns.example').verifiedAt).toBeNull();

    // a long record arrives in chunks: they are one value
    dnsAnswers.set(record, [['v=spf1 -all'], ['iam-console-verification=', claim.verificationToken]]);
    const verified = await admin('POST', `${domains()}/DNS.example/verify`, { method: 'dns' });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ emailDomain: 'dns.example', verifiedBy: 'dns' });
    expect(verified.body.verifiedAt).toEqual(expect.any(String));
  });

  it("verifies by an administrator's confirmation; removes a claim; each audited", async () => {
    const confirmed = await admin('POST', `${domains()}/acme.example/verify`, { method: 'confirm' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ emailDomain: 'acme.example', verifiedBy: 'confirm' });
    expect((await admin('POST', `${domains()}/acme.example/verify`, { method: 'bogus' })).status).toBe(400);
    expect((await admin('POST', `${domains()}/nowhere.example/verify`, { method: 'confirm' })).status).toBe(404);
    const listed = await admin('GET', domains());
    expect(listed.body.map((d: { emailDomain: string }) => d.emailDomain)).toEqual(['acme.example', 'dns.example']);
    const removed = await admin('DELETE', `${domains()}/dns.example`);
    expect(removed.status).toBe(200);
    expect(removed.body.emailDomain).toBe('dns.example');
    expect((await admin('DELETE', `${domains()}/dns.example`)).status).toBe(404);
    const actions = (await auditOf('okta')).map((record) => record.action);
    expect(actions).toEqual(expect.arrayContaining(['addEmailDomain', 'verifyEmailDomain', 'removeEmailDomain']));
    // a lesser role confirms nothing
    expect((await as(tokens['user-manager'], 'POST', `${domains()}/acme.example/verify`, { method: 'confirm' })).status).toBe(403);
  });
});

describe('connections: test sign-in', () => {
  it("answers a start address with a single-use ticket, stored only as its hash, for five minutes", async () => {
    const answer = await admin('POST', `${base()}/okta/test`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const url = new URL(answer.body.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${PUBLIC_URL}${upstreamPaths('acme', acme.domainId, 'okta').start}`);
    const ticket = url.searchParams.get('ticket')!;
    expect(ticket).toMatch(/^[A-Za-z0-9]{43}$/);
    const { rows } = await server.db.query<{ purpose: string; payload: { by: { userId: string } }; minutes: number }>(
      `SELECT purpose, payload, extract(epoch FROM expires_at - now()) / 60 AS minutes FROM upstream_flows WHERE id = $1 AND company_id = 'acme' AND connection_id = 'okta'`,
      [sha256(ticket)],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].purpose).toBe('test-ticket');
    expect(rows[0].payload.by.userId).toBe('boss');
    expect(Number(rows[0].minutes)).toBeGreaterThan(4);
    expect(Number(rows[0].minutes)).toBeLessThanOrEqual(5);
    expect((await server.db.query(`SELECT 1 FROM upstream_flows WHERE id = $1`, [ticket])).rowCount).toBe(0);
    expect((await admin('POST', `${base()}/nowhere/test`)).status).toBe(404);
  });
});

describe('sign-in logs', () => {
  it('show the connection a sign-in came through, read-only', async () => {
    await server.db.query(`INSERT INTO signin_events (company_id, domain_id, user_id, outcome, connection_id) VALUES ('acme', $1, 'worker', 'upstream_not_linked', 'okta')`, [acme.domainId]);
    const events = await admin('GET', `/api/companys/acme/domainNames/${acme.domainId}/signInEvents`);
    expect(events.status).toBe(200);
    expect(events.body[0]).toMatchObject({ userId: 'worker', outcome: 'upstream_not_linked', connectionId: 'okta' });
  });
});
