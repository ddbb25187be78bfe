/**
 * Sign-in logs and a user's sessions (docs/CONSOLE.md, "Sign-in logs", "A user's sessions") in
 * Chromium against the running provider (npm run test:e2e): a wrong password on the provider's
 * hosted sign-in page shows in Sign-in logs filtered by outcome; from the user screen's Sessions tab
 * the administrator signs a user out everywhere and that user's access token is refused. axe and
 * screenshots in the light and dark themes.
 */
import { createHash, randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn, consoleApi } from './browser.js';

let browser: Browser;
let admin: Page;

const suffix = Date.now().toString(36);
const user = {
  username: `log-user-${suffix}`,
  displayName: `Logan Signin ${suffix}`,
  email: `log-user-${suffix}@example.com`,
  password: 'Log-Secret-Pass-1',
};
let userId = '';

/** The console loads lazily: give the page time before judging. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

/** Calls the management API with the signed-in console's own token (setup that is not under test). */
const api = (method: string, path: string, body?: unknown) => consoleApi(admin, method, path, body);

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/**
 * Signs in on the provider's hosted sign-in page for the console's application in a fresh browser
 * context (what anyone signing in sees) and reads the code it sends back to /callback as soon as
 * the navigation commits. The console page there finds no state of its own in that context and
 * leaves the code alone: the test exchanges it, playing the application.
 */
async function hostedSignIn(login: string, password: string): Promise<{ code: string; verifier: string }> {
  const page = await newPage(browser);
  try {
    const verifier = base64url(randomBytes(32));
    const authorize = new URL(`${baseUrl()}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'iam-console',
      redirect_uri: `${baseUrl()}/callback`,
      scope: 'openid email',
      state: `s-${suffix}`,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.toString());
    const field = page.getByRole('textbox', { name: 'Email or username' });
    await eventually(() => field.isVisible()).toBe(true);
    await field.fill(login);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/callback', { timeout: 30_000, waitUntil: 'commit' });
    const code = new URL(page.url()).searchParams.get('code');
    expect(code, page.url()).toBeTruthy();
    return { code: code!, verifier };
  } finally {
    await page.context().close();
  }
}

async function setTheme(theme: 'light' | 'dark') {
  await admin.emulateMedia({ colorScheme: theme });
  await admin.evaluate((value) => localStorage.setItem('theme', value), theme);
  await admin.reload();
}

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await newPage(browser);
  await signIn(admin);
  const created = await api('POST', 'companys/root/domainNames/default/users', {
    username: user.username,
    displayName: user.displayName,
    email: user.email,
    authVerification: await bcrypt.hash(user.password, 10),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  userId = created.json.id;
});
afterAll(() => browser?.close());

const table = () => admin.getByRole('table');
const rowsWith = (text: string) => table().getByRole('row').filter({ hasText: text });

describe('Sign-in logs', () => {
  it('shows a wrong password typed on the hosted sign-in page, filtered by outcome, axe clean in both themes', async () => {
    // a failed attempt on the provider's own page: the page says so and stays
    const wrong = await newPage(browser);
    try {
      const authorize = new URL(`${baseUrl()}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'iam-console',
        redirect_uri: `${baseUrl()}/callback`,
        scope: 'openid email',
        state: 'x',
        code_challenge: base64url(createHash('sha256').update('v'.repeat(43)).digest()),
        code_challenge_method: 'S256',
      }).toString();
      await wrong.goto(authorize.toString());
      await wrong.getByRole('textbox', { name: 'Email or username' }).fill(user.email);
      await wrong.getByLabel('Password', { exact: true }).fill('not-the-password');
      await wrong.getByRole('button', { name: 'Sign in' }).click();
      await eventually(() => wrong.getByRole('alert').isVisible()).toBe(true);
      // and one for nobody, so the log holds more than one kind of failure
      await wrong.getByRole('textbox', { name: 'Email or username' }).fill(`nobody-${suffix}@example.com`);
      await wrong.getByLabel('Password', { exact: true }).fill('whatever-it-is');
      await wrong.getByRole('button', { name: 'Sign in' }).click();
      await eventually(() => wrong.getByRole('alert').isVisible()).toBe(true);
    } finally {
      await wrong.context().close();
    }

    await admin.goto('/dashboard');
    await admin.getByRole('menuitem', { name: 'Users' }).click();
    await admin.getByRole('menuitem', { name: 'Sign-in logs' }).click();
    await admin.waitForURL(/\/sign-in-logs/);
    await eventually(() => rowsWith(user.email).count()).toBe(1);
    // newest first: the unknown login, then the wrong password, then the administrator's sign-in
    await expect(table().getByRole('row').nth(1).textContent()).resolves.toContain('Unknown user');
    await expect(rowsWith(user.email).textContent()).resolves.toContain('Wrong password');
    await expect(rowsWith('admin@example.com').first().textContent()).resolves.toContain('Signed in');
    // the application's name once the console knows it may read applications (an id until then)
    await eventually(() => rowsWith(user.email).textContent()).toContain('IAM Console');

    await admin.getByRole('combobox', { name: 'Outcome' }).click();
    await admin.getByRole('option', { name: 'Wrong password' }).click();
    await eventually(() => rowsWith('Signed in').count()).toBe(0);
    await eventually(() => rowsWith(user.email).count()).toBe(1);
    expect(await rowsWith('Unknown user').count()).toBe(0);
    // the user is known: their login opens the user screen
    await expect(rowsWith(user.email).getByRole('link', { name: user.email }).isVisible()).resolves.toBe(true);
    await expectNoAxeViolations(admin);
    await screenshot(admin, 'signin-logs-wrong-password-light');

    await admin.getByRole('combobox', { name: 'Outcome' }).click();
    await admin.getByRole('option', { name: 'Clear value' }).click();
    await eventually(() => rowsWith('Signed in').count()).toBeGreaterThan(0);
    await screenshot(admin, 'signin-logs-light');

    await setTheme('dark');
    await eventually(() => rowsWith(user.email).count()).toBe(1);
    await expectNoAxeViolations(admin);
    await screenshot(admin, 'signin-logs-dark');

    await rowsWith(user.email).getByRole('link', { name: user.email }).click();
    await admin.waitForURL(/\/users\/[^/?]+\?company=/);
    await eventually(() => admin.getByLabel('Display Name').first().inputValue()).toBe(user.displayName);
    await setTheme('light');
  });
});

