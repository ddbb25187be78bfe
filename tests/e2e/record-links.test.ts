/**
 * Record addresses (docs/CONSOLE.md, "Routes"; DECISIONS 37) in Chromium against the running provider
 * (npm run test:e2e): a user's link opened in a fresh browser context signs in first and then shows
 * that user; a link into another domain of the same company switches there and says so; the Audit
 * log names the changed user and links her address; another tenant's administrator opening the link
 * gets "Not found, or not yours" and stays in her own company. The suite shares one server: the
 * records here are this run's own (unique names). axe, and screenshots light and dark at a laptop's
 * and a phone's width (test-results/screenshots/links-*.png).
 */
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEmail, adminPassword, baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const OTHER_DOMAIN = `links-${run}`;
const CHILD = `links-co-${run}`;
const PASSWORD = 'Links-Pass-1';
const BOSS = `boss@${CHILD}.example`;
const ADA = { username: `links-ada-${run}`, displayName: `Links Ada ${run}`, email: `links-ada-${run}@example.com`, notes: '' };
const BEA = { username: `links-bea-${run}`, displayName: `Links Bea ${run}`, email: `links-bea-${run}@example.com`, notes: '' };

let company = '';
let domain = '';
let adaId = '';
let beaId = '';

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 250 });
const switcher = (page: Page) => page.getByRole('button', { name: /^Company and domain: / });
const link = (userId: string, inDomain: string) => `/users/${encodeURIComponent(userId)}?company=${encodeURIComponent(company)}&domain=${encodeURIComponent(inDomain)}`;

