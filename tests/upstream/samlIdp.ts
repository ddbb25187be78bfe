/**
 * A real SAML 2.0 identity provider for tests, made with samlify (the provider's own SP side is
 * @node-saml/node-saml: two independent implementations meet here).
 *
 *   const idp = await createTestIdp();                   // fresh RSA key and self-signed certificate
 *   connection.samlMetadataXml = idp.metadataXml;         // what an administrator pastes
 *   const { url } = await samlAuthorizeUrl(connection, …);
 *   const SAMLResponse = await idp.respond({ request: url, user: { nameId: 'ada@example.com' } });
 *   // POST { SAMLResponse, RelayState } to the ACS
 *
 * For a browser, startTestIdpServer() puts the IdP on a loopback port: its SSO address answers at
 * once with the page that posts the SAMLResponse to the ACS (the person is "already signed in").
 *
 * respond() also makes the broken and hostile answers the SP must refuse (unsigned, signed only
 * around the assertion, wrapped, wrong audience or recipient, outside its time window); a second
 * createTestIdp() with the same entityId is "the same IdP signing with another key".
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import * as samlify from 'samlify';

// The SP under test is node-saml, which validates on its own; samlify's optional schema check is skipped here only
samlify.setSchemaValidator({ validate: async () => 'skipped' });

const POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

export interface KeyWithCertificate {
  privateKeyPem: string;
  certificatePem: string;
}

/** A fresh RSA key and a self-signed X.509 certificate for it (node:crypto alone: a minimal DER writer). */
export function selfSignedCertificate(commonName = 'Test SAML IdP'): KeyWithCertificate {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const der = (tag: number, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    const length = body.length < 0x80 ? Buffer.from([body.length])
      : body.length < 0x100 ? Buffer.from([0x81, body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
    return Buffer.concat([Buffer.from([tag]), length, body]);
  };
  const sequence = (...parts: Buffer[]) => der(0x30, ...parts);
  const integer = (bytes: Buffer) => der(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
  const oid = (dotted: string) => {
    const [first, second, ...rest] = dotted.split('.').map(Number);
    const bytes = [first * 40 + second];
    for (const arc of rest) {
      const groups = [arc & 0x7f];
      for (let value = arc >> 7; value > 0; value >>= 7) groups.unshift((value & 0x7f) | 0x80);
      bytes.push(...groups);
    }
    return der(0x06, Buffer.from(bytes));
  };
  const time = (date: Date) => der(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));
  const name = sequence(der(0x31, sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName)))));
  const sha256WithRsa = sequence(oid('1.2.840.113549.1.1.11'), der(0x05));
  const now = Date.now();
  const tbs = sequence(
    der(0xa0, integer(Buffer.from([2]))),
    integer(crypto.randomBytes(8)),
    sha256WithRsa,
    name,
    sequence(time(new Date(now - 3600_000)), time(new Date(now + 365 * 86400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = crypto.sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, sha256WithRsa, der(0x03, Buffer.from([0]), signature));
  const base64 = certificate.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certificatePem: `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`,
  };
}

/** The person the IdP vouches for. Attributes become an AttributeStatement (names as given: mail, groups, URIs…). */
export interface SamlTestUser {
  nameId: string;
  /** Default: urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress. */
  nameIdFormat?: string;
  attributes?: Record<string, string | string[]>;
  /** Default: urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport. */
  authnContextClassRef?: string;
}

export interface SamlResponseOptions {
  /** What is answered: the AuthnRequest's redirect URL (as the SP made it), or its id, ACS and SP entity id. */
  request: string | { id: string; acsUrl: string; spEntityId: string };
  user: SamlTestUser;
  /** What the IdP's key signs. Default 'assertion' (as most IdPs); 'response' signs only the envelope. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  /**
   * Signature wrapping: the response signed for `user` is rearranged so that an unsigned forged
   * assertion for `nameId` is where an SP reads, and the signed one elsewhere ('extensions': in
   * samlp:Extensions; 'object': inside the forged assertion's copied signature, as ds:Object).
   */
  wrap?: { nameId: string; placement: 'extensions' | 'object' };
  /** Overrides of what a correct IdP would put. */
  audience?: string;
  recipient?: string;
  destination?: string;
  inResponseTo?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  issuer?: string;
  /** The SP's encryption certificate: the assertion is encrypted to it (signed first, then encrypted). */
  encryptFor?: string;
}

export interface TestIdp extends KeyWithCertificate {
  entityId: string;
  ssoUrl: string;
  /** The IdP's metadata: entity id, HTTP-Redirect SSO address, signing certificate. */
  metadataXml: string;
  /** A base64 SAMLResponse, as the IdP's page would POST it to the ACS. */
  respond(options: SamlResponseOptions): Promise<string>;
}

const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The id, ACS and issuer of a deflated AuthnRequest in a redirect URL. */
export function readAuthnRequest(url: string): { id: string; acsUrl: string; spEntityId: string } {
  const encoded = new URL(url).searchParams.get('SAMLRequest');
  if (!encoded) throw new Error('no SAMLRequest in the URL');
  const xml = zlib.inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
  const issuer = request.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0];
  return { id: request.getAttribute('ID')!, acsUrl: request.getAttribute('AssertionConsumerServiceURL')!, spEntityId: issuer?.textContent ?? '' };
}

