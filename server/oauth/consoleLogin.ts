import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Client } from 'oidc-provider';
import { findUserById, type KnownUser, userAccountKey } from '../accounts/accounts.js';
import { defaultResource, tenantOf } from './clients.js';
import { type GrantPlan, type GrantSetting, issueCode, planGrant } from './grants.js';
import { loginPagePolicy, renderErrorPage, renderLoginPage, sendPage } from './loginPage.js';
import { BLOCKED_MESSAGE, passwordStep, type PasswordStepOptions, tooManyFailures, tooManySignIns, trustDevice } from './passwordStep.js';
import { signInAnywhere } from './organizationSearch.js';
import { parkPick, PICK_PATH, pickChoices, renderPickPage, takePick } from './organizationPick.js';
import { addressKey } from './loginThrottle.js';
import { originOf, withRequestOrigin } from '../requestOrigin.js';
import { attemptOf, recordSignIn } from './signInEvents.js';
import { chooseTenant } from './signInTenant.js';
import { beginSteps, endSteps, stepPage } from './signInSteps.js';
import { connectionOfEmail, offeredById } from '../upstream/connections.js';
import { CONSOLE_FINISH_PATH, startUpstream, takeFinished } from '../upstream/routes.js';
import type { Tenant } from '../accounts/accounts.js';

/** The fields of the console's form post: an authorization request plus the credentials. */
interface LoginForm {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
  prompt?: string;
  audience?: string;
  resource?: string;
  email?: string;
  password?: string;
  /** The organization signed in to (the console only; signInTenant.ts): a company id, and a domain id or else its primary domain. */
  company?: string;
  domain?: string;
  /** An upstream identity provider to sign in with instead of a password (server/upstream/): a connection id offered in that organization. */
  connection?: string;
}

const stringProperty = (maxLength: number) => ({ type: 'string', maxLength }) as const;

/** RFC 6749 3.3 scope-token characters. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters (RFC 7636 4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The authorization request of a console sign-in once checked: what its steps keep to end it. */
type ConsoleRequest = Partial<Record<'client_id' | 'redirect_uri' | 'state' | 'scope' | 'resource' | 'code_challenge' | 'nonce' | 'upstream_connection', string>>;

const STEPS_PATH = '/oauth/steps';
/** A step page's post: its fields are the step's own (signInSteps.ts), short text only. */
export const STEP_BODY = { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 4096 } } as const;

interface ConsoleLoginOptions extends PasswordStepOptions, GrantSetting {
  provider: Provider;
  issuer: string;
  /** ALLOW_PRIVATE_CALLBACKS: upstream identity providers on private addresses (server/upstream/fetch.ts). */
  allowPrivate: boolean;
}

/**
 * POST /oauth/login: the console's own sign-in page posts the authorization request and the
 * credentials in one form and lands on its redirect URI with a code (docs/CONSOLE.md, "Signing
 * in"). The checks are the authorization endpoint's, in RFC 6749's order: the client and its exact
 * redirect URI first (an error page, never a redirect), then the rest (errors sent back to the
 * client). The code and its grant are oidc-provider's own, so the token endpoint redeems them like
 * any other.
 */
