/**
 * The provider's hosted sign-in page in Chromium (npm run test:e2e; docs/CONSOLE.md, "Languages"
 * and "Branding"): a customer's application shows its reseller's logo and colours, light and dark,
 * under the page's strict policy (no inline style but the hashed ones: no CSP report); German for
 * ui_locales=de, Arabic right to left; axe clean, lang and dir included. Screenshots under
 * test-results/screenshots/hosted-branding-*.png and /tmp/shots/.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
const run = Date.now().toString(36);
const RESELLER = `hosted-${run}`;
const CUSTOMER = `hostedcust-${run}`;
const CLIENT = `hostedapp${run}`;
const BRAND = `Hosted ${run}`;
const PRIMARY_LIGHT = '#0b5394';
const BACKGROUND_LIGHT = '#fff8e1';
const PRIMARY_DARK = '#ffcc80';
const BACKGROUND_DARK = '#1a237e';
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const redirectUri = () => `${baseUrl()}/rp-callback`;

async function shot(page: Page, name: string) {
  const file = await screenshot(page, `hosted-branding-${name}`);
  fs.mkdirSync('/tmp/shots', { recursive: true });
  fs.copyFileSync(file, path.join('/tmp/shots', path.basename(file)));
}

/** The authorization request of the customer's application, as its relying party would send it. */
function authorizeUrl(extra: Record<string, string> = {}) {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({ client_id: CLIENT, response_type: 'code', redirect_uri: redirectUri(), scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256', ...extra });
  return `${baseUrl()}/oauth/authorize?${query}`;
}

beforeAll(async () => {
  browser = await launchBrowser();
  const root = await newPage(browser);
  await signIn(root);
  const api = async (method: string, where: string, body: unknown) => {
    const answer = await consoleApi(root, method, where, body);
    expect([200, 201], `${where}: ${JSON.stringify(answer.json)}`).toContain(answer.status);
    return answer.json;
  };
  await api('POST', 'companys', { id: RESELLER, name: RESELLER, displayName: BRAND, description: 'hosted pages', type: 'reseller', parent: 'root' });
  await api('POST', 'companys', { id: CUSTOMER, name: CUSTOMER, displayName: `Customer ${run}`, description: 'a customer', type: 'customer', parent: RESELLER });
  await api('POST', `companys/${CUSTOMER}/domainNames`, { name: 'prod', description: 'production' });
  await api('PUT', `companys/${RESELLER}/branding`, {
    displayName: BRAND,
    primaryLight: PRIMARY_LIGHT,
    backgroundLight: BACKGROUND_LIGHT,
    primaryDark: PRIMARY_DARK,
    backgroundDark: BACKGROUND_DARK,
    supportEmail: `help@${RESELLER}.example`,
    supportUrl: `https://${RESELLER}.example/help`,
  });
  // a logo drawn by the browser, uploaded as the raw image
  const draw = await newPage(browser);
  await draw.setContent(`<div id="logo" style="width:160px;height:48px;display:flex;align-items:center;justify-content:center;background:${PRIMARY_LIGHT};color:#fff;font:bold 22px sans-serif;border-radius:8px">HOSTED</div>`);
  const png = (await draw.locator('#logo').screenshot({ type: 'png' })).toString('base64');
  await draw.context().close();
  const uploaded = await root.evaluate(
    async ({ where, png }) => {
      const token = JSON.parse(sessionStorage.getItem('accessToken') ?? '""');
      const body = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
      return (await fetch(`/api/${where}`, { method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'image/png' }, body })).status;
    },
    { where: `companys/${RESELLER}/branding/logo`, png },
  );
  expect(uploaded).toBeLessThan(300);
  await api('POST', 'application', { client_name: `Shop ${run}`, client_id: CLIENT, domain: 'prod', companyId: CUSTOMER, app_type: 'SPA', redirect_uris: [redirectUri()] });
  await root.context().close();
}, 180_000);
afterAll(() => browser?.close());

describe("a customer's hosted sign-in page", () => {
  it("shows its reseller's logo and colours, light and dark, under a strict policy; axe clean", async () => {
    const page = await newPage(browser);
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto(authorizeUrl());
      await expect.poll(() => page.getByRole('heading', { name: `Sign in to Shop ${run}` }).isVisible()).toBe(true);
      const logo = page.getByRole('img', { name: BRAND });
      await expect.poll(() => logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBeGreaterThan(0);
      expect(await logo.getAttribute('src')).toMatch(new RegExp(`^/branding/${RESELLER}/logo`));
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe(rgb(theme === 'light' ? BACKGROUND_LIGHT : BACKGROUND_DARK));
      const button = await page.getByRole('button', { name: 'Sign in' }).evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(button).toBe(rgb(theme === 'light' ? PRIMARY_LIGHT : PRIMARY_DARK));
      expect(await page.getByRole('link', { name: `Write to help@${RESELLER}.example` }).isVisible()).toBe(true);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await expectNoAxeViolations(page);
      await shot(page, `en-${theme}`);
    }
    expect(refused).toEqual([]);
    await page.context().close();
  });

  it('is German for ui_locales=de', async () => {
    const page = await newPage(browser);
    await page.goto(authorizeUrl({ ui_locales: 'de' }));
    await expect.poll(() => page.getByRole('heading', { name: `Bei Shop ${run} anmelden` }).isVisible()).toBe(true);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.getByLabel('E-Mail oder Benutzername').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Anmelden' }).isVisible()).toBe(true);
    // a wrong password, said in German
    await page.getByLabel('E-Mail oder Benutzername').fill(`nobody@${CUSTOMER}.example`);
    await page.getByLabel('Passwort', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('E-Mail oder Passwort falsch.');
    await expectNoAxeViolations(page);
    await shot(page, 'de-light');
    await page.context().close();
  });

  it('is Arabic right to left', async () => {
    const page = await newPage(browser);
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto(authorizeUrl({ ui_locales: 'ar' }));
      await expect.poll(() => page.getByRole('heading', { name: `تسجيل الدخول إلى Shop ${run}` }).isVisible()).toBe(true);
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      expect(await page.locator('html').getAttribute('lang')).toBe('ar');
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('label')!).direction)).toBe('rtl');
      await expectNoAxeViolations(page);
      await shot(page, `ar-${theme}`);
    }
    await page.context().close();
  });
});
