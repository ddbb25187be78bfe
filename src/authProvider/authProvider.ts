/**
 * react-admin's view of the sign-in: the session lives in sessionStorage (built by /callback);
 * without it the user goes to /login, which either resumes from a remembered token or asks.
 */
import type { AuthProvider } from 'react-admin';
import { getSession } from '../session/session';
import { browser } from './browser';
import { canAccess, forgetPermissions } from './permissions';
import { OAUTH_KEYS } from './pkce';
import { signOut } from './signOut';
import { isTokenExpired } from './tokenExpiry';

export { isTokenExpired };

/**
 * Set when the provider refuses a token that has not expired: the sign-in was ended on its side
 * (signed out everywhere, a session revoked, rights taken away), and /login says so
 * (docs/CONSOLE.md, "Sign-in form").
 */
let endedByProvider = false;
/** Set once a refused permission read has started signing out: the other reads wait for the page to go. */
let leaving = false;

export const authProvider: AuthProvider = {
  // The sign-in is the native form post of the /login page, never react-admin's login().
  login: () => Promise.resolve(),

  logout: async () => {
    const reason = endedByProvider ? '?reason=ended' : '';
    endedByProvider = false;
    await signOut();
    browser.assign(`/login${reason}`);
    // false: we navigated ourselves, react-admin must not redirect as well.
    return false;
  },

  checkAuth: () => {
    const { accessToken } = getSession();
    if (accessToken && !isTokenExpired(accessToken)) return Promise.resolve();
    const { pathname, search } = window.location;
    sessionStorage.setItem(OAUTH_KEYS.returnTo, pathname + search);
    return Promise.reject({ redirectTo: '/login', message: false });
  },

  checkError: (error: { status?: number }) => {
    if (error?.status === 401) {
      const { accessToken } = getSession();
      endedByProvider = Boolean(accessToken && !isTokenExpired(accessToken));
      return Promise.reject({ message: false });
    }
    // Refused by a role: the screen shows the provider's sentence; what is offered is checked again.
    if (error?.status === 403) forgetPermissions();
    return Promise.resolve();
  },

  // What the screens offer follows the person's roles where the console works (docs/CONSOLE.md, "Roles").
  // Reading them is the first call a screen makes: a sign-in ended on the provider's side (401)
  // signs out here as any other call's would, to /login saying so, never to an error page.
  canAccess: async (params) => {
    try {
      return await canAccess(params);
    } catch (error) {
      if ((error as { status?: number })?.status !== 401) throw error;
      if (!leaving) {
        leaving = true;
        const { accessToken } = getSession();
        endedByProvider = Boolean(accessToken && !isTokenExpired(accessToken));
        await authProvider.logout(undefined);
      }
      return false;
    }
  },

  getIdentity: () => {
    const { user } = getSession();
    if (!user) return Promise.reject(new Error('Not signed in'));
    return Promise.resolve({ id: user.id ?? user.email, fullName: user.displayName, email: user.email });
  },

  getPermissions: () => Promise.resolve(undefined),
};
