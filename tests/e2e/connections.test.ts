/**
 * Connections in Chromium (docs/CONSOLE.md, "Connections"): the wizard makes an OpenID Connect
 * connection, its screen shows the callback address to register, an e-mail domain is claimed and
 * confirmed; both themes, axe on each screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });
const suffix = Date.now().toString(36);
const connectionName = `Corp IdP ${suffix}`;
const emailDomain = `corp-${suffix}.example`;

let browser: Browser;
let page: Page;

const menuItem = (name: string) => page.getByRole('menuitem', { name, exact: true });

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
  await page.reload(); // the screen's navigation state survives a reload (it lives in history.state)
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  await signIn(page);
});
afterAll(() => browser?.close());

describe('connections', () => {
  it('creates an OpenID Connect connection through the wizard, shows its callback address, and confirms a claimed e-mail domain', async () => {
    // the side bar's entry, beside the domain's applications and APIs
    if (!(await menuItem('Connections').isVisible())) await menuItem('Enterprise Applications').click();
    await menuItem('Connections').click();
    await page.waitForURL(/\/connections(\?|$)/);
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.waitForURL(/\/connections-new$/);

    const preset = page.getByRole('group', { name: 'Identity provider' });
    await preset.getByRole('radio', { name: 'Any OpenID Connect provider' }).check();
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-wizard-preset-light');
    await page.getByRole('button', { name: 'Next', exact: true }).click();

    const settings = page.getByRole('group', { name: 'Settings' });
    expect(await settings.getByRole('textbox', { name: /^Scopes/ }).inputValue()).toBe('openid email profile');
    await settings.getByRole('textbox', { name: /^Name/ }).first().fill(connectionName);
    await settings.getByRole('textbox', { name: /^Issuer or discovery URL/ }).fill(upstreamIssuer());
    await settings.getByRole('textbox', { name: /^Client ID/ }).fill('iam-console-upstream');
    const secret = settings.getByLabel(/^Client secret/);
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill('upstream-secret-value');
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-wizard-settings-light');
    await page.getByRole('button', { name: 'Next', exact: true }).click();

    const accounts = page.getByRole('group', { name: 'Accounts' });
    await accounts.getByRole('switch', { name: 'Trust e-mail verification' }).check();
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Finish', exact: true }).click();

    // its screen: the callback address to register at the identity provider
    await page.waitForURL(/\/connections-view$/);
    const callback = page.getByRole('textbox', { name: 'Callback URL' });
    await poll(() => callback.inputValue()).toMatch(new RegExp(`^${baseUrl()}/oauth/upstream/root/default/[A-Za-z0-9]+/callback$`));
    await page.getByRole('button', { name: 'Copy Callback URL' }).click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText().catch(() => ''))).toBe(await callback.inputValue());
    await expect(page.getByRole('button', { name: 'Test sign-in' }).isEnabled()).resolves.toBe(true);
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-view-light');

    // the secret is never shown: only that it is set
    await page.getByRole('tab', { name: 'Settings' }).click();
    await poll(() => page.getByRole('textbox', { name: 'Client secret' }).inputValue()).toBe('Set (never shown)');
    expect(await page.content()).not.toContain('upstream-secret-value');

    await page.getByRole('tab', { name: 'E-mail domains' }).click();
    await page.getByRole('textbox', { name: 'E-mail domain' }).fill(emailDomain);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await poll(() => page.getByText(`_iam-console-challenge.${emailDomain} TXT iam-console-verification=`).count()).toBe(1);
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-email-domain-unverified-light');
    await page.getByRole('button', { name: `Confirm ${emailDomain}` }).click();
    const dialog = page.getByRole('dialog');
    await poll(() => dialog.textContent()).toContain(`You confirm that ${emailDomain} belongs to this organization`);
    await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
    await poll(() => page.getByText(/^Verified /).count()).toBe(1);
    await expectNoAxeViolations(page);

    await setTheme('dark');
    await page.getByRole('tab', { name: 'E-mail domains' }).click();
    await poll(() => page.getByText(/^Verified /).count()).toBe(1);
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-email-domain-verified-dark');
    await page.getByRole('tab', { name: 'Sign-in' }).click();
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-view-dark');

    await page.goto('/connections');
    await poll(() => page.getByRole('cell', { name: connectionName }).count()).toBe(1);
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-list-dark');
    await setTheme('light');
  });
});

/** The upstream OpenID Connect IdP's issuer (a placeholder address until one runs beside the test). */
function upstreamIssuer(): string {
  return 'http://127.0.0.1:9/';
}
