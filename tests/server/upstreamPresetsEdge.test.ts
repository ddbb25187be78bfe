import { createHash } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as jose from 'jose';
import type { UpstreamConnection } from '../../server/accounts/upstream.js';

/**
 * The presets whose addresses are fixed (GitHub, Apple, Google, Entra), at the network edge: the one
 * guarded fetch of upstream calls (server/upstream/fetch.ts) answers from in-process fakes of
 * github.com and api.github.com, appleid.apple.com, accounts.google.com and login.microsoftonline.com,
 * routed by URL; everything else (openid-client's discovery, code exchange, ID token checks, our
 * client authentication and the profile's mapping) is the real code of server/upstream/oidc.ts.
 */

type Handler = (url: URL, init: { method: string; headers: Headers; body: URLSearchParams }) => Promise<Response> | Response;
const routes = new Map<string, Handler>();
const called: string[] = [];

async function fakeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const key = `${url.origin}${url.pathname}`;
  called.push(key);
  const handler = routes.get(key);
  if (!handler) return new Response(`no fake for ${key}`, { status: 404 });
  return handler(url, { method: init.method ?? 'GET', headers: new Headers(init.headers), body: new URLSearchParams(init.body ? String(init.body) : '') });
}

vi.mock('../../server/upstream/fetch.js', async (importActual) => ({ ...(await importActual<typeof import('../../server/upstream/fetch.js')>()), upstreamFetch: () => fakeFetch }));

const { oidcAuthorizeUrl, oidcCallback } = await import('../../server/upstream/oidc.js');
const { isSpecialUseAddress } = await import('../../server/upstream/fetch.js');

const SETTING = { publicUrl: 'https://iam.example', allowPrivate: true };
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function connectionOf(preset: UpstreamConnection['preset'], extra: Partial<UpstreamConnection> = {}): UpstreamConnection {
  return {
    companyId: 'globex',
    domainId: 'globex-domain',
    id: `${preset}-conn`,
    displayName: preset,
    protocol: preset === 'github' ? 'oauth2' : 'oidc',
    preset,
    enabled: true,
    clientId: `${preset}-client`,
    secret: `${preset}-secret`,
    claimMapping: {},
    trustEmail: true,
    mfaFromIdp: false,
    sharedWithSubtree: false,
    ...extra,
  };
}

/** A code the fake IdP gave for an authorization request: what it checks and says at its token endpoint. */
interface Grant {
  clientId: string;
  challenge: string;
  redirectUri: string;
  nonce?: string;
  claims?: Record<string, unknown>;
}
const grants = new Map<string, Grant>();
let codes = 0;

/** The browser at the IdP: reads the authorization request, and comes back to our callback with a code and the state. */
function authorize(authorizationUrl: string, claims?: Record<string, unknown>): { callback: URL; request: URLSearchParams } {
  const request = new URL(authorizationUrl).searchParams;
  const code = `code-${++codes}`;
  grants.set(code, { clientId: request.get('client_id')!, challenge: request.get('code_challenge')!, redirectUri: request.get('redirect_uri')!, nonce: request.get('nonce') ?? undefined, claims });
  const callback = new URL(request.get('redirect_uri')!);
  callback.searchParams.set('code', code);
  callback.searchParams.set('state', request.get('state')!);
  return { callback, request };
}

/** The code's grant, if the token request proves it (single use, PKCE verifier, redirect URI, client). */
function grantOf(body: URLSearchParams, clientId: string): Grant | undefined {
  const grant = grants.get(body.get('code') ?? '');
  grants.delete(body.get('code') ?? '');
  if (!grant || grant.clientId !== clientId || grant.redirectUri !== body.get('redirect_uri') || s256(body.get('code_verifier') ?? '') !== grant.challenge) return undefined;
  return grant;
}

const basicClient = (headers: Headers) => {
  const [id, secret] = Buffer.from((headers.get('authorization') ?? '').replace(/^Basic /, ''), 'base64').toString().split(':').map(decodeURIComponent);
  return { id, secret };
};

