/**
 * SAML 2.0 connections (docs/CONSOLE.md, "Connections"): this provider is the service provider (SP),
 * the company's IdP signs people in. Everything cryptographic is @node-saml/node-saml's: the
 * AuthnRequest, the signature over the assertion, decryption, the time window and the audience. What
 * node-saml leaves to its caller is done here, on the assertion it verified: the issuer, the
 * Recipient and InResponseTo the IdP signed, the Destination, and single use of each assertion.
 */
import crypto from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile, type SamlConfig } from '@node-saml/node-saml';
import { parseDomFromString } from '@node-saml/node-saml/lib/xml.js';
import type { Queryable } from '../db/index.js';
import { HttpError } from '../errors.js';
import { upstreamFetch } from './fetch.js';
import { upstreamPaths, type UpstreamConnection, type UpstreamProfile } from '../accounts/upstream.js';
import { type IdentityProvider, parseIdpMetadata, REDIRECT_BINDING } from '../accounts/samlMetadata.js';

/** Clocks of the IdP and of this server may differ a little; assertions live minutes, not hours. */
const CLOCK_SKEW_MS = 60_000;
/** An assertion older than this (from its IssueInstant) is refused even if its NotOnOrAfter is later. */
const MAX_ASSERTION_AGE_MS = 10 * 60_000;
const METADATA_CACHE_MS = 10 * 60_000;
const MAX_METADATA_BYTES = 1_000_000;
const MAX_RESPONSE_CHARS = 1_000_000;

