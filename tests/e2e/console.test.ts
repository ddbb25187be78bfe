/**
 * Issue 3 in Chromium against the running provider (npm run test:e2e): sign-in through the /login
 * form, dashboard, companies (create, view, edit, switch, parent), domains (create, set primary),
 * the 404 page, the theme and side-bar preferences across a reload, logout; then axe (WCAG 2 A/AA)
 * and light/dark screenshots of each of these screens.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEmail, adminPassword, baseUrl, clickUntil, expectNoAxeViolations, launchBrowser, newPage, screenshot } from './browser.js';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
});
afterAll(() => browser?.close());

/** The console loads lazily and lists debounce: give the page time before judging. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

const row = (text: string) => page.getByRole('row').filter({ hasText: text });
const sidebarHeading = () => page.getByRole('navigation', { name: 'IAM Console' }).getByRole('heading', { level: 2 });
const button = (name: string) => page.getByRole('button', { name, exact: true });
const tokenCookie = async (target: Page = page) => (await target.context().cookies()).find((cookie) => cookie.name === 'tokenJson');

/** The list's New, until its form opens (browser.ts clickUntil). */
async function openNew(form: RegExp) {
  if (form.test(new URL(page.url()).pathname)) return;
  await clickUntil(button('New'), async () => form.test(new URL(page.url()).pathname));
}

/** The names this run creates; unique per run so a reused server does not see duplicates. */
const run = Date.now().toString(36);
const COMPANY = `e2e-co-${run}`;
const OTHER_COMPANY = `e2e-other-${run}`;
const FIRST_DOMAIN = `one-${run}.e2e.test`;
const SECOND_DOMAIN = `two-${run}.e2e.test`;
const MANY = 'perPage=15&page=1';