let idpKey: CryptoKey;
let idpJwks: { keys: jose.JWK[] };
/** An ID token signed by the fake IdP's key (`issuedBy`, a test's word for the fake, is no claim). */
const idToken = (iss: string, aud: string, nonce: string | undefined, { issuedBy: _issuedBy, ...claims }: Record<string, unknown>) =>
  new jose.SignJWT({ ...claims, ...(nonce ? { nonce } : {}) }).setProtectedHeader({ alg: 'RS256', kid: 'fake-idp-key' }).setIssuer(iss).setAudience(aud).setIssuedAt().setExpirationTime('5m').sign(idpKey);

/** An OpenID Connect fake: discovery (its metadata's issuer may be a template), JWKS, and a token endpoint checking the client with `client`. */
function oidcFake(options: { discovery: string; issuer: string; base: string; methods: string[]; client: (init: { headers: Headers; body: URLSearchParams }) => Promise<string | undefined>; iss?: (grant: Grant) => string }) {
  routes.set(`${options.discovery}/.well-known/openid-configuration`, () =>
    json({
      issuer: options.issuer,
      authorization_endpoint: `${options.base}/authorize`,
      token_endpoint: `${options.base}/token`,
      jwks_uri: `${options.base}/keys`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: options.methods,
    }),
  );
  routes.set(`${options.base}/keys`, () => json(idpJwks));
  routes.set(`${options.base}/token`, async (_url, init) => {
    const clientId = await options.client(init);
    if (!clientId) return json({ error: 'invalid_client', error_description: 'client authentication failed' }, 401);
    const grant = grantOf(init.body, clientId);
    if (!grant) return json({ error: 'invalid_grant', error_description: 'the code, its verifier or its redirect URI is wrong' }, 400);
    const iss = options.iss?.(grant) ?? options.issuer;
    return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: await idToken(iss, clientId, grant.nonce, grant.claims ?? {}) });
  });
}

beforeAll(async () => {
  const pair = await jose.generateKeyPair('RS256', { extractable: true });
  idpKey = pair.privateKey;
  idpJwks = { keys: [{ ...(await jose.exportJWK(pair.publicKey)), kid: 'fake-idp-key', alg: 'RS256', use: 'sig' }] };
});

beforeEach(() => {
  called.length = 0;
});

