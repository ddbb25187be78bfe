import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { ADMIN_SCOPE, findUserById, type KnownUser } from '../accounts/accounts.js';
import { defaultResource, tenantOf } from './clients.js';
import { type GrantSetting, planGrant, saveGrant } from './grants.js';
import { loginPagePolicy, renderConsentPage, renderErrorPage, renderLoginPage, sendPage } from './loginPage.js';
import { BLOCKED_MESSAGE, passwordStep, type PasswordStepOptions, trustDevice } from './passwordStep.js';
import { originOf, withRequestOrigin } from '../requestOrigin.js';
import { describeScopes, rememberConsent } from './resources.js';
import { attemptOf, recordSignIn } from './signInEvents.js';
import { accountOfClient, chooseTenant } from './signInTenant.js';
import { beginSteps, endSteps, stepPage } from './signInSteps.js';
import { STEP_BODY } from './consoleLogin.js';
import { signUpLinkOf } from './signUp.js';
import { connectionOfEmail, connectionsOffered, hasClaimedEmailDomains, offeredById } from '../upstream/connections.js';
import { startUpstream, takeFinished } from '../upstream/routes.js';
import { upstreamPaths } from '../accounts/upstream.js';
import { knowPage, t } from '../i18n/index.js';

interface InteractionOptions extends PasswordStepOptions, GrantSetting {
  provider: Provider;
  /** Cookies get Secure (the issuer is https). */
  secure: boolean;
  /** For upstream identity providers (server/upstream/): the public URL, and ALLOW_PRIVATE_CALLBACKS. */
  publicUrl: string;
  allowPrivate: boolean;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** What the consent page says of user:admin, asked by an application other than the console. */
const administration = () => ({ name: ADMIN_SCOPE, description: t('consent.administration') });

/**
 * The hosted sign-in and consent pages of every registered application: oidc-provider's
 * interactions, rendered by us. oidc-provider sends the browser here with a prompt (login or
 * consent) and takes the answer back through interactionResult; the interaction is bound to the
 * browser by its cookie, so nothing in our forms is trusted.
 */
export async function interactionRoutes(app: FastifyInstance, options: InteractionOptions) {
  const { provider, db, managementApi, consoleClientId } = options;
  const steps = { db, secure: options.secure };
  const path = (uid: string, step: string) => `/oauth/interaction/${encodeURIComponent(uid)}/${step}`;

  const load = async (request: FastifyRequest, reply: FastifyReply) => {
    const details = await provider.interactionDetails(request.raw, reply.raw);
    // the page answered must be this browser's current sign-in, not an older one still in a tab
    const { uid } = request.params as { uid: string };
    if (details.uid !== uid) throw Object.assign(new Error('This sign-in page is out of date. Please start again.'), { statusCode: 400 });
    const client = await provider.Client.find(String(details.params.client_id));
    if (!client) throw Object.assign(new Error('Unknown or inactive application (client_id).'), { statusCode: 400 });
    // the page's language and branding (docs/CONSOLE.md, "Languages"): ui_locales, the signed-in
    // person's language, Accept-Language, among her domain's; its company's branding; the app's logo
    const person = await personOf(details, client);
    const tenant = person ?? (await knownTenantOf(details, client)) ?? tenantOf(client);
    await knowPage(db, { uiLocales: details.params.ui_locales, tenant: { companyId: tenant.companyId, domainId: tenant.domainId }, userId: person?.id, application: { ...tenantOf(client), id: client.clientId } });
    return { details, client };
  };

  /** The API the interaction's authorization request is for. */
  const resourceOf = (details: Details, client: unknown) => (typeof details.params.resource === 'string' ? details.params.resource : defaultResource(client, managementApi));
  const redirectUriOf = (details: Details) => (typeof details.params.redirect_uri === 'string' ? details.params.redirect_uri : undefined);

  /** Hands the result to oidc-provider and follows it back to the authorization endpoint. */
  const finish = async (request: FastifyRequest, reply: FastifyReply, result: InteractionResults, details: Details) => {
    const location = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
    // oidc-provider set its cookies on the raw response: carry them into Fastify's answer
    const cookies = reply.raw.getHeader('set-cookie');
    reply.raw.removeHeader('set-cookie');
    for (const cookie of [cookies ?? []].flat()) reply.header('set-cookie', String(cookie));
    return reply.status(303).header('Cache-Control', 'no-store').header('Content-Security-Policy', loginPagePolicy(redirectUriOf(details))).redirect(location, 303);
  };


  /** The signed-in person of the interaction, found where the client signs people in only. */
  const personOf = async (details: Details, client: unknown): Promise<KnownUser | undefined> => {
    const subject = details.session?.accountId;
    return subject ? accountOfClient(db, options, client, subject) : undefined;
  };

  /** The tenant the interaction signs in to, when it is one that exists (its connections are offered). */
  const knownTenantOf = async (details: Details, client: unknown) => {
    const choice = await chooseTenant(db, options, client, details.params);
    return choice.kind === 'tenant' && choice.known ? choice.tenant : undefined;
  };

  /**
   * The sign-in page of the interaction; a console sign-in link's organization is shown as named.
   * The domain's connections are buttons (links to their start); when it has a claimed e-mail
   * domain, the password may be left empty (identifier-first: the address goes to its IdP).
   */
  const loginPage = async (details: Details, client: Awaited<ReturnType<typeof load>>['client'], extra: { email?: string; error?: string; signUpUrl?: string } = {}) => {
    const { company, domain } = details.params;
    const organization = typeof company === 'string' && company ? [company, typeof domain === 'string' ? domain : ''].filter(Boolean).join(' › ') : undefined;
    const tenant = await knownTenantOf(details, client);
    const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : undefined;
    const connections = tenant
      ? (await connectionsOffered(db, tenant)).map((one) => ({
          name: one.displayName,
          href: `${upstreamPaths(one.companyId, one.domainId, one.id).start}?interaction=${encodeURIComponent(details.uid)}${hint ? `&login_hint=${encodeURIComponent(hint)}` : ''}`,
        }))
      : [];
    const passwordOptional = tenant ? await hasClaimedEmailDomains(db, tenant) : false;
    return renderLoginPage({ clientName: client.clientName ?? client.clientId, action: path(details.uid, 'login'), organization, email: hint, connections, passwordOptional, ...extra });
  };

  /** The consent page of an API, or the grant made at once when nobody needs to be asked. */
  const consentStep = async (request: FastifyRequest, reply: FastifyReply, details: Details, client: Awaited<ReturnType<typeof load>>['client']) => {
    const user = await personOf(details, client);
    if (!user) return sendPage(reply, 400, renderErrorPage('This sign-in has expired. Please sign in again.'));
    const plan = await planGrant(db, {
      client,
      user,
      scope: String(details.params.scope ?? ''),
      resource: resourceOf(details, client),
      managementApi,
      consoleClientId,
    });
    if (!plan.consentNeeded) {
      const grant = await withRequestOrigin(originOf(request), () => saveGrant(provider, { clientId: client.clientId, accountId: user.subject, plan }));
      return finish(request, reply, { consent: { grantId: grant.jti } }, details);
    }
    const page = renderConsentPage({
      clientName: client.clientName ?? client.clientId,
      apiName: plan.api?.name ?? t('consent.managementApi'),
      userName: user.displayName,
      scopes: plan.api ? await describeScopes(db, plan.api.id, plan.resourceScopes.join(' ')) : [administration()],
      action: path(details.uid, 'consent'),
    });
    return sendPage(reply, 200, page, redirectUriOf(details));
  };

  app.get<{ Params: { uid: string } }>('/oauth/interaction/:uid', { schema: { hide: true } }, async (request, reply) => {
    const { details, client } = await load(request, reply);
    if (details.prompt.name === 'login') {
      // the `connection` authorization parameter (as Auth0's): straight to that IdP, no page
      const named = typeof details.params.connection === 'string' ? details.params.connection : undefined;
      const tenant = named ? await knownTenantOf(details, client) : undefined;
      const connection = tenant && named ? await offeredById(db, tenant, named) : undefined;
      if (tenant && connection) {
        const loginHint = typeof details.params.login_hint === 'string' ? details.params.login_hint : undefined;
        return startUpstream(options, request, reply, { connection, signInTenant: tenant, returnTo: { kind: 'interaction', uid: details.uid, clientId: client.clientId }, loginHint });
      }
      return sendPage(reply, 200, await loginPage(details, client, { signUpUrl: await signUpLinkOf(db, options, client, details) }), redirectUriOf(details));
    }
    return consentStep(request, reply, details, client);
  });

  /** A connection's button on the page (through its start address): the flow starts here, where the interaction's cookie is sent. */
  app.get<{ Params: { uid: string; companyId: string; domainId: string; connectionId: string }; Querystring: { login_hint?: string } }>(
    '/oauth/interaction/:uid/upstream/:companyId/:domainId/:connectionId',
    { schema: { hide: true, querystring: { type: 'object', properties: { login_hint: { type: 'string', maxLength: 254 } } } } },
    async (request, reply) => {
      const { details, client } = await load(request, reply);
      if (details.prompt.name !== 'login') return sendPage(reply, 400, renderErrorPage('This sign-in step is already done. Please start again.'));
      const tenant = await knownTenantOf(details, client);
      if (!tenant) return sendPage(reply, 404, renderErrorPage('This sign-in option does not exist here.'));
      const { companyId, domainId, connectionId } = request.params;
      const loginHint = request.query.login_hint ?? (typeof details.params.login_hint === 'string' ? details.params.login_hint : undefined);
      return startUpstream(options, request, reply, { connection: { companyId, domainId, id: connectionId }, signInTenant: tenant, returnTo: { kind: 'interaction', uid: details.uid, clientId: client.clientId }, loginHint });
    },
  );

  /** Back from the upstream IdP (server/upstream/routes.ts): the sign-in ends as the password's does, its steps first. */
  app.get<{ Params: { uid: string } }>('/oauth/interaction/:uid/upstream-done', { schema: { hide: true } }, async (request, reply) => {
    const { details, client } = await load(request, reply);
    const done = await takeFinished(db, request, reply, options.secure);
    if (!done || done.returnTo.kind !== 'interaction' || done.returnTo.uid !== details.uid || details.prompt.name !== 'login') {
      return sendPage(reply, 400, renderErrorPage('This sign-in has expired or was finished elsewhere. Please sign in again.'));
    }
    // read afresh: blocked or deleted since the upstream answered
    const user = await findUserById(db, done.tenant, done.userId);
    if (!user) return sendPage(reply, 400, renderErrorPage('This sign-in has expired or was finished elsewhere. Please sign in again.'));
    if (user.blocked) {
      await recordSignIn(db, attemptOf(request), { outcome: 'blocked', client: { id: client.clientId, ...done.tenant }, userId: user.id, login: done.login, connectionId: done.connectionId });
      return sendPage(reply, 403, renderErrorPage(BLOCKED_MESSAGE));
    }
    if (await beginSteps(steps, request, reply, { user, kind: 'interaction', request: { uid: details.uid, connectionId: done.connectionId }, clientId: client.clientId, login: done.login, path: path(details.uid, 'steps'), amr: done.amr })) return reply;
    await recordSignIn(db, attemptOf(request), { outcome: 'success', client: { id: client.clientId, ...done.tenant }, userId: user.id, login: done.login, connectionId: done.connectionId });
    return finish(request, reply, { login: { accountId: user.subject, remember: false, amr: done.amr } }, details);
  });

  app.post<{ Params: { uid: string }; Body: { email?: string; password?: string } }>(
    '/oauth/interaction/:uid/login',
    {
      config: { sameSiteForm: 'This sign-in form was sent from another site. Open the sign-in page and try again.' },
      schema: {
        hide: true,
        body: { type: 'object', properties: { email: { type: 'string', maxLength: 254 }, password: { type: 'string', maxLength: 1024 } } },
      },
    },
    async (request, reply) => {
      const { details, client } = await load(request, reply);
      if (details.prompt.name !== 'login') return sendPage(reply, 400, renderErrorPage('This sign-in step is already done. Please start again.'));
      // the tenant the authorization request names (checked when it was made: only the console names another)
      const choice = await chooseTenant(db, options, client, details.params);
      if (choice.kind === 'refused') return sendPage(reply, 400, renderErrorPage(choice.message));
      const { tenant, known } = choice;
      // identifier-first: an address whose e-mail domain is claimed (verified) here, without a password, goes to its IdP
      const typed = request.body?.email?.trim() ?? '';
      if (known && typed && !request.body?.password) {
        const claimed = await connectionOfEmail(db, tenant, typed);
        if (claimed) {
          return startUpstream(options, request, reply, { connection: claimed, signInTenant: tenant, returnTo: { kind: 'interaction', uid: details.uid, clientId: client.clientId }, loginHint: typed, viaForm: true });
        }
      }
      // an unknown organization's failures are the console's own tenant's events
      const who = { id: client.clientId, ...(known ? tenant : tenantOf(client)) };
      const outcome = await passwordStep(options, request, reply, { tenant, client: who, login: request.body?.email ?? '', password: request.body?.password ?? '' });
      const again = async (status: number, error: string) =>
        sendPage(reply, status, await loginPage(details, client, { email: outcome.login, error, signUpUrl: await signUpLinkOf(db, options, client, details) }), redirectUriOf(details));
      if (outcome.kind === 'throttled') return again(429, outcome.message);
      if (outcome.kind === 'blocked') return again(403, outcome.message);
      if (outcome.kind === 'wrong') return again(401, 'Wrong email or password.');
      // a required action or a second factor first (signInSteps.ts)
      if (await beginSteps(steps, request, reply, { user: outcome.user, kind: 'interaction', request: { uid: details.uid }, clientId: client.clientId, login: outcome.login, path: path(details.uid, 'steps') })) return reply;
      await recordSignIn(db, attemptOf(request), { outcome: 'success', client: who, userId: outcome.user.id, login: outcome.login });
      // complete: the device cookie now, never before a step (passwordStep.ts, trustDevice)
      trustDevice(options.devices, reply, outcome.user);
      return finish(request, reply, { login: { accountId: outcome.user.subject, remember: false, amr: ['pwd'] } }, details);
    },
  );

  /** The step pages of a hosted sign-in, under the interaction's path (its cookie is scoped there). */
  const stepsHandler = async (request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) => {
    const { details, client } = await load(request, reply);
    if (details.prompt.name !== 'login') return sendPage(reply, 400, renderErrorPage('This sign-in step is already done. Please start again.'));
    const outcome = await stepPage(steps, request, reply, { kind: 'interaction', path: path(details.uid, 'steps'), matches: (pending) => pending.request.uid === details.uid });
    if (outcome.kind === 'sent') return reply;
    const { pending, user } = outcome;
    await endSteps(steps, reply, pending);
    await recordSignIn(db, attemptOf(request), {
      outcome: 'success',
      client: { id: client.clientId, companyId: user.companyId, domainId: user.domainId },
      userId: user.id,
      login: pending.login,
      connectionId: pending.request.connectionId,
    });
    trustDevice(options.devices, reply, user);
    return finish(request, reply, { login: { accountId: user.subject, remember: false, amr: pending.amr } }, details);
  };
  app.get<{ Params: { uid: string } }>('/oauth/interaction/:uid/steps', { schema: { hide: true } }, stepsHandler);
  app.post<{ Params: { uid: string } }>('/oauth/interaction/:uid/steps', { config: { sameSiteForm: 'This form was sent from another site. Please sign in again.' }, schema: { hide: true, body: STEP_BODY } }, stepsHandler);

  app.post<{ Params: { uid: string }; Body: { decision?: string } }>(
    '/oauth/interaction/:uid/consent',
    { config: { sameSiteForm: 'This form was sent from another site. Open the application and sign in again.' }, schema: { hide: true, body: { type: 'object', properties: { decision: { type: 'string', maxLength: 10 } } } } },
    async (request, reply) => {
      const { details, client } = await load(request, reply);
      const user = details.prompt.name === 'consent' ? await personOf(details, client) : undefined;
      if (!user) return sendPage(reply, 400, renderErrorPage('This consent request is invalid or has expired. Please sign in again.'));
      const tenant = { companyId: user.companyId, domainId: user.domainId };
      const resource = resourceOf(details, client);
      if (request.body?.decision !== 'allow') {
        await recordSignIn(db, attemptOf(request), { outcome: 'consent_denied', client: { id: client.clientId, ...tenant }, userId: user.id, detail: resource });
        return finish(request, reply, { error: 'access_denied', error_description: 'the user did not give consent' }, details);
      }
      const plan = await planGrant(db, { client, user, scope: String(details.params.scope ?? ''), resource, managementApi, consoleClientId });
      await rememberConsent(db, { ...tenant, userId: user.id, clientId: client.clientId, resource }, plan.resourceScopes.join(' '));
      const grant = await withRequestOrigin(originOf(request), () => saveGrant(provider, { clientId: client.clientId, accountId: user.subject, plan }));
      return finish(request, reply, { consent: { grantId: grant.jti } }, details);
    },
  );
}
