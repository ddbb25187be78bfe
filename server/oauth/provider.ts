import { managementAudience } from '../accounts/tokens.js';
import crypto from 'node:crypto';
import * as jose from 'jose';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { AppContext } from '../context.js';
import { ADMIN_SCOPE, holdsConsoleRole, type KnownUser, type Tenant, toAccount } from '../accounts/accounts.js';
import { adapterFactory } from './adapter.js';
import { type ClientExtras, defaultResource, EXTRA_CLIENT_METADATA, extrasOf, isPublicClient, secretMatches, tenantOf } from './clients.js';
import { planGrant, saveGrant } from './grants.js';
import { renderErrorPage, renderMessagePage, renderPage } from './loginPage.js';
import { t, th } from '../i18n/index.js';
import { apiScopeNames, findActiveApi, IDENTITY_SCOPES, OFFLINE_ACCESS, userPermissions } from './resources.js';
import { accountOfClient, chooseTenant, sameTenant, type TenantSetting } from './signInTenant.js';

/** Authorization codes live one minute (RFC 6749 4.1.2 recommends at most ten). */
export const CODE_TTL_SECONDS = 60;

/** oidc-provider's endpoints, under /oauth. */
const PROVIDER_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  device_authorization: '/oauth/device/auth',
  code_verification: '/oauth/device',
  pushed_authorization_request: '/oauth/par',
  registration: '/oauth/register',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
};

/** Every endpoint oidc-provider answers by a fixed path (its confirmation steps too), for the exact-spelling rule (index.ts). */
export const providerEndpoints = () =>
  new Set([...Object.values(PROVIDER_ROUTES), `${PROVIDER_ROUTES.end_session}/confirm`, `${PROVIDER_ROUTES.end_session}/success`, `${PROVIDER_ROUTES.code_verification}/confirm`, '/.well-known/openid-configuration']);

/** Audience of access tokens for this provider's own management API. */

/** The key of oidc-provider's cookies, derived from the signing key: it survives restarts and changes with the key. */
async function cookieKey(ctx: AppContext, purpose: string): Promise<string> {
  const { d } = await jose.exportJWK(ctx.keys.privateKey);
  return crypto.createHmac('sha256', d ?? crypto.randomBytes(32)).update(purpose).digest('base64url');
}

const accountOf = (ctx: KoaContextWithOIDC) => (ctx.oidc.entities.Account as { accountId?: string } | undefined)?.accountId;

/**
 * The login prompt, asked again when the browser's session names an account that is not one of the
 * tenant this authorization request is for (or no longer active): the client's own company and
 * domain, or for the console the tenant the request names (signInTenant.ts). A session of one
 * domain never signs anyone in at another's.
 */
function loginPolicy(db: AppContext['db'], setting: TenantSetting) {
  const { Check, base } = interactionPolicy;
  const policy = base();
  const login = policy.get('login')!;
  login.checks.add(
    new Check('account_not_of_this_tenant', 'the session\'s account is not an account of the organization signed in to', 'login_required', async (koa) => {
      if (!koa.oidc.session?.accountId) return Check.NO_NEED_TO_PROMPT;
      const user = (koa.oidc.account as { user?: KnownUser } | undefined)?.user;
      if (!user) return Check.REQUEST_PROMPT;
      const choice = await chooseTenant(db, setting, koa.oidc.client, koa.oidc.params ?? {});
      return choice.kind === 'tenant' && sameTenant(user, choice.tenant) ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
    }),
    0,
  );
  return policy;
}

/** The tenant of a sign-in's tokens: the person's own, or the client's when no person signed in (client credentials). */
const tokenTenant = (client: unknown, person: KnownUser | undefined): Tenant => (person ? { companyId: person.companyId, domainId: person.domainId } : tenantOf(client));

/**
 * The authorization server: oidc-provider, configured with our accounts, storage, keys, pages and
 * the settings of each application and API (docs/CONSOLE.md, "Sign-ins and rights").
 */
