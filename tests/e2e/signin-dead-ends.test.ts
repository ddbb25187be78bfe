/**
 * Issue 11, the sign-in part, in Chromium (npm run test:e2e): no state of the sign-in flow is a dead
 * end. A remembered sign-in the provider no longer accepts is removed and the form says why; a
 * person who is not an administrator is told so and can sign in as someone else; /error's way back
 * reaches the form; signed-out visits to unknown paths reach the form. docs/CONSOLE.md "Sign-in,
 * callback and sign-out" and "Routes". Each plain page: axe, light and dark screenshots.
 */
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEmail, adminPassword, baseUrl, expectNoAxeViolations, launchBrowser, screenshot, signIn } from './browser.js';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });

const run = Date.now().toString(36);
const PASSWORD = 'Dead-Ends-Pass-1';
const DOMAIN_PATH = '/api/companys/root/domainNames/default';
const REMEMBER_COOKIES = ['tokenJson', 'IsRemember', 'Email'];

let browser: Browser;
let admin: Page;

/** A fresh context (own cookies and storage); the plain pages follow the system colour scheme. */
async function freshContext(): Promise<BrowserContext> {
  return browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
}

/** The management API with the first administrator's token (setup, not what is under test). */
async function api(method: string, path: string, data?: unknown) {
  const token = await admin.evaluate(() => JSON.parse(sessionStorage.getItem('accessToken') ?? '""') as string);
  const response = await admin.request.fetch(`${baseUrl()}${DOMAIN_PATH}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    data,
  });
  expect(response.status(), `${method} ${path}: ${await response.text()}`).toBeLessThan(300);
  return response.json();
}

async function createUser(name: string, administrator: boolean): Promise<{ id: string; email: string }> {
  const email = `${name}@example.com`;
  const user = await api('POST', '/users', { username: name, displayName: name, email, authVerification: await bcrypt.hash(PASSWORD, 10) });
  if (administrator) await api('POST', '/groups/administrators/members', [{ id: user.id, type: 'user' }]);
  return { id: user.id, email };
}

/** Fills the /login form (already open) and submits it. */
async function submitForm(page: Page, email: string, password: string, remember = false) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  if (remember) await page.getByLabel('Remember me').check();
  await poll(() => page.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
  await page.getByRole('button', { name: 'Login' }).click();
}

const rememberCookies = async (context: BrowserContext) =>
  (await context.cookies()).filter((cookie) => REMEMBER_COOKIES.includes(cookie.name)).map((cookie) => cookie.name).sort();

/** axe and a screenshot in the light and the dark system scheme; ends light. */
async function checkBothSchemes(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(300);
    await screenshot(page, `signin-${name}-${scheme}`);
    await expectNoAxeViolations(page);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await (await freshContext()).newPage();
  await signIn(admin);
});
afterAll(() => browser?.close());

describe('a remembered sign-in the provider no longer accepts', () => {
  it('is removed, and /login says why, shows a usable form and signs in again', async () => {
    const gone = await createUser(`e2e-gone-${run}`, true);
    const context = await freshContext();
    const first = await context.newPage();
    await first.goto(`${baseUrl()}/login`);
    await submitForm(first, gone.email, PASSWORD, true);
    await first.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    expect(await rememberCookies(context)).toEqual([...REMEMBER_COOKIES].sort());

    // The first administrator soft-deletes them: the provider revokes their sign-ins (401).
    await api('PUT', '/users', [{ id: gone.id, status: 'deleted' }]);

    // A fresh visit (new tab: no session, the cookies still there) lands on the form, not in a loop.
    const later = await context.newPage();
    await later.goto(`${baseUrl()}/login`);
    await later.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('reason') === 'expired', { timeout: 30_000 });
    await poll(() => later.getByText('Your remembered sign-in is no longer valid. Sign in again.').isVisible()).toBe(true);
    await poll(() => later.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
    expect(await rememberCookies(context)).toEqual([]);
    await checkBothSchemes(later, 'login-expired');

    // It stays put (no redirect loop), and a valid person signs in from it.
    await later.waitForTimeout(1_000);
    expect(new URL(later.url()).pathname).toBe('/login');
    await submitForm(later, adminEmail(), adminPassword());
    await later.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await context.close();
  });

  it('/error\'s Back to sign-in reaches the form even with a live session and a remembered token', async () => {
    const context = await freshContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl()}/login`);
    await submitForm(page, adminEmail(), adminPassword(), true);
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });

    await page.goto(`${baseUrl()}/error`);
    await poll(() => page.getByRole('heading', { name: 'Something went wrong' }).isVisible()).toBe(true);
    await checkBothSchemes(page, 'error');
    await page.getByRole('button', { name: 'Back to sign-in' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await poll(() => page.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
    expect(await rememberCookies(context)).toEqual([]);
    await context.close();
  });
});

