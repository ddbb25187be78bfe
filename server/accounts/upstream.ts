/**
 * Upstream identity providers (docs/CONSOLE.md, "Connections"): the shapes and addresses both doors
 * share (the management API declares connections, the sign-in server, server/upstream/, uses them).
 * A connection is a row of `connections` (migration 38), declared on a domain; whatever protocol it
 * speaks, its answer becomes one UpstreamProfile, which the sign-in turns into an account here.
 */

export type Protocol = 'oidc' | 'oauth2' | 'saml';
export type Preset = 'custom' | 'google' | 'entra' | 'github' | 'apple' | 'okta';

/** Claim names to read the profile from, when the IdP's differ from OpenID Connect's. */
export interface ClaimMapping {
  email?: string;
  name?: string;
  groups?: string;
  emailVerified?: string;
}

/** A connection as the sign-in uses it: its secret opened, only while a flow needs it. */
export interface UpstreamConnection {
  companyId: string;
  domainId: string;
  id: string;
  displayName: string;
  protocol: Protocol;
  preset: Preset;
  enabled: boolean;
  /** OpenID Connect / OAuth 2: the issuer or its discovery URL; Entra's tenant for the preset. */
  issuer?: string;
  clientId?: string;
  /** The client secret, or a PEM private key (private_key_jwt, Apple). */
  secret?: string;
  scopes?: string;
  claimMapping: ClaimMapping;
  entraTenant?: string;
  /** Apple: the team id and the key's id, with which the client secret (a JWT signed with the PEM key) is made. */
  appleTeamId?: string;
  appleKeyId?: string;
  /** SAML: the IdP's metadata (XML, or where to fetch it). */
  samlMetadataXml?: string;
  samlMetadataUrl?: string;
  trustEmail: boolean;
  mfaFromIdp: boolean;
  sharedWithSubtree: boolean;
}

/** What an upstream IdP said about the person, checked (signature, audience, nonce, time) before it is made. */
export interface UpstreamProfile {
  /** The IdP's stable identifier of the person (OIDC `sub`, SAML NameID, GitHub's numeric id). */
  subject: string;
  email?: string;
  /** Believed only when the connection's trustEmail is on (server/upstream sign-in decides, not the IdP). */
  emailVerified: boolean;
  name?: string;
  groups?: string[];
  /** How the IdP signed her in (OIDC amr / acr; SAML AuthnContextClassRef as acr). */
  amr?: string[];
  acr?: string;
}

/** Where a connection's addresses are, under PUBLIC_URL. */
export const upstreamPaths = (companyId: string, domainId: string, connectionId: string) => {
  const base = `/oauth/upstream/${encodeURIComponent(companyId)}/${encodeURIComponent(domainId)}/${encodeURIComponent(connectionId)}`;
  return { start: `${base}/start`, callback: `${base}/callback`, samlAcs: `${base}/saml/acs`, samlMetadata: `${base}/saml/metadata` };
};
