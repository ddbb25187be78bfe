import { createPrivateKey } from 'node:crypto';
import * as client from 'openid-client';
import * as jose from 'jose';
import { badRequest, HttpError } from '../errors.js';
import { issuerOf } from './connections.js';
import { refusePrivateAddress, upstreamFetch } from './fetch.js';
import { upstreamPaths, type UpstreamConnection, type UpstreamProfile } from '../accounts/upstream.js';

/**
 * OpenID Connect and OAuth 2 connections (docs/CONSOLE.md, "Connections"), all protocol work done by
 * openid-client: discovery, the authorization request with state, nonce and PKCE (S256), and at the
 * callback the authorization response (its `state`, and its `iss` as RFC 9207 asks), the code
 * exchange and the ID token's validation (signature, issuer, audience, time, nonce). GitHub speaks
 * OAuth 2 without ID tokens: its user API says who signed in.
 */

export interface UpstreamSetting {
  publicUrl: string;
  /** ALLOW_PRIVATE_CALLBACKS: upstreams on private or loopback addresses (and plain http) are called. */
  allowPrivate: boolean;
}

const GITHUB = {
  issuer: 'https://github.com',
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
  user: 'https://api.github.com/user',
  emails: 'https://api.github.com/user/emails',
};

/** Presets whose accounts belong to anybody (any organization's, or personal): their groups name nothing of ours. */
const OPEN_TO_EVERYONE = (connection: UpstreamConnection) =>
  connection.preset === 'google' || connection.preset === 'github' || connection.preset === 'apple' || (connection.preset === 'entra' && ['common', 'organizations', 'consumers', undefined].includes(connection.entraTenant));

const DEFAULT_SCOPES: Record<string, string> = { github: 'read:user user:email', apple: 'openid email name' };

export const callbackUrl = (connection: UpstreamConnection, publicUrl: string) => `${publicUrl}${upstreamPaths(connection.companyId, connection.domainId, connection.id).callback}`;

/** What an upstream said, as a sentence (never a stack, never a 5xx). */
function refusal(error: unknown, doing: string): HttpError {
  if (error instanceof HttpError) return error;
  const { message, cause, code } = error as { message?: string; cause?: unknown; code?: string };
  const deeper = cause instanceof Error ? `: ${cause.message}` : '';
  // a token endpoint's error (invalid_client, invalid_grant…) is a ResponseBodyError: its own words, not openid-client's
  const said = error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError ? `${error.error}${error.error_description ? ` (${error.error_description})` : ''}` : `${message ?? 'failed'}${deeper}`;
  return badRequest(`The identity provider's answer was refused while ${doing}: ${said}${code && !said.includes(code) ? ` [${code}]` : ''}.`);
}

const keyTypeOf = (pem: string) => {
  try {
    return createPrivateKey(pem).asymmetricKeyType;
  } catch {
    return undefined;
  }
};

/** The client authentication of a connection: a PEM key signs (private_key_jwt, Apple's secret), a secret is sent as its server prefers, else none (PKCE alone). */
async function authenticationOf(connection: UpstreamConnection, serverMethods: string[] | undefined): Promise<client.ClientAuth> {
  const secret = connection.secret;
  if (!secret) return client.None();
  if (secret.includes('-----BEGIN')) {
    // a PKCS #8 PEM says "PRIVATE KEY" whatever its type: the key itself says whether it is an EC key (ES256)
    const ec = /EC PRIVATE KEY/.test(secret) || connection.preset === 'apple' || keyTypeOf(secret) === 'ec';
    const key = await jose.importPKCS8(secret, ec ? 'ES256' : 'RS256').catch(() => {
      throw badRequest('The connection\'s private key cannot be read (a PKCS #8 PEM key is expected).');
    });
    if (connection.preset === 'apple') {
      // Apple's client secret is a short-lived JWT signed with the key (its team id, key id and service id)
      if (!connection.appleTeamId || !connection.appleKeyId) throw badRequest('This Apple connection needs its team id and key id.');
      const jwt = await new jose.SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: connection.appleKeyId })
        .setIssuer(connection.appleTeamId)
        .setSubject(connection.clientId!)
        .setAudience('https://appleid.apple.com')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
      return client.ClientSecretPost(jwt);
    }
    return client.PrivateKeyJwt(key);
  }
  return !serverMethods || serverMethods.includes('client_secret_basic') ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret);
}