export async function createProvider(ctx: AppContext, options: { pages: Pick<Configuration, 'interactions'>; registrationToken?: string }) {
  const { db, config } = ctx;
  const managementApi = managementAudience(ctx);
  const signingJwk = { ...(await jose.exportJWK(ctx.keys.privateKey)), kid: ctx.keys.kid, alg: 'RS256', use: 'sig' };

  const setting = { consoleClientId: config.consoleClientId };

  /**
   * The person with this subject a token is being issued to, found where the client may sign people
   * in (the account oidc-provider loaded for the request when it is hers); undefined without a
   * subject (client credentials).
   */
  async function personOf(koa: KoaContextWithOIDC | undefined, client: unknown, subject: string | undefined): Promise<KnownUser | undefined> {
    if (!subject) return undefined;
    const loaded = koa?.oidc?.entities.Account as { accountId?: string; user?: KnownUser } | undefined;
    const user = loaded?.accountId === subject && loaded.user ? loaded.user : await accountOfClient(db, setting, client, subject);
    if (!user) throw new errors.InvalidGrant('the user of this sign-in is no longer active');
    return user;
  }

  /**
   * The API a resource indicator names for this client: ours (management) or an active API of its
   * domain. Its scopes include the identity scopes: an access token's scope names everything the
   * sign-in granted (openid too, which /oauth/userinfo asks of it), as the console's contract says.
   */
  async function resourceServer(oidc: KoaContextWithOIDC, indicator: string, client: unknown) {
    const person = await personOf(oidc, client, accountOf(oidc));
    const tenant = tokenTenant(client, person);
    if (indicator === managementApi) {
      // the management API needs a signed-in administrator of the domain signed in to
      if (oidc.oidc.route === 'token' && !person) {
        const named = (oidc.req as { body?: { resource?: unknown } }).body?.resource !== undefined;
        if (!named) throw new errors.InvalidRequest('name the API: audience (or resource) is required');
        throw new errors.InvalidTarget('the management API needs a signed-in administrator');
      }
      const admin = !person || (!extrasOf(client).self_registered && (await holdsConsoleRole(db, tenant.companyId, tenant.domainId, person.id)));
      // Rights follow the account: a refresh never returns user:admin to someone who lost it since
      // the sign-in (membership changes revoke such sign-ins; this holds even if one slipped through)
      const refreshing = oidc.oidc.entities.RefreshToken as { scopes?: Set<string>; grantId?: string } | undefined;
      if (!admin && refreshing?.scopes?.has(ADMIN_SCOPE)) {
        await db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [refreshing.grantId]);
        throw new errors.InvalidGrant('the account is no longer an administrator: sign in again');
      }
      return { scope: [...IDENTITY_SCOPES, ...(admin ? [ADMIN_SCOPE] : [])].join(' '), audience: managementApi, accessTokenTTL: config.accessTokenTtl, accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'RS256' as const } } };
    }
    // an application's APIs are its own domain's, for its own domain's people (a console sign-in of another tenant has none)
    const api = sameTenant(tenant, tenantOf(client)) ? await findActiveApi(db, tenant, indicator) : undefined;
    if (!api) throw new errors.InvalidTarget('the audience is not an active API of this application\'s domain');
    let scopes = await apiScopeNames(db, api.id);
    // RBAC: a user's tokens hold only the permissions the user's groups give, read at every issuance
    if (api.rbac && person) {
      const held = new Set(await userPermissions(db, tenant.companyId, tenant.domainId, person.id, api.id));
      scopes = scopes.filter((scope) => held.has(scope));
    }
    return {
      scope: [...IDENTITY_SCOPES, ...scopes].join(' '),
      audience: api.identifier,
      // public clients' tokens live in a browser or on a device
      accessTokenTTL: isPublicClient(client) ? api.tokenExpirationBrowser : api.tokenExpiration,
      accessTokenFormat: 'jwt' as const,
      jwt: { sign: api.signingAlgorithm === 'HS256' ? { alg: 'HS256' as const, key: Buffer.from(api.signingSecret!) } : { alg: 'RS256' as const } },
    };
  }

  const configuration: Configuration = {
    adapter: adapterFactory(db, config.publicUrl, config.registrationDomain, config.consoleClientId),
    // Outgoing calls (back-channel logout) never reach private addresses unless the operator allows it
    // (ALLOW_PRIVATE_CALLBACKS: an application on the same network, or tests)
    fetch: (url, init) => globalThis.fetch(url, config.allowPrivateCallbacks ? { ...init, dispatcher: undefined } as RequestInit : init),
    clients: [],
    jwks: { keys: [signingJwk as jose.JWK as never] },
    cookies: {
      keys: [await cookieKey(ctx, 'iam oidc cookies')],
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: config.publicUrl.startsWith('https:') },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: config.publicUrl.startsWith('https:') },
      names: { session: 'iam_session', interaction: 'iam_interaction', resume: 'iam_resume' },
    },
    routes: PROVIDER_ROUTES,
    ...options.pages,
    interactions: { ...options.pages.interactions, policy: loginPolicy(db, setting) },
    // sub is the account's subject; it is looked up where the asking client signs people in only
    async findAccount(oidc, sub, token) {
      const client = oidc.oidc.client ?? (token?.clientId ? await oidc.oidc.provider.Client.find(token.clientId) : undefined);
      if (!client) return undefined;
      const user = await accountOfClient(db, setting, client, sub);
      return user ? toAccount(user) : undefined;
    },
    // the tenant a console sign-in is for (signInTenant.ts); another application may name only its own
    extraParams: {
      async company(koa, value, client) {
        const choice = await chooseTenant(db, setting, client, { company: value, domain: koa.oidc.params?.domain });
        if (choice.kind === 'refused') throw new errors.InvalidRequest(choice.message);
      },
      domain: null,
      // an upstream identity provider to sign in with, skipping the page (as Auth0's; server/upstream/)
      connection: null,
    },
    claims: {
      // amr (RFC 8176): how the person proved who she is, password and second factor (signInSteps.ts)
      amr: null,
      openid: ['sub', 'amr'],
      profile: ['name', 'preferred_username'],
      username: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
    },
    scopes: [...IDENTITY_SCOPES],
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    // (private_key_jwt would need each application's public keys, which applications do not hold yet)
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    pkce: { required: (_ctx, client) => isPublicClient(client) },
    clientBasedCORS: (_ctx, origin, client) => extrasOf(client).web_origins.includes(origin),
    extraClientMetadata: { properties: [...EXTRA_CLIENT_METADATA], validator() {} },
    clientDefaults: { id_token_signed_response_alg: 'RS256', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' },
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] } as Configuration['enabledJWA'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // Tenant isolation: an application learns about tokens of its own company and domain only
        // (oidc-provider would answer any confidential client about any token)
        async allowedPolicy(_koa, client, token) {
          const owner = token.clientId === client.clientId ? client : await provider.Client.find(token.clientId!);
          if (!owner) return false;
          const [asker, holder] = [tenantOf(client), tenantOf(owner)];
          return asker.companyId === holder.companyId && asker.domainId === holder.domainId;
        },
      },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      dPoP: { enabled: true },
      pushedAuthorizationRequests: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(koa, form) {
          const name = koa.oidc.client?.clientName;
          const question = name ? th('logout.questionOf', { client: escape(String(name)) }) : th('logout.question');
          const html = renderPage(t('logout.title'), `<h1>${th('logout.title')}</h1>\n<p>${question}</p>\n${form}\n<button type="submit" form="op.logoutForm" value="yes" name="logout" autofocus>${th('logout.yes')}</button>\n<button type="submit" form="op.logoutForm">${th('logout.no')}</button>`);
          koa.type = 'html';
          koa.body = html;
        },
        async postLogoutSuccessSource(koa) {
          koa.type = 'html';
          koa.body = renderMessagePage(t('logout.doneTitle'), t('logout.done'));
        },
      },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        async userCodeInputSource(koa, form, _out, err) {
          const message = err ? `<p class="error" role="alert">${th('device.invalid')}</p>` : `<p>${th('device.enter')}</p>`;
          koa.type = 'html';
          koa.body = renderPage(t('device.title'), `<h1>${th('device.title')}</h1>\n${message}\n${form.replace('<input ', `<label for="user_code">${th('device.code')}</label><input id="user_code" `)}\n<button type="submit" form="op.deviceInputForm">${th('device.continue')}</button>`);
        },
        async userCodeConfirmSource(koa, form, client, _deviceInfo, userCode) {
          koa.type = 'html';
          koa.body = renderPage(t('device.title'), `<h1>${th('device.titleOf', { client: escape(String(client.clientName ?? client.clientId)) })}</h1>\n<p>${th('device.check', { code: `<strong>${escape(userCode)}</strong>` })}</p>\n${form}\n<button type="submit" form="op.deviceConfirmForm" autofocus>${th('device.continue')}</button>\n<button type="submit" form="op.deviceConfirmForm" value="yes" name="abort">${th('device.cancel')}</button>`);
        },
        async successSource(koa) {
          koa.type = 'html';
          koa.body = renderMessagePage(t('device.doneTitle'), t('device.done'));
        },
      },
      registration: options.registrationToken
        ? { enabled: true as boolean, initialAccessToken: options.registrationToken, idFactory: () => `dyn-${crypto.randomBytes(12).toString('base64url')}` }
        : { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, client) => defaultResource(client, managementApi),
        useGrantedResource: () => true,
        getResourceServerInfo: (koa, indicator, client) => resourceServer(koa, indicator, client),
      },
    },
    ttl: {
      AuthorizationCode: CODE_TTL_SECONDS,
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? config.accessTokenTtl,
      ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? config.accessTokenTtl,
      IdToken: (_ctx, _token, client) => extrasOf(client).id_token_ttl || 3600,
      RefreshToken(_ctx, token, client) {
        // the family dies refresh_absolute_lifetime seconds after the sign-in, when the application sets one
        const absolute = extrasOf(client).refresh_absolute_lifetime;
        // without an absolute lifetime a refresh token lives a year from its issue (rotation renews it)
        const lifetime = 365 * 24 * 3600;
        if (!absolute) return lifetime;
        const left = (token.iiat ?? token.iat ?? Math.floor(Date.now() / 1000)) + absolute - Math.floor(Date.now() / 1000);
        return Math.max(1, Math.min(lifetime, left));
      },
      Grant: 365 * 24 * 3600,
      Session: 14 * 24 * 3600,
      Interaction: 3600,
      DeviceCode: 600,
      PushedAuthorizationRequest: 60,
      BackchannelAuthenticationRequest: 600,
    },
    async issueRefreshToken(koa, client, code) {
      if (!client.grantTypeAllowed('refresh_token') || !code.scopes.has(OFFLINE_ACCESS)) return false;
      const resource = typeof code.resource === 'string' ? code.resource : undefined;
      if (!resource || resource === managementApi) return true;
      const api = await findActiveApi(db, tenantOf(client), resource);
      return !!api?.allowOfflineAccess;
    },
    rotateRefreshToken: (koa) => extrasOf(koa.oidc.client).refresh_token_rotation === true,
    async extraTokenClaims(koa, issued) {
      const token = issued as typeof issued & { grantId?: string; accountId?: string };
      const client = koa?.oidc?.client ?? (await provider.Client.find(token.clientId!));
      // sub is the subject; the management API (its guard, audit actors) names the user by her
      // id in her domain, which company and domain complete: the person's own tenant
      const person = await personOf(koa, client, token.accountId);
      const tenant = tokenTenant(client, person);
      const claims: Record<string, unknown> = { company: tenant.companyId, domain: tenant.domainId };
      if (token.grantId) claims.gid = token.grantId;
      if (person) claims.user_id = person.id;
      const resource = (token as { resourceServer?: { audience?: string } }).resourceServer?.audience;
      if (resource && resource !== managementApi && sameTenant(tenant, tenantOf(client))) {
        const api = await findActiveApi(db, tenant, resource);
        if (api?.addPermissionAccessToken) {
          const scopes = new Set(String(token.scope ?? '').split(' '));
          const apiScopes = await apiScopeNames(db, api.id);
          claims.permissions =
            api.rbac && person
              ? await userPermissions(db, tenant.companyId, tenant.domainId, person.id, api.id)
              : apiScopes.filter((scope) => scopes.has(scope));
        }
      }
      return claims;
    },
    // A sign-in is one grant (one row of oauth_grants): made here when the user needs not be asked
    // (the management API, an API that skips consent, or a consent already given), else by the
    // consent page (interactions.ts).
    async loadExistingGrant(koa) {
      const consented = koa.oidc.result?.consent?.grantId;
      if (consented) return koa.oidc.provider.Grant.find(consented);
      // (oidc-provider asks only once it found the session's account, of the tenant signed in to)
      const account = koa.oidc.account as { accountId: string; user?: KnownUser } | undefined;
      if (!account?.user) return undefined;
      // consent asked for (offline access asks it, index.ts): its step saves the grant; one saved
      // here too would be an orphan that logout never ends
      if (koa.oidc.prompts.has('consent')) return undefined;
      const accountId = account.accountId;
      const resource = Object.keys(koa.oidc.resourceServers ?? {})[0] ?? managementApi;
      const plan = await planGrant(db, { client: koa.oidc.client, user: account.user, scope: String(koa.oidc.params?.scope ?? ''), resource, managementApi, consoleClientId: config.consoleClientId });
      if (plan.consentNeeded) return undefined;
      return saveGrant(koa.oidc.provider, { clientId: koa.oidc.client!.clientId, accountId, plan });
    },
    // a sign-in without offline_access ends with the browser session (RP-initiated logout ends it);
    // offline access outlives it, as OpenID Connect means it to
    expiresWithSession: (_ctx, code) => !code.scopes.has('offline_access'),
    allowOmittingSingleRegisteredRedirectUri: false,
    async renderError(koa, out) {
      koa.type = 'html';
      koa.body = renderErrorPage(readableError(out));
    },
  };
  const provider = new Provider(config.publicUrl, configuration);
  provider.proxy = true;

  // Secrets are stored hashed (SHA-256 of a high-entropy secret): compare hashes, the current secret
  // or, during the grace period of a rotation, the previous one.
  (provider.Client.prototype as unknown as { compareClientSecret(actual: string): Promise<boolean> }).compareClientSecret = async function (
    this: ClientExtras,
    actual: string,
  ) {
    return secretMatches({ current: this.clientSecret, previous: this.previous_secret_hash || undefined }, actual);
  };
  // every ID token names its sign-in (sid): RP-initiated logout and back-channel logout use it
  (provider.Client.prototype as unknown as { includeSid(): boolean }).includeSid = () => true;
  providers.set(ctx, provider);
  return provider;
}

const providers = new WeakMap<AppContext, Provider>();

/** The authorization server of a running app (benchmarks and tests issue tokens through it). */
export function providerOf(ctx: AppContext): Provider {
  const provider = providers.get(ctx);
  if (!provider) throw new Error('the authorization server is not started');
  return provider;
}

const escape = (value: string) => value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The words of an error page: oidc-provider's description, else its code. */
function readableError(out: { error?: string; error_description?: string }): string {
  const text = out.error_description || out.error || 'Something went wrong. Please try again.';
  return /client/i.test(text) && out.error === 'invalid_client' ? 'Unknown or inactive application (client_id).' : text;
}
