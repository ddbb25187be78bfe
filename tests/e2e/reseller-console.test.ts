/**
 * One console for every company (docs/CONSOLE.md, "Give a company its own administrators") in
 * Chromium against the running provider (npm run test:e2e): root creates a reseller and its domain in
 * the console and gives it an administrator (its first, so its Owner); she opens the reseller's sign-in link in another
 * browser, signs in to her own company, creates a customer and its administrator, switches into the
 * customer from the app bar and back. axe, and screenshots light and dark at a laptop's and a phone's
 * width. The group, user and membership are made through the API: their screens have their own
 * journeys (users-groups.test.ts).
 */
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const RESELLER = `reseller-${run}`;
const RESELLER_NAME = `Reseller ${run}`;
const CUSTOMER = `customer-${run}`;
const CUSTOMER_NAME = `Customer ${run}`;
const PASSWORD = 'Reseller-Pass-1';
const BOSS = `boss@${RESELLER}.example`;

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const switcher = (page: Page) => page.getByRole('button', { name: /^Company and domain: / });

/** An administrator of `company`/`domain`: the administrators group (made when missing), the user, the membership. */
async function giveAdministrator(page: Page, company: string, domain: string, email: string) {
  const base = `companys/${company}/domainNames/${domain}`;
  const group = await consoleApi(page, 'POST', `${base}/groups`, { name: 'administrators', displayName: 'Administrators', email: `admins@${company}.example` });
  expect([201, 409], JSON.stringify(group.json)).toContain(group.status);
  const user = await consoleApi(page, 'POST', `${base}/users`, {
    id: 'boss',
    username: `boss-${company}`,
    displayName: `Boss of ${company}`,
    email,
    authVerification: await bcrypt.hash(PASSWORD, 10),
  });
  expect(user.status, JSON.stringify(user.json)).toBe(201);
  const member = await consoleApi(page, 'POST', `${base}/groups/administrators/members`, [{ type: 'user', id: 'boss' }]);
  expect([200, 201], JSON.stringify(member.json)).toContain(member.status);
}

/** Companies → New, filled and created under the current company. */
async function createCompany(page: Page, id: string, displayName: string, type: 'reseller' | 'customer') {
  await page.goto(`${baseUrl()}/onboarding-companies`);
  await eventually(() => button(page, 'New').isEnabled()).toBe(true);
  await button(page, 'New').click();
  await page.getByLabel('Company Name').fill(id);
  await page.getByLabel('Display Name').fill(displayName);
  await page.getByLabel('Description').fill(`${type} of the reseller journey`);
  if (type === 'reseller') {
    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: /reseller/i }).click();
  }
  await button(page, 'Create').click();
  await eventually(() => page.getByText(/^Created in /).first().isVisible()).toBe(true);
}

/** The switcher to `displayName`, then its primary domain (or the company alone while it has none). */
async function switchTo(page: Page, displayName: string) {
  await switcher(page).click();
  const search = page.getByRole('combobox', { name: 'Search companies' });
  await eventually(() => search.isVisible()).toBe(true);
  await search.fill(displayName);
  await page.getByRole('option', { name: new RegExp(displayName) }).first().click();
  const domains = page.getByRole('listbox', { name: `Domains of ${displayName}` }).getByRole('option');
  const withoutDomain = page.getByRole('button', { name: `Switch to ${displayName}` });
  await eventually(async () => (await domains.count()) > 0 || (await withoutDomain.isVisible())).toBe(true);
  if (await withoutDomain.isVisible()) await withoutDomain.click();
  else await domains.first().click();
  await eventually(() => page.getByText(new RegExp(`^Now in ${displayName}`)).first().isVisible()).toBe(true);
}