describe("a user's sessions", () => {
  it('signs the user out everywhere from the Sessions tab; their access token is then refused', async () => {
    // the user signs in on the hosted page; the test plays the application and takes the tokens
    const signedIn = await hostedSignIn(user.email, user.password);
    const tokenResponse = await fetch(`${baseUrl()}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: signedIn.code,
        redirect_uri: `${baseUrl()}/callback`,
        client_id: 'iam-console',
        code_verifier: signedIn.verifier,
      }).toString(),
    });
    const tokens = (await tokenResponse.json()) as { access_token?: string };
    expect(tokenResponse.status, JSON.stringify(tokens)).toBe(200);
    const userinfo = () => fetch(`${baseUrl()}/oauth/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect((await userinfo()).status).toBe(200);

    // the user screen, from the users list
    await admin.goto('/users');
    await admin.getByPlaceholder('Search').first().fill(user.username);
    await admin.getByRole('link', { name: user.displayName }).click();
    await admin.waitForURL(/\/users\/[^/?]+\?company=/);
    await admin.getByRole('tab', { name: 'Sessions' }).click();
    const sessions = admin.getByRole('tabpanel', { name: 'Sessions' });
    await eventually(() => sessions.getByRole('row').filter({ hasText: 'IAM Console' }).count()).toBe(1);
    await expectNoAxeViolations(admin);
    await screenshot(admin, 'user-sessions-light');

    await sessions.getByRole('button', { name: 'Sign out everywhere' }).click();
    const dialog = admin.getByRole('dialog');
    await eventually(() => dialog.textContent()).toContain('All 1 session(s) of this user end now');
    await expectNoAxeViolations(admin);
    await screenshot(admin, 'user-sessions-sign-out-everywhere-light');
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
    await eventually(() => admin.getByText('Signed out everywhere: 1 session(s) ended').isVisible()).toBe(true);
    await eventually(() => sessions.getByText('No live sessions: this user is signed in nowhere.').isVisible()).toBe(true);

    const refused = await userinfo();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');

    // the Sign-ins tab holds the user's own attempts only: the success and the wrong password
    await admin.getByRole('tab', { name: 'Sign-ins' }).click();
    const signIns = admin.getByRole('tabpanel', { name: 'Sign-ins' });
    await eventually(() => signIns.getByRole('row').filter({ hasText: 'Signed in' }).count()).toBe(1);
    expect(await signIns.getByRole('row').filter({ hasText: 'Wrong password' }).count()).toBe(1);
    expect(await signIns.getByRole('row').filter({ hasText: 'admin@example.com' }).count()).toBe(0);
    await setTheme('dark');
    await admin.getByRole('tab', { name: 'Sign-ins' }).click();
    await eventually(() => admin.getByRole('tabpanel', { name: 'Sign-ins' }).getByRole('row').count()).toBeGreaterThan(2);
    await expectNoAxeViolations(admin);
    await screenshot(admin, 'user-sign-ins-dark');
    await admin.getByRole('tab', { name: 'Sessions' }).click();
    await eventually(() => admin.getByText('No live sessions: this user is signed in nowhere.').isVisible()).toBe(true);
    await expectNoAxeViolations(admin);
    await screenshot(admin, 'user-sessions-empty-dark');
    await setTheme('light');
    expect(userId).toBeTruthy();
  });
});