export async function consoleLoginRoutes(app: FastifyInstance, options: ConsoleLoginOptions) {
  const { provider, db, issuer, managementApi, consoleClientId } = options;

  const redirectTo = (reply: FastifyReply, redirectUri: string, params: Record<string, string | undefined>) => {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    url.searchParams.set('iss', issuer);
    return reply.header('Cache-Control', 'no-store').header('Content-Security-Policy', loginPagePolicy(redirectUri)).redirect(url.toString(), 303);
  };

  const steps = { db, secure: issuer.startsWith('https:') };
  const upstreamOptions = { ...options, publicUrl: issuer, secure: steps.secure };

  /**
   * The connection a form post signs in with instead of a password: the one it names (unknown
   * there: 'unknown'), or identifier-first the one whose claimed (verified) e-mail domain the
   * address is of, when no password is typed; undefined: the password path.
   */
  const upstreamOf = async (tenant: Tenant, known: boolean, form: LoginForm) => {
    const named = form.connection?.trim();
    if (named) return (known ? await offeredById(db, tenant, named) : undefined) ?? 'unknown';
    const typed = form.email?.trim();
    if (!known || !typed || form.password) return undefined;
    return connectionOfEmail(db, tenant, typed);
  };

  /** The grant of a checked request for this person; undefined when its API is not one she may get. */
  const planFor = async (client: Client, user: KnownUser, checked: ConsoleRequest) => {
    const resource = checked.resource!;
    const plan = await planGrant(db, { client, user, scope: checked.scope ?? '', resource, managementApi, consoleClientId }).catch(() => undefined);
    return !plan || (resource !== managementApi && !plan.api) ? undefined : plan;
  };

  /** The end of a sign-in: its code, recorded, and the browser sent back to the application. */
  const issue = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: { client: Client; user: KnownUser; checked: ConsoleRequest; plan: GrantPlan; amr: string[]; who: { id: string; companyId: string; domainId: string }; login: string; connectionId?: string },
  ) => {
    const { client, user, checked, plan } = input;
    const value = await withRequestOrigin(originOf(request), () =>
      issueCode(provider, { client, accountId: user.subject, plan, redirectUri: checked.redirect_uri!, codeChallenge: checked.code_challenge, nonce: checked.nonce, amr: input.amr }),
    );
    await recordSignIn(db, attemptOf(request), { outcome: 'success', client: input.who, userId: user.id, login: input.login, connectionId: input.connectionId });
    // the sign-in is complete (every step done): only now is this browser one the throttle trusts
    trustDevice(options.devices, reply, user);
    return redirectTo(reply, checked.redirect_uri!, { code: value, state: checked.state });
  };

  /** The step pages of a console sign-in (signInSteps.ts); after the last one, the code as above. */
  const stepsHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const outcome = await stepPage(steps, request, reply, { kind: 'console', path: STEPS_PATH });
    if (outcome.kind === 'sent') return reply;
    const { pending, user } = outcome;
    const checked = pending.request as ConsoleRequest;
    await endSteps(steps, reply, pending);
    const client = await provider.Client.find(pending.clientId).catch(() => undefined);
    if (!client || !checked.redirect_uri || !client.redirectUris?.includes(checked.redirect_uri)) return sendPage(reply, 400, renderErrorPage('Unknown or inactive application (client_id).'));
    const plan = await planFor(client, user, checked);
    const tenant = { companyId: user.companyId, domainId: user.domainId };
    if (!plan || plan.consentNeeded) return redirectTo(reply, checked.redirect_uri, { error: 'access_denied', error_description: 'this sign-in may no longer reach its API', state: checked.state });
    return issue(request, reply, { client, user, checked, plan, amr: pending.amr, who: { id: client.clientId, ...tenant }, login: pending.login, connectionId: checked.upstream_connection });
  };
  app.get(STEPS_PATH, { schema: { hide: true } }, stepsHandler);
  app.post(STEPS_PATH, { config: { sameSiteForm: 'This form was sent from another site. Please sign in again.' }, schema: { hide: true, body: STEP_BODY } }, stepsHandler);

  /**
   * Back from an upstream identity provider (server/upstream/routes.ts): the console's sign-in ends
   * as the password's does, its steps first, then the code to its redirect URI.
   */
  app.get(CONSOLE_FINISH_PATH, { schema: { hide: true } }, async (request, reply) => {
    const expired = () => sendPage(reply, 400, renderErrorPage('This sign-in has expired or was finished elsewhere. Please sign in again.'));
    const done = await takeFinished(db, request, reply, steps.secure);
    if (!done || done.returnTo.kind !== 'console') return expired();
    const checked = done.returnTo.request as ConsoleRequest;
    const client = await provider.Client.find(done.returnTo.clientId).catch(() => undefined);
    if (!client || !checked.redirect_uri || !client.redirectUris?.includes(checked.redirect_uri)) return expired();
    const redirectUri = checked.redirect_uri;
    const fail = (error: string, description: string) => redirectTo(reply, redirectUri, { error, error_description: description, state: checked.state });
    const who = { id: client.clientId, ...done.tenant };
    // read afresh: blocked or deleted since the upstream answered
    const user = await findUserById(db, done.tenant, done.userId);
    if (!user) return fail('access_denied', 'This account is no longer active.');
    if (user.blocked) {
      await recordSignIn(db, attemptOf(request), { outcome: 'blocked', client: who, userId: user.id, login: done.login, connectionId: done.connectionId });
      return fail('access_denied', BLOCKED_MESSAGE);
    }
    const plan = await planFor(client, user, checked);
    if (!plan) return fail('invalid_target', 'the audience is not an active API of this application\'s domain');
    if (plan.consentNeeded) return fail('consent_required', 'this API asks the user first: sign in through /oauth/authorize');
    const request_ = { ...checked, upstream_connection: done.connectionId };
    if (await beginSteps(steps, request, reply, { user, kind: 'console', request: request_, clientId: client.clientId, login: done.login, path: STEPS_PATH, amr: done.amr })) return reply;
    return issue(request, reply, { client, user, checked, plan, amr: done.amr, who, login: done.login, connectionId: done.connectionId });
  });

  /** The organization picked after a password proving several (organizationPick.ts): the page, then the pick. */
  app.get(PICK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const choices = await pickChoices(db, request);
    if (choices.length === 0) return sendPage(reply, 400, renderErrorPage('This sign-in has expired or was finished elsewhere. Please sign in again.'));
    // its form's answer is a redirect to the application: the page's policy allows it
    const redirectUri = choices[0].row.request.redirect_uri;
    // the way back: the console's own form, beside its callback
    const back = redirectUri && /^https?:/.test(redirectUri) ? new URL('/login', redirectUri).toString() : undefined;
    return sendPage(reply, 200, renderPickPage(choices, back), redirectUri);
  });
  app.post<{ Body: { choice?: string } }>(
    PICK_PATH,
    {
      config: { sameSiteForm: 'This form was sent from another site. Please sign in again.' },
      schema: { hide: true, body: { type: 'object', properties: { choice: stringProperty(2) }, maxProperties: 5 } },
    },
    async (request, reply) => {
      const expired = () => sendPage(reply, 400, renderErrorPage('This sign-in has expired or was finished elsewhere. Please sign in again.'));
      const picked = await takePick(db, request, reply, request.body?.choice ?? '', steps.secure);
      if (!picked) return expired();
      const checked = picked.checked as ConsoleRequest;
      const client = await provider.Client.find(picked.clientId).catch(() => undefined);
      if (!client || !checked.redirect_uri || !client.redirectUris?.includes(checked.redirect_uri)) return expired();
      const redirectUri = checked.redirect_uri;
      const fail = (error: string, description: string, more: Record<string, string> = {}) =>
        redirectTo(reply, redirectUri, { error, error_description: description, state: checked.state, ...more });
      const who = { id: client.clientId, ...picked.tenant };
      // read afresh: blocked or gone since the password
      const user = await findUserById(db, picked.tenant, picked.userId);
      if (!user) return fail('access_denied', 'Wrong email or password');
      if (user.blocked) {
        await recordSignIn(db, attemptOf(request), { outcome: 'blocked', client: who, userId: user.id, login: picked.login });
        return fail('access_denied', BLOCKED_MESSAGE);
      }
      // the password was right: the failures it counted are given back, and it counts as a sign-in
      const wait = await options.throttle.succeeded({ retryAfter: 0, counted: picked.counted }, userAccountKey(user, user.id), addressKey(request.ip));
      if (wait > 0) {
        await recordSignIn(db, attemptOf(request), { outcome: 'throttled', client: who, userId: user.id, login: picked.login, detail: `too many sign-ins: retry after ${wait} s` });
        reply.header('Retry-After', String(wait));
        return fail('access_denied', tooManySignIns(wait), { retry_after: String(wait) });
      }
      const plan = await planFor(client, user, checked);
      if (!plan) return fail('invalid_target', 'the audience is not an active API of this application\'s domain');
      if (plan.consentNeeded) return fail('consent_required', 'this API asks the user first: sign in through /oauth/authorize');
      if (await beginSteps(steps, request, reply, { user, kind: 'console', request: { ...checked }, clientId: client.clientId, login: picked.login, path: STEPS_PATH })) return reply;
      return issue(request, reply, { client, user, checked, plan, amr: ['pwd'], who, login: picked.login });
    },
  );

  app.post<{ Body: LoginForm }>(
    '/oauth/login',
    {
      // Login CSRF: another site's page could post its own credentials here and sign the victim's browser in to the attacker's account
      config: { sameSiteForm: 'This sign-in form was sent from another site. Open the sign-in page and try again.' },
      schema: {
        tags: ['oauth'],
        summary: 'Sign in with email (or username) and password; 303 to the redirect URI with code, state and iss',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          properties: {
            client_id: stringProperty(200),
            redirect_uri: stringProperty(2000),
            response_type: stringProperty(50),
            scope: stringProperty(2000),
            state: stringProperty(2000),
            code_challenge: stringProperty(200),
            code_challenge_method: stringProperty(20),
            nonce: stringProperty(500),
            prompt: stringProperty(100),
            audience: stringProperty(2000),
            resource: stringProperty(2000),
            email: stringProperty(254),
            password: stringProperty(1024),
            company: stringProperty(100),
            domain: stringProperty(100),
            connection: stringProperty(100),
          },
        },
      },
    },
    async (request, reply) => {
      const form = request.body ?? {};
      const seen = attemptOf(request);
      const client = form.client_id ? await provider.Client.find(form.client_id).catch(() => undefined) : undefined;
      if (!client) {
        await recordSignIn(db, seen, { outcome: 'bad_client', clientId: form.client_id, login: form.email });
        return sendPage(reply, 400, renderErrorPage('Unknown or inactive application (client_id).'));
      }
      const redirectUri = form.redirect_uri;
      if (!redirectUri || !client.redirectUris?.includes(redirectUri)) {
        await recordSignIn(db, seen, { outcome: 'bad_redirect_uri', client: { id: client.clientId, ...tenantOf(client) }, login: form.email, detail: `redirect_uri ${redirectUri ?? '(none)'}` });
        return sendPage(reply, 400, renderErrorPage('The redirect_uri is missing or is not registered for this application.'));
      }
      const fail = (error: string, description: string, more: Record<string, string> = {}) =>
        redirectTo(reply, redirectUri, { error, error_description: description, state: form.state, ...more });

      if (!client.grantTypeAllowed('authorization_code')) return fail('unauthorized_client', 'the authorization_code grant is not enabled for this application');
      if (form.response_type !== undefined && form.response_type !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
      const scope = (form.scope ?? '').trim();
      if (scope && !SCOPE.test(scope)) return fail('invalid_scope', 'scope holds characters that are not allowed');
      if (form.prompt?.split(' ').includes('none')) return fail('login_required', 'the user must sign in');
      const challenge = form.code_challenge || undefined;
      const method = form.code_challenge_method || undefined;
      if (challenge || method) {
        // a challenge without a method means "plain" (RFC 7636 4.3), which is refused like any method but S256
        if (method !== 'S256') return fail('invalid_request', 'PKCE: only code_challenge_method=S256 is supported');
        if (!challenge || !S256_CHALLENGE.test(challenge)) return fail('invalid_request', 'PKCE: code_challenge must be 43 base64url characters');
      } else {
        // every client: the code of this one-form sign-in is bound to the browser that asked for it
        return fail('invalid_request', 'PKCE: this application must send a code_challenge (S256)');
      }
      const audience = form.audience?.trim() || undefined;
      const named = form.resource?.trim() || undefined;
      if (audience && named && audience !== named) return fail('invalid_request', 'audience and resource name different APIs');
      const resource = audience ?? named ?? defaultResource(client, managementApi);
      // the organization the form names (the console's own tenant when none): an unknown one is
      // searched like any other and finds nobody, so it fails exactly like a wrong password
      const choice = await chooseTenant(db, options, client, form);
      if (choice.kind === 'refused') return fail('invalid_request', choice.message);
      const { tenant, known } = choice;
      const who = { id: client.clientId, ...(known ? tenant : tenantOf(client)) };
      const checked: ConsoleRequest = { client_id: client.clientId, redirect_uri: redirectUri, state: form.state, scope, resource, code_challenge: challenge, nonce: form.nonce || undefined };

      // an upstream identity provider instead of the password (server/upstream/): a page that
      // continues there (a form's answer may not redirect to another site, the page's form-action)
      const upstream = await upstreamOf(tenant, known, form);
      if (upstream === 'unknown') return sendPage(reply, 404, renderErrorPage('This sign-in option does not exist here.'), redirectUri);
      if (upstream) {
        const returnTo = { kind: 'console', clientId: client.clientId, request: { ...checked } } as const;
        return startUpstream(upstreamOptions, request, reply, { connection: upstream, signInTenant: tenant, returnTo, loginHint: form.email?.trim() || undefined, viaForm: true });
      }

      // the console's sign-in naming no organization may find hers (organizationSearch.ts)
      const searching = client.clientId === consoleClientId && !form.company?.trim();
      let outcome = await passwordStep(options, request, reply, { tenant, client: who, login: form.email ?? '', password: form.password ?? '', deferWrongEvent: searching });
      if (outcome.kind === 'wrong' && searching) {
        const wrong = outcome;
        const found = await signInAnywhere(options, request, { login: form.email ?? '', password: form.password ?? '', except: tenant });
        if (found.kind === 'none') await wrong.record();
        else if (found.kind === 'several') {
          // on record in each organization the password proved, as a sign-in found or blocked there is;
          // none of them is named to her
          for (const user of found.users) {
            await recordSignIn(db, seen, {
              outcome: 'several_organizations',
              client: { id: client.clientId, companyId: user.companyId, domainId: user.domainId },
              userId: user.id,
              login: wrong.login,
              detail: `the password is right in ${found.users.length} organizations: she is asked to pick hers`,
            });
          }
          // she picks among those the password proved (organizationPick.ts); nothing named before
          return parkPick(db, reply, { users: found.users, request: { ...checked }, clientId: client.clientId, login: wrong.login, counted: found.counted, secure: steps.secure });
        }
        else if (found.kind === 'throttled') {
          reply.header('Retry-After', String(found.retryAfter));
          outcome = tooManyFailures(found.retryAfter, wrong.login);
        } else {
          // her organization's sign-in from here on: its events, its code
          Object.assign(who, { companyId: found.user.companyId, domainId: found.user.domainId });
          if (found.kind === 'blocked') await recordSignIn(db, attemptOf(request), { outcome: 'blocked', client: who, userId: found.user.id, login: wrong.login });
          outcome = found.kind === 'blocked' ? { kind: 'blocked', message: BLOCKED_MESSAGE, login: wrong.login } : { kind: 'signed-in', user: found.user, login: wrong.login };
        }
      }
      if ((outcome.kind === 'throttled' || outcome.kind === 'blocked') && client.clientId === consoleClientId) {
        // the console's own form says it, with the address kept, like a wrong password (docs/CONSOLE.md,
        // "Sign-in form"): the wait travels as a number (retry_after, and the Retry-After header)
        return fail('access_denied', outcome.message, outcome.kind === 'throttled' ? { retry_after: String(outcome.retryAfter) } : {});
      }
      if (outcome.kind === 'throttled' || outcome.kind === 'blocked') {
        // another application's sign-in: this page shows the message; its form lets a person try again later
        const hidden = { ...form, email: undefined, password: undefined };
        const organization = form.company ? [form.company, form.domain].filter(Boolean).join(' › ') : undefined;
        return sendPage(reply, outcome.kind === 'throttled' ? 429 : 403, renderLoginPage({ clientName: client.clientName ?? client.clientId, action: '/oauth/login', hidden, email: outcome.login, error: outcome.message, organization }), redirectUri);
      }
      if (outcome.kind === 'wrong') return fail('access_denied', 'Wrong email or password');

      const plan = await planFor(client, outcome.user, checked);
      if (!plan) return fail('invalid_target', 'the audience is not an active API of this application\'s domain');
      if (plan.consentNeeded) return fail('consent_required', 'this API asks the user first: sign in through /oauth/authorize');
      // a required action or a second factor first (signInSteps.ts): the code comes after the last step
      if (await beginSteps(steps, request, reply, { user: outcome.user, kind: 'console', request: { ...checked }, clientId: client.clientId, login: outcome.login, path: STEPS_PATH })) return reply;
      return issue(request, reply, { client, user: outcome.user, checked, plan, amr: ['pwd'], who, login: outcome.login });
    },
  );
}
