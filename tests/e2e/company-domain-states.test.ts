/**
 * Issue 11 in Chromium (npm run test:e2e): a company with no domain is a state with a way forward,
 * the primary domain stays marked whichever domain is current, and actions the provider would refuse
 * are disabled with a tooltip saying why. No API call is made with an empty path segment. Axe
 * (WCAG 2 A/AA) and light and dark screenshots of each screen.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, clickUntil, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;
const apiCalls: string[] = [];

const run = Date.now().toString(36);
const RESELLER = `cds-res-${run}`;
const CUSTOMER = `cds-cus-${run}`;
const FIRST = `first-${run}.e2e.test`;
const SECOND = `second-${run}.e2e.test`;

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (name: string) => page.getByRole('button', { name, exact: true });
const row = (text: string) => page.getByRole('row').filter({ hasText: text });
const sidebarHeading = () => page.getByRole('navigation', { name: 'IAM Console' }).getByRole('heading', { level: 2 });
const guidance = (company: string) => page.getByRole('heading', { name: `Company ${company} has no domain yet` });

/** Calls the management API with the console's own token. */
async function api(method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const token = JSON.parse(sessionStorage.getItem('accessToken')!);
      const response = await fetch(`/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return response.status;
    },
    { method, path, body },
  );
}

/** API paths the page asked for with an empty segment (`/domainNames//users`) or a trailing slash. */
const emptySegmentCalls = () => apiCalls.filter((url) => /\/\/|\/$/.test(new URL(url).pathname));

async function switchTo(company: string) {
  await page.goto(`${baseUrl()}/onboarding-companies?perPage=15&page=1`);
  await eventually(() => row(company).count()).toBe(1);
  await row(company).getByRole('checkbox').check();
  await button('Switch').click();
  await eventually(() => sidebarHeading().textContent()).toContain(company);
}

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Both themes: screenshot and axe; the page is reloaded for the theme (the session stays). */
async function judge(name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(theme);
    await page.reload();
    await ready();
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(600);
    await screenshot(page, `company-domain-states-${name}-${theme}`);
    await expectNoAxeViolations(page);
  }
  await setTheme('light');
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  page.on('request', (request: Request) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) apiCalls.push(request.url());
  });
  await signIn(page);
  expect(await api('POST', '/companys', { id: RESELLER, name: RESELLER, displayName: RESELLER, description: 'reseller without a domain', type: 'reseller', parent: 'root' })).toBeLessThan(300);
  expect(await api('POST', '/companys', { id: CUSTOMER, name: CUSTOMER, displayName: CUSTOMER, description: 'customer', type: 'customer', parent: 'root' })).toBeLessThan(300);
});
afterAll(() => browser?.close());

describe('a company with no domain yet', () => {
  it('switching to it shows the company without "[]" and guidance on every screen that needs a domain', async () => {
    await switchTo(RESELLER);
    await eventually(() => sidebarHeading().textContent()).toBe(RESELLER);

    for (const path of ['/dashboard', '/users', '/users-deleted', '/groups', '/groups-deleted', '/applications', '/apis', '/onboarding-domains']) {
      await page.goto(`${baseUrl()}${path}`);
      await eventually(() => guidance(RESELLER).isVisible()).toBe(true);
      expect(await button('Create the first domain').isVisible()).toBe(true);
    }
    await page.waitForLoadState('networkidle');
    expect(emptySegmentCalls()).toEqual([]);

    await page.goto(`${baseUrl()}/users`);
    await judge('users-no-domain', () => eventually(() => guidance(RESELLER).isVisible()).toBe(true));
    await page.goto(`${baseUrl()}/dashboard`);
    await judge('dashboard-no-domain', () => eventually(() => guidance(RESELLER).isVisible()).toBe(true));
    expect(emptySegmentCalls()).toEqual([]);
  });

  it('creates its first domain from the guidance, after which the screens work', async () => {
    await page.goto(`${baseUrl()}/users`);
    await button('Create the first domain').click();
    await page.waitForURL(/\/onboarding-domain-new$/);
    await page.getByLabel('Domain Name').fill(FIRST);
    await page.getByLabel('Description').fill('first domain');
    await button('Create').click();
    await page.waitForURL(/\/users$/);
    await eventually(() => sidebarHeading().textContent()).toBe(`${RESELLER} [${FIRST}]`);
    await eventually(() => page.getByText('No users yet.', { exact: false }).isVisible()).toBe(true);
    for (const path of ['/groups', '/applications', '/apis']) {
      await page.goto(`${baseUrl()}${path}`);
      await eventually(() => button('New').isVisible()).toBe(true);
      expect(await guidance(RESELLER).count()).toBe(0);
    }
    await page.goto(`${baseUrl()}/dashboard`);
    const domainsCard = page.getByRole('region', { name: 'Domains' });
    await eventually(() => domainsCard.textContent()).toContain(FIRST.toUpperCase());
    await eventually(() => domainsCard.textContent()).toContain('Primary');
    await page.waitForLoadState('networkidle');
    expect(emptySegmentCalls()).toEqual([]);
  });
});

