/**
 * A reseller's branding in Chromium (npm run test:e2e; docs/CONSOLE.md, "Branding" and "E-mail
 * templates"): the reseller's administrator (its Owner) uploads a logo and chooses colours on her
 * company's Branding tab, is told of a colour pair below WCAG AA as she types and by the provider when
 * she saves it anyway, sees the preview, saves; the console takes her company's colours and logo at
 * once and after a new sign-in. A customer of the reseller inherits it, and its Branding tab says from
 * whom. An e-mail template is edited with a placeholder, previewed in a sandboxed frame, saved and
 * reset. axe, and screenshots light and dark (test-results/screenshots/branding-*.png and /tmp/shots/).
 */
import fs from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let context: BrowserContext;
let boss: Page;

const run = Date.now().toString(36);
const RESELLER = `brand-${run}`;
const RESELLER_NAME = `Brand ${run}`;
const CUSTOMER = `brandcust-${run}`;
const CUSTOMER_NAME = `Brand customer ${run}`;
const PASSWORD = 'Branding-Pass-1';
const BOSS = `boss@${RESELLER}.example`;
const PRIMARY_LIGHT = '#0b5394';
const BACKGROUND_LIGHT = '#fff8e1';
const PRIMARY_DARK = '#ffcc80';
const BACKGROUND_DARK = '#1a237e';

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

async function shot(page: Page, name: string) {
  const file = await screenshot(page, `branding-${name}`);
  fs.mkdirSync('/tmp/shots', { recursive: true });
  fs.copyFileSync(file, path.join('/tmp/shots', path.basename(file)));
}

