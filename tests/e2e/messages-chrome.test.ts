/**
 * Issue 11 in Chromium against the running provider (npm run test:e2e): a bad email is refused in
 * the browser with a sentence under the field and nothing sent, an internationalized one the
 * provider accepts goes through; a list's selection is gone after a create; every screen visited
 * has a title in the app bar. Axe and screenshots in the light and the dark theme.
 */
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;
/** Writes the console sends to the provider's API, as "METHOD path". */
const writes: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/') && request.method() !== 'GET') writes.push(`${request.method()} ${url.pathname}`);
  });
  await signIn(page);
});
afterAll(() => browser?.close());

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const run = Date.now().toString(36);
const EMAIL_SENTENCE = 'Enter a valid email address, such as name@example.com';
const appBarTitle = () => page.locator('#react-admin-title').innerText();

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Seeds users of the current domain through the provider API (what the journey needs, not what it tests). */
async function seedUsers(names: string[]) {
  const session = await page.evaluate(() => ({
    token: JSON.parse(sessionStorage.getItem('accessToken') ?? 'null') as string,
    company: JSON.parse(sessionStorage.getItem('company') ?? '{}') as { id: string },
    domain: JSON.parse(sessionStorage.getItem('domain') ?? '{}') as { id: string },
  }));
  const hash = await bcrypt.hash('Seeded-Pass-1', 10);
  for (const name of names) {
    const response = await page.request.post(
      `${baseUrl()}/api/companys/${session.company.id}/domainNames/${session.domain.id}/users`,
      {
        headers: { Authorization: `Bearer ${session.token}` },
        data: { username: name, displayName: name, email: `${name}@example.com`, authVerification: hash },
      },
    );
    expect(response.status(), await response.text()).toBe(201);
  }
}

async function openUsers(search: string) {
  await page.goto(`${baseUrl()}/users`);
  await eventually(() => page.getByRole('button', { name: 'New' }).isVisible()).toBe(true);
  await page.getByPlaceholder('Search').first().fill(search);
  await page.waitForTimeout(700);
  await page.waitForLoadState('networkidle');
}

const rowCheckbox = (name: string) => page.getByRole('row').filter({ hasText: name }).getByRole('checkbox');

async function fillNewUser(name: string, email: string) {
  await page.getByLabel('User Name').fill(name);
  await page.getByLabel('Display Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill('Secret-Pass-1');
  await page.getByLabel('Confirm Password').fill('Secret-Pass-1');
}

describe('messages are sentences, checked in the browser first', () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`refuses a malformed email under the field without sending anything (${theme})`, async () => {
      await setTheme(theme);
      await page.goto(`${baseUrl()}/users-new`);
      await eventually(() => page.getByRole('heading', { name: 'New user', level: 1 }).isVisible()).toBe(true);
      await fillNewUser(`e2e-bad-${theme}-${run}`, 'ada@example..com');
      const before = writes.length;
      await page.getByRole('button', { name: 'Create' }).click();

      const email = page.getByLabel('Email');
      await eventually(() => email.getAttribute('aria-invalid')).toBe('true');
      // the sentence is the field's description, under it
      const described = await email.getAttribute('aria-describedby');
      await eventually(() => page.locator(`#${described}`).innerText()).toBe(EMAIL_SENTENCE);
      expect(await page.getByText(/idn-email|body\//).count()).toBe(0);
      await page.waitForTimeout(500);
      expect(writes.slice(before)).toEqual([]);

      await page.waitForTimeout(600); // the invalid-form notification fades in
      await screenshot(page, `messages-bad-email-${theme}`);
      await expectNoAxeViolations(page);
    });
  }
});

describe('selections do not outlive their context', () => {
  it('a create leaves the list with nothing selected; an internationalized email passes the browser check', async () => {
    await setTheme('light');
    const prefix = `e2e-sel-${run}`;
    await seedUsers([`${prefix}-a`, `${prefix}-b`]);
    await openUsers(prefix);
    await rowCheckbox(`${prefix}-a`).check();
    await rowCheckbox(`${prefix}-b`).check();
    await eventually(() => page.getByText('2 items selected').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Delete', exact: true }).isEnabled()).toBe(true);

    await page.getByRole('button', { name: 'New' }).click();
    await page.waitForURL(/\/users-new$/);
    const created = `${prefix}-c`;
    await fillNewUser(created, `josé-${run}@exämple.com`);
    const before = writes.length;
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/users(\?|$)/, { timeout: 30_000 });
    expect(writes.slice(before)).toEqual([expect.stringMatching(/^POST \/api\/companys\/.+\/users$/)]);

    await page.waitForLoadState('networkidle');
    await eventually(() => page.getByRole('row').filter({ hasText: created }).count()).toBe(1);
    for (const name of [`${prefix}-a`, `${prefix}-b`, created]) expect(await rowCheckbox(name).isChecked()).toBe(false);
    expect(await page.getByText(/[1-9]\d* items? selected/).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete', exact: true }).isDisabled()).toBe(true);
    await screenshot(page, 'messages-selection-cleared-light');
    await expectNoAxeViolations(page);
  });
});

describe('every screen has a title in the app bar', () => {
  const screens: [string, string][] = [
    ['/dashboard', 'Dashboard'],
    ['/onboarding-companies', 'Companies'],
    ['/onboarding-company-new', 'New company'],
    ['/onboarding-domains', 'Domains'],
    ['/onboarding-domain-new', 'New domain'],
    ['/users', 'Users'],
    ['/users-deleted', 'Deleted users'],
    ['/users-new', 'New user'],
    ['/groups', 'Groups'],
    ['/groups-new', 'New group'],
    ['/applications', 'Applications'],
    ['/applications-new', 'New application'],
    ['/applications-view', 'Application'],
    ['/apis', 'APIs'],
    ['/apis-new', 'New API'],
    ['/apis-view', 'API'],
    ['/settings/account', 'Page not found'],
    ['/no-such-screen', 'Page not found'],
  ];
  for (const theme of ['light', 'dark'] as const) {
    it(`shows the screen's title on each screen (${theme})`, async () => {
      await setTheme(theme);
      for (const [path, title] of screens) {
        await page.goto(`${baseUrl()}${path}`);
        await eventually(() => appBarTitle().catch(() => '')).toBe(title);
      }
      // one of them, judged and pictured: the wizard with its selects showing their defaults
      await page.goto(`${baseUrl()}/apis-new`);
      await page.getByLabel(/^Name/).fill('Chrome check');
      await page.getByLabel(/^Identifier/).fill(`https://chrome-${run}.example`);
      await page.getByRole('button', { name: 'Next' }).click();
      await eventually(() => page.getByRole('combobox', { name: /Signing Algorithm/ }).innerText()).toBe('RS256');
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(600);
      await screenshot(page, `messages-api-wizard-${theme}`);
      await expectNoAxeViolations(page);
    });
  }
});