describe('the primary domain on the Domains screen', () => {
  it('stays marked on the primary domain when another domain is made current', async () => {
    await page.goto(`${baseUrl()}/onboarding-domains`);
    const current = page.getByRole('region', { name: 'Current domain' });
    await eventually(() => current.textContent()).toContain(FIRST);
    await eventually(() => current.getByText('Primary', { exact: true }).isVisible()).toBe(true);

    await button('New').click();
    await page.waitForURL(/\/onboarding-domain-new$/);
    await page.getByLabel('Domain Name').fill(SECOND);
    await page.getByLabel('Description').fill('second domain');
    await button('Create').click();
    await page.waitForURL(/\/onboarding-domains$/);
    await eventually(() => row(SECOND).count()).toBe(1);
    expect(await row(SECOND).getByText('Primary', { exact: true }).count()).toBe(0);

    // Switch makes the second domain current without making it primary.
    await row(SECOND).getByRole('checkbox').check();
    await button('Switch').click();
    await eventually(() => sidebarHeading().textContent()).toBe(`${RESELLER} [${SECOND}]`);
    await eventually(() => current.textContent()).toContain(SECOND);
    await eventually(() => row(FIRST).count()).toBe(1);
    await eventually(() => row(FIRST).getByText('Primary', { exact: true }).isVisible()).toBe(true);
    expect(await current.getByText('Primary', { exact: true }).count()).toBe(0);

    // The primary domain cannot be made primary again nor deleted while another remains: disabled, with the reason.
    await row(FIRST).getByRole('checkbox').check();
    expect(await button('Set Primary').isDisabled()).toBe(true);
    await button('Set Primary').locator('..').hover();
    await eventually(() => page.getByRole('tooltip').textContent()).toBe(`Domain ${FIRST} is already the primary domain`);
    await screenshot(page, 'company-domain-states-domains-primary-tooltip');
    await page.mouse.move(0, 0);
    await row(FIRST).getByRole('checkbox').uncheck();
    await judge('domains-two', () => eventually(() => row(FIRST).getByText('Primary', { exact: true }).isVisible()).toBe(true));

    // The dashboard marks the primary one too, not the current one.
    await page.goto(`${baseUrl()}/dashboard`);
    const items = page.getByRole('region', { name: 'Domains' }).getByRole('listitem');
    await eventually(() => items.count()).toBe(2);
    expect(await items.first().textContent()).toContain(`${SECOND.toUpperCase()} · Current`);
    expect(await items.first().textContent()).not.toContain('Primary');
    expect(await items.nth(1).textContent()).toContain('Primary');
    await judge('dashboard-two-domains', () => eventually(() => items.count()).toBe(2));
    expect(emptySegmentCalls()).toEqual([]);
  });
});

describe('a customer company', () => {
  it('does not offer New, and says why in a tooltip reachable from the keyboard', async () => {
    await page.goto(`${baseUrl()}/onboarding-companies?perPage=15&page=1`);
    await clickUntil(button('Parent'), async () => (await sidebarHeading().textContent()) === 'Root [default]');
    await eventually(() => row(CUSTOMER).textContent()).toContain('customer');
    await eventually(() => row(RESELLER).textContent()).toContain('reseller');
    await switchTo(CUSTOMER);
    await eventually(() => button('New').isDisabled()).toBe(true);
    const wrapper = button('New').locator('..');
    await wrapper.focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    await eventually(() => page.getByRole('tooltip').textContent()).toBe('A customer company cannot have child companies');
    await screenshot(page, 'company-domain-states-customer-new-tooltip');
    await expectNoAxeViolations(page);
    await judge('companies-customer', () => eventually(() => button('New').isDisabled()).toBe(true));
    // Back to root for other tests on this server.
    await clickUntil(button('Parent'), async () => (await sidebarHeading().textContent()) === 'Root [default]');
    expect(emptySegmentCalls()).toEqual([]);
  });
});
