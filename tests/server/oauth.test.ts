import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/ids.js';
import { ADMIN_EMAIL, call, createTenant, PUBLIC_URL, startServer, type TestServer } from './helpers.js';
import {
  addApplication,
  basicAuth,
  CONSOLE_REDIRECT,
  consoleCode,
  consoleLoginFields,
  pkce,
  subjectOf,
  formAction,
  injectBrowser,
  postLogin,
  postToken,
  redirectParams,
  setPassword,
} from './oauthHelpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const exchange = (code: string, verifier: string | undefined, extra: Record<string, string | undefined> = {}) =>
  postToken(server, { grant_type: 'authorization_code', code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier, ...extra });

describe('console sign-in (authorization code with PKCE)', () => {
  it('signs the administrator in: 303 with code, state and iss; the token works on the API; the id_token verifies against the JWKS', async () => {
    const { code, verifier, response } = await consoleCode(server);
    expect(response.statusCode).toBe(303);
    const { url, params } = redirectParams(response)!;
    expect(`${url.origin}${url.pathname}`).toBe(CONSOLE_REDIRECT);
    expect(params).toEqual({ code, state: 'state-123', iss: PUBLIC_URL });
    expect(code.length).toBeGreaterThanOrEqual(32);

    const token = await exchange(code, verifier);
    expect(token.status).toBe(200);
    expect(token.headers['cache-control']).toBe('no-store');
    expect(token.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      user: { id: 'admin', username: 'admin@example.com', displayName: 'Administrator', email: 'admin@example.com' },
      client: { client_id: 'iam-console', companyId: 'root', domain: 'default' },
    });
    expect(token.body.scope.split(' ').sort()).toEqual(['email', 'openid', 'user:admin', 'username']);
    expect((await call(server, token.body.access_token, 'GET', '/api/companys/root')).status).toBe(200);

    const jwks = await server.app.inject({ method: 'GET', url: '/oauth/jwks' });
    const { payload } = await jose.jwtVerify(token.body.id_token, jose.createLocalJWKSet(jwks.json()), {
      issuer: PUBLIC_URL,
      audience: 'iam-console',
      algorithms: ['RS256'],
    });
    const admin = await subjectOf(server, 'root', 'default', 'admin');
    expect(payload).toMatchObject({ sub: admin, nonce: 'nonce-456', email: 'admin@example.com' });

    const userinfo = await call(server, token.body.access_token, 'GET', '/oauth/userinfo');
    expect(userinfo.status).toBe(200);
    expect(userinfo.body).toEqual({
      sub: admin,
      name: 'Administrator',
      preferred_username: 'admin@example.com',
      email: 'admin@example.com',
      email_verified: false,
    });
  });

  it('signs in by username too, case-insensitively', async () => {
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { email: '  ADMIN@Example.com ' }));
    expect(redirectParams(response)!.params.code).toBeDefined();
  });

  it('accepts a JSON token request', async () => {
    const { code, verifier } = await consoleCode(server);
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'authorization_code', code, redirect_uri: CONSOLE_REDIRECT, client_id: 'iam-console', code_verifier: verifier },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().access_token).toBeTruthy();
  });

  it('answers a wrong password with a 303 carrying access_denied and the state, and no code', async () => {
    const { challenge } = pkce();
    const response = await postLogin(server, consoleLoginFields(challenge, { password: 'wrong' }));
    expect(response.statusCode).toBe(303);
    const { params } = redirectParams(response)!;
    expect(params).toMatchObject({ error: 'access_denied', state: 'state-123', iss: PUBLIC_URL });
    expect(params.error_description).toBeTruthy();
    expect(params.code).toBeUndefined();
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('re-renders the hosted page with a readable error (401) when the form came from it', async () => {
    const { challenge } = pkce();
    const browser = injectBrowser(server);
    const authorize = new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
    const page = await browser.get(`/oauth/authorize?${authorize}`);
    const response = await browser.post(formAction(page.body)!, { email: ADMIN_EMAIL, password: 'wrong' });
    expect(response.status).toBe(401);
    expect(response.headers.location).toBeUndefined();
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('Wrong email or password.');
    expect(response.body).toContain('value="admin@example.com"');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe('PKCE', () => {
  it('refuses a wrong verifier and a missing verifier', async () => {
    const first = await consoleCode(server);
    const wrong = await exchange(first.code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');

    const second = await consoleCode(server);
    const missing = await exchange(second.code, undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_grant');
  });

  it('refuses the plain method, and a public client without a challenge, by redirecting with invalid_request', async () => {
    const { verifier } = pkce();
    for (const extra of [
      { code_challenge: verifier, code_challenge_method: 'plain' },
      { code_challenge: verifier, code_challenge_method: undefined },
      { code_challenge: undefined, code_challenge_method: undefined },
    ]) {
      const response = await postLogin(server, consoleLoginFields('', extra));
      expect(response.statusCode).toBe(303);
      const { params } = redirectParams(response)!;
      expect(params.error).toBe('invalid_request');
      expect(params.code).toBeUndefined();
    }
  });
});

describe('authorization codes', () => {
  it('are single-use: a second exchange fails and revokes the tokens of the first', async () => {
    const { code, verifier } = await consoleCode(server);
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect((await call(server, first.body.access_token, 'GET', '/api/companys/root')).status).toBe(200);

    const second = await exchange(code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await call(server, first.body.access_token, 'GET', '/api/companys/root')).status).toBe(401);
    expect((await call(server, first.body.access_token, 'GET', '/oauth/userinfo')).status).toBe(401);
  });

  it('expire', async () => {
    const { code, verifier } = await consoleCode(server);
    await server.db.query(
      `UPDATE oidc_payloads SET payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::integer - 1)) WHERE model = 'AuthorizationCode' AND id = $1`,
      [code],
    );
    const response = await exchange(code, verifier);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_grant', error_description: 'the authorization code has expired' });
  });

  it('live sixty seconds', async () => {
    const { code } = await consoleCode(server);
    const { rows } = await server.db.query<{ seconds: number }>(
      `SELECT extract(epoch FROM expires_at - now())::float AS seconds FROM oidc_payloads WHERE model = 'AuthorizationCode' AND id = $1`,
      [code],
    );
    expect(rows[0].seconds).toBeGreaterThan(50);
    expect(rows[0].seconds).toBeLessThanOrEqual(60);
  });

  it('need the same redirect_uri, an unknown code is invalid_grant, and the user must still be active', async () => {
    const other = await consoleCode(server);
    const wrongRedirect = await exchange(other.code, other.verifier, { redirect_uri: `${CONSOLE_REDIRECT}/` });
    expect(wrongRedirect.body.error).toBe('invalid_grant');

    expect((await exchange('no-such-code', pkce().verifier)).body.error).toBe('invalid_grant');

    const acme = await createTenant(server, 'inactive-co');
    await setPassword(server, acme.companyId, acme.domainId, 'worker', 'worker password');
    await addApplication(server, { id: 'inactive-app', companyId: acme.companyId, domainId: acme.domainId, redirectUris: ['https://app.example/cb'] });
    const { verifier, challenge } = pkce();
    const login = await postLogin(server, {
      email: 'worker', password: 'worker password', client_id: 'inactive-app', redirect_uri: 'https://app.example/cb', code_challenge: challenge, code_challenge_method: 'S256',
    });
    const code = redirectParams(login)!.params.code;
    await server.db.query(`UPDATE users SET status = 'deleted' WHERE company_id = 'inactive-co' AND id = 'worker'`);
    const response = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb', client_id: 'inactive-app', code_verifier: verifier });
    expect(response.body.error).toBe('invalid_grant');
  });

  it('answers an unsupported or missing grant_type in the RFC 6749 shape', async () => {
    const unsupported = await postToken(server, { grant_type: 'password', client_id: 'iam-console' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('unsupported_grant_type');
    const missing = await postToken(server, { client_id: 'iam-console' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    expect(missing.body.error_description).toContain('grant_type');
  });
});

describe('clients and redirect URIs', () => {
  it('refuses redirect URI variants and unknown clients with an error page, never a redirect', async () => {
    const { challenge } = pkce();
    const variants = [
      `${CONSOLE_REDIRECT}/`,
      'http://LOCALHOST:8080/callback',
      'http://localhost:8080/Callback',
      `${CONSOLE_REDIRECT}?next=/admin`,
      'http://localhost:8080/callback#x',
      'http://evil.example/callback',
    ];
    for (const redirect_uri of variants) {
      const login = await postLogin(server, consoleLoginFields(challenge, { redirect_uri }));
      expect(login.statusCode, redirect_uri).toBe(400);
      expect(login.headers.location).toBeUndefined();
      expect(login.headers['content-type']).toContain('text/html');
      const authorize = await server.app.inject({
        method: 'GET',
        url: `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri, code_challenge: challenge, code_challenge_method: 'S256' })}`,
      });
      expect(authorize.statusCode, redirect_uri).toBe(400);
      expect(authorize.headers.location).toBeUndefined();
    }
    const unknown = await postLogin(server, consoleLoginFields(challenge, { client_id: 'nobody' }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers.location).toBeUndefined();
    expect(unknown.body).toContain('Unknown or inactive application');
  });

  it('makes confidential clients authenticate with HTTP Basic', async () => {
    const secret = 'se:cr%et+1';
    await addApplication(server, { id: 'web-app', companyId: 'root', domainId: 'default', appType: 'web', secret, redirectUris: ['https://web.example/cb'] });
    // (the one-form sign-in asks every client for PKCE; user:admin through an application other
    // than the console takes the consent page, so this one asks for identity scopes)
    const verifiers = new Map<string, string>();
    const signIn = async (fields: Record<string, string> = {}) => {
      const { verifier, challenge } = pkce();
      const response = await postLogin(server, {
        ...consoleLoginFields(challenge, { client_id: 'web-app', redirect_uri: 'https://web.example/cb', scope: 'openid username email' }),
        ...fields,
      });
      const code = redirectParams(response)!.params.code;
      verifiers.set(code, verifier);
      return code;
    };
    const exchangeAs = (code: string, headers: Record<string, string>, extra: Record<string, string> = {}) =>
      postToken(server, { grant_type: 'authorization_code', code, redirect_uri: 'https://web.example/cb', code_verifier: verifiers.get(code), ...extra }, headers);

    const code = await signIn();
    const anonymous = await exchangeAs(code, {}, { client_id: 'web-app' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_client');
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic/);
    expect((await exchangeAs(code, { authorization: basicAuth('web-app', 'wrong') })).status).toBe(401);
    // client_secret_post (the secret in the form) is the other standard way to send it
    expect((await exchangeAs(await signIn(), {}, { client_id: 'web-app', client_secret: secret })).status).toBe(200);
    expect((await exchangeAs(await signIn(), {}, { client_id: 'web-app', client_secret: 'wrong' })).status).toBe(401);
    expect((await exchangeAs(code, { authorization: 'Basic !!!' })).status).toBe(401);

    const good = await exchangeAs(await signIn(), { authorization: basicAuth('web-app', secret) });
    expect(good.status).toBe(200);
    expect(good.body.client).toEqual({ client_id: 'web-app', companyId: 'root', domain: 'default' });

    // a verifier that is not the code's is refused, and a confidential client without a challenge is too
    const wrongVerifier = await exchangeAs(await signIn(), { authorization: basicAuth('web-app', secret) }, { code_verifier: pkce().verifier });
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    const noChallenge = await postLogin(server, consoleLoginFields('', { client_id: 'web-app', redirect_uri: 'https://web.example/cb', code_challenge: undefined, code_challenge_method: undefined }));
    expect(redirectParams(noChallenge)!.params).toMatchObject({ error: 'invalid_request' });
    expect(redirectParams(noChallenge)!.params.code).toBeUndefined();

    // a code of the console cannot be redeemed by another client
    const consoleSignIn = await consoleCode(server);
    const stolen = await exchangeAs(consoleSignIn.code, { authorization: basicAuth('web-app', secret) }, { redirect_uri: CONSOLE_REDIRECT, code_verifier: consoleSignIn.verifier });
    expect(stolen.body.error).toBe('invalid_grant');
  });

  it('verifies a secret a public client chooses to send', async () => {
    await addApplication(server, { id: 'spa-with-secret', companyId: 'root', domainId: 'default', secret: 'spa-secret', redirectUris: ['https://spa.example/cb'] });
    const run = async (authorization: string) => {
      const { verifier, challenge } = pkce();
      const login = await postLogin(server, consoleLoginFields(challenge, { client_id: 'spa-with-secret', redirect_uri: 'https://spa.example/cb', scope: 'openid' }));
      const code = redirectParams(login)!.params.code;
      return postToken(server, { grant_type: 'authorization_code', code, redirect_uri: 'https://spa.example/cb', code_verifier: verifier }, { authorization });
    };
    expect((await run(basicAuth('spa-with-secret', 'nope'))).status).toBe(401);
    expect((await run(basicAuth('spa-with-secret', 'spa-secret'))).status).toBe(200);
  });
});

describe('who gets user:admin', () => {
  it('only administrators of the application domain; a plain user is 403 on the API', async () => {
    const tenant = await createTenant(server, 'scopes-co');
    await addApplication(server, { id: 'scopes-console', companyId: tenant.companyId, domainId: tenant.domainId, redirectUris: ['https://scopes.example/cb'] });
    const signIn = async (email: string, clientId = 'scopes-console', redirectUri = 'https://scopes.example/cb') => {
      const { verifier, challenge } = pkce();
      const login = await postLogin(server, {
        email, password: 'tenant password', client_id: clientId, redirect_uri: redirectUri, scope: 'openid user:admin', code_challenge: challenge, code_challenge_method: 'S256',
      });
      const params = redirectParams(login)!.params;
      if (!params.code) return params;
      return (await postToken(server, { grant_type: 'authorization_code', code: params.code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier })).body;
    };
    await setPassword(server, tenant.companyId, tenant.domainId, 'worker', 'tenant password');
    await setPassword(server, tenant.companyId, tenant.domainId, 'boss', 'tenant password');

    const worker = await signIn('worker@scopes-co.example');
    expect(worker.scope).toBe('openid');
    expect((await call(server, worker.access_token, 'GET', '/api/companys/scopes-co')).status).toBe(403);

    // through the tenant's own application user:admin takes the provider's consent page, which
    // the one-form sign-in does not show (the hosted sign-in does: tenancy.test.ts)
    const boss = await signIn('boss@scopes-co.example');
    expect(boss.error).toBe('consent_required');
    await server.db.query(
      `INSERT INTO oauth_consents (company_id, domain_id, user_id, client_id, resource, scope) VALUES ($1, $2, 'boss', 'scopes-console', $3, 'user:admin')`,
      [tenant.companyId, tenant.domainId, `${PUBLIC_URL}/api`],
    );
    const consented = await signIn('boss@scopes-co.example');
    expect(consented.scope).toBe('openid user:admin');
    expect((await call(server, consented.access_token, 'GET', '/api/companys/scopes-co')).status).toBe(200);

    // users of one domain cannot sign in through another domain's application (the console, every
    // organization's door, is the one exception: consoleTenants.test.ts)
    await addApplication(server, { id: 'root-portal', companyId: 'root', domainId: 'default', redirectUris: ['https://portal.root.example/cb'] });
    expect((await signIn('boss@scopes-co.example', 'root-portal', 'https://portal.root.example/cb')).error).toBe('access_denied');
  });
});

describe('authorize endpoint and discovery', () => {
  const authorizeUrl = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params)}`;

  it('renders the hosted login page with a strict policy; the request stays at the provider', async () => {
    const { challenge } = pkce();
    const response = await injectBrowser(server).get(
      authorizeUrl({ response_type: 'code', client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, scope: 'openid', state: '"><b>x', code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n1' }),
    );
    expect(response.status).toBe(200);
    expect(response.path).toMatch(/^\/oauth\/interaction\/[\w-]+$/);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['cache-control']).toBe('no-store');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://localhost:8080");
    expect(formAction(response.body)).toBe(`${response.path}/login`);
    expect(response.body).toContain('<label for="email">');
    expect(response.body).toContain('<label for="password">');
    // the authorization request (challenge, state) is kept by the provider, not in the form
    expect(response.body).not.toContain(challenge);
    expect(response.body).not.toContain('<b>x');
    expect(response.body).not.toContain('<script');
  });

  it('sends errors after the redirect URI is known back to the client with 303', async () => {
    const { challenge } = pkce();
    const base = { client_id: 'iam-console', redirect_uri: CONSOLE_REDIRECT, state: 's', code_challenge: challenge, code_challenge_method: 'S256' };
    const cases: [Record<string, string>, string][] = [
      [base, 'invalid_request'],
      [{ ...base, response_type: 'token' }, 'unsupported_response_type'],
      [{ ...base, response_type: 'code', code_challenge_method: 'plain' }, 'invalid_request'],
      [{ ...base, response_type: 'code', prompt: 'none' }, 'login_required'],
    ];
    for (const [params, error] of cases) {
      const response = await server.app.inject({ method: 'GET', url: authorizeUrl(params) });
      expect(response.statusCode).toBe(303);
      expect(redirectParams(response)!.params).toMatchObject({ error, state: 's', iss: PUBLIC_URL });
    }
    const noClient = await server.app.inject({ method: 'GET', url: authorizeUrl({ response_type: 'code' }) });
    expect(noClient.statusCode).toBe(400);
    expect(noClient.headers.location).toBeUndefined();
  });

  it('answers malformed parameters with an HTML error page, not JSON', async () => {
    const twice = await server.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=a&client_id=b' });
    const tooLong = await postLogin(server, consoleLoginFields(pkce().challenge, { email: `${'x'.repeat(300)}@example.com` }));
    for (const response of [twice, tooLong]) {
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('role="alert"');
    }
  });

  it('publishes the OpenID configuration and the JWKS', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      issuer: PUBLIC_URL,
      authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`,
      token_endpoint: `${PUBLIC_URL}/oauth/token`,
      userinfo_endpoint: `${PUBLIC_URL}/oauth/userinfo`,
      jwks_uri: `${PUBLIC_URL}/oauth/jwks`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'],
      end_session_endpoint: `${PUBLIC_URL}/oauth/logout`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint: `${PUBLIC_URL}/oauth/revoke`,
      introspection_endpoint: `${PUBLIC_URL}/oauth/introspect`,
      device_authorization_endpoint: `${PUBLIC_URL}/oauth/device/auth`,
      pushed_authorization_request_endpoint: `${PUBLIC_URL}/oauth/par`,
      backchannel_logout_supported: true,
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      authorization_response_iss_parameter_supported: true,
    });
    const jwks = (await server.app.inject({ method: 'GET', url: '/oauth/jwks' })).json();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: server.ctx.keys.kid });
    expect(jwks.keys[0].d).toBeUndefined();
  });
});
