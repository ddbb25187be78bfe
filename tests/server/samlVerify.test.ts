import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samlAuthorizeUrl, samlServiceProviderMetadata, samlVerify } from '../../server/upstream/saml.js';
import type { UpstreamConnection } from '../../server/accounts/upstream.js';
import { createTestIdp, selfSignedCertificate, type SamlResponseOptions, type TestIdp } from '../upstream/samlIdp.js';
import { PUBLIC_URL, startServer, type TestServer } from './helpers.js';

const SP_ENTITY_ID = `${PUBLIC_URL}/oauth/upstream/root/default/corp-saml/saml/metadata`;
const ACS = `${PUBLIC_URL}/oauth/upstream/root/default/corp-saml/saml/acs`;
const ADA = {
  nameId: 'ada@corp.example',
  attributes: { mail: 'Ada@Corp.example', displayName: 'Ada Lovelace', groups: ['engineering', 'admins'] },
  authnContextClassRef: 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract',
};

let server: TestServer;
let idp: TestIdp;
let connection: UpstreamConnection;

beforeAll(async () => {
  server = await startServer();
  idp = await createTestIdp();
  connection = {
    companyId: 'root', domainId: 'default', id: 'corp-saml', displayName: 'Corp SAML', protocol: 'saml', preset: 'custom',
    enabled: true, claimMapping: {}, samlMetadataXml: idp.metadataXml, trustEmail: false, mfaFromIdp: false, sharedWithSubtree: false,
  };
});
afterAll(() => server?.close());

async function signIn(on = connection) {
  return samlAuthorizeUrl(on, { relayState: 'flow-1', publicUrl: PUBLIC_URL });
}

const verify = (SAMLResponse: string | undefined, expectedRequestId: string, on = connection) =>
  samlVerify(server.db, on, { SAMLResponse, RelayState: 'flow-1' }, { expectedRequestId, publicUrl: PUBLIC_URL });

/** The people tables and the spent assertions: a refusal changes none of them. */
async function counts() {
  const { rows } = await server.db.query(`SELECT (SELECT count(*) FROM users)::int AS users,
    (SELECT count(*) FROM user_identities)::int AS identities, (SELECT count(*) FROM saml_assertions_seen)::int AS seen`);
  return rows[0];
}

async function expectRefused(attempt: () => Promise<unknown>, message: RegExp) {
  const before = await counts();
  const error = await attempt().then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toMatchObject({ statusCode: 400, message: expect.stringMatching(message) });
  expect(await counts()).toEqual(before);
}

/** A sign-in started here and the IdP's answer to it, made with `options`. */
async function answered(options: Partial<SamlResponseOptions> = {}, from = idp) {
  const { url, requestId } = await signIn();
  return { requestId, SAMLResponse: await from.respond({ request: url, user: ADA, ...options }) };
}

describe('SAML service provider: the AuthnRequest and the SP metadata', () => {
  it('sends a deflated, unsigned AuthnRequest to the IdP\'s SSO address, with a new id each time', async () => {
    const first = await signIn();
    const second = await signIn();
    expect(first.requestId).not.toBe(second.requestId);
    const url = new URL(first.url);
    expect(`${url.origin}${url.pathname}`).toBe(idp.ssoUrl);
    expect(url.searchParams.get('RelayState')).toBe('flow-1');
    expect(url.searchParams.has('Signature')).toBe(false);
    const request = new DOMParser().parseFromString(zlib.inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString(), 'text/xml').documentElement!;
    expect(request.localName).toBe('AuthnRequest');
    expect(request.getAttribute('ID')).toBe(first.requestId);
    expect(request.getAttribute('AssertionConsumerServiceURL')).toBe(ACS);
    expect(request.getAttribute('Destination')).toBe(idp.ssoUrl);
    expect(request.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0].textContent).toBe(SP_ENTITY_ID);
  });

  it('serves SP metadata naming our entity id, the ACS (HTTP-POST) and signed assertions wanted', () => {
    const xml = samlServiceProviderMetadata(connection, PUBLIC_URL);
    const document = new DOMParser({ errorHandler: { error: (message: string) => { throw new Error(message); }, fatalError: (message: string) => { throw new Error(message); } } }).parseFromString(xml, 'text/xml');
    const entity = document.documentElement!;
    expect(entity.localName).toBe('EntityDescriptor');
    expect(entity.getAttribute('entityID')).toBe(SP_ENTITY_ID);
    const descriptor = entity.getElementsByTagName('SPSSODescriptor')[0];
    expect(descriptor.getAttribute('WantAssertionsSigned')).toBe('true');
    const acs = descriptor.getElementsByTagName('AssertionConsumerService')[0];
    expect(acs.getAttribute('Location')).toBe(ACS);
    expect(acs.getAttribute('Binding')).toBe('urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
    // no decryption key on this connection: nothing to encrypt to
    expect(descriptor.getElementsByTagName('KeyDescriptor')).toHaveLength(0);
  });

  it('refuses a connection whose IdP metadata is unusable, with a sentence', async () => {
    await expect(signIn({ ...connection, samlMetadataXml: '<not-xml' })).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/not well-formed/) });
    const unsigned = idp.metadataXml.replace(/<(\w+:)?KeyDescriptor[\s\S]*<\/(\w+:)?KeyDescriptor>/, '');
    await expect(signIn({ ...connection, samlMetadataXml: unsigned })).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/no signing certificate/) });
    await expect(signIn({ ...connection, samlMetadataXml: undefined })).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/neither IdP metadata nor a metadata URL/) });
  });
});