async function judge(page: Page, name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.evaluate((value) => localStorage.setItem('theme', value), theme);
    await page.reload();
    await ready();
    await expectNoAxeViolations(page);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await ready();
      await screenshot(page, `${name}-${theme}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
});
afterAll(() => browser?.close());

describe('a reseller gets its own administrators in the one console', () => {
  let reseller: BrowserContext;
  let boss: Page;

  it('root creates the reseller and its first domain in the console, and gives it an administrator who is its Owner', async () => {
    await createCompany(root, RESELLER, RESELLER_NAME, 'reseller');
    await switchTo(root, RESELLER_NAME);
    await root.goto(`${baseUrl()}/onboarding-domains`);
    await eventually(() => button(root, 'Create the first domain').isVisible()).toBe(true);
    await button(root, 'Create the first domain').click();
    await root.getByLabel('Domain Name').fill('prod');
    await root.getByLabel('Description').fill('production');
    await button(root, 'Create').click();
    await eventually(() => root.getByText(`Created in ${RESELLER_NAME}`, { exact: true }).isVisible()).toBe(true);
    await giveAdministrator(root, RESELLER, 'prod', BOSS);
    // the company's first administrator, added by an Owner above, is its Owner (docs/CONSOLE.md, "Roles")
    const owner = await consoleApi(root, 'GET', `companys/${RESELLER}/roleAssignments?filter=${encodeURIComponent(JSON.stringify({ holderId: 'boss' }))}`);
    expect(owner.json, JSON.stringify(owner.json)).toEqual([expect.objectContaining({ role: 'owner', holderCompanyId: RESELLER, companyId: RESELLER, domainId: null })]);
  });

  it('her sign-in link names the reseller; she signs in and lands in her own company', async () => {
    reseller = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    boss = await reseller.newPage();
    await boss.goto(`${baseUrl()}/login?company=${RESELLER}`);
    await eventually(() => button(boss, 'Login').isEnabled()).toBe(true);
    expect(await boss.getByLabel('Organization (optional)').inputValue()).toBe(RESELLER);
    await judge(boss, 'reseller-signin-link', () => eventually(() => button(boss, 'Login').isEnabled()).toBe(true));

    // the link's organization, a wrong password: the same answer as anywhere
    await boss.getByLabel('Email').fill(BOSS);
    await boss.getByLabel('Password', { exact: true }).fill('not her password');
    await button(boss, 'Login').click();
    await eventually(() => boss.getByText(/Wrong email or password/).isVisible()).toBe(true);

    await boss.goto(`${baseUrl()}/login`);
    // remembered on this device: the form starts with her organization
    await eventually(() => boss.getByLabel('Organization (optional)').inputValue()).toBe(RESELLER);
    await boss.getByLabel('Email').fill(BOSS);
    await boss.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await button(boss, 'Login').click();
    await boss.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await eventually(() => switcher(boss).getAttribute('aria-label')).toBe(`Company and domain: ${RESELLER_NAME} › prod`);
    // the root company is above her: not hers to read
    expect((await consoleApi(boss, 'GET', 'companys/root')).status).not.toBe(200);
  });

  it('she creates a customer and its administrator, switches into it from the app bar and back', async () => {
    await createCompany(boss, CUSTOMER, CUSTOMER_NAME, 'customer');
    expect((await consoleApi(boss, 'POST', `companys/${CUSTOMER}/domainNames`, { name: 'main', description: 'the customer domain' })).status).toBe(201);
    await giveAdministrator(boss, CUSTOMER, 'main', `boss@${CUSTOMER}.example`);
    // she is the reseller's Owner: the customer's first administrator is the customer's Owner
    const customerOwner = await consoleApi(boss, 'GET', `companys/${CUSTOMER}/roleAssignments?filter=${encodeURIComponent(JSON.stringify({ holderId: 'boss', holderCompanyId: CUSTOMER }))}`);
    expect(customerOwner.json).toEqual([expect.objectContaining({ role: 'owner', companyId: CUSTOMER })]);

    await switchTo(boss, CUSTOMER_NAME);
    await eventually(() => switcher(boss).getAttribute('aria-label')).toBe(`Company and domain: ${CUSTOMER_NAME} › main`);
    await boss.goto(`${baseUrl()}/users`);
    await eventually(() => boss.getByRole('row').filter({ hasText: `boss@${CUSTOMER}.example` }).count()).toBe(1);
    // (a phone shows the list as cards, not table rows)
    await judge(boss, 'reseller-in-customer', () => eventually(() => boss.getByText(`boss@${CUSTOMER}.example`).first().isVisible()).toBe(true));

    await switchTo(boss, RESELLER_NAME);
    await eventually(() => switcher(boss).getAttribute('aria-label')).toBe(`Company and domain: ${RESELLER_NAME} › prod`);
    // her switcher reaches her subtree only: root is not offered
    await switcher(boss).click();
    const search = boss.getByRole('combobox', { name: 'Search companies' });
    await eventually(() => search.isVisible()).toBe(true);
    await search.fill('Root');
    await boss.waitForTimeout(600);
    expect(await boss.getByRole('listbox').getByRole('option', { name: /^Root\b/ }).count()).toBe(0);
    await boss.keyboard.press('Escape');
    await reseller.close();
  });

  it('the customer\'s administrator signs in with the link the reseller sends', async () => {
    const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl()}/login?company=${CUSTOMER}&domain=main`);
    await eventually(() => button(page, 'Login').isEnabled()).toBe(true);
    await page.getByLabel('Email').fill(`boss@${CUSTOMER}.example`);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await button(page, 'Login').click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await eventually(() => switcher(page).getAttribute('aria-label')).toBe(`Company and domain: ${CUSTOMER_NAME} › main`);
    await context.close();
  });
});

