import type Provider from 'oidc-provider';
import type { Client, Grant } from 'oidc-provider';
import type { Database } from '../db/index.js';
import { ADMIN_SCOPE, holdsConsoleRole, type Tenant } from '../accounts/accounts.js';
import { extrasOf, isConsoleClient, tenantOf } from './clients.js';
import { apiScopeNames, findActiveApi, hasConsent, IDENTITY_SCOPES, OFFLINE_ACCESS, type ResourceApi, splitScope } from './resources.js';
import { sameTenant } from './signInTenant.js';

/** What a sign-in may be granted, before anyone is asked. */
export interface GrantPlan {
  /** Identity scopes (openid, profile, email, username, offline_access). */
  identity: string[];
  /** The resource indicator: the management API's, or an API's identifier. */
  resource: string;
  /** The scopes of the resource granted. */
  resourceScopes: string[];
  /** The API, when the resource is not the management API. */
  api?: ResourceApi;
  /** The API asks the user first and the user has not agreed to all of these scopes yet. */
  consentNeeded: boolean;
  /** Asked for and not granted: recorded as refused, so that oidc-provider does not ask again. */
  refused: string[];
}

/** What planning a grant needs to know of the provider. */
export interface GrantSetting {
  managementApi: string;
  /** The console's client id: the one application whose administrators get user:admin without a consent page. */
  consoleClientId: string;
}

/**
 * What a user signing in to a client may receive for `scope` at `resource` (docs/CONSOLE.md,
 * "Sign-ins and rights"): identity scopes; offline_access only when the application may refresh
 * and, for an API, the API allows offline access; `user:admin` only for an administrator of the
 * domain signed in to, never through a self-registered client, and through an application
 * other than the console only once the person agreed on the consent page; an API's own scopes that
 * were asked for (RBAC is applied when tokens are issued). `user` is the account signed in, in her
 * own company and domain: the application's, or for the console the tenant the sign-in named (an
 * application's APIs serve its own domain's people only).
 */
export async function planGrant(
  db: Database,
  input: GrantSetting & { client: unknown; user: Tenant & { id: string }; scope: string; resource: string },
): Promise<GrantPlan> {
  const client = extrasOf(input.client);
  const tenant: Tenant = { companyId: input.user.companyId, domainId: input.user.domainId };
  const asked = splitScope(input.scope);
  const own = sameTenant(tenant, tenantOf(input.client));
  const api = input.resource === input.managementApi || !own ? undefined : await findActiveApi(db, tenant, input.resource);
  const offline = client.grantTypeAllowed('refresh_token') && (!api || api.allowOfflineAccess);
  const identity = asked.filter((scope) => IDENTITY_SCOPES.includes(scope) && (scope !== OFFLINE_ACCESS || offline));
  let resourceScopes: string[];
  let consentNeeded = false;
  if (!api) {
    const admin = asked.includes(ADMIN_SCOPE) && !client.self_registered && (await holdsConsoleRole(db, tenant.companyId, tenant.domainId, input.user.id));
    resourceScopes = admin ? [ADMIN_SCOPE] : [];
    // the console is known by its stored identity, never by a client id alone (clients.ts)
    if (admin && !isConsoleClient(input.client, input.consoleClientId)) {
      const who = { ...tenant, userId: input.user.id, clientId: client.clientId, resource: input.managementApi };
      consentNeeded = !(await hasConsent(db, who, ADMIN_SCOPE));
    }
  } else {
    const names = await apiScopeNames(db, api.id);
    resourceScopes = asked.filter((scope) => names.includes(scope));
    if (!api.allowSkippingUserConsent) {
      const who = { ...tenant, userId: input.user.id, clientId: client.clientId, resource: api.identifier };
      consentNeeded = !(await hasConsent(db, who, resourceScopes.join(' ')));
    }
  }
  const refused = asked.filter((scope) => !identity.includes(scope) && !resourceScopes.includes(scope));
  return { identity, resource: input.resource, resourceScopes, api, consentNeeded, refused };
}

/**
 * Saves the plan as oidc-provider's grant: a new row of oauth_grants, the sign-in (adapter.ts).
 * `accountId` is the user's subject; the adapter refuses one that is not an account of the client's tenant.
 */
export async function saveGrant(provider: Provider, input: { clientId: string; accountId: string; plan: GrantPlan }): Promise<Grant> {
  const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  grant.addOIDCScope(input.plan.identity.join(' '));
  grant.addResourceScope(input.plan.resource, [...input.plan.identity, ...input.plan.resourceScopes].join(' '));
  const refused = input.plan.refused.join(' ');
  if (refused) {
    grant.rejectOIDCScope(refused);
    grant.rejectResourceScope(input.plan.resource, refused);
  }
  await grant.save();
  return grant;
}

/** The scope string of a planned grant, as codes and token responses carry it. */
export const grantedScope = (plan: GrantPlan) => [...plan.identity, ...plan.resourceScopes].join(' ');

/**
 * A signed-in user's authorization code for `client`, made without the authorization endpoint:
 * the console's one-form sign-in (consoleLogin.ts) once the password is checked. The grant is
 * saved first; the code is oidc-provider's own, redeemed at its token endpoint like any other.
 */
export async function issueCode(
  provider: Provider,
  input: { client: Client; accountId: string; plan: GrantPlan; redirectUri: string; codeChallenge?: string; nonce?: string; amr?: string[] },
): Promise<string> {
  const grant = await saveGrant(provider, { clientId: input.client.clientId, accountId: input.accountId, plan: input.plan });
  const code = new provider.AuthorizationCode({
    accountId: input.accountId,
    client: input.client,
    grantId: grant.jti,
    redirectUri: input.redirectUri,
    scope: grantedScope(input.plan),
    resource: input.plan.resource,
    codeChallenge: input.codeChallenge,
    codeChallengeMethod: input.codeChallenge ? 'S256' : undefined,
    nonce: input.nonce,
    authTime: Math.floor(Date.now() / 1000),
    // how she proved who she is (RFC 8176): the ID token's amr
    amr: input.amr,
    // the grant is the session: RP-initiated logout with this ID token as hint ends it
    sid: grant.jti,
    expiresWithSession: false,
  } as ConstructorParameters<Provider['AuthorizationCode']>[0]);
  return code.save();
}