const discovered = new Map<string, { at: number; metadata: client.ServerMetadata }>();
const DISCOVERY_SECONDS = 5 * 60;

/** openid-client's Configuration of a connection (discovery kept five minutes per issuer). */
export async function configurationOf(connection: UpstreamConnection, setting: UpstreamSetting): Promise<client.Configuration> {
  if (!connection.clientId) throw badRequest(`The connection ${connection.displayName} has no client id.`);
  const fetch = upstreamFetch(setting.allowPrivate) as unknown as client.CustomFetch;
  let metadata: client.ServerMetadata;
  if (connection.protocol === 'oauth2' || connection.preset === 'github') {
    if (connection.preset !== 'github') throw badRequest('An OAuth 2 connection without OpenID Connect is offered for GitHub only.');
    metadata = { issuer: GITHUB.issuer, authorization_endpoint: GITHUB.authorization_endpoint, token_endpoint: GITHUB.token_endpoint };
  } else {
    const issuer = issuerOf(connection);
    let url: URL;
    try {
      url = new URL(issuer ?? '');
    } catch {
      throw badRequest(`The connection ${connection.displayName} has no valid issuer address.`);
    }
    if (!setting.allowPrivate) {
      await refusePrivateAddress(url);
      if (url.protocol !== 'https:') throw badRequest(`The identity provider's address ${url.origin} is not https.`);
    }
    const options = { [client.customFetch]: fetch, execute: setting.allowPrivate ? [client.allowInsecureRequests] : [], timeout: 10 };
    if (connection.preset === 'entra') {
      // Entra's 'common' metadata names a {tenantid} issuer: openid-client marks it when it discovers
      // it and then accepts each tenant's own `iss`, a mark its metadata's copy would lose (no cache)
      try {
        const configuration = await client.discovery(url, connection.clientId, undefined, await authenticationOf(connection, undefined), options);
        configuration.timeout = 10;
        return configuration;
      } catch (error) {
        throw refusal(error, `reading its discovery document (${url.href})`);
      }
    }
    const key = `${url.href} ${setting.allowPrivate}`;
    const cached = discovered.get(key);
    if (cached && cached.at > Date.now() - DISCOVERY_SECONDS * 1000) metadata = cached.metadata;
    else {
      try {
        metadata = (await client.discovery(url, connection.clientId, undefined, client.None(), options)).serverMetadata();
      } catch (error) {
        throw refusal(error, `reading its discovery document (${url.href})`);
      }
      if (discovered.size > 500) discovered.clear();
      discovered.set(key, { at: Date.now(), metadata });
    }
  }
  const auth = await authenticationOf(connection, metadata.token_endpoint_auth_methods_supported);
  const configuration = new client.Configuration(metadata, connection.clientId, undefined, auth);
  configuration[client.customFetch] = fetch;
  configuration.timeout = 10;
  if (setting.allowPrivate) client.allowInsecureRequests(configuration);
  return configuration;
}

/** What a flow keeps to check the answer: nonce (OpenID Connect) and the PKCE verifier. */
export interface OidcChecks {
  nonce?: string;
  codeVerifier: string;
}

/** The IdP's authorization URL for a new flow (state = the flow's token) and the checks to keep. */
export async function oidcAuthorizeUrl(connection: UpstreamConnection, setting: UpstreamSetting, input: { state: string; loginHint?: string }): Promise<{ url: string; checks: OidcChecks }> {
  const configuration = await configurationOf(connection, setting);
  const codeVerifier = client.randomPKCECodeVerifier();
  const openid = connection.protocol === 'oidc' && connection.preset !== 'github';
  const nonce = openid ? client.randomNonce() : undefined;
  const parameters: Record<string, string> = {
    redirect_uri: callbackUrl(connection, setting.publicUrl),
    response_type: 'code',
    scope: connection.scopes || DEFAULT_SCOPES[connection.preset] || 'openid email profile',
    state: input.state,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
    // Apple answers by a form post when it is asked for the name or the address
    ...(connection.preset === 'apple' ? { response_mode: 'form_post' } : {}),
  };
  return { url: client.buildAuthorizationUrl(configuration, parameters).href, checks: { nonce, codeVerifier } };
}