describe('a session ended on the provider side while the console is open', () => {
  it('lands on /login saying the session was ended, and signs in again', async () => {
    const ended = await createUser(`e2e-ended-${run}`, true);
    const context = await freshContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl()}/login`);
    await submitForm(page, ended.email, PASSWORD);
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });

    // Another administrator signs them out everywhere (the user's Sessions tab does the same call).
    const { revoked } = await api('POST', `/users/${ended.id}/signOutEverywhere`);
    expect(revoked).toBeGreaterThan(0);

    // Their next call to the API (opening the users list) is refused with 401: the console says why.
    await page.goto(`${baseUrl()}/users`);
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('reason') === 'ended', { timeout: 30_000 });
    await poll(() => page.getByText(/Your session was ended by the provider/).isVisible()).toBe(true);
    await checkBothSchemes(page, 'login-ended');
    await submitForm(page, ended.email, PASSWORD);
    await page.waitForURL(/\/(dashboard|users)(\?|#|$)/, { timeout: 30_000 });
    await context.close();
  });
});

describe('a person who may not administer', () => {
  it('is told which company, and signs in as someone else through a proper sign-out', async () => {
    const plain = await createUser(`e2e-plain-${run}`, false);
    const context = await freshContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl()}/login`);
    await submitForm(page, plain.email, PASSWORD, true);
    await page.waitForURL((url) => url.pathname === '/callback', { timeout: 30_000 });
    await poll(() => page.getByText('Your account is not an administrator of company root.').isVisible()).toBe(true);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(await rememberCookies(context)).toEqual([]);
    await checkBothSchemes(page, 'not-administrator');

    const endSession = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/oauth/logout');
    await page.getByRole('button', { name: 'Sign in as someone else' }).click();
    expect(new URLSearchParams((await endSession).postData() ?? '').get('id_token_hint')).toBeTruthy();
    await page.waitForURL((url) => url.pathname === '/login');
    await poll(() => page.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('idToken'))).toBeNull();
    await submitForm(page, adminEmail(), adminPassword());
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await context.close();
  });
});

describe('signed-out visits to unknown paths', () => {
  it.each(['/nope', '/users/unknown/deep', '/callback/extra'])('%s reaches the sign-in form', async (path) => {
    const context = await freshContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl()}${path}`);
    // polled, not waitForURL: the admin app may start the move to /login more than once, aborting the earlier ones
    await poll(() => new URL(page.url()).pathname).toBe('/login');
    await poll(() => page.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
    if (path === '/nope') {
      // After signing in the person gets where they were going: there, the 404 page.
      await submitForm(page, adminEmail(), adminPassword());
      await page.waitForURL((url) => url.pathname === '/nope', { timeout: 30_000 });
      await poll(() => page.getByText('Oops! There is something problem!').isVisible()).toBe(true);
    }
    await context.close();
  });
});

describe('sign-up and password reset', () => {
  // /signup says sign-up is not offered (no domain here turns it on); /reset-password goes on to the
  // provider's forgotten-password page (docs/CONSOLE.md, "E-mail, reset links and invitations")
  it.each([
    ['/signup', 'Create an account', '/signup'],
    ['/reset-password', 'Forgot your password?', '/account/forgot'],
  ])('%s says what is offered and leads back to the sign-in form, signed out or in', async (path, title, landing) => {
    const context = await freshContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl()}${path}`);
    await poll(() => page.getByRole('heading', { name: title }).isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(landing);
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await poll(() => page.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
    // the Signup link of the form leads there too, and signing in afterwards never lands on a 404
    await page.getByRole('link', { name: 'Signup' }).click();
    await poll(() => page.getByRole('heading', { name: 'Create an account' }).isVisible()).toBe(true);
    await page.goBack();
    await poll(() => page.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
    await submitForm(page, adminEmail(), adminPassword());
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await context.close();
  });
});