/** Both themes (reloaded per theme, as a person's choice is), axe, and screenshots at 1280 and 390 px. */
async function judge(page: Page, name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.evaluate((value) => localStorage.setItem('theme', value), theme);
    await page.reload();
    await ready();
    await expectNoAxeViolations(page);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      // a phone's width may open the side bar over the page: the screen is what is judged
      if (width === 390 && (await page.locator('.MuiDrawer-modal').count()) > 0) await page.keyboard.press('Escape');
      await ready();
      await page.waitForTimeout(300);
      await screenshot(page, `links-${name}-${theme}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

/** The sign-in form the console sent a signed-out visitor to; after it she is back at the address. */
async function signInFromLink(page: Page, who: { email: string; password: string; organization?: string }) {
  // the console sends a signed-out visitor to the sign-in form, remembering the address
  await eventually(() => page.getByRole('button', { name: 'Login' }).isVisible()).toBe(true);
  expect(new URL(page.url()).pathname).toMatch(/^\/(login)?$/);
  if (who.organization) await page.getByLabel('Organization (optional)').fill(who.organization);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Login' }).click();
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  ({ company, domain } = await root.evaluate(() => ({
    company: JSON.parse(sessionStorage.getItem('company') ?? '{}').id as string,
    domain: JSON.parse(sessionStorage.getItem('domain') ?? '{}').id as string,
  })));
  const base = `companys/${encodeURIComponent(company)}/domainNames`;
  const other = await consoleApi(root, 'POST', base, { name: OTHER_DOMAIN, description: 'record links test' });
  expect(other.status, JSON.stringify(other.json)).toBe(201);
  const ada = await consoleApi(root, 'POST', `${base}/${encodeURIComponent(domain)}/users`, ADA);
  expect(ada.status, JSON.stringify(ada.json)).toBe(201);
  adaId = ada.json.id;
  const bea = await consoleApi(root, 'POST', `${base}/${OTHER_DOMAIN}/users`, BEA);
  expect(bea.status, JSON.stringify(bea.json)).toBe(201);
  beaId = bea.json.id;

  // another tenant: a customer company with its own administrator
  const child = await consoleApi(root, 'POST', 'companys', { name: CHILD, displayName: `Links Co ${run}`, description: 'another tenant', type: 'customer', parent: company });
  expect(child.status, JSON.stringify(child.json)).toBe(201);
  const childBase = `companys/${CHILD}/domainNames`;
  expect((await consoleApi(root, 'POST', childBase, { name: 'main', description: 'main' })).status).toBe(201);
  const group = await consoleApi(root, 'POST', `${childBase}/main/groups`, { name: 'administrators', displayName: 'Administrators', email: `admins@${CHILD}.example` });
  expect([201, 409]).toContain(group.status);
  const boss = await consoleApi(root, 'POST', `${childBase}/main/users`, {
    id: 'boss',
    username: `boss-${CHILD}`,
    displayName: `Boss of ${CHILD}`,
    email: BOSS,
    authVerification: await bcrypt.hash(PASSWORD, 10),
  });
  expect(boss.status, JSON.stringify(boss.json)).toBe(201);
  const member = await consoleApi(root, 'POST', `${childBase}/main/groups/administrators/members`, [{ type: 'user', id: 'boss' }]);
  expect([200, 201]).toContain(member.status);
}, 120_000);
afterAll(() => browser?.close());

describe('record addresses', () => {
  it("a user's link opened in a fresh browser (a new tab) shows that user after sign-in", async () => {
    const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl()}${link(adaId, domain)}`);
    await signInFromLink(page, { email: adminEmail(), password: adminPassword() });
    await page.waitForURL((url) => url.pathname === `/users/${adaId}`, { timeout: 30_000 });
    await eventually(() => page.getByLabel('Display Name').first().inputValue()).toBe(ADA.displayName);
    // view mode, with the user's tabs
    await eventually(() => page.getByRole('button', { name: 'Edit' }).isVisible()).toBe(true);
    expect(await page.getByRole('tab', { name: 'History' }).isVisible()).toBe(true);
    await judge(page, 'user', () => eventually(() => page.getByLabel('Display Name').first().inputValue()).toBe(ADA.displayName));
    await context.close();
  }, 180_000);

  it('a link into another domain of the same company switches to it and says so', async () => {
    await root.goto(`${baseUrl()}${link(beaId, OTHER_DOMAIN)}`);
    await eventually(() => root.getByLabel('Display Name').first().inputValue()).toBe(BEA.displayName);
    await eventually(() => switcher(root).getAttribute('aria-label')).toMatch(new RegExp(`› ${OTHER_DOMAIN}$`));
    await eventually(() => root.getByText(new RegExp(`^Now in .* › ${OTHER_DOMAIN}$`)).first().isVisible()).toBe(true);
    expect(await root.evaluate(() => JSON.parse(sessionStorage.getItem('domain') ?? '{}').id)).toBe(OTHER_DOMAIN);
  }, 120_000);

  it('the Audit log names the changed user and links her address; the History tab opens it filtered to her', async () => {
    // from Bea's History tab: the Audit log, filtered to her record
    await root.getByRole('tab', { name: 'History' }).click();
    await root.getByRole('link', { name: 'Open in the Audit log' }).click();
    await root.waitForURL(/\/audit-log\?/);
    const named = root.getByRole('row').getByRole('link', { name: BEA.displayName, exact: true });
    await eventually(() => named.count()).toBe(1);
    expect(await named.getAttribute('href')).toBe(link(beaId, OTHER_DOMAIN));
    // one record only: hers
    await eventually(() => root.getByRole('row').count()).toBe(2);
    await screenshot(root, 'links-audit-log-light-1280');
    await named.click();
    await root.waitForURL((url) => url.pathname === `/users/${beaId}`);
    await eventually(() => root.getByLabel('Display Name').first().inputValue()).toBe(BEA.displayName);
  }, 120_000);

  it("another tenant's administrator opening the link gets 'Not found, or not yours' and stays in her company", async () => {
    const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl()}${link(adaId, domain)}`);
    await signInFromLink(page, { email: BOSS, password: PASSWORD, organization: CHILD });
    const heading = page.locator('h1', { hasText: 'Not found, or not yours' });
    await eventually(() => heading.isVisible()).toBe(true);
    expect(await page.getByText(new RegExp(`There is no user "${adaId}" that you can see here`)).isVisible()).toBe(true);
    expect(await page.getByText(ADA.displayName).count()).toBe(0);
    await eventually(() => switcher(page).getAttribute('aria-label')).toMatch(new RegExp(`^Company and domain: Links Co ${run} › main$`));
    await judge(page, 'not-found', () => eventually(() => heading.isVisible()).toBe(true));
    await page.getByRole('button', { name: 'Back to All users' }).click();
    await page.waitForURL((url) => url.pathname === '/users');
    await context.close();
  }, 180_000);
});
