import crypto from 'node:crypto';
import type { FastifyError, FastifyInstance } from 'fastify';
import * as jose from 'jose';
import { DEFAULT_LOGIN_LIMITS } from '../config.js';
import { clientError } from '../errors.js';
import { authorizeRoutes } from './authorize.js';
import { consentRoutes } from './consent.js';
import { discoveryRoutes } from './discovery.js';
import { loginRoutes } from './login.js';
import { logoutRoutes } from './logout.js';
import { renderErrorPage, sendPage } from './loginPage.js';
import { DeviceCookies, LoginThrottle } from './loginThrottle.js';
import { tokenRoutes } from './token.js';
import { userinfoRoutes } from './userinfo.js';

/**
 * The key of device cookies, derived from the signing key so that cookies survive restarts and
 * change when the signing key is rotated.
 */
async function deviceCookieSecret(privateKey: CryptoKey): Promise<Buffer> {
  const { d } = await jose.exportJWK(privateKey);
  return crypto.createHmac('sha256', d ?? crypto.randomBytes(32)).update('iam device cookie').digest();
}

/** The pages a browser navigates to: HTML errors, and never any CORS header (they are not APIs). */
async function signInRoutes(app: FastifyInstance) {
  const { config, keys } = app.ctx;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refused = clientError(error);
    if (!refused) request.log.error({ err: error }, 'sign-in page failed');
    return sendPage(reply, refused?.status ?? 500, renderErrorPage(refused?.message ?? 'Something went wrong. Please try again.'));
  });
  app.addHook('onSend', async (request, reply) => {
    for (const name of Object.keys(reply.getHeaders())) if (name.toLowerCase().startsWith('access-control-')) reply.removeHeader(name);
  });

  const throttle = new LoginThrottle(app.ctx.db, { ...DEFAULT_LOGIN_LIMITS, ...config.loginLimits }, { log: (message) => app.log.warn(message) });
  const devices = new DeviceCookies(await deviceCookieSecret(keys.privateKey), config.publicUrl.startsWith('https:'));
  await app.register(authorizeRoutes);
  await app.register(loginRoutes, { throttle, devices });
  await app.register(consentRoutes);
  await app.register(logoutRoutes);
}

/** The authorization server: /oauth/* and discovery. */
export async function oauthRoutes(app: FastifyInstance) {
  await app.register(signInRoutes);
  await app.register(tokenRoutes);
  await app.register(userinfoRoutes);
  await app.register(discoveryRoutes);
}