describe('GitHub (OAuth 2 and its user API)', () => {
  let emails: { email: string; primary: boolean; verified: boolean }[];
  let user: Record<string, unknown>;
  beforeAll(() => {
    routes.set('https://github.com/login/oauth/access_token', (_url, { headers, body }) => {
      const { id, secret } = basicClient(headers);
      if (id !== 'github-client' || secret !== 'github-secret') return json({ error: 'incorrect_client_credentials' }, 401);
      if (!grantOf(body, id)) return json({ error: 'bad_verification_code' }, 400);
      return json({ access_token: 'gho_token', token_type: 'bearer', scope: 'read:user,user:email' });
    });
    const api = (answer: () => unknown) => (_url: URL, { headers }: { headers: Headers }) =>
      headers.get('authorization') === 'Bearer gho_token' ? json(answer()) : json({ message: 'Bad credentials' }, 401);
    routes.set('https://api.github.com/user', api(() => user));
    routes.set('https://api.github.com/user/emails', api(() => emails));
  });

  async function signIn() {
    const connection = connectionOf('github');
    const { url, checks } = await oidcAuthorizeUrl(connection, SETTING, { state: 'gh-state' });
    const { callback, request } = authorize(url);
    return { url, request, profile: await oidcCallback(connection, SETTING, callback, { state: 'gh-state', checks }) };
  }

  it('asks github.com without a nonce, and names her by the numeric id, her primary verified address and her name', async () => {
    user = { id: 583231, login: 'octocat', name: 'The Octocat' };
    emails = [
      { email: 'octo@other.example', primary: false, verified: true },
      { email: 'Octocat@GitHub.example', primary: true, verified: true },
    ];
    const { url, request, profile } = await signIn();
    expect(url.startsWith('https://github.com/login/oauth/authorize?')).toBe(true);
    expect(request.get('scope')).toBe('read:user user:email');
    expect(request.get('nonce')).toBeNull();
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(profile).toEqual({ subject: '583231', email: 'octocat@github.example', emailVerified: true, name: 'The Octocat' });
    expect(called).toEqual(['https://github.com/login/oauth/access_token', 'https://api.github.com/user', 'https://api.github.com/user/emails']);
  });

  it('an unverified primary address is not taken as verified (nor another address in its place); without a name, the login', async () => {
    user = { id: 42, login: 'mallory' };
    emails = [
      { email: 'victim@corp.example', primary: true, verified: false },
      { email: 'mallory@other.example', primary: false, verified: true },
    ];
    const { profile } = await signIn();
    expect(profile.subject).toBe('42');
    expect(profile.emailVerified).toBe(false);
    expect(profile.email).toBeUndefined();
    expect(profile.name).toBe('mallory');
  });

  it('a user API that names nobody, or refuses the token, is a 400 sentence', async () => {
    user = { login: 'no-id' };
    emails = [];
    await expect(signIn()).rejects.toMatchObject({ statusCode: 400, message: 'GitHub named nobody (no user id).' });
    const saved = routes.get('https://api.github.com/user')!;
    routes.set('https://api.github.com/user', () => json({ message: 'Bad credentials' }, 401));
    try {
      await expect(signIn()).rejects.toMatchObject({ statusCode: 400, message: "GitHub's user API answered 401." });
    } finally {
      routes.set('https://api.github.com/user', saved);
    }
  });
});

