import crypto from 'node:crypto';
import { parseDomFromString, xpath } from '@node-saml/node-saml/lib/xml.js';
import { HttpError } from '../errors.js';

/**
 * A SAML IdP's metadata read (docs/CONSOLE.md, "Connections"): by the management API when a
 * connection is saved (a clear 400 then, not at the first sign-in) and by the sign-in
 * (server/upstream/saml.ts). Reading only: what an assertion must satisfy is saml.ts's.
 */

export const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export interface IdentityProvider {
  entityId: string;
  ssoUrl: string;
  /** PEM certificates the IdP signs with (several during a key rollover). */
  certificates: string[];
}

const refused = (message: string) => new HttpError(400, message);

const toPem = (base64: string) => `-----BEGIN CERTIFICATE-----\n${base64.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;

/** The IdP's entity id, redirect-binding SSO address and signing certificates, read from its metadata. */
export async function parseIdpMetadata(xml: string): Promise<IdentityProvider> {
  let document: Document;
  try {
    document = await parseDomFromString(xml);
  } catch {
    throw refused('The SAML IdP metadata is not well-formed XML.').as('saml.notXml');
  }
  const entities = xpath.selectElements(document, "//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]");
  if (entities.length === 0) throw refused('The SAML IdP metadata has no EntityDescriptor with an IDPSSODescriptor.').as('saml.noIdpDescriptor');
  const entity = entities[0];
  const entityId = entity.getAttribute('entityID') ?? '';
  if (!entityId) throw refused('The SAML IdP metadata has no entityID.').as('saml.noEntityId');
  const descriptor = xpath.selectElements(entity, "./*[local-name()='IDPSSODescriptor']")[0];
  const sso = xpath.selectElements(descriptor, "./*[local-name()='SingleSignOnService']").find((element) => element.getAttribute('Binding') === REDIRECT_BINDING);
  const ssoUrl = sso?.getAttribute('Location') ?? '';
  if (!/^https?:\/\//.test(ssoUrl)) throw refused('The SAML IdP metadata has no SingleSignOnService for the HTTP-Redirect binding.').as('saml.noRedirectSso');
  // A KeyDescriptor without `use` serves both signing and encryption
  const certificates = xpath
    .selectElements(descriptor, "./*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']")
    .map((element) => (element.textContent ?? '').replace(/\s+/g, ''))
    .filter(Boolean)
    .map(toPem);
  for (const pem of certificates) {
    try {
      new crypto.X509Certificate(pem);
    } catch {
      throw refused('The SAML IdP metadata holds a signing certificate that cannot be read.').as('saml.badCertificate');
    }
  }
  if (certificates.length === 0) throw refused('The SAML IdP metadata has no signing certificate: this provider accepts only signed assertions.').as('saml.noSigningCertificate');
  return { entityId, ssoUrl, certificates };
}