/** Fills the /login form and submits it; ends on /dashboard. */
async function signInThroughForm(target: Page, remember: boolean) {
  await target.goto(`${baseUrl()}/login`);
  await target.getByLabel('Email').fill(adminEmail());
  await target.getByLabel('Password', { exact: true }).fill(adminPassword());
  if (remember) await target.getByLabel('Remember me').check();
  // The button waits for the PKCE request to be prepared.
  await eventually(() => target.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
  await target.getByRole('button', { name: 'Login' }).click();
  await target.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
}

/** The companies list; `query` (e.g. perPage=15) keeps this run's rows on page 1 on a reused server. */
async function openCompanies(query = '') {
  await page.goto(`${baseUrl()}/onboarding-companies${query ? `?${query}` : ''}`);
  await eventually(() => button('New').isVisible()).toBe(true);
  await page.waitForLoadState('networkidle');
}

async function openDomains() {
  await page.goto(`${baseUrl()}/onboarding-domains`);
  await eventually(() => button('New').isVisible()).toBe(true);
  await page.waitForLoadState('networkidle');
}

/** Creates a company through New → form → Create; ends back on the list with its row shown. */
async function createCompany(name: string, displayName: string, description: string) {
  await openNew(/\/onboarding-company-new$/);
  await eventually(() => page.getByRole('heading', { name: 'New company', level: 1 }).isVisible()).toBe(true);
  await page.getByLabel('Company Name').fill(name);
  await page.getByLabel('Display Name').fill(displayName);
  await page.getByLabel('Description').fill(description);
  await button('Create').click();
  await page.waitForURL(/\/onboarding-companies(\?|$)/);
  await eventually(() => row(name).count()).toBe(1);
}

async function createDomain(name: string, description: string) {
  await openNew(/\/onboarding-domain-new$/);
  await eventually(() => page.getByRole('heading', { name: 'New domain', level: 1 }).isVisible()).toBe(true);
  await page.getByLabel('Domain Name').fill(name);
  await page.getByLabel('Description').fill(description);
  await button('Create').click();
  await page.waitForURL(/\/onboarding-domains$/);
}

/** Luminance-ish brightness (0-255) of the page's background, to tell light from dark. */
async function backgroundBrightness(target: Page = page): Promise<number> {
  const color = await target.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = color.match(/\d+(\.\d+)?/g)!.map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

describe('sign-in and dashboard', () => {
  it('signs in through the /login form (Remember me) and lands on the dashboard', async () => {
    await page.goto(`${baseUrl()}/login`);
    await expect(page.getByRole('heading', { name: 'Sign in to your account' }).isVisible()).resolves.toBe(true);
    expect(await page.getByRole('link', { name: 'Signup' }).getAttribute('href')).toBe('/signup');
    expect(await page.getByRole('link', { name: 'Forgot your password?' }).isVisible()).toBe(true);
    expect(await page.getByText('Terms Of Use').isVisible()).toBe(true);

    await signInThroughForm(page, true);
    await eventually(() => page.getByRole('heading', { name: 'Hello Administrator', level: 1 }).isVisible()).toBe(true);
    await eventually(() => page.getByText("Here is what's happening with your company root today:").isVisible()).toBe(true);

    const companiesCard = page.getByRole('region', { name: 'Companies' });
    const domainsCard = page.getByRole('region', { name: 'Domains' });
    await eventually(() => companiesCard.getByRole('listitem').first().textContent()).toContain('ROOT');
    await eventually(() => domainsCard.getByRole('listitem').first().textContent()).toContain('DEFAULT');
    expect(await companiesCard.getByRole('link', { name: 'View ROOT' }).getAttribute('href')).toBe('/companies/root');
    await eventually(() => sidebarHeading().textContent()).toBe('Root [default]');

    // Remember me: the token cookie of docs/CONSOLE.md, "Callback" (1 hour, Secure, SameSite=Strict).
    const cookie = await tokenCookie();
    expect(cookie).toBeDefined();
    expect(cookie!.secure).toBe(true);
    expect(cookie!.sameSite).toBe('Strict');
    const hoursLeft = (cookie!.expires * 1000 - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(0.9);
    expect(hoursLeft).toBeLessThanOrEqual(1.01);
    await screenshot(page, 'console-dashboard');
  });
});

describe('companies', () => {
  it('creates a company, opens it in view mode, edits and saves it', async () => {
    await openCompanies(MANY);
    await eventually(() => page.getByRole('region', { name: 'Current company' }).textContent()).toContain('(root)');
    await createCompany(COMPANY, 'E2E Company', 'created by the browser test');
    await screenshot(page, 'console-companies-created');

    await row(COMPANY).getByText('created by the browser test').click();
    await page.waitForURL(/\/companies\/[^/?]+$/);
    await eventually(() => page.getByRole('heading', { name: 'Company', exact: true, level: 1 }).isVisible()).toBe(true);
    expect(await page.getByLabel('Description').inputValue()).toBe('created by the browser test');
    expect(await page.getByLabel('Description').getAttribute('readonly')).not.toBeNull();
    expect(await button('Close').isVisible()).toBe(true);
    expect(await button('Save').count()).toBe(0);
    await screenshot(page, 'console-company-view');

    await button('Edit').click();
    await eventually(() => page.getByRole('heading', { name: 'Edit company', level: 1 }).isVisible()).toBe(true);
    expect(await page.getByLabel('Description').getAttribute('readonly')).toBeNull();
    await page.getByLabel('Description').fill('edited by the browser test');
    await screenshot(page, 'console-company-edit');
    await button('Save').click();
    await page.waitForURL(/\/onboarding-companies(\?|$)/);
    await eventually(() => row(COMPANY).textContent()).toContain('edited by the browser test');
  });

  it('switches to a child company (exactly one selected) and back with Parent; deletes one', async () => {
    await openCompanies(MANY);
    await createCompany(OTHER_COMPANY, 'E2E Other', 'a second child');
    const switchButton = button('Switch');
    expect(await switchButton.isDisabled()).toBe(true);
    // At the root company Parent is disabled.
    expect(await button('Parent').isDisabled()).toBe(true);

    await row(COMPANY).getByRole('checkbox').check();
    await eventually(() => switchButton.isEnabled()).toBe(true);
    await row(OTHER_COMPANY).getByRole('checkbox').check();
    await eventually(() => switchButton.isDisabled()).toBe(true);
    await row(OTHER_COMPANY).getByRole('checkbox').uncheck();
    await eventually(() => switchButton.isEnabled()).toBe(true);
    await switchButton.click();

    // The new company has no domain yet: its heading shows the company alone.
    await eventually(() => sidebarHeading().textContent()).toBe('E2E Company');
    await eventually(() => page.getByRole('region', { name: 'Current company' }).textContent()).toContain(`(${COMPANY})`);
    await eventually(() => button('Parent').isEnabled()).toBe(true);
    await screenshot(page, 'console-companies-switched');

    await button('Parent').click();
    await eventually(() => sidebarHeading().textContent()).toBe('Root [default]');
    await eventually(() => page.getByRole('region', { name: 'Current company' }).textContent()).toContain('(root)');
    await eventually(() => button('Parent').isDisabled()).toBe(true);
    await eventually(() => row(COMPANY).count()).toBe(1);

    // Purge (a company is removed for good) asks first, then removes the row.
    await row(OTHER_COMPANY).getByRole('checkbox').check();
    await button('Purge').click();
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.textContent()).toContain('Purge 1 item(s)?');
    await page.waitForTimeout(600); // the dialog fades in
    await screenshot(page, 'console-companies-delete-confirm');
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Purge' }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    await eventually(() => row(OTHER_COMPANY).count()).toBe(0);
    expect(await row(COMPANY).count()).toBe(1);
  });
});

describe('domains', () => {
  it('in the new company: the first domain becomes current, Set Primary changes only which one is primary', async () => {
    await openCompanies(MANY);
    await row(COMPANY).getByRole('checkbox').check();
    await button('Switch').click();
    await eventually(() => sidebarHeading().textContent()).toBe('E2E Company');

    await openDomains();
    await createDomain(FIRST_DOMAIN, 'first domain');
    await eventually(() => sidebarHeading().textContent()).toBe(`E2E Company [${FIRST_DOMAIN}]`);
    const current = page.getByRole('region', { name: 'Current domain' });
    await eventually(() => current.textContent()).toContain(FIRST_DOMAIN);

    await createDomain(SECOND_DOMAIN, 'second domain');
    await eventually(() => row(SECOND_DOMAIN).count()).toBe(1);
    // The current domain has its own panel, not a row.
    expect(await row(FIRST_DOMAIN).count()).toBe(0);
    expect(await sidebarHeading().textContent()).toBe(`E2E Company [${FIRST_DOMAIN}]`);
    const setPrimary = button('Set Primary');
    expect(await setPrimary.isDisabled()).toBe(true);
    await screenshot(page, 'console-domains-two');

    await row(SECOND_DOMAIN).getByRole('checkbox').check();
    await eventually(() => setPrimary.isEnabled()).toBe(true);
    await setPrimary.click();
    // Set Primary changes which domain is primary and nothing else (docs/DECISIONS.md, item 33);
    // its notification offers the switch.
    const notice = page.getByText(`${SECOND_DOMAIN} is now the primary domain`);
    await eventually(() => notice.isVisible()).toBe(true);
    await eventually(() => row(SECOND_DOMAIN).getByText('Primary', { exact: true }).isVisible()).toBe(true);
    expect(await sidebarHeading().textContent()).toBe(`E2E Company [${FIRST_DOMAIN}]`);
    expect(await current.getByText('Primary', { exact: true }).count()).toBe(0);
    await screenshot(page, 'console-domains-primary');
    await page.getByRole('button', { name: 'Switch to it' }).click();
    await eventually(() => sidebarHeading().textContent()).toBe(`E2E Company [${SECOND_DOMAIN}]`);
    await eventually(() => page.getByText(`Now in E2E Company › ${SECOND_DOMAIN}`).isVisible()).toBe(true);
    await eventually(() => current.textContent()).toContain(SECOND_DOMAIN);
    await eventually(() => row(FIRST_DOMAIN).count()).toBe(1);
    expect(await row(SECOND_DOMAIN).count()).toBe(0);

    // Switching to the company again picks its primary domain.
    await openCompanies(MANY);
    await button('Parent').click();
    await eventually(() => sidebarHeading().textContent()).toBe('Root [default]');
    await row(COMPANY).getByRole('checkbox').check();
    await button('Switch').click();
    await eventually(() => sidebarHeading().textContent()).toBe(`E2E Company [${SECOND_DOMAIN}]`);

    // The dashboard follows the current company and domain.
    await page.goto(`${baseUrl()}/dashboard`);
    await eventually(() => page.getByText(`Here is what's happening with your company ${COMPANY} today:`).isVisible()).toBe(true);
    const domainsCard = page.getByRole('region', { name: 'Domains' });
    await eventually(() => domainsCard.getByRole('listitem').count()).toBe(2);
    expect(await domainsCard.getByRole('listitem').first().textContent()).toContain(SECOND_DOMAIN.toUpperCase());

    // Back to root for the other tests.
    await openCompanies();
    await button('Parent').click();
    await eventually(() => sidebarHeading().textContent()).toBe('Root [default]');
    await page.goto(`${baseUrl()}/dashboard`);
    await eventually(() => page.getByRole('region', { name: 'Companies' }).textContent()).toContain(COMPANY.toUpperCase());
  });
});

describe('404, theme and side bar', () => {
  it('shows the 404 page on an unknown path, with Go To Home', async () => {
    await page.goto(`${baseUrl()}/no-such-screen`);
    await eventually(() => page.getByText('Oops! There is something problem!').isVisible()).toBe(true);
    expect(await page.getByText('404', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText('Please try again later!').isVisible()).toBe(true);
    const home = page.getByRole('link', { name: 'Go To Home' });
    expect(await home.getAttribute('href')).toBe('/');
    await screenshot(page, 'console-404');
    await home.click();
    // / is the sign-in page, which sends a signed-in user on to the dashboard.
    await page.waitForURL(/\/dashboard(\?|#|$)/);
  });

  it('keeps the theme chosen with the switch in localStorage `theme` across a reload', async () => {
    await page.goto(`${baseUrl()}/dashboard`);
    await eventually(() => sidebarHeading().isVisible()).toBe(true);
    await page.evaluate(() => localStorage.removeItem('theme'));
    await page.reload();
    await eventually(() => sidebarHeading().isVisible()).toBe(true);
    expect(await backgroundBrightness()).toBeGreaterThan(128);

    await button('Toggle light/dark mode').click();
    await eventually(() => page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
    await eventually(() => backgroundBrightness()).toBeLessThan(128);
    await page.reload();
    await eventually(() => sidebarHeading().isVisible()).toBe(true);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
    await eventually(() => backgroundBrightness()).toBeLessThan(128);
    await screenshot(page, 'console-dashboard-dark-after-reload');

    await button('Toggle light/dark mode').click();
    await eventually(() => page.evaluate(() => localStorage.getItem('theme'))).toBe('light');
    await page.reload();
    await eventually(() => sidebarHeading().isVisible()).toBe(true);
    await eventually(() => backgroundBrightness()).toBeGreaterThan(128);
  });

  it('remembers the collapsed side bar in localStorage `sidebar-expanded` across a reload', async () => {
    await page.goto(`${baseUrl()}/dashboard`);
    await eventually(() => sidebarHeading().isVisible()).toBe(true);
    await button('Close menu').click();
    await eventually(() => page.evaluate(() => localStorage.getItem('sidebar-expanded'))).toBe('false');
    await eventually(() => sidebarHeading().count()).toBe(0);

    await page.reload();
    await eventually(() => button('Open menu').isVisible()).toBe(true);
    await eventually(() => page.getByRole('heading', { name: 'Hello Administrator', level: 1 }).isVisible()).toBe(true);
    expect(await sidebarHeading().count()).toBe(0);
    // Icons only: a group's entries (which have no icons) stay closed until the side bar opens.
    expect(await page.getByRole('menuitem', { name: 'Analytics' }).count()).toBe(0);
    await page.waitForTimeout(500);
    await screenshot(page, 'console-sidebar-collapsed');

    // Clicking a group's icon opens the side bar with the group expanded.
    await page.getByRole('menuitem', { name: 'Onboarding' }).click({ position: { x: 24, y: 16 } });
    await eventually(() => page.evaluate(() => localStorage.getItem('sidebar-expanded'))).toBe('true');
    await eventually(() => page.getByRole('menuitem', { name: 'Companies' }).isVisible()).toBe(true);
    await button('Close menu').click();
    await eventually(() => page.evaluate(() => localStorage.getItem('sidebar-expanded'))).toBe('false');

    await button('Open menu').click();
    await eventually(() => page.evaluate(() => localStorage.getItem('sidebar-expanded'))).toBe('true');
    await page.reload();
    await eventually(() => sidebarHeading().textContent()).toBe('Root [default]');
    expect(await button('Close menu').isVisible()).toBe(true);
  });
});

/**
 * axe-core on each screen of issue 3 in the light and the dark theme, with a screenshot of each.
 * The sign-in pages follow the system's colour scheme; the admin screens follow `theme`: both are
 * set, as for a user whose system is dark.
 */
describe('accessibility of the console screens', () => {
  const openFirstRow = async (list: () => Promise<void>, form: RegExp) => {
    await list();
    await page.getByRole('row').nth(1).getByRole('link').first().click();
    await page.waitForURL(form);
  };
  const screens: [string, () => Promise<void>][] = [
    ['dashboard', async () => void (await page.goto(`${baseUrl()}/dashboard`))],
    ['companies', openCompanies],
    ['company-new', async () => {
      await openCompanies();
      await openNew(/\/onboarding-company-new$/);
    }],
    ['company-view', () => openFirstRow(openCompanies, /\/companies\/[^/?]+$/)],
    ['domains', openDomains],
    ['domain-new', async () => {
      await openDomains();
      await openNew(/\/onboarding-domain-new$/);
    }],
    ['not-found', async () => void (await page.goto(`${baseUrl()}/no-such-screen`))],
    ['logout', async () => void (await page.goto(`${baseUrl()}/logout`))],
  ];

  for (const theme of ['light', 'dark'] as const) {
    it(`login (${theme})`, async () => {
      // A fresh context: a signed-in one would be sent on from /login.
      const fresh = await newPage(browser);
      await fresh.emulateMedia({ colorScheme: theme });
      await fresh.goto(`${baseUrl()}/login`);
      await eventually(() => fresh.getByRole('button', { name: 'Login' }).isEnabled()).toBe(true);
      await screenshot(fresh, `console-login-${theme}`);
      await expectNoAxeViolations(fresh);
      await fresh.context().close();
    });

    it.each(screens)(`%s (${theme})`, async (name, open) => {
      await page.emulateMedia({ colorScheme: theme });
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await open();
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(800);
      await screenshot(page, `console-${name}-${theme}`);
      await expectNoAxeViolations(page);
    });
  }

  it('the 404 page stays readable when the console theme differs from the system scheme', async () => {
    for (const [system, theme] of [['light', 'dark'], ['dark', 'light']] as const) {
      await page.emulateMedia({ colorScheme: system });
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.goto(`${baseUrl()}/no-such-screen`);
      await eventually(() => page.getByText('Oops! There is something problem!').isVisible()).toBe(true);
      await page.waitForTimeout(500);
      await screenshot(page, `console-not-found-${theme}-on-${system}-system`);
      await expectNoAxeViolations(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.evaluate(() => localStorage.setItem('theme', 'light'));
  });
});

describe('logout', () => {
  it('asks, logs out at the provider too, goes back to the sign-in page and removes the token cookie', async () => {
    await page.goto(`${baseUrl()}/dashboard`);
    await eventually(() => sidebarHeading().isVisible()).toBe(true);
    expect(await tokenCookie()).toBeDefined();
    // the access token the console holds works until sign-out...
    const accessToken = (await page.evaluate(() => sessionStorage.getItem('accessToken')))!;
    const apiWith = (token: string) => fetch(`${baseUrl()}/api/companys/root`, { headers: { Authorization: `Bearer ${JSON.parse(token)}` } });
    expect((await apiWith(accessToken)).status).toBe(200);

    await page.getByRole('button', { name: 'Profile' }).click();
    const menu = page.getByRole('menu').filter({ hasText: 'Logout' });
    await eventually(() => menu.textContent()).toContain('admin@example.com');
    await menu.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL(/\/logout$/);
    await eventually(() => page.getByRole('heading', { name: 'Do you want to logout now?' }).isVisible()).toBe(true);
    await screenshot(page, 'console-logout');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/' || url.pathname === '/login');
    await eventually(() => page.getByRole('button', { name: 'Login' }).isVisible()).toBe(true);
    expect(await tokenCookie()).toBeUndefined();
    expect(await page.evaluate(() => sessionStorage.getItem('accessToken'))).toBeNull();
    // ...and not a moment after: the console ended the sign-in at the provider (end session, ID token hint)
    expect((await apiWith(accessToken)).status).toBe(401);

    // Signed out, the console's screens send the visitor back to sign in.
    await page.goto(`${baseUrl()}/dashboard`);
    await eventually(() => new URL(page.url()).pathname).toMatch(/^\/(login)?$/);
    await eventually(() => page.getByRole('button', { name: 'Login' }).isVisible()).toBe(true);
    await screenshot(page, 'console-after-logout');
  });
});