export async function createTestIdp(options: { entityId?: string; ssoUrl?: string } = {}): Promise<TestIdp> {
  const keys = selfSignedCertificate();
  const entityId = options.entityId ?? `https://idp.example.test/${crypto.randomUUID()}`;
  const ssoUrl = options.ssoUrl ?? 'https://idp.example.test/sso';
  const identityProvider = (encrypt: boolean) => samlify.IdentityProvider({
    entityID: entityId,
    privateKey: keys.privateKeyPem,
    signingCert: keys.certificatePem,
    singleSignOnService: [{ Binding: REDIRECT_BINDING, Location: ssoUrl }],
    singleLogoutService: [{ Binding: REDIRECT_BINDING, Location: `${ssoUrl}/logout` }],
    isAssertionEncrypted: encrypt,
    dataEncryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  } as Parameters<typeof samlify.IdentityProvider>[0]);
  const metadataXml = identityProvider(false).getMetadata();

  async function respond(input: SamlResponseOptions): Promise<string> {
    const request = typeof input.request === 'string' ? readAuthnRequest(input.request) : input.request;
    const sign = input.sign ?? 'assertion';
    const serviceProvider = samlify.ServiceProvider({
      entityID: request.spEntityId,
      assertionConsumerService: [{ Binding: POST_BINDING, Location: request.acsUrl }],
      wantAssertionsSigned: sign === 'assertion' || sign === 'both',
      wantMessageSigned: sign === 'response' || sign === 'both',
      ...(input.encryptFor ? { encryptCert: input.encryptFor } : {}),
    });
    const now = new Date();
    const notOnOrAfter = (input.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
    const { user } = input;
    const attributes = Object.entries(user.attributes ?? {}).map(([name, value]) =>
      `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${
        (Array.isArray(value) ? value : [value]).map((item) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(item)}</saml:AttributeValue>`).join('')
      }</saml:Attribute>`).join('');
    const values: Record<string, string> = {
      ID: `_${crypto.randomUUID()}`,
      AssertionID: `_${crypto.randomUUID()}`,
      Destination: input.destination ?? request.acsUrl,
      Audience: input.audience ?? request.spEntityId,
      SubjectRecipient: input.recipient ?? request.acsUrl,
      Issuer: input.issuer ?? entityId,
      IssueInstant: now.toISOString(),
      StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: (input.notBefore ?? now).toISOString(),
      ConditionsNotOnOrAfter: notOnOrAfter,
      SubjectConfirmationDataNotOnOrAfter: notOnOrAfter,
      NameIDFormat: user.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      NameID: user.nameId,
      InResponseTo: input.inResponseTo ?? request.id,
    };
    // samlify escapes every tag's value: the two XML fragments go in first, as they are
    const fragments: Record<string, string> = {
      AuthnStatement: `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_${crypto.randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>${
        escapeXml(user.authnContextClassRef ?? 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport')}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
      AttributeStatement: attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '',
    };
    const fill = (template: string) => ({
      id: values.ID,
      context: samlify.SamlLib.replaceTagsByValue(template.replace(/\{(AuthnStatement|AttributeStatement)\}/g, (_tag, name: string) => fragments[name]), values),
    });
    let base64: string;
    if (sign === 'none') {
      base64 = Buffer.from(fill(samlify.SamlLib.defaultLoginResponseTemplate.context).context).toString('base64');
    } else {
      const made = await identityProvider(!!input.encryptFor).createLoginResponse(serviceProvider, { extract: { request: { id: request.id } } }, 'post', {}, { customTagReplacement: fill });
      base64 = made.context;
    }
    return input.wrap ? wrapSignature(base64, input.wrap) : base64;
  }

  return { ...keys, entityId, ssoUrl, metadataXml, respond };
}

/** Signature wrapping (XSW): see SamlResponseOptions.wrap. */
function wrapSignature(base64: string, wrap: { nameId: string; placement: 'extensions' | 'object' }): string {
  const document = new DOMParser().parseFromString(Buffer.from(base64, 'base64').toString('utf8'), 'text/xml');
  const response = document.documentElement!;
  const signed = Array.from(response.childNodes).find((node) => (node as Element).localName === 'Assertion') as Element | undefined;
  if (!signed) throw new Error('wrap needs a response with a plain (unencrypted) assertion');
  const forged = signed.cloneNode(true) as Element;
  forged.setAttribute('ID', `_${crypto.randomUUID()}`);
  forged.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'NameID')[0].textContent = wrap.nameId;
  const forgedSignature = Array.from(forged.childNodes).find((node) => (node as Element).localName === 'Signature' && (node as Element).namespaceURI === DSIG) as Element | undefined;
  if (wrap.placement === 'extensions') {
    if (forgedSignature) forged.removeChild(forgedSignature);
    const extensions = document.createElementNS(PROTOCOL, 'samlp:Extensions');
    response.replaceChild(forged, signed);
    extensions.appendChild(signed);
    response.insertBefore(extensions, response.getElementsByTagNameNS(PROTOCOL, 'Status')[0]);
  } else {
    // The forged assertion carries the original signature; the signed assertion (as it was when signed,
    // without its enveloped signature) rides inside that signature as a ds:Object
    if (!forgedSignature) throw new Error("wrap 'object' needs a signed assertion");
    const original = Array.from(signed.childNodes).find((node) => (node as Element).localName === 'Signature') as Element;
    signed.removeChild(original);
    const object = document.createElementNS(DSIG, 'ds:Object');
    object.appendChild(signed.cloneNode(true));
    forgedSignature.appendChild(object);
    response.replaceChild(forged, signed);
  }
  return Buffer.from(new XMLSerializer().serializeToString(document)).toString('base64');
}

/**
 * The IdP on http://127.0.0.1:<port>: GET /sso (the HTTP-Redirect binding) answers with a page that
 * posts `user`'s SAMLResponse and the RelayState to the AuthnRequest's ACS at once, as an IdP does
 * for someone already signed in there. `user` may be changed between sign-ins.
 */
export async function startTestIdpServer(user: SamlTestUser): Promise<{ idp: TestIdp; user: SamlTestUser; close(): Promise<void> }> {
  let idp: TestIdp | undefined;
  const state = { user };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    if (request.method !== 'GET' || url.pathname !== '/sso' || !idp) return void response.writeHead(404).end();
    const { acsUrl } = readAuthnRequest(url.href);
    idp.respond({ request: url.href, user: state.user }).then(
      (SAMLResponse) => {
        const relayState = url.searchParams.get('RelayState') ?? '';
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><title>Test IdP</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="${escapeXml(acsUrl)}">
<input type="hidden" name="SAMLResponse" value="${escapeXml(SAMLResponse)}"><input type="hidden" name="RelayState" value="${escapeXml(relayState)}">
<button type="submit">Continue</button></form></body></html>`);
      },
      (error: Error) => response.writeHead(400).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  idp = await createTestIdp({ ssoUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sso` });
  return {
    idp,
    get user() { return state.user; },
    set user(next) { state.user = next; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