describe('Apple (a client secret that is an ES256 JWT)', () => {
  let appleClientKey: CryptoKeyPair;
  let secrets: { header: jose.ProtectedHeaderParameters; payload: jose.JWTPayload }[];
  beforeAll(async () => {
    appleClientKey = await jose.generateKeyPair('ES256', { extractable: true });
    oidcFake({
      discovery: 'https://appleid.apple.com',
      issuer: 'https://appleid.apple.com',
      base: 'https://appleid.apple.com/auth',
      methods: ['client_secret_post'],
      async client({ body }) {
        // Apple verifies the client secret: signed by the key it holds for this key id, from the team, for the service id, to itself
        try {
          const { payload, protectedHeader } = await jose.jwtVerify(body.get('client_secret') ?? '', appleClientKey.publicKey, {
            algorithms: ['ES256'],
            issuer: 'TEAM123456',
            subject: 'apple-client',
            audience: 'https://appleid.apple.com',
            maxTokenAge: '10m',
          });
          if (protectedHeader.kid !== 'KEY1234567' || body.get('client_id') !== 'apple-client' || typeof payload.exp !== 'number') return undefined;
          secrets.push({ header: protectedHeader, payload });
          return 'apple-client';
        } catch {
          return undefined;
        }
      },
    });
  });
  beforeEach(() => {
    secrets = [];
  });

  const apple = async (extra: Partial<UpstreamConnection> = {}) =>
    connectionOf('apple', { clientId: 'apple-client', appleTeamId: 'TEAM123456', appleKeyId: 'KEY1234567', secret: await jose.exportPKCS8(appleClientKey.privateKey), ...extra });

  async function signIn(connection: UpstreamConnection, claims: Record<string, unknown>) {
    const { url, checks } = await oidcAuthorizeUrl(connection, SETTING, { state: 'apple-state' });
    const { callback, request } = authorize(url, claims);
    return { request, profile: await oidcCallback(connection, SETTING, callback, { state: 'apple-state', checks }) };
  }

  it('signs its client secret as Apple asks, is answered by a form post, and reads "true" (a string) as verified', async () => {
    const { request, profile } = await signIn(await apple(), { sub: '001234.abcd.0987', email: 'Relay@PrivateRelay.AppleID.com', email_verified: 'true', is_private_email: 'true' });
    expect(request.get('response_mode')).toBe('form_post');
    expect(request.get('scope')).toBe('openid email name');
    expect(request.get('nonce')).toBeTruthy();
    expect(secrets).toHaveLength(1);
    expect(secrets[0].header).toMatchObject({ alg: 'ES256', kid: 'KEY1234567' });
    expect(secrets[0].payload).toMatchObject({ iss: 'TEAM123456', sub: 'apple-client', aud: 'https://appleid.apple.com' });
    expect(secrets[0].payload.exp! - secrets[0].payload.iat!).toBeLessThanOrEqual(6 * 30 * 24 * 3600);
    expect(profile).toMatchObject({ subject: '001234.abcd.0987', email: 'relay@privaterelay.appleid.com', emailVerified: true });
  });

  it('a boolean true is verified too; "false" (a string) is not', async () => {
    expect((await signIn(await apple(), { sub: 'apple-2', email: 'b@corp.example', email_verified: true })).profile.emailVerified).toBe(true);
    expect((await signIn(await apple(), { sub: 'apple-3', email: 'c@corp.example', email_verified: 'false' })).profile).toMatchObject({ email: 'c@corp.example', emailVerified: false });
  });

  it('an ID token whose nonce is not the flow\'s is refused', async () => {
    const connection = await apple();
    const { url, checks } = await oidcAuthorizeUrl(connection, SETTING, { state: 'apple-state' });
    const { callback } = authorize(url, { sub: 'apple-4' });
    await expect(oidcCallback(connection, SETTING, callback, { state: 'apple-state', checks: { ...checks, nonce: 'another-nonce' } })).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/nonce/) });
  });

  it('a secret signed with another key, or the key without its team or key id, is refused with a 400 sentence', async () => {
    const other = await jose.generateKeyPair('ES256', { extractable: true });
    await expect(signIn(await apple({ secret: await jose.exportPKCS8(other.privateKey) }), { sub: 'apple-5' })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('exchanging its code: invalid_client'),
    });
    await expect(oidcAuthorizeUrl(await apple({ appleKeyId: undefined }), SETTING, { state: 's' })).rejects.toMatchObject({ statusCode: 400, message: 'This Apple connection needs its team id and key id.' });
  });
});

describe('Google', () => {
  beforeAll(() => {
    oidcFake({
      discovery: 'https://accounts.google.com',
      issuer: 'https://accounts.google.com',
      base: 'https://oauth2.googleapis.com',
      methods: ['client_secret_post', 'client_secret_basic'],
      client: async ({ headers }) => {
        const { id, secret } = basicClient(headers);
        return id === 'google-client' && secret === 'google-secret' ? id : undefined;
      },
      iss: (grant) => String(grant.claims?.issuedBy ?? 'https://accounts.google.com'),
    });
  });

  it('reads her profile from the ID token; groups of an account open to everyone name nothing of ours', async () => {
    const connection = connectionOf('google');
    const { url, checks } = await oidcAuthorizeUrl(connection, SETTING, { state: 'g-state', loginHint: 'ann@gmail.example' });
    expect(url.startsWith('https://oauth2.googleapis.com/authorize?')).toBe(true);
    const { callback, request } = authorize(url, { sub: '1098765', email: 'Ann@Gmail.example', email_verified: true, name: 'Ann Google', hd: 'gmail.example', groups: ['Owners'], amr: ['pwd'] });
    expect(request.get('scope')).toBe('openid email profile');
    expect(request.get('login_hint')).toBe('ann@gmail.example');
    const profile = await oidcCallback(connection, SETTING, callback, { state: 'g-state', checks });
    expect(profile).toEqual({ subject: '1098765', email: 'ann@gmail.example', emailVerified: true, name: 'Ann Google', groups: undefined, amr: ['pwd'], acr: undefined });
    expect(called.every((address) => /^https:\/\/(accounts\.google\.com|oauth2\.googleapis\.com)\//.test(address))).toBe(true);
  });

  it('an ID token from another issuer is refused', async () => {
    const connection = connectionOf('google');
    const { url, checks } = await oidcAuthorizeUrl(connection, SETTING, { state: 'g-state' });
    const { callback } = authorize(url, { sub: 'x', issuedBy: 'https://evil.example' });
    await expect(oidcCallback(connection, SETTING, callback, { state: 'g-state', checks })).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('"iss"') });
  });
});