describe('SAML service provider: a good response', () => {
  it('gives the profile: NameID as subject, mapped e-mail, name, groups, AuthnContextClassRef as acr, e-mail unverified', async () => {
    const { requestId, SAMLResponse } = await answered();
    const before = await counts();
    expect(await verify(SAMLResponse, requestId)).toEqual({
      subject: 'ada@corp.example',
      email: 'ada@corp.example',
      emailVerified: false,
      name: 'Ada Lovelace',
      groups: ['engineering', 'admins'],
      acr: 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract',
    });
    // the assertion is spent, and nothing else is written
    expect(await counts()).toEqual({ ...before, seen: before.seen + 1 });
  });

  it('reads the attributes the connection\'s claim mapping names, and a NameID in e-mail format when there is no mail', async () => {
    const mapped = { ...connection, claimMapping: { email: 'corpMail', name: 'fullName', groups: 'teams' } };
    const { url, requestId } = await signIn(mapped);
    const SAMLResponse = await idp.respond({
      request: url,
      user: { nameId: '00u1abcd', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', attributes: { corpMail: 'grace@corp.example', mail: 'other@corp.example', fullName: 'Grace Hopper', teams: 'navy' } },
    });
    expect(await verify(SAMLResponse, requestId, mapped)).toMatchObject({ subject: '00u1abcd', email: 'grace@corp.example', name: 'Grace Hopper', groups: ['navy'] });

    const byNameId = await answered({ user: { nameId: 'linus@corp.example' } });
    expect(await verify(byNameId.SAMLResponse, byNameId.requestId)).toEqual({
      subject: 'linus@corp.example', email: 'linus@corp.example', emailVerified: false, acr: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
    });

    const persistent = await answered({ user: { nameId: 'opaque-42', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' } });
    const profile = await verify(persistent.SAMLResponse, persistent.requestId);
    expect(profile.subject).toBe('opaque-42');
    expect(profile.email).toBeUndefined();
  });

  it('calls the address verified only on a connection that trusts the IdP\'s addresses, and the mapped attribute when one is named', async () => {
    const trusted = { ...connection, trustEmail: true };
    const plain = await signIn(trusted);
    expect(await verify(await idp.respond({ request: plain.url, user: ADA }), plain.requestId, trusted)).toMatchObject({ email: 'ada@corp.example', emailVerified: true });
    const mapped = { ...trusted, claimMapping: { emailVerified: 'mailVerified' } };
    for (const [said, verified] of [['true', true], ['false', false]] as const) {
      const { url, requestId } = await signIn(mapped);
      const SAMLResponse = await idp.respond({ request: url, user: { ...ADA, attributes: { ...ADA.attributes, mailVerified: said } } });
      expect((await verify(SAMLResponse, requestId, mapped)).emailVerified).toBe(verified);
    }
    const absent = await signIn(mapped);
    expect((await verify(await idp.respond({ request: absent.url, user: ADA }), absent.requestId, mapped)).emailVerified).toBe(false);
  });

  it('accepts a response signed around a signed assertion', async () => {
    const { requestId, SAMLResponse } = await answered({ sign: 'both' });
    expect((await verify(SAMLResponse, requestId)).subject).toBe('ada@corp.example');
  });
});

describe('SAML service provider: responses refused', () => {
  it('refuses the same assertion a second time', async () => {
    const { requestId, SAMLResponse } = await answered();
    await verify(SAMLResponse, requestId);
    await expectRefused(() => verify(SAMLResponse, requestId), /already used/);
  });

  it('refuses an unsigned response', async () => {
    const { requestId, SAMLResponse } = await answered({ sign: 'none' });
    await expectRefused(() => verify(SAMLResponse, requestId), /refused: Invalid signature/);
  });

  it('refuses a signed response around an unsigned assertion: the signature must cover the assertion used', async () => {
    const { requestId, SAMLResponse } = await answered({ sign: 'response' });
    expect(Buffer.from(SAMLResponse, 'base64').toString()).toContain('SignatureValue');
    await expectRefused(() => verify(SAMLResponse, requestId), /refused: Invalid signature/);
  });

  it('refuses signature wrapping: the signed assertion moved to samlp:Extensions, a forged one in its place', async () => {
    const { requestId, SAMLResponse } = await answered({ wrap: { nameId: 'mallory@corp.example', placement: 'extensions' } });
    const xml = Buffer.from(SAMLResponse, 'base64').toString();
    expect(xml).toContain('mallory@corp.example');
    expect(xml).toMatch(/<samlp:Extensions>.*SignatureValue.*<\/samlp:Extensions>/s);
    await expectRefused(() => verify(SAMLResponse, requestId), /refused: Invalid signature/);
  });

  it('refuses signature wrapping: a forged assertion carrying the original signature, the signed one inside it', async () => {
    const { requestId, SAMLResponse } = await answered({ wrap: { nameId: 'mallory@corp.example', placement: 'object' } });
    await expectRefused(() => verify(SAMLResponse, requestId), /refused: .*(signature|Signature)/);
  });

  it('refuses an assertion for another audience', async () => {
    const { requestId, SAMLResponse } = await answered({ audience: 'https://other-sp.example/metadata' });
    await expectRefused(() => verify(SAMLResponse, requestId), /audience mismatch/);
  });

  it('refuses an assertion for another recipient, and a response sent to another destination', async () => {
    const recipient = await answered({ recipient: 'https://other-sp.example/acs' });
    await expectRefused(() => verify(recipient.SAMLResponse, recipient.requestId), /another recipient/);
    const destination = await answered({ destination: 'https://other-sp.example/acs' });
    await expectRefused(() => verify(destination.SAMLResponse, destination.requestId), /another destination/);
  });

  it('refuses an answer to another request (InResponseTo)', async () => {
    const forged = await answered({ inResponseTo: '_someone-elses-request' });
    await expectRefused(() => verify(forged.SAMLResponse, forged.requestId), /InResponseTo/);
    // a genuine answer to this browser's first request, presented for its second
    const first = await answered();
    const second = await signIn();
    await expectRefused(() => verify(first.SAMLResponse, second.requestId), /InResponseTo/);
    await expectRefused(() => verify(first.SAMLResponse, ''), /No SAML sign-in was started/);
  });

  it('refuses an expired assertion and one not yet valid, beyond the small clock skew', async () => {
    const expired = await answered({ notOnOrAfter: new Date(Date.now() - 5 * 60_000) });
    await expectRefused(() => verify(expired.SAMLResponse, expired.requestId), /subject confirmation|expired/);
    const early = await answered({ notBefore: new Date(Date.now() + 5 * 60_000) });
    await expectRefused(() => verify(early.SAMLResponse, early.requestId), /not yet valid/);
  });

  it('refuses an assertion signed by another key than the metadata\'s, and one issued by another IdP', async () => {
    const impostor = await createTestIdp({ entityId: idp.entityId });
    const { requestId, SAMLResponse } = await answered({}, impostor);
    await expectRefused(() => verify(SAMLResponse, requestId), /refused: Invalid signature/);
    const otherIssuer = await answered({ issuer: 'https://other-idp.example' });
    await expectRefused(() => verify(otherIssuer.SAMLResponse, otherIssuer.requestId), /issued by https:\/\/other-idp\.example/);
  });

  it('refuses what is not a SAMLResponse', async () => {
    const { requestId } = await signIn();
    await expectRefused(() => verify(undefined, requestId), /sent no SAMLResponse/);
    await expectRefused(() => verify('bm90IHhtbA==', requestId), /refused/);
    await expectRefused(() => verify('%%%', requestId), /refused/);
    // entities are not expanded (billion laughs): refused at once
    const levels = Array.from({ length: 10 }, (_, level) => `<!ENTITY l${level + 1} "${`&l${level};`.repeat(10)}">`).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l0 "lol">${levels}]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&l10;</samlp:Response>`;
    const started = Date.now();
    await expectRefused(() => verify(Buffer.from(bomb).toString('base64'), requestId), /refused: entity not found/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('SAML service provider: encrypted assertions', () => {
  it('decrypts with the connection\'s key, publishes its certificate, and refuses encryption it cannot open', async () => {
    const spKey = selfSignedCertificate('IAM Console SP');
    const encrypted = { ...connection, secret: `${spKey.privateKeyPem}${spKey.certificatePem}` };
    const metadata = samlServiceProviderMetadata(encrypted, PUBLIC_URL);
    const keyDescriptor = new DOMParser().parseFromString(metadata, 'text/xml').getElementsByTagName('KeyDescriptor')[0];
    expect(keyDescriptor.getAttribute('use')).toBe('encryption');
    expect(keyDescriptor.textContent!.replace(/\s+/g, '')).toContain(spKey.certificatePem.split('\n')[1]);

    const { url, requestId } = await signIn(encrypted);
    const SAMLResponse = await idp.respond({ request: url, user: ADA, encryptFor: spKey.certificatePem });
    expect(Buffer.from(SAMLResponse, 'base64').toString()).toContain('EncryptedAssertion');
    expect(Buffer.from(SAMLResponse, 'base64').toString()).not.toContain('Ada Lovelace');
    expect(await verify(SAMLResponse, requestId, encrypted)).toMatchObject({ subject: 'ada@corp.example', name: 'Ada Lovelace' });

    const other = await answered({ encryptFor: spKey.certificatePem });
    await expectRefused(() => verify(other.SAMLResponse, other.requestId), /No decryption key/);
  });
});

describe('SAML service provider: IdP metadata from a URL', () => {
  let metadataServer: http.Server;
  let metadataUrl: string;
  let served: string;
  beforeAll(async () => {
    served = idp.metadataXml;
    metadataServer = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/xml' }).end(served));
    await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', resolve));
    metadataUrl = `http://127.0.0.1:${(metadataServer.address() as AddressInfo).port}/metadata`;
  });
  afterAll(() => new Promise((resolve) => metadataServer.close(resolve)));

  it('refuses metadata on a loopback address unless private callbacks are allowed', async () => {
    const byUrl = { ...connection, samlMetadataXml: undefined, samlMetadataUrl: metadataUrl };
    const localhost = { ...byUrl, samlMetadataUrl: metadataUrl.replace('127.0.0.1', 'localhost') };
    for (const on of [byUrl, localhost]) {
      await expect(samlAuthorizeUrl(on, { relayState: 'flow-1', publicUrl: PUBLIC_URL })).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/private or local address/) });
    }
    const { url, requestId } = await samlAuthorizeUrl(byUrl, { relayState: 'flow-1', publicUrl: PUBLIC_URL }, { allowPrivateCallbacks: true });
    expect(url.startsWith(idp.ssoUrl)).toBe(true);
    const SAMLResponse = await idp.respond({ request: url, user: ADA });
    const profile = await samlVerify(server.db, byUrl, { SAMLResponse }, { expectedRequestId: requestId, publicUrl: PUBLIC_URL }, { allowPrivateCallbacks: true });
    expect(profile.subject).toBe('ada@corp.example');
  });

  it('reads the metadata again after a signature it cannot verify: the IdP rolled its key over', async () => {
    const byUrl = { ...connection, id: 'rollover-saml', samlMetadataXml: undefined, samlMetadataUrl: `${metadataUrl}?rollover` };
    const allow = { allowPrivateCallbacks: true };
    const first = await samlAuthorizeUrl(byUrl, { relayState: 'flow-1', publicUrl: PUBLIC_URL }, allow);
    const rolled = await createTestIdp({ entityId: idp.entityId });
    served = rolled.metadataXml;
    try {
      // the old metadata is still remembered: the new key's signature is refused once
      const refusedOnce = await rolled.respond({ request: first.url, user: ADA });
      await expect(samlVerify(server.db, byUrl, { SAMLResponse: refusedOnce }, { expectedRequestId: first.requestId, publicUrl: PUBLIC_URL }, allow))
        .rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/Invalid signature/) });
      const second = await samlAuthorizeUrl(byUrl, { relayState: 'flow-1', publicUrl: PUBLIC_URL }, allow);
      const SAMLResponse = await rolled.respond({ request: second.url, user: ADA });
      expect((await samlVerify(server.db, byUrl, { SAMLResponse }, { expectedRequestId: second.requestId, publicUrl: PUBLIC_URL }, allow)).subject).toBe('ada@corp.example');
    } finally {
      served = idp.metadataXml;
    }
  });
});