const stringOf = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, 500) : undefined);
const strings = (value: unknown) =>
  (Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/) : []).filter((item): item is string => typeof item === 'string' && item.length > 0).map((item) => item.slice(0, 200)).slice(0, 200);

/** The profile of OpenID Connect claims, read where the connection's claim mapping says. */
export function profileOfClaims(connection: UpstreamConnection, claims: Record<string, unknown>): UpstreamProfile {
  const mapping = connection.claimMapping;
  const subject = stringOf(claims.sub);
  if (!subject) throw badRequest('The identity provider named nobody (no subject).');
  const verified = claims[mapping.emailVerified ?? 'email_verified'];
  const groups = OPEN_TO_EVERYONE(connection) ? undefined : strings(claims[mapping.groups ?? 'groups']);
  const given = [stringOf(claims.given_name), stringOf(claims.family_name)].filter(Boolean).join(' ');
  return {
    subject,
    email: stringOf(claims[mapping.email ?? 'email'])?.toLowerCase(),
    emailVerified: verified === true || verified === 'true',
    name: stringOf(claims[mapping.name ?? 'name']) ?? (given || stringOf(claims.preferred_username)),
    groups: groups?.length ? groups : undefined,
    amr: strings(claims.amr),
    acr: stringOf(claims.acr),
  };
}

/**
 * The answer at the callback: `currentUrl` is the callback as the browser reached it (its query, or
 * a form post's fields added). Throws a 400 with a sentence on anything refused.
 */
export async function oidcCallback(connection: UpstreamConnection, setting: UpstreamSetting, currentUrl: URL, input: { state: string; checks: OidcChecks }): Promise<UpstreamProfile> {
  const configuration = await configurationOf(connection, setting);
  const openid = connection.protocol === 'oidc' && connection.preset !== 'github';
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: input.checks.codeVerifier,
      expectedState: input.state,
      expectedNonce: input.checks.nonce,
      idTokenExpected: openid,
    });
  } catch (error) {
    throw refusal(error, 'exchanging its code');
  }
  if (!openid) return githubProfile(connection, setting, tokens.access_token);
  const claims: Record<string, unknown> = { ...tokens.claims() };
  const mapping = connection.claimMapping;
  // the address (or a mapped claim) may be in userinfo only (Okta, Entra's optional claims)
  const wanted = [mapping.email ?? 'email', mapping.name ?? 'name'];
  if (wanted.some((name) => claims[name] === undefined) && configuration.serverMetadata().userinfo_endpoint) {
    try {
      const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
      for (const [name, value] of Object.entries(userinfo)) if (claims[name] === undefined) claims[name] = value;
    } catch (error) {
      throw refusal(error, 'reading its userinfo');
    }
  }
  return profileOfClaims(connection, claims);
}

/** GitHub: the user API's numeric id (never the login, which can be renamed) and its verified primary address. */
async function githubProfile(connection: UpstreamConnection, setting: UpstreamSetting, accessToken: string): Promise<UpstreamProfile> {
  const fetch = upstreamFetch(setting.allowPrivate);
  const headers = { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'iam-console' };
  const read = async (url: string) => {
    const response = await fetch(url, { headers, redirect: 'manual' }).catch((error) => {
      throw refusal(error, 'reading its user API');
    });
    if (!response.ok) throw badRequest(`GitHub's user API answered ${response.status}.`);
    return response.json() as Promise<unknown>;
  };
  const user = (await read(GITHUB.user)) as { id?: number; login?: string; name?: string };
  if (typeof user.id !== 'number') throw badRequest('GitHub named nobody (no user id).');
  const emails = (await read(GITHUB.emails)) as { email?: string; primary?: boolean; verified?: boolean }[];
  const primary = Array.isArray(emails) ? emails.find((entry) => entry.primary && entry.verified && typeof entry.email === 'string') : undefined;
  return {
    subject: String(user.id),
    email: primary?.email?.toLowerCase(),
    emailVerified: Boolean(primary),
    name: stringOf(user.name) ?? stringOf(user.login),
  };
}

