/**
 * The top bar's search dialog (docs/CONSOLE.md, "Layout") in Chromium against the running provider
 * (npm run test:e2e): a user created through the API is found and opened with the keyboard alone;
 * the query is then a recent search. axe with the dialog open, screenshots light and dark.
 */
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
});
afterAll(() => browser?.close());

const suffix = Date.now().toString(36);
const displayName = `Zenobia Quillfeather ${suffix}`;
const username = `zenobia-${suffix}`;

/** The console loads lazily and the dialog debounces: give the page time before judging. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

/** Creates the user through the provider API, as the signed-in administrator, in the session's domain. */
async function createUser() {
  const session = await page.evaluate(() => ({
    token: JSON.parse(sessionStorage.getItem('accessToken') ?? 'null') as string,
    company: JSON.parse(sessionStorage.getItem('company') ?? '{}') as { id: string },
    domain: JSON.parse(sessionStorage.getItem('domain') ?? '{}') as { id: string },
  }));
  const path = `/api/companys/${encodeURIComponent(session.company.id)}/domainNames/${encodeURIComponent(session.domain.id)}/users`;
  const response = await page.request.post(`${baseUrl()}${path}`, {
    headers: { Authorization: `Bearer ${session.token}` },
    data: { username, displayName, email: `${username}@example.com`, authVerification: await bcrypt.hash('Seeded-Pass-1', 10) },
  });
  expect(response.status(), await response.text()).toBe(201);
}

const dialog = () => page.getByRole('dialog', { name: 'Search' });
const field = () => page.getByRole('combobox', { name: 'Search' });

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
  await page.reload();
  await eventually(() => page.getByRole('button', { name: 'Search' }).isVisible()).toBe(true);
}

describe('search dialog', () => {
  it('finds a user with the keyboard alone, opens their view screen, then offers the search as recent', async () => {
    await createUser();
    await eventually(() => page.getByRole('button', { name: 'Search' }).isVisible()).toBe(true);

    await page.keyboard.press('Control+k');
    await eventually(() => field().isVisible()).toBe(true);
    await expect.poll(() => field().evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(`quillfeather ${suffix}`);
    const option = page.getByRole('option', { name: new RegExp(displayName) });
    await eventually(() => option.isVisible()).toBe(true);
    await expect(page.getByRole('group', { name: 'Users' }).textContent()).resolves.toContain(displayName);

    await expectNoAxeViolations(page);
    await screenshot(page, 'search-dialog-results-light');

    await page.keyboard.press('ArrowDown');
    await expect(option.getAttribute('aria-selected')).resolves.toBe('true');
    await expect(field().getAttribute('aria-activedescendant')).resolves.toBe(await option.getAttribute('id'));
    await page.keyboard.press('Enter');

    await page.waitForURL(/\/users\/[^/?]+\?company=/);
    await eventually(() => dialog().count()).toBe(0);
    await eventually(() => page.getByLabel('Display Name').inputValue()).toBe(displayName);
    await expect(page.getByLabel('User Name').inputValue()).resolves.toBe(username);
    // View mode: read-only, with Edit offered.
    await expect(page.getByRole('button', { name: 'Edit' }).isVisible()).resolves.toBe(true);

    await page.keyboard.press('Control+k');
    const recent = page.getByRole('listbox', { name: 'Recent searches' });
    await eventually(() => recent.isVisible()).toBe(true);
    await expect(recent.getByRole('option').first().textContent()).resolves.toBe(`quillfeather ${suffix}`);
    await expectNoAxeViolations(page);
    await screenshot(page, 'search-dialog-recent-light');
    await page.keyboard.press('Escape');
    await eventually(() => dialog().count()).toBe(0);
  });

  it('dark theme: results and recent searches, axe clean', async () => {
    await setTheme('dark');
    await page.keyboard.press('Control+k');
    await eventually(() => page.getByRole('listbox', { name: 'Recent searches' }).isVisible()).toBe(true);
    await expectNoAxeViolations(page);
    await screenshot(page, 'search-dialog-recent-dark');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('option', { name: new RegExp(displayName) }).isVisible()).toBe(true);
    await page.keyboard.press('ArrowDown');
    await expectNoAxeViolations(page);
    await screenshot(page, 'search-dialog-results-dark');
    await page.keyboard.press('Escape');
    await eventually(() => dialog().count()).toBe(0);
    await setTheme('light');
  });
});
