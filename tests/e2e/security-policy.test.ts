/**
 * A domain's security policy and self sign-up in Chromium (npm run test:e2e; docs/CONSOLE.md,
 * "Domain security policy" and "Self sign-up"): an administrator opens the domain's Security tab,
 * turns self sign-up on with a longer minimum password, with the keyboard; a visitor following the
 * console's /signup link for that organization lands on the provider's sign-up page, is refused a
 * short and a common password in words, and then creates an account that waits for its e-mail
 * address to be confirmed. axe and screenshots, light and dark (test-results/screenshots/security-*.png).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

const run = Date.now().toString(36);
const COMPANY = `sec-${run}`;
const FIRST = `first-${run}`;
const PEOPLE = `people-${run}`;
const EMAIL = `newcomer-${run}@example.com`;

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const row = (text: string) => page.getByRole('row').filter({ hasText: text });
const sidebarHeading = () => page.getByRole('navigation', { name: 'IAM Console' }).getByRole('heading', { level: 2 });

async function setTheme(target: Page, theme: 'light' | 'dark') {
  await target.emulateMedia({ colorScheme: theme });
  await target.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Both themes: `ready` brings the page back after the reload, then axe and a screenshot. */
async function judge(target: Page, name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(target, theme);
    await target.reload();
    await ready();
    await expectNoAxeViolations(target);
    await screenshot(target, `security-${name}-${theme}`);
  }
  await setTheme(target, 'light');
}

/** The domain screen of PEOPLE, from the Domains list of the company (its only other domain). */
async function openPeople() {
  await page.goto(`${baseUrl()}/onboarding-domains`);
  await eventually(() => row(PEOPLE).count()).toBe(1);
  await row(PEOPLE).click();
  await page.getByRole('tab', { name: 'Security' }).click();
  await eventually(() => page.getByLabel(/Minimum password length/).isVisible()).toBe(true);
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
  const made = await consoleApi(page, 'POST', 'companys', { id: COMPANY, name: COMPANY, displayName: COMPANY, description: 'security policy test', type: 'customer', parent: 'root' });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  for (const name of [FIRST, PEOPLE]) {
    const domain = await consoleApi(page, 'POST', `companys/${COMPANY}/domainNames`, { name, description: `domain ${name}` });
    expect(domain.status, JSON.stringify(domain.json)).toBe(201);
  }
  // work in the new company: its primary domain is current, PEOPLE is the list's one row
  await page.goto(`${baseUrl()}/onboarding-companies?perPage=15&page=1`);
  await row(COMPANY).waitFor();
  await row(COMPANY).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Switch', exact: true }).click();
  await sidebarHeading().filter({ hasText: COMPANY }).waitFor();
}, 180_000);
afterAll(() => browser?.close());

describe('the Security tab of a domain', () => {
  it('shows the defaults, and saves a longer minimum and self sign-up with the keyboard', async () => {
    await openPeople();
    const length = page.getByLabel(/Minimum password length/);
    expect(await length.inputValue()).toBe('12');
    expect(await page.getByRole('switch', { name: 'Self sign-up' }).isChecked()).toBe(false);
    await judge(page, 'tab', openPeople);

    await length.fill('7');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => page.getByText('Enter a whole number from 8 to 128.').isVisible()).toBe(true);

    await length.fill('14');
    await page.getByRole('switch', { name: 'Self sign-up' }).focus();
    await page.keyboard.press('Space');
    expect(await page.getByRole('switch', { name: 'Self sign-up' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save', exact: true }).focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.getByText(`Security policy of ${PEOPLE} saved`).isVisible()).toBe(true);
    const saved = await consoleApi(page, 'GET', `companys/${COMPANY}/domainNames/${PEOPLE}/securityPolicy`);
    expect(saved.json).toMatchObject({ minPasswordLength: 14, selfSignUp: true, mfa: 'optional' });
  });
});

describe('self sign-up', () => {
  it("the console's /signup leads to the provider's page, which refuses weak passwords and creates an unverified account", async () => {
    const visitor = await newPage(browser);
    await visitor.goto(`${baseUrl()}/signup?company=${COMPANY}&domain=${PEOPLE}`);
    await visitor.waitForURL(/\/oauth\/signup\?/);
    await eventually(() => visitor.getByRole('heading', { name: 'Create an account' }).isVisible()).toBe(true);
    expect(await visitor.getByText('At least 14 characters, and not one of the most common passwords.').isVisible()).toBe(true);
    await judge(visitor, 'signup', () => visitor.getByRole('heading', { name: 'Create an account' }).waitFor());

    const fill = async (password: string) => {
      await visitor.getByLabel('Email').fill(EMAIL);
      await visitor.getByLabel('Your name').fill('New Comer');
      await visitor.getByLabel('Password', { exact: true }).fill(password);
      await visitor.getByLabel('Password again').fill(password);
      await visitor.getByRole('button', { name: 'Create account' }).click();
    };
    // too short: the browser itself holds the form back (minlength), and the provider would say so too (server tests)
    await fill('short one');
    expect(await visitor.getByLabel('Password', { exact: true }).evaluate((input) => (input as HTMLInputElement).validity.tooShort)).toBe(true);
    expect(await visitor.getByRole('heading', { name: 'Create an account' }).isVisible()).toBe(true);
    await fill('MailCreated5240');
    await eventually(() => visitor.getByRole('alert').textContent()).toBe('This password is among the most common ones: choose another.');
    await fill('a long and unusual passphrase');
    await eventually(() => visitor.getByRole('heading', { name: 'Check your inbox' }).isVisible()).toBe(true);
    await expectNoAxeViolations(visitor);

    const found = await consoleApi(page, 'GET', `companys/${COMPANY}/domainNames/${PEOPLE}/users?filter=${encodeURIComponent(JSON.stringify({ q: EMAIL }))}`);
    expect(found.json).toEqual([expect.objectContaining({ email: EMAIL, username: EMAIL, emailVerified: false })]);
    await visitor.context().close();
  });
});
