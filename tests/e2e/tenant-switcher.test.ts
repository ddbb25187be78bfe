/**
 * The app bar's company and domain switcher (docs/CONSOLE.md, "Layout") in Chromium against the
 * running provider (npm run test:e2e): the root administrator switches into a reseller created
 * through the API, picks its domain with the keyboard, creates a domain there (the notification
 * says where), and goes back through the recent choices. axe with the dialog open; screenshots
 * light and dark, at a laptop's and a phone's width, and with the side bar collapsed.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickUntil, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

const run = Date.now().toString(36);
const COMPANY = `globex-${run}`;
const DISPLAY_NAME = `Globex Trading ${run}`;
const PROD = `prod-${run}`;
const STAGING = `staging-${run}`;

/** The console loads lazily and the dialog debounces: give the page time before judging. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

const switcher = () => page.getByRole('button', { name: /^Company and domain: / });
const dialog = () => page.getByRole('dialog', { name: 'Company and domain' });
const sidebarHeading = () => page.getByRole('navigation', { name: 'IAM Console' }).getByRole('heading', { level: 2 });
const isFocused = (locator: ReturnType<Page['getByRole']>) => locator.evaluate((element) => element === document.activeElement);

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
  await page.reload();
  await eventually(() => switcher().isVisible()).toBe(true);
  // the screen has named itself in the app bar: what the screenshot shows is the loaded page
  await eventually(() => page.locator('#react-admin-title').textContent()).not.toBe('');
}

/** The dialog open on the companies step, its list shown. */
async function openSwitcher() {
  await clickUntil(switcher(), () => page.getByRole('combobox', { name: 'Search companies' }).isVisible());
  await eventually(() => page.getByRole('listbox').isVisible()).toBe(true);
  await page.waitForTimeout(400); // the dialog fades in
}

async function closeSwitcher() {
  await page.keyboard.press('Escape');
  await eventually(() => dialog().count()).toBe(0);
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
  await switcher().waitFor({ timeout: 20_000 });
  const company = await consoleApi(page, 'POST', 'companys', {
    name: COMPANY,
    displayName: DISPLAY_NAME,
    description: 'reseller of the switcher test',
    type: 'reseller',
    parent: 'root',
  });
  expect(company.status, JSON.stringify(company.json)).toBe(201);
  const domain = await consoleApi(page, 'POST', `companys/${COMPANY}/domainNames`, { name: PROD, description: 'production' });
  expect(domain.status, JSON.stringify(domain.json)).toBe(201);
});
afterAll(() => browser?.close());

