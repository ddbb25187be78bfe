/**
 * The administrator's way through (issue 35) in Chromium against the running provider (npm run
 * test:e2e): a company's first domain created without a reload leaves Domains and Companies showing
 * their data (they used to wait on "Please wait" for good); the current domain's settings are one
 * click from the Domains card, the dashboard and the switcher; a side-bar link opens a list afresh
 * with the rows per page chosen for it; a Support agent's screens ask for nothing her role cannot
 * read (no 403). axe, and screenshots of the Domains card and the dashboard, light and dark.
 */
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

const run = Date.now().toString(36);
const COMPANY = `way-${run}`;
const FIRST = `first-${run}.e2e.test`;
const PASSWORD = 'Way-Through-1';
const SUPPORT = { id: `way-support-${run}`, name: `Sue Support ${run}`, email: `way-support-${run}@example.com` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const menuItem = (name: string) => page.getByRole('menuitem', { name, exact: true });
const main = () => page.locator('#main-content');

/** Opens a side-bar group when it is closed, then follows one of its links (no reload). */
async function menu(group: string, entry: string) {
  if (!(await menuItem(entry).isVisible())) await menuItem(group).click();
  await menuItem(entry).click();
}

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Both themes: reload, wait for `ready`, axe, then a screenshot of the page or of one part. */
async function judge(name: string, ready: () => Promise<unknown>, part?: () => ReturnType<Page['locator']>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(theme);
    await page.reload();
    await ready();
    await page.waitForTimeout(500);
    await expectNoAxeViolations(page);
    if (part) await part().screenshot({ path: `test-results/screenshots/way-${name}-${theme}.png` });
    else await screenshot(page, `way-${name}-${theme}`);
  }
  await setTheme('light');
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
  const made = await consoleApi(page, 'POST', 'companys', { id: COMPANY, name: COMPANY, displayName: `Way ${run}`, description: 'no domain yet', type: 'customer', parent: 'root' });
  expect(made.status, JSON.stringify(made.json)).toBeLessThan(300);
});
afterAll(() => browser?.close());