const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** Where attributes usually are when the connection's claim mapping does not name them (Entra, Okta, Google, Shibboleth). */
const EMAIL_ATTRIBUTES = ['email', 'mail', 'emailaddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'];
const NAME_ATTRIBUTES = ['name', 'displayName', 'http://schemas.microsoft.com/identity/claims/displayname', 'urn:oid:2.16.840.1.113730.3.1.241'];
const GROUP_ATTRIBUTES = ['groups', 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups', 'memberOf', 'urn:oid:1.3.6.1.4.1.5923.1.5.1.1'];

/** How the IdP's metadata is fetched when the connection gives its URL. */
export interface SamlFetchOptions {
  /** ALLOW_PRIVATE_CALLBACKS: the metadata may be on a private or loopback address (tests, an IdP on the same network). */
  allowPrivateCallbacks?: boolean;
  /** Another fetch; when given, it alone decides which addresses it reaches (default: upstreamFetch of server/upstream/fetch.ts). */
  fetch?: typeof globalThis.fetch;
}


const refused = (message: string) => new HttpError(400, message);

const spAddresses = (connection: UpstreamConnection, publicUrl: string) => {
  const paths = upstreamPaths(connection.companyId, connection.domainId, connection.id);
  return { entityId: `${publicUrl}${paths.samlMetadata}`, acs: `${publicUrl}${paths.samlAcs}` };
};



/** GET of the IdP's metadata through the upstream fetch, which refuses private and loopback addresses unless the operator allows them (SSRF). */
async function fetchMetadata(url: string, options: SamlFetchOptions): Promise<string> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw refused('The SAML IdP metadata URL is not a URL.');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw refused('The SAML IdP metadata URL must be http or https.');
  const fetchUpstream = options.fetch ?? upstreamFetch(options.allowPrivateCallbacks === true);
  let response: Response;
  try {
    // No redirects: a public address must not hand the call on to a private one
    response = await fetchUpstream(target, { redirect: 'error', signal: AbortSignal.timeout(10_000), headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
  } catch (error) {
    if (error instanceof HttpError && error.statusCode < 500) throw error;
    throw refused('The SAML IdP metadata could not be fetched from its URL.');
  }
  if (!response.ok) throw refused(`The SAML IdP metadata URL answered ${response.status}.`);
  const body = await response.text();
  if (body.length > MAX_METADATA_BYTES) throw refused('The SAML IdP metadata is too large.');
  return body;
}

const metadataCache = new Map<string, { at: number; idp: IdentityProvider }>();

async function identityProviderOf(connection: UpstreamConnection, options: SamlFetchOptions): Promise<IdentityProvider> {
  if (connection.samlMetadataXml?.trim()) return parseIdpMetadata(connection.samlMetadataXml);
  const url = connection.samlMetadataUrl?.trim();
  if (!url) throw refused('This SAML connection has neither IdP metadata nor a metadata URL.');
  const cached = metadataCache.get(url);
  if (cached && Date.now() - cached.at < METADATA_CACHE_MS) return cached.idp;
  const idp = await parseIdpMetadata(await fetchMetadata(url, options));
  if (metadataCache.size >= 1000) metadataCache.clear();
  metadataCache.set(url, { at: Date.now(), idp });
  return idp;
}

/**
 * The connection's secret, for SAML: a PEM private key to decrypt encrypted assertions, optionally
 * followed by its certificate (which the SP metadata then publishes for the IdP to encrypt to).
 */
const decryptionKeyOf = (connection: UpstreamConnection) => {
  const secret = connection.secret ?? '';
  const key = /-----BEGIN (?:RSA )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA )?PRIVATE KEY-----/.exec(secret)?.[0];
  const certificate = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(secret)?.[0];
  return { key, certificate };
};

/**
 * node-saml checks InResponseTo against a cache of the requests it sent; the request this flow sent
 * is known to the caller (its upstream_flows row), so the cache holds exactly that one id.
 */
const onlyRequest = (expectedRequestId: string): CacheProvider => ({
  saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
  getAsync: async (key) => (expectedRequestId && key === expectedRequestId ? new Date().toISOString() : null),
  removeAsync: async () => null,
});

function serviceProvider(connection: UpstreamConnection, publicUrl: string, idp: IdentityProvider | undefined, extra: Partial<SamlConfig> = {}): SAML {
  const sp = spAddresses(connection, publicUrl);
  return new SAML({
    issuer: sp.entityId,
    callbackUrl: sp.acs,
    audience: sp.entityId,
    // metadata alone needs no IdP; node-saml still asks for a certificate
    idpCert: idp?.certificates ?? 'unused',
    entryPoint: idp?.ssoUrl,
    idpIssuer: idp?.entityId,
    // The signature must cover the assertion itself: a signed response around an unsigned assertion is refused
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: 60 * 60_000,
    // the IdP chooses its NameID format and authentication method (MFA, passkeys) itself
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    decryptionPvk: decryptionKeyOf(connection).key,
    ...extra,
  });
}

/** The IdP's SSO address carrying a deflated AuthnRequest (HTTP-Redirect binding), and the request's id for InResponseTo. */
export async function samlAuthorizeUrl(
  connection: UpstreamConnection,
  input: { relayState: string; publicUrl: string },
  options: SamlFetchOptions = {},
): Promise<{ url: string; requestId: string }> {
  const idp = await identityProviderOf(connection, options);
  // SAML IDs are xs:ID: they must not start with a digit
  const requestId = `_${crypto.randomBytes(20).toString('hex')}`;
  const saml = serviceProvider(connection, input.publicUrl, idp, { generateUniqueId: () => requestId });
  const url = await saml.getAuthorizeUrlAsync(input.relayState, undefined, {});
  return { url, requestId };
}

/** This provider's SP metadata for the connection: entity id, ACS (HTTP-POST), signed assertions wanted, the encryption certificate if any. */
export function samlServiceProviderMetadata(connection: UpstreamConnection, publicUrl: string): string {
  const { key, certificate } = decryptionKeyOf(connection);
  // a key without its certificate cannot be published: the IdP is then given the certificate by hand
  return serviceProvider(connection, publicUrl, undefined, { decryptionPvk: certificate ? key : undefined }).generateServiceProviderMetadata(certificate ?? null);
}

type XmlNode = { $?: Record<string, string>; _?: string; [child: string]: unknown };
const children = (node: unknown, name: string): XmlNode[] => ((node as Record<string, unknown> | undefined)?.[name] as XmlNode[] | undefined) ?? [];
const textOf = (node: XmlNode | string | undefined) => (typeof node === 'string' ? node : node?._)?.trim();

const attributeValues = (attributes: Record<string, unknown>, names: (string | undefined)[]): string[] => {
  for (const name of names) {
    if (!name || !Object.prototype.hasOwnProperty.call(attributes, name)) continue;
    const value = attributes[name];
    const values = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string').map((item) => item.trim()).filter(Boolean);
    if (values.length > 0) return values;
  }
  return [];
};

/**
 * SAML has no standard "verified" flag: the IdP's directory vouches for its addresses or not, and
 * the administrator says which by trustEmail. A connection whose claim mapping names an attribute
 * for it (emailVerified) also needs that attribute to say true. The sign-in side still trusts an
 * address only on a connection with trustEmail, and links to an existing account only after that
 * account's password.
 */
const emailVerifiedOf = (connection: UpstreamConnection, attributes: Record<string, unknown>) => {
  if (!connection.trustEmail) return false;
  const attribute = connection.claimMapping?.emailVerified;
  return attribute ? ['true', '1'].includes(attributeValues(attributes, [attribute])[0]?.toLowerCase() ?? '') : true;
};

const looksLikeEmail = (value: string | undefined) => !!value && value.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(value);

/**
 * Checks a SAMLResponse posted to the ACS and makes the UpstreamProfile of the assertion. Throws an
 * HttpError 400 with a readable sentence on any failure; a verified assertion is spent on first use.
 */
export async function samlVerify(
  db: Queryable,
  connection: UpstreamConnection,
  body: { SAMLResponse?: string; RelayState?: string },
  input: { expectedRequestId: string; publicUrl: string },
  options: SamlFetchOptions = {},
): Promise<UpstreamProfile> {
  const samlResponse = body.SAMLResponse;
  if (typeof samlResponse !== 'string' || !samlResponse) throw refused('The SAML IdP sent no SAMLResponse.');
  if (samlResponse.length > MAX_RESPONSE_CHARS) throw refused('The SAMLResponse is too large.');
  if (!input.expectedRequestId) throw refused('No SAML sign-in was started here for this response.');
  const idp = await identityProviderOf(connection, options);
  const sp = spAddresses(connection, input.publicUrl);
  const saml = serviceProvider(connection, input.publicUrl, idp, { cacheProvider: onlyRequest(input.expectedRequestId) });

  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    // a key rollover at the IdP: its metadata is read again from its URL at the next attempt
    if (connection.samlMetadataUrl) metadataCache.delete(connection.samlMetadataUrl.trim());
    // node-saml's and xmldom's messages, on one line
    const reason = String((error as Error)?.message ?? error).replace(/\[xmldom error\]/g, '').split('\n')[0].trim();
    throw refused(`The SAML response was refused: ${reason.replace(/\.$/, '')}.`);
  }
  if (!profile?.getAssertion) throw refused('The SAML response holds no assertion.');

  // From here on, only what node-saml verified (the signed assertion) is read, plus the response's
  // Destination, which is checked when present
  const assertion = (profile.getAssertion() as { Assertion?: XmlNode }).Assertion;
  if (!assertion) throw refused('The SAML response holds no assertion.');
  const issuer = textOf(children(assertion, 'Issuer')[0]);
  if (issuer !== idp.entityId) throw refused(`The SAML assertion was issued by ${issuer ?? 'nobody'}, not by this connection's IdP (${idp.entityId}).`);

  const confirmations = children(children(assertion, 'Subject')[0], 'SubjectConfirmation')
    .filter((confirmation) => confirmation.$?.Method === 'urn:oasis:names:tc:SAML:2.0:cm:bearer')
    .flatMap((confirmation) => children(confirmation, 'SubjectConfirmationData'))
    .map((data) => data.$ ?? {});
  // One bearer confirmation must hold all three, as signed: this ACS, this request, not yet over
  const forUs = confirmations.filter((data) => data.Recipient === sp.acs);
  if (forUs.length === 0) throw refused('The SAML assertion is meant for another recipient than this connection\'s ACS.');
  const answering = forUs.filter((data) => data.InResponseTo === input.expectedRequestId);
  if (answering.length === 0) throw refused('The SAML assertion answers another request than the one this sign-in sent (InResponseTo).');
  if (!answering.some((data) => Date.parse(data.NotOnOrAfter ?? '') > Date.now() - CLOCK_SKEW_MS)) {
    throw refused('The SAML assertion\'s subject confirmation has no end or has ended (NotOnOrAfter).');
  }
  const responseDocument = await parseDomFromString(Buffer.from(samlResponse, 'base64').toString('utf8'));
  const destination = responseDocument.documentElement.getAttribute('Destination');
  if (destination && destination !== sp.acs) throw refused('The SAML response was sent to another destination than this connection\'s ACS.');

  const assertionId = assertion.$?.ID;
  if (!assertionId) throw refused('The SAML assertion has no ID.');
  const notOnOrAfter = children(assertion, 'Conditions')[0]?.$?.NotOnOrAfter;
  const expiresMs = (notOnOrAfter && Date.parse(notOnOrAfter)) || Date.now() + MAX_ASSERTION_AGE_MS;
  const seenId = crypto.createHash('sha256').update(`${connection.companyId}/${connection.domainId}/${connection.id}/${assertionId}`).digest('hex');
  // Kept until the assertion could no longer pass the time check (its end plus the clock skew)
  const spent = await db.query(
    'INSERT INTO saml_assertions_seen (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
    [seenId, new Date(Math.max(expiresMs, Date.now()) + CLOCK_SKEW_MS).toISOString()],
  );
  if (spent.rowCount === 0) throw refused('This SAML assertion was already used: each assertion signs in once.');

  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const mapping = connection.claimMapping ?? {};
  const subject = profile.nameID?.trim();
  if (!subject) throw refused('The SAML assertion has no NameID.');
  const email = attributeValues(attributes, [mapping.email, ...EMAIL_ATTRIBUTES])[0] ?? (profile.nameIDFormat === EMAIL_NAME_ID ? subject : undefined);
  const name = attributeValues(attributes, [mapping.name, ...NAME_ATTRIBUTES])[0];
  const groups = attributeValues(attributes, [mapping.groups, ...GROUP_ATTRIBUTES]);
  const acr = textOf(children(children(children(assertion, 'AuthnStatement')[0], 'AuthnContext')[0], 'AuthnContextClassRef')[0]);
  return {
    subject,
    email: looksLikeEmail(email) ? email!.toLowerCase() : undefined,
    emailVerified: emailVerifiedOf(connection, attributes),
    ...(name ? { name } : {}),
    ...(groups.length ? { groups } : {}),
    ...(acr ? { acr } : {}),
  };
}