describe('company and domain switcher', () => {
  it('switches into another company and domain with the keyboard, says where, and back through the recent choices', async () => {
    await setTheme('light');
    await eventually(() => switcher().getAttribute('aria-label')).toBe('Company and domain: Root › default');
    await screenshot(page, 'tenant-switcher-closed-light-1280');

    await switcher().focus();
    await page.keyboard.press('Enter');
    const companies = page.getByRole('combobox', { name: 'Search companies' });
    await eventually(() => companies.isVisible()).toBe(true);
    await eventually(() => isFocused(companies)).toBe(true);
    await page.keyboard.type(`trading ${run}`);
    const option = page.getByRole('option', { name: new RegExp(DISPLAY_NAME) });
    await eventually(() => option.isVisible()).toBe(true);
    await expectNoAxeViolations(page);
    await screenshot(page, 'tenant-switcher-search-light-1280');
    await page.keyboard.press('ArrowDown');
    await expect(option.getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Enter');

    const domains = page.getByRole('combobox', { name: `Search domains of ${DISPLAY_NAME}` });
    await eventually(() => domains.isVisible()).toBe(true);
    const prod = page.getByRole('option', { name: new RegExp(PROD) });
    await eventually(() => prod.getAttribute('aria-selected')).toBe('true');
    await expectNoAxeViolations(page);
    await screenshot(page, 'tenant-switcher-domains-light-1280');
    await page.keyboard.press('Enter');

    await eventually(() => dialog().count()).toBe(0);
    await eventually(() => page.getByText(`Now in ${DISPLAY_NAME} › ${PROD}`).isVisible()).toBe(true);
    await eventually(() => sidebarHeading().textContent()).toBe(`${DISPLAY_NAME} [${PROD}]`);
    await expect(switcher().getAttribute('aria-label')).resolves.toBe(`Company and domain: ${DISPLAY_NAME} › ${PROD}`);
    await eventually(() => isFocused(switcher())).toBe(true);

    // A create in the company says where it was made.
    await page.goto('/onboarding-domains');
    await eventually(() => page.getByRole('button', { name: 'New', exact: true }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByLabel('Domain Name').fill(STAGING);
    await page.getByLabel('Description').fill('staging');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await eventually(() => page.getByText(`Created in ${DISPLAY_NAME}`, { exact: true }).isVisible()).toBe(true);
    await page.waitForURL(/\/onboarding-domains$/);

    // Back where they came from: one of the recent choices.
    await openSwitcher();
    const recent = page.getByRole('group', { name: 'Recent' });
    await eventually(() => recent.getByRole('option').allTextContents()).toEqual(['Root › default']);
    await screenshot(page, 'tenant-switcher-open-light-1280');
    await recent.getByRole('option', { name: 'Root › default' }).click();
    await eventually(() => sidebarHeading().textContent()).toBe('Root [default]');
    await eventually(() => page.getByText('Now in Root › default').isVisible()).toBe(true);

    // The domain list of the company: the primary one first, marked; Escape gives the focus back.
    await openSwitcher();
    await page.keyboard.type(run);
    await page.getByRole('option', { name: new RegExp(DISPLAY_NAME) }).click();
    const rows = page.getByRole('listbox', { name: `Domains of ${DISPLAY_NAME}` }).getByRole('option');
    await eventually(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain('Primary');
    expect(await rows.first().textContent()).toContain(PROD);
    await closeSwitcher();
    await eventually(() => isFocused(switcher())).toBe(true);
  });

  it('is axe-clean and readable in the dark theme', async () => {
    await setTheme('dark');
    await screenshot(page, 'tenant-switcher-closed-dark-1280');
    await openSwitcher();
    await expectNoAxeViolations(page);
    await screenshot(page, 'tenant-switcher-open-dark-1280');
    await closeSwitcher();
  });

  it('stays in sight at a phone’s width and with the side bar collapsed, cut with an ellipsis', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/dashboard');
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(theme);
      await expect(switcher().isVisible()).resolves.toBe(true);
      const box = await switcher().boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      await screenshot(page, `tenant-switcher-closed-${theme}-390`);
      await openSwitcher();
      await expectNoAxeViolations(page);
      await screenshot(page, `tenant-switcher-open-${theme}-390`);
      await closeSwitcher();
    }
    // Long names are cut; the button's name (and tooltip) has them whole.
    await openSwitcher();
    await page.getByRole('group', { name: 'Recent' }).getByRole('option', { name: new RegExp(DISPLAY_NAME) }).click();
    await eventually(() => switcher().getAttribute('aria-label')).toBe(`Company and domain: ${DISPLAY_NAME} › ${PROD}`);
    const box = await switcher().boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'tenant-switcher-closed-dark-390-long-names');
    await openSwitcher();
    await page.getByRole('group', { name: 'Recent' }).getByRole('option', { name: 'Root › default' }).click();
    await eventually(() => switcher().getAttribute('aria-label')).toBe('Company and domain: Root › default');

    await page.setViewportSize({ width: 1280, height: 800 });
    await setTheme('light');
    await page.evaluate(() => localStorage.setItem('sidebar-expanded', 'false'));
    await page.reload();
    await eventually(() => switcher().isVisible()).toBe(true);
    await eventually(() => page.locator('#react-admin-title').textContent()).not.toBe('');
    await eventually(() => sidebarHeading().count()).toBe(0);
    await screenshot(page, 'tenant-switcher-sidebar-collapsed-light-1280');
    await page.evaluate(() => localStorage.setItem('sidebar-expanded', 'true'));
  });
});