/** Both themes: reload, `ready`, axe, a screenshot. */
async function judge(page: Page, name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.evaluate((value) => localStorage.setItem('theme', value), theme);
    await page.reload();
    await ready();
    await expectNoAxeViolations(page);
    await shot(page, `${name}-${theme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.evaluate(() => localStorage.setItem('theme', 'light'));
}

/** A company's record screen on one of its tabs. */
async function openTab(page: Page, company: string, tab: 'Branding' | 'E-mail templates') {
  await page.goto(`${baseUrl()}/companies/${company}`);
  await page.getByRole('tab', { name: tab }).click();
  const ready = tab === 'Branding' ? page.getByLabel('Primary colour (light theme)', { exact: true }) : page.getByLabel('Body', { exact: true });
  await eventually(() => ready.isVisible()).toBe(true);
}

/** A PNG logo, drawn by the browser itself. */
async function makeLogo(): Promise<Buffer> {
  const page = await newPage(browser);
  await page.setContent(
    `<div id="logo" style="width:160px;height:48px;display:flex;align-items:center;justify-content:center;background:${PRIMARY_LIGHT};color:#fff;font:bold 22px sans-serif;border-radius:8px">BRAND</div>`,
  );
  const png = await page.locator('#logo').screenshot({ type: 'png', omitBackground: true });
  await page.context().close();
  return png;
}

async function signInAsBoss(page: Page) {
  await page.goto(`${baseUrl()}/login?company=${RESELLER}`);
  await eventually(() => button(page, 'Login').isEnabled()).toBe(true);
  await page.getByLabel('Email').fill(BOSS);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await button(page, 'Login').click();
  await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
}

beforeAll(async () => {
  browser = await launchBrowser();
  const root = await newPage(browser);
  await signIn(root);
  const api = async (method: string, where: string, body: unknown) => {
    const answer = await consoleApi(root, method, where, body);
    expect([200, 201], `${where}: ${JSON.stringify(answer.json)}`).toContain(answer.status);
  };
  await api('POST', 'companys', { id: RESELLER, name: RESELLER, displayName: RESELLER_NAME, description: 'branding journey', type: 'reseller', parent: 'root' });
  await api('POST', `companys/${RESELLER}/domainNames`, { name: 'prod', description: 'production' });
  await api('POST', `companys/${RESELLER}/domainNames/prod/groups`, { name: 'administrators', displayName: 'Administrators', email: `admins@${RESELLER}.example` });
  await api('POST', `companys/${RESELLER}/domainNames/prod/users`, { id: 'boss', username: `boss-${RESELLER}`, displayName: 'Boss', email: BOSS, authVerification: await bcrypt.hash(PASSWORD, 10) });
  await api('POST', `companys/${RESELLER}/domainNames/prod/groups/administrators/members`, [{ type: 'user', id: 'boss' }]);
  await api('POST', 'companys', { id: CUSTOMER, name: CUSTOMER, displayName: CUSTOMER_NAME, description: 'a customer of the brand', type: 'customer', parent: RESELLER });
  await root.context().close();
  context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 900 } });
  boss = await context.newPage();
}, 180_000);
afterAll(() => browser?.close());

describe("a reseller's branding", () => {
  it('is set in the console: logo, colours with their contrast checked, the preview, Save; the console wears it', async () => {
    await signInAsBoss(boss);
    await openTab(boss, RESELLER, 'Branding');
    // nothing set anywhere above: the provider's defaults, said so
    expect(await boss.getByText("Not set by any company above: the provider's default").count()).toBe(4);

    await boss.getByTestId('branding-logo-file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: await makeLogo() });
    await eventually(() => boss.getByText('Logo saved').first().isVisible()).toBe(true);
    await eventually(() => boss.getByRole('img', { name: 'Current Logo' }).evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBeGreaterThan(0);

    await boss.getByLabel('Display name', { exact: true }).fill(RESELLER_NAME);
    // a pale yellow on a cream page: refused as typed, and by the provider in its words
    const primaryLight = boss.getByLabel('Primary colour (light theme)', { exact: true });
    await primaryLight.fill('#ffeb3b');
    await boss.getByLabel('Background colour (light theme)', { exact: true }).fill(BACKGROUND_LIGHT);
    await eventually(() => boss.getByTestId('contrast-light').textContent()).toMatch(/^Light theme: contrast 1\.\d\d:1, below WCAG AA/);
    await button(boss, 'Save').click();
    await eventually(() => boss.getByRole('alert').filter({ hasText: 'The branding was not saved' }).textContent()).toMatch(/primaryLight.*contrast ratio of 1\.\d+/);

    await primaryLight.fill(PRIMARY_LIGHT);
    await boss.getByLabel('Primary colour (dark theme)', { exact: true }).fill(PRIMARY_DARK);
    await boss.getByLabel('Background colour (dark theme)', { exact: true }).fill(BACKGROUND_DARK);
    await boss.getByLabel('Support e-mail address', { exact: true }).fill(`help@${RESELLER}.example`);
    await eventually(() => boss.getByTestId('contrast-light').textContent()).toMatch(/passes WCAG AA/);
    await eventually(() => boss.getByTestId('contrast-dark').textContent()).toMatch(/passes WCAG AA/);
    // the preview: the page's background, the name, the button in the primary colour
    const light = boss.getByTestId('preview-light');
    expect(await light.getByText(RESELLER_NAME).isVisible()).toBe(true);
    expect(await light.locator('> div').evaluate((page) => getComputedStyle(page).backgroundColor)).toBe(rgb(BACKGROUND_LIGHT));
    expect(await light.getByText('Continue').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(rgb(PRIMARY_LIGHT));
    expect(await boss.getByTestId('preview-dark').getByText('Continue').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(rgb(PRIMARY_DARK));
    await shot(boss, 'form-typed');

    await button(boss, 'Save').click();
    await eventually(() => boss.getByText(`Branding of ${RESELLER_NAME} saved`).first().isVisible()).toBe(true);
    expect(await boss.getByText('Set for this company').count()).toBeGreaterThanOrEqual(5);

    // her console wears it at once: the logo in the app bar, the app bar in the primary colour
    const appBar = boss.locator('header').first();
    await eventually(() => appBar.getByTestId('brand-logo').isVisible()).toBe(true);
    await eventually(() => appBar.evaluate((bar) => getComputedStyle(bar).backgroundColor)).toBe(rgb(PRIMARY_LIGHT));
    await judge(boss, 'reseller-tab', () => openTab(boss, RESELLER, 'Branding'));
  });

  it('is what her console wears after a new sign-in: colours in light and dark, the logo', async () => {
    await context.close();
    context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 900 } });
    boss = await context.newPage();
    await signInAsBoss(boss);
    const appBar = boss.locator('header').first();
    await eventually(() => appBar.getByTestId('brand-logo').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBeGreaterThan(0);
    expect(await appBar.getByTestId('brand-logo').getAttribute('alt')).toBe(RESELLER_NAME);
    await eventually(() => appBar.evaluate((bar) => getComputedStyle(bar).backgroundColor)).toBe(rgb(PRIMARY_LIGHT));
    await eventually(() => boss.locator('#main-content').evaluate((main) => getComputedStyle(main).backgroundColor)).toBe(rgb(BACKGROUND_LIGHT));
    await judge(boss, 'dashboard', () => eventually(() => appBar.getByTestId('brand-logo').isVisible()).toBe(true));
    // dark: the dark page colour
    await boss.emulateMedia({ colorScheme: 'dark' });
    await boss.evaluate(() => localStorage.setItem('theme', 'dark'));
    await boss.reload();
    await eventually(() => boss.locator('#main-content').evaluate((main) => getComputedStyle(main).backgroundColor)).toBe(rgb(BACKGROUND_DARK));
    await boss.emulateMedia({ colorScheme: 'light' });
    await boss.evaluate(() => localStorage.setItem('theme', 'light'));
  });

  it('is inherited by a customer of the reseller, whose Branding tab says from whom', async () => {
    await openTab(boss, CUSTOMER, 'Branding');
    // the reseller by its name, a link to its own Branding tab (she may open it)
    await eventually(() => boss.getByText(`Inherited from ${RESELLER_NAME}: ${PRIMARY_LIGHT}`).isVisible()).toBe(true);
    expect(await boss.getByText(`Inherited from ${RESELLER_NAME}: ${RESELLER_NAME}`).isVisible()).toBe(true);
    expect(await boss.getByText(`Inherited from ${RESELLER_NAME}`, { exact: true }).first().isVisible()).toBe(true);
    expect(await boss.locator('#main-content').getByRole('link', { name: RESELLER_NAME }).first().getAttribute('href')).toBe(`/companies/${RESELLER}?tab=branding`);
    expect(await boss.getByLabel('Primary colour (light theme)', { exact: true }).inputValue()).toBe('');
    expect(await boss.getByTestId('preview-light').getByText('Continue').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(rgb(PRIMARY_LIGHT));
    await judge(boss, 'customer-tab', () => openTab(boss, CUSTOMER, 'Branding'));
  });
});

describe("a customer's e-mail templates", () => {
  it('are edited with a placeholder, previewed in a sandboxed frame, saved and reset to inherited', async () => {
    await openTab(boss, CUSTOMER, 'E-mail templates');
    await boss.getByRole('combobox', { name: 'E-mail' }).click();
    await boss.getByRole('option', { name: 'Invitation' }).click();
    await boss.getByRole('combobox', { name: 'Language' }).click();
    await boss.getByRole('option', { name: 'Français' }).click();
    const source = boss.getByTestId('email-template-source');
    await eventually(() => source.textContent()).toBe("The provider's default");

    const subject = boss.getByLabel('Subject', { exact: true });
    await subject.fill('Bienvenue chez ');
    await boss.getByRole('button', { name: '{{companyName}}' }).click();
    await eventually(() => subject.inputValue()).toBe('Bienvenue chez {{companyName}}');
    const body = boss.getByLabel('Body', { exact: true });
    await body.fill('Bonjour {{personName}}, <b>ouvrez</b> {{link}}');

    await button(boss, 'Preview').click();
    const frame = boss.getByTitle('The e-mail as HTML');
    await eventually(() => frame.isVisible()).toBe(true);
    expect(await frame.getAttribute('sandbox')).toBe('');
    const srcdoc = (await frame.getAttribute('srcdoc')) ?? '';
    // the sample values are filled in (the company's name is its effective display name, the reseller's), what was typed as markup is escaped
    expect(srcdoc).not.toContain('{{personName}}');
    expect(srcdoc).toContain('Alex Martin');
    expect(srcdoc).toContain('&lt;b&gt;ouvrez&lt;/b&gt;');
    await eventually(() => boss.getByText(new RegExp(`Bienvenue chez ${RESELLER_NAME}`)).first().isVisible()).toBe(true);
    await shot(boss, 'templates-preview-light');

    await button(boss, 'Save').click();
    await eventually(() => source.textContent()).toBe("This company's own");
    await expectNoAxeViolations(boss);

    await button(boss, 'Reset to inherited').click();
    await eventually(() => source.textContent()).toBe("The provider's default");
    await judge(boss, 'templates', () => openTab(boss, CUSTOMER, 'E-mail templates'));
  });
});