describe('Entra ID', () => {
  const TENANT_A = '11111111-aaaa-4aaa-aaaa-111111111111';
  const TENANT_B = '22222222-bbbb-4bbb-bbbb-222222222222';
  beforeAll(() => {
    const client = async ({ headers }: { headers: Headers }) => {
      const { id, secret } = basicClient(headers);
      return id === 'entra-client' && secret === 'entra-secret' ? id : undefined;
    };
    // common: the metadata names a template; each tenant's ID token carries its own iss (and tid)
    oidcFake({
      discovery: 'https://login.microsoftonline.com/common/v2.0',
      issuer: 'https://login.microsoftonline.com/{tenantid}/v2.0',
      base: 'https://login.microsoftonline.com/common/oauth2/v2.0',
      methods: ['client_secret_post', 'client_secret_basic'],
      client,
      iss: (grant) => String(grant.claims?.issuedBy),
    });
    // a single tenant (A): its own issuer; the fake answers with whatever issuer the test says
    oidcFake({
      discovery: `https://login.microsoftonline.com/${TENANT_A}/v2.0`,
      issuer: `https://login.microsoftonline.com/${TENANT_A}/v2.0`,
      base: `https://login.microsoftonline.com/${TENANT_A}/oauth2/v2.0`,
      methods: ['client_secret_post', 'client_secret_basic'],
      client,
      iss: (grant) => String(grant.claims?.issuedBy),
    });
  });

  async function signIn(entraTenant: string | undefined, claims: Record<string, unknown>) {
    const connection = connectionOf('entra', { entraTenant });
    const { url, checks } = await oidcAuthorizeUrl(connection, SETTING, { state: 'e-state' });
    const { callback } = authorize(url, claims);
    return oidcCallback(connection, SETTING, callback, { state: 'e-state', checks });
  }
  const of = (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`;

  it('common: a tenant\'s own iss is accepted (for either tenant), its groups name nothing of ours', async () => {
    for (const tenant of [TENANT_A, TENANT_B]) {
      const profile = await signIn(undefined, { issuedBy: of(tenant), tid: tenant, sub: `sub-${tenant}`, email: 'Dana@Contoso.example', name: 'Dana Entra', groups: ['g1'] });
      expect(profile).toMatchObject({ subject: `sub-${tenant}`, email: 'dana@contoso.example', emailVerified: false, name: 'Dana Entra', groups: undefined });
    }
    expect(called).toContain('https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration');
  });

  it('common: an iss that is not the one of the token\'s own tenant is refused', async () => {
    await expect(signIn('common', { issuedBy: of(TENANT_B), tid: TENANT_A, sub: 'mixed' })).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('"iss"') });
  });

  it('a single-tenant connection accepts its tenant\'s iss (and reads its groups) and refuses another tenant\'s', async () => {
    const profile = await signIn(TENANT_A, { issuedBy: of(TENANT_A), tid: TENANT_A, sub: 'own', email: 'own@contoso.example', groups: ['Engineers'] });
    expect(profile).toMatchObject({ subject: 'own', groups: ['Engineers'] });
    await expect(signIn(TENANT_A, { issuedBy: of(TENANT_B), tid: TENANT_B, sub: 'stranger' })).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('"iss"') });
  });
});

describe('the fetch module is mocked at its edge only', () => {
  it('keeps its real checks', () => {
    expect(isSpecialUseAddress('127.0.0.1')).toBe(true);
    expect(isSpecialUseAddress('8.8.8.8')).toBe(false);
  });
});
