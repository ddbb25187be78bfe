/**
 * The account page from the console with no second password (issue 35, docs/DECISIONS.md 44), in
 * Chromium: a person signs in to the console, opens the user menu with the keyboard, chooses My
 * account and sees the provider's account page with her name and no password prompt; the way back
 * leads to the console, still signed in; changing her factors asks her password once; the Not an
 * administrator page's link does the same for someone the console does not let in. axe clean, light
 * and dark.
 */
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

const run = Date.now().toString(36);
const PASSWORD = 'From-Console-Pass-1';
const DOMAIN_PATH = 'companys/root/domainNames/default';
const PERSON = { id: `mya-${run}`, name: `Mia Myaccount ${run}`, email: `mya-${run}@example.com` };
/** Someone with no role: the console tells her she is not an administrator. */
const NOBODY = { id: `nob-${run}`, name: `Nora Norole ${run}`, email: `nob-${run}@example.com` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

let browser: Browser;
let root: Page;

async function bothThemes(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectNoAxeViolations(page);
    await screenshot(page, `account-from-console-${name}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  for (const who of [PERSON, NOBODY]) {
    const made = await consoleApi(root, 'POST', `${DOMAIN_PATH}/users`, {
      id: who.id,
      username: who.id,
      displayName: who.name,
      email: who.email,
      authVerification: await bcrypt.hash(PASSWORD, 10),
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
  }
  // a role, so that the console lets her in
  const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', { role: 'auditor', holderType: 'user', holderId: PERSON.id, holderCompanyId: 'root', holderDomainId: 'default' });
  expect(given.status, JSON.stringify(given.json)).toBe(201);
}, 120_000);
afterAll(() => browser?.close());

describe('the account page from the console', () => {
  it('opens from the user menu with no second password, and the way back leads to the console', async () => {
    const page = await newPage(browser);
    await signIn(page, { email: PERSON.email, password: PASSWORD });

    // the user menu, with the keyboard: its button, then My account
    await page.getByRole('button', { name: 'Profile' }).focus();
    await page.keyboard.press('Enter');
    const item = page.getByRole('menuitem', { name: 'My account' });
    await eventually(() => item.isVisible()).toBe(true);
    for (let i = 0; i < 5 && !(await item.evaluate((element) => element === document.activeElement)); i++) await page.keyboard.press('ArrowDown');
    await expect(item.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');

    // the account page, hers, no password asked; its address carries no token
    await page.waitForURL(/\/account$/, { timeout: 30_000 });
    await eventually(() => page.getByRole('heading', { name: 'Account and security' }).isVisible()).toBe(true);
    await expect(page.getByText(PERSON.name).isVisible()).resolves.toBe(true);
    await expect(page.locator('input[type="password"]').count()).resolves.toBe(0);
    expect(page.url()).not.toMatch(/token|code=/);
    await bothThemes(page, 'overview');

    // changing her factors asks her password once
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Confirm it is you' }).isVisible()).toBe(true);
    await bothThemes(page, 'confirm');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Add an authenticator app' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Account and security' }).isVisible()).toBe(true);

    // the way back: the console, still signed in
    await page.getByRole('link', { name: 'Back to the console' }).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await eventually(() => page.getByRole('button', { name: 'Profile' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it("opens from the Not an administrator page with that sign-in, no second password either", async () => {
    const page = await newPage(browser);
    await page.goto(`${baseUrl()}/login`);
    await page.getByLabel('Email').fill(NOBODY.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Login' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Not an administrator' }).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Your account and security' }).click();
    await page.waitForURL(/\/account$/, { timeout: 30_000 });
    await eventually(() => page.getByRole('heading', { name: 'Account and security' }).isVisible()).toBe(true);
    await expect(page.getByText(NOBODY.name).isVisible()).resolves.toBe(true);
    await expect(page.locator('input[type="password"]').count()).resolves.toBe(0);
    await page.context().close();
  });

  it('without the console, the account page asks her password', async () => {
    const page = await newPage(browser);
    await page.goto(`${baseUrl()}/account?company=root&domain=default`);
    await expect(page.getByLabel('Password', { exact: true }).isVisible()).resolves.toBe(true);
    await page.context().close();
  });
});
