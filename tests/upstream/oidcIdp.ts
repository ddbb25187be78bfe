import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * An upstream OpenID Connect identity provider for tests: a second oidc-provider on its own port
 * (another issuer) in the test process. It signs in, without a page, whoever the test last set with
 * setAccount (her claims, and the amr/acr of her sign-in), and accepts any redirect URI for its one
 * client (our callback URLs carry each connection's id).
 */

export interface IdpAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  /** How she signed in at the IdP (RFC 8176): 'pwd', 'mfa', 'otp'… */
  amr?: string[];
  acr?: string;
}

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** With `clientAuth: 'private_key_jwt'`: the client's private key (PKCS #8 PEM), whose public half the IdP holds in the client's JWKS. */
  privateKeyPem?: string;
  /** Who the next sign-in at this IdP is (and her claims from then on). */
  setAccount(account: IdpAccount): void;
  /** The sign-ins it has seen (the authorization requests' parameters), newest last. */
  requests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * `clientAuth` is how its one client authenticates at the token endpoint: its secret (the default,
 * client_secret_basic), or a JWT signed with a key (private_key_jwt): the client's JWKS holds the
 * public key of a pair made here (RS256, or ES256 with `keyAlg`), whose private key is returned as
 * privateKeyPem, for the test to put in the connection's secret.
 */
export async function start(
  options: { port?: number; clientId?: string; clientSecret?: string; clientAuth?: 'client_secret_basic' | 'private_key_jwt'; keyAlg?: 'RS256' | 'ES256' } = {},
): Promise<OidcIdp> {
  const clientId = options.clientId ?? 'iam-upstream-test';
  const clientSecret = options.clientSecret ?? 'upstream-test-secret-with-enough-entropy';
  const accounts = new Map<string, IdpAccount>();
  let current: IdpAccount | undefined;
  const requests: URLSearchParams[] = [];

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'idp-key', alg: 'RS256', use: 'sig' };
  let privateKeyPem: string | undefined;
  let client: NonNullable<Configuration['clients']>[number] = { client_id: clientId, client_secret: clientSecret, redirect_uris: ['http://localhost/placeholder'], token_endpoint_auth_method: 'client_secret_basic' };
  if (options.clientAuth === 'private_key_jwt') {
    const alg = options.keyAlg ?? 'RS256';
    const pair = await jose.generateKeyPair(alg, { extractable: true });
    privateKeyPem = await jose.exportPKCS8(pair.privateKey);
    const publicJwk = { ...(await jose.exportJWK(pair.publicKey)), kid: 'client-key', alg, use: 'sig' };
    client = { client_id: clientId, redirect_uris: ['http://localhost/placeholder'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk as never] } };
  }
  const configuration: Configuration = {
    clients: [client],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['upstream test idp cookie key'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // amr (RFC 8176) is no standard claim of oidc-provider: declared so that ID tokens carry the sign-in's
    claims: { amr: null, openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: account.email, email_verified: account.email_verified, name: account.name, groups: account.groups }),
      };
    },
  };
  const provider = new Provider(issuer, configuration);
  // one client for every connection of the tests: any redirect URI (each callback names its connection)
  provider.Client.prototype.redirectUriAllowed = () => true;
  const callback = provider.callback();

  server.on('request', async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/auth') requests.push(url.searchParams);
      const interaction = /^\/interaction\/([^/]+)$/.exec(url.pathname);
      if (!interaction) return callback(req, res);
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        if (!current) throw new Error('setAccount first');
        await provider.interactionFinished(req, res, { login: { accountId: current.sub, amr: current.amr, acr: current.acr } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });

  return {
    issuer,
    clientId,
    clientSecret,
    privateKeyPem,
    requests,
    setAccount(account) {
      accounts.set(account.sub, account);
      current = account;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
