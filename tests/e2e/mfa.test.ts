/**
 * Multi-factor authentication in a real browser (docs/CONSOLE.md, "Multi-factor authentication and
 * the account page"): a person signs in to the provider's account page, enrols a passkey with
 * Chromium's virtual authenticator (DevTools WebAuthn domain) and then signs in to the console with
 * it; another enrols an authenticator app (codes made here with otpauth) and is asked for a code on
 * the console's sign-in and on the hosted page. The account and step pages are axe clean, light and
 * dark.
 */
import * as jose from 'jose';
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, createUser, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

const run = Date.now().toString(36);
const PASSWORD = 'Mfa-Browser-Pass-1';
const DOMAIN_PATH = 'companys/root/domainNames/default';
const KEY_USER = { id: `passkey-${run}`, name: `Pat Passkey ${run}`, email: `passkey-${run}@example.com` };
const APP_USER = { id: `totp-${run}`, name: `Tia Totp ${run}`, email: `totp-${run}@example.com` };
const NEW_USER = { id: `enrol-${run}`, name: `Eve Enrol ${run}`, email: `enrol-${run}@example.com` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

let browser: Browser;
let root: Page;

/** A person of root's default domain with a password, holding the Administrator role (so the console lets her in). */
async function makeAdministrator(person: typeof KEY_USER) {
  await createUser(root, `${DOMAIN_PATH}/users`, person, PASSWORD);
  const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', { role: 'administrator', holderType: 'user', holderId: person.id, holderCompanyId: 'root', holderDomainId: 'default' });
  expect(given.status, JSON.stringify(given.json)).toBe(201);
}

/** A fresh browser of her own with a virtual platform authenticator (user verification on, presence automatic). */
async function browserWithAuthenticator(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { context, page };
}

/** Signs in on the account page of root's default domain. */
async function accountSignIn(page: Page, email: string) {
  await page.goto(`${baseUrl()}/account?company=root&domain=default`);
  await page.getByLabel('Email or username').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The console's sign-in up to the provider's step page. */
async function consoleSignInToStep(page: Page, email: string) {
  await page.goto(`${baseUrl()}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/oauth\/steps$/, { timeout: 30_000 });
}

async function bothThemes(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectNoAxeViolations(page);
    await screenshot(page, `mfa-${name}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The amr of the console's ID token, as the console keeps it. */
const amrOf = async (page: Page) => jose.decodeJwt(JSON.parse((await page.evaluate(() => sessionStorage.getItem('idToken'))) ?? '""')).amr;

/** Waits until a TOTP step has at least 3 s left, so a code made now is checked in the same step. */
async function awayFromStepEdge() {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  await makeAdministrator(KEY_USER);
  await makeAdministrator(APP_USER);
  await makeAdministrator(NEW_USER);
}, 120_000);
afterAll(() => browser?.close());

describe('a passkey', () => {
  it('is enrolled on the account page and signs her in to the console', async () => {
    const { context, page } = await browserWithAuthenticator();
    await accountSignIn(page, KEY_USER.email);
    await eventually(() => page.getByRole('heading', { name: 'Account and security' }).isVisible()).toBe(true);
    await bothThemes(page, 'account');

    await page.getByRole('button', { name: 'Add a passkey or security key' }).click();
    await page.getByLabel('Name (optional)').fill('Laptop');
    await page.getByRole('button', { name: 'Create the passkey' }).click();
    await eventually(() => page.getByText('Passkey added.').isVisible()).toBe(true);
    // the administrator sees it on her user screen
    const factors = await consoleApi(root, 'GET', `${DOMAIN_PATH}/users/${KEY_USER.id}/factors`);
    expect(factors.json.map((f: { type: string; label: string }) => `${f.type} ${f.label}`)).toEqual(['webauthn Laptop']);

    await consoleSignInToStep(page, KEY_USER.email);
    await bothThemes(page, 'second-factor-step');
    await page.getByRole('button', { name: 'Use a passkey or security key' }).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    const amr = await amrOf(page);
    expect(amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
    expect(amr).toEqual(expect.arrayContaining([expect.stringMatching(/^(hwk|swk)$/)]));

    // the user menu's My account opens the account page with this sign-in (account-from-console.test.ts)
    await page.getByRole('button', { name: 'Profile' }).click();
    await page.getByRole('menuitem', { name: 'My account' }).click();
    await page.waitForURL(/\/account$/);
    await eventually(() => page.getByRole('heading', { name: 'Account and security' }).isVisible()).toBe(true);
    await context.close();
  });
});

describe('enrolling at sign-in', () => {
  it("a person who must enrol a second factor creates a passkey on the step page, then signs in with it", async () => {
    const required = await consoleApi(root, 'PUT', `${DOMAIN_PATH}/users/${NEW_USER.id}/requiredActions`, { requiredActions: ['enrol-mfa'] });
    expect(required.status, JSON.stringify(required.json)).toBe(200);
    const { context, page } = await browserWithAuthenticator();
    await consoleSignInToStep(page, NEW_USER.email);
    await eventually(() => page.getByRole('heading', { name: 'Add a second factor' }).isVisible()).toBe(true);
    await bothThemes(page, 'enrol-step');
    await page.getByRole('button', { name: 'Create a passkey instead' }).click();
    // the new key is used at once: the second factor's page
    await eventually(() => page.getByRole('heading', { name: 'Second factor' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Use a passkey or security key' }).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    expect(await amrOf(page)).toEqual(expect.arrayContaining(['pwd', 'mfa']));
    const state = await consoleApi(root, 'GET', `${DOMAIN_PATH}/users/${NEW_USER.id}/signInState`);
    expect(state.json.requiredActions).toEqual([]);
    await context.close();
  });
});

describe('an authenticator app', () => {
  let secret = '';
  const code = () => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();

  it('is enrolled on the account page from its QR code or key, confirmed by a code', async () => {
    const page = await newPage(browser);
    await accountSignIn(page, APP_USER.email);
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    await eventually(() => page.getByRole('img', { name: /QR code/ }).isVisible()).toBe(true);
    await bothThemes(page, 'totp-enrol');
    secret = ((await page.locator('#totp-secret').textContent()) ?? '').replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await awayFromStepEdge();
    await page.getByLabel('Code shown by the app').fill(code());
    await page.getByRole('button', { name: 'Confirm' }).click();
    await eventually(() => page.getByText('Authenticator app added.').isVisible()).toBe(true);

    // recovery codes, shown once; the removal page asks the password (left with Cancel)
    await page.getByRole('button', { name: 'Make recovery codes' }).click();
    await eventually(() => page.locator('#recovery-codes li').count()).toBe(10);
    await bothThemes(page, 'recovery-codes');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: /^Remove Authenticator app/ }).click();
    await eventually(() => page.getByRole('heading', { name: 'Remove a factor' }).isVisible()).toBe(true);
    await bothThemes(page, 'remove-factor');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Account and security' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it("is asked for on the console's sign-in", async () => {
    // the code that confirmed the enrolment is used: wait for the next one
    await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 200));
    const page = await newPage(browser);
    await consoleSignInToStep(page, APP_USER.email);
    await page.getByLabel(/Code from your authenticator app/).fill(code());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    expect(await amrOf(page)).toEqual(['pwd', 'otp', 'mfa']);
    await page.context().close();
  });

  it('is asked for on the hosted page', async () => {
    await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 200));
    const page = await newPage(browser);
    // the test is the application: its redirect answers here
    await page.route('**/callback?**', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback' }));
    const verifier = crypto.getRandomValues(new Uint8Array(32));
    const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(Buffer.from(verifier).toString('base64url')))).toString('base64url');
    const query = new URLSearchParams({ response_type: 'code', client_id: 'iam-console', redirect_uri: `${baseUrl()}/callback`, scope: 'openid', state: 'hosted', code_challenge: challenge, code_challenge_method: 'S256', company: 'root' });
    await page.goto(`${baseUrl()}/oauth/authorize?${query}`);
    await page.getByLabel('Email or username').fill(APP_USER.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/interaction\/[^/]+\/steps$/, { timeout: 30_000 });
    await page.getByLabel(/Code from your authenticator app/).fill(code());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/callback\?.*code=/, { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('state')).toBe('hosted');
    await page.context().close();
  });
});