describe("the administrator's way through", () => {
  it("a company's first domain, created without a reload: Domains, then Companies, show their data", async () => {
    // from the dashboard (it asks whether companies and domains may be listed) through the switcher
    await page.getByRole('button', { name: /^Company and domain: / }).click();
    await page.getByRole('combobox', { name: 'Search companies' }).fill(COMPANY);
    await page.getByRole('option', { name: new RegExp(`Way ${run}`) }).click();
    await page.getByRole('button', { name: `Switch to Way ${run}` }).click();
    await eventually(() => page.getByText(`Now in Way ${run} (no domain yet)`).count()).toBeGreaterThan(0);

    await menu('Onboarding', 'Domains');
    await page.getByRole('region', { name: 'Current domain' }).getByRole('button', { name: 'Create the first domain' }).click();
    await page.getByLabel(/Domain Name/).fill(FIRST);
    await page.getByLabel(/Description/).fill('The first one');
    await page.getByRole('button', { name: 'Create', exact: true }).click();

    await eventually(() => main().getByText('No other domain yet. Choose New to create one.').count()).toBe(1);
    await expect(page.getByRole('region', { name: 'Current domain' }).textContent()).resolves.toContain(FIRST);
    expect(await main().getByText('Please wait').count()).toBe(0);

    await menu('Onboarding', 'Companies');
    await eventually(() => main().getByText('No child companies yet. Choose New to create one under this company.').count()).toBe(1);
    expect(await main().getByText('Please wait').count()).toBe(0);
  }, 120_000);

  it("the current domain's settings are one click away: the Domains card, the dashboard, the switcher", async () => {
    await menu('Onboarding', 'Domains');
    const card = page.getByRole('region', { name: 'Current domain' });
    await card.getByRole('link', { name: 'Security policy' }).click();
    await eventually(() => page.getByRole('tab', { name: 'Security', selected: true }).count()).toBe(1);
    expect(new URL(page.url()).search).toBe(`?company=${COMPANY}&tab=security`);

    await menu('Dashboard', 'Main');
    await page.getByRole('link', { name: `View ${FIRST.toUpperCase()}` }).click();
    await eventually(() => new URL(page.url()).pathname).toBe(`/domains/${FIRST}`);
    await eventually(() => page.getByRole('tab', { name: 'General', selected: true }).count()).toBe(1);

    await page.getByRole('button', { name: /^Company and domain: / }).click();
    await page.getByRole('link', { name: `Settings of domain ${FIRST}` }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe(`/domains/${FIRST}`);

    await menu('Onboarding', 'Domains');
    await judge('domains-card', () => card.getByRole('link', { name: 'Domain settings' }).waitFor(), () => card);
    await menu('Dashboard', 'Main');
    await judge('dashboard', () => page.getByRole('link', { name: 'All domains' }).waitFor());
  }, 180_000);

  it('a side-bar link opens its list afresh, with the rows per page chosen for it', async () => {
    // back in root, where there are companies to list
    await page.getByRole('button', { name: /^Company and domain: / }).click();
    await page.getByRole('combobox', { name: 'Search companies' }).fill('root');
    await page.getByRole('option', { name: /root/i }).first().click();
    await page.getByRole('option').first().click();
    await menu('Onboarding', 'Companies');
    await eventually(() => page.getByRole('combobox', { name: 'Rows per page' }).count()).toBe(1);
    await page.getByRole('combobox', { name: 'Rows per page' }).click();
    await page.getByRole('option', { name: '25', exact: true }).click();
    await page.getByPlaceholder('Search').fill(COMPANY);
    await eventually(() => new URL(page.url()).searchParams.get('filter')).toContain(COMPANY);

    await menu('Onboarding', 'Domains');
    await menu('Onboarding', 'Companies');
    expect(new URL(page.url()).search).toBe('?page=1');
    await eventually(() => page.getByRole('combobox', { name: 'Rows per page' }).textContent()).toBe('25');
    await expect(page.getByPlaceholder('Search').inputValue()).resolves.toBe('');
  }, 120_000);

  it("a Support agent's screens ask for nothing her role cannot read, and Ctrl+K keeps what she types at once", async () => {
    const made = await consoleApi(page, 'POST', 'companys/root/domainNames/default/users', {
      id: SUPPORT.id,
      username: SUPPORT.id,
      displayName: SUPPORT.name,
      email: SUPPORT.email,
      authVerification: await bcrypt.hash(PASSWORD, 10),
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const given = await consoleApi(page, 'POST', 'companys/root/roleAssignments', { role: 'support', holderType: 'user', holderId: SUPPORT.id, holderCompanyId: 'root', holderDomainId: 'default' });
    expect(given.status, JSON.stringify(given.json)).toBe(201);

    const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    const support = await context.newPage();
    const refused: string[] = [];
    support.on('response', (response) => {
      if (response.status() === 403 && new URL(response.url()).pathname.startsWith('/api/')) refused.push(response.url());
    });
    await signIn(support, { email: SUPPORT.email, password: PASSWORD });
    // her own user screen's Sign-ins tab (her sign-in is there), then the sign-in logs
    await support.goto(`${baseUrl()}/users/${SUPPORT.id}?company=root&domain=default`);
    await support.getByRole('tab', { name: 'Sign-ins' }).click();
    await eventually(() => support.getByRole('tabpanel').getByText('Signed in').count()).toBeGreaterThan(0);
    for (const tab of ['General', 'History', 'Sessions']) {
      await support.getByRole('tab', { name: tab }).click();
      await support.waitForLoadState('networkidle');
    }
    await support.goto(`${baseUrl()}/sign-in-logs`);
    await eventually(() => support.getByRole('textbox', { name: 'Application' }).count()).toBe(1);
    await support.waitForLoadState('networkidle');
    // the other screens she reaches: the lists of her menu, a group's tabs, the dashboard, the search
    for (const path of ['/users', '/groups', '/audit-log', '/outbox', '/dashboard', '/groups/administrators?company=root&domain=default']) {
      await support.goto(`${baseUrl()}${path}`);
      await support.waitForLoadState('networkidle');
    }
    for (const tab of ['Members', 'Permissions', 'History']) {
      await support.getByRole('tab', { name: tab }).click();
      await support.waitForLoadState('networkidle');
    }
    await support.keyboard.press('Control+k');
    await support.keyboard.type('adm');
    await eventually(() => support.getByRole('combobox', { name: 'Search' }).inputValue()).toBe('adm');
    await support.waitForLoadState('networkidle');
    await support.waitForTimeout(500);
    expect(refused).toEqual([]);
    await context.close();
  }, 120_000);
});
