import type Provider from 'oidc-provider';
import { renderErrorPage } from './loginPage.js';

/** The device flow's code page (oidc-provider's code_verification route) and its resume step (/oauth/device/{uid}); other spellings never reach oidc-provider (index.ts). */
const DEVICE_PAGE = /^\/oauth\/device(?:\/[^/]+)?$/;

/**
 * The device code page answered without a session: a 400 page, not oidc-provider's 500.
 *
 * The page's form is bound to the browser's session (its xsrf secret lives there). A post that
 * comes without one (no session cookie, or one whose session has ended) is refused by
 * oidc-provider's xsrf check; its error handler then renders the code form again with a fresh
 * secret, which writes to the session that was never saved, and saving it after the request
 * (`Session#persist`, which needs a session saved before) throws a TypeError: a 500 and a stack in
 * the log for anyone who posts to /oauth/device. Nothing was done by then (the check comes before
 * any code is looked up), so the answer becomes a page that says to open the device page again
 * (which starts a session). The resume step (GET /oauth/device/{uid}) fails the same way without
 * a session. Any other failure is left to the handlers that follow.
 */
export function deviceInput(provider: Provider) {
  provider.use(async (koa, next) => {
    try {
      await next();
    } catch (error) {
      if (!DEVICE_PAGE.test(koa.path) || !(error instanceof TypeError) || !unsavedSession(koa)) throw error;
      koa.status = 400;
      koa.type = 'html';
      koa.set('Cache-Control', 'no-store');
      koa.body = renderErrorPage('This page has expired, or your browser did not send its cookie. Open the device page again and enter the code.');
    }
  });
}

/** Did oidc-provider start a session for this request and never save it (it has no expiry yet)? */
function unsavedSession(koa: object): boolean {
  const session = (koa as { oidc?: { session?: { exp?: unknown } } }).oidc?.session;
  return session !== undefined && typeof session.exp !== 'number';
}