describe("an administrator and a person's factors", () => {
  it('the user screen lists them in the Second factors card; Reset asks first, then removes', async () => {
    await root.goto(`${baseUrl()}/users`);
    await root.getByPlaceholder('Search').first().fill(KEY_USER.email);
    const row = root.getByRole('row').filter({ hasText: KEY_USER.email });
    await eventually(() => row.count()).toBe(1);
    await row.getByRole('link').first().click();
    const card = root.getByRole('region', { name: 'Second factors' });
    await eventually(() => card.getByText('Passkey or security key: Laptop').isVisible()).toBe(true);
    for (const scheme of ['light', 'dark'] as const) {
      await root.emulateMedia({ colorScheme: scheme });
      await root.evaluate((value) => localStorage.setItem('theme', value), scheme);
      await root.reload();
      await eventually(() => card.getByText('Passkey or security key: Laptop').isVisible()).toBe(true);
      await expectNoAxeViolations(root);
      await screenshot(root, `mfa-factors-card-${scheme}`);
    }
    await root.emulateMedia({ colorScheme: 'light' });
    await root.evaluate(() => localStorage.setItem('theme', 'light'));
    await card.getByRole('button', { name: 'Reset Passkey or security key: Laptop' }).click();
    const dialog = root.getByRole('dialog');
    await eventually(() => dialog.textContent()).toContain(`Passkey or security key: Laptop of ${KEY_USER.name} will be removed`);
    await dialog.getByRole('button', { name: 'Reset' }).click();
    await eventually(() => card.textContent()).toContain('No second factor');
    const factors = await consoleApi(root, 'GET', `${DOMAIN_PATH}/users/${KEY_USER.id}/factors`);
    expect(factors.json).toEqual([]);
  });
});
