/**
 * Connections in Chromium (docs/CONSOLE.md, "Connections"): the wizard makes an OpenID Connect
 * connection to an upstream IdP started here (tests/upstream/oidcIdp.ts), its screen shows the
 * callback address to register, an e-mail domain is claimed and confirmed; then an administrator
 * signs in to the console identifier-first through that IdP (her existing account linked after her
 * password, once) and lands on the dashboard; then the same through a SAML 2.0 IdP
 * (tests/upstream/samlIdp.ts). Both themes, axe on each screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start as startOidcIdp, type OidcIdp } from '../upstream/oidcIdp.js';
import { startTestIdpServer } from '../upstream/samlIdp.js';
import { baseUrl, consoleApi, createUser, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });
const suffix = Date.now().toString(36);
const connectionName = `Corp IdP ${suffix}`;
const emailDomain = `corp-${suffix}.example`;

const PASSWORD = 'Upstream-Admin-1';
const ADA = { id: `ada-${suffix}`, name: `Ada Upstream ${suffix}`, email: `ada@${emailDomain}` };

let browser: Browser;
let page: Page;
let idp: OidcIdp;

const menuItem = (name: string) => page.getByRole('menuitem', { name, exact: true });

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
  await page.reload(); // the screen's navigation state survives a reload (it lives in history.state)
}

beforeAll(async () => {
  idp = await startOidcIdp();
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  await signIn(page);
});
afterAll(async () => {
  await browser?.close();
  await idp?.close();
});

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
    await settings.getByRole('textbox', { name: /^Issuer or discovery URL/ }).fill(idp.issuer);
    await settings.getByRole('textbox', { name: /^Client ID/ }).fill(idp.clientId);
    const secret = settings.getByLabel(/^Client secret/);
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill(idp.clientSecret);
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
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-view-light');

    // Test sign-in: the flow in a new window, ending on the provider's page of the mapped claims
    idp.setAccount({ sub: `tester-${suffix}`, email: `tester@${emailDomain}`, email_verified: true, name: 'Tess Tester', groups: ['staff'] });
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Test sign-in' }).click()]);
    await poll(() => popup.textContent('body').catch(() => '')).toContain(`tester-${suffix}`);
    expect(await popup.textContent('body')).toContain('Tess Tester');
    await screenshot(popup, 'connections-test-sign-in-claims');
    await popup.close();

    // the secret is never shown: only that it is set
    await page.getByRole('tab', { name: 'Settings' }).click();
    await poll(() => page.getByRole('textbox', { name: 'Client secret' }).inputValue()).toBe('Set (never shown)');
    expect(await page.content()).not.toContain(idp.clientSecret);

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

  it('signs an administrator in to the console identifier-first through the upstream IdP: her account linked after its password once, then straight to the dashboard', async () => {
    await createUser(page, 'companys/root/domainNames/default/users', ADA, PASSWORD);
    const given = await consoleApi(page, 'POST', 'companys/root/roleAssignments', { role: 'administrator', holderType: 'user', holderId: ADA.id, holderCompanyId: 'root', holderDomainId: 'default' });
    expect(given.status, JSON.stringify(given.json)).toBe(201);
    idp.setAccount({ sub: `upstream-${suffix}`, email: ADA.email, email_verified: true, name: ADA.name });

    const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    try {
      const ada = await context.newPage();
      // the address alone: its e-mail domain is claimed by the connection, so no password here
      await ada.goto('/login');
      await ada.getByLabel('Email').fill(ADA.email);
      await ada.getByRole('button', { name: 'Login' }).click();
      // an account with her address exists: linked only after she proves it
      await ada.getByRole('heading', { name: 'Link your account' }).waitFor({ timeout: 30_000 });
      // the IdP was asked, with her address as the hint
      expect(idp.requests.at(-1)?.get('login_hint')).toBe(ADA.email);
      await expectNoAxeViolations(ada);
      await screenshot(ada, 'connections-link-account');
      await ada.getByLabel('Password').fill(PASSWORD);
      await ada.getByRole('button', { name: 'Link and sign in' }).click();
      await ada.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
      await poll(() => ada.getByRole('heading', { name: `Hello ${ADA.name}` }).count()).toBe(1);
      await screenshot(ada, 'connections-signed-in-dashboard');

      // the next sign-in finds the linked account: no password anywhere
      await ada.goto('/logout');
      await ada.getByRole('button', { name: 'Log out' }).click();
      await ada.waitForURL(/\/(login)?(\?|$)/, { timeout: 30_000 });
      await ada.goto('/login');
      await ada.getByLabel('Email').fill(ADA.email);
      await ada.getByRole('button', { name: 'Login' }).click();
      await ada.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });

      // with the organization named, the form offers the connection as a button: no address needed
      await ada.goto('/logout');
      await ada.getByRole('button', { name: 'Log out' }).click();
      await ada.waitForURL(/\/(login)?(\?|$)/, { timeout: 30_000 });
      await ada.goto('/login?company=root&domain=default');
      const button = ada.getByRole('button', { name: `Sign in with ${connectionName}` });
      await button.waitFor({ timeout: 10_000 });
      await expectNoAxeViolations(ada);
      await screenshot(ada, 'connections-login-buttons');
      await button.click();
      await ada.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    } finally {
      await context.close();
    }

    // her user screen lists the identity
    await page.goto(`/users/${ADA.id}?company=root&domain=default`);
    await page.getByRole('tab', { name: 'Linked identities' }).click();
    const row = page.getByRole('row').filter({ hasText: connectionName });
    await poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain(`upstream-${suffix}`);
    await expectNoAxeViolations(page);
    await screenshot(page, 'connections-linked-identities-light');
  });

  it('makes a SAML 2.0 connection from the IdP metadata, shows the service provider addresses, and signs an administrator in identifier-first through it', async () => {
    const samlDomain = `saml-${suffix}.example`;
    const BOB = { id: `bob-${suffix}`, name: `Bob Saml ${suffix}`, email: `bob@${samlDomain}` };
    const saml = await startTestIdpServer({ nameId: BOB.email, attributes: { email: BOB.email, name: BOB.name } });
    try {
      await page.goto('/connections-new');
      await page.getByRole('radio', { name: 'SAML 2.0' }).check();
      await page.getByRole('button', { name: 'Next', exact: true }).click();
      const settings = page.getByRole('group', { name: 'Settings' });
      expect(await settings.getByLabel(/Client secret/).count()).toBe(0);
      await settings.getByRole('textbox', { name: /^Name/ }).first().fill(`Corp SAML ${suffix}`);
      await settings.getByRole('textbox', { name: /^Metadata XML/ }).fill(saml.idp.metadataXml);
      await page.getByRole('button', { name: 'Next', exact: true }).click();
      // without it, an unverified address never links to the existing account (the provider refuses the sign-in)
      await page.getByRole('group', { name: 'Accounts' }).getByRole('switch', { name: 'Trust e-mail verification' }).check();
      await page.getByRole('button', { name: 'Finish', exact: true }).click();
      await page.waitForURL(/\/connections-view$/);
      const metadata = page.getByRole('textbox', { name: 'Service provider metadata' });
      await poll(() => metadata.inputValue()).toMatch(new RegExp(`^${baseUrl()}/oauth/upstream/root/default/[A-Za-z0-9]+/saml/metadata$`));
      const served = await metadata.inputValue();
      expect(await page.getByRole('textbox', { name: 'Assertion consumer service (ACS)' }).inputValue()).toBe(served.replace(/metadata$/, 'acs'));
      await expectNoAxeViolations(page);
      await screenshot(page, 'connections-saml-view-light');

      // the claim, made and confirmed through the API this time (the screen's way is tested above)
      const connectionId = served.split('/').at(-3)!;
      const claims = `companys/root/domainNames/default/connections/${connectionId}/emailDomains`;
      expect((await consoleApi(page, 'POST', claims, { emailDomain: samlDomain })).status).toBe(201);
      expect((await consoleApi(page, 'POST', `${claims}/${samlDomain}/verify`, { method: 'confirm' })).status).toBe(200);
      await createUser(page, 'companys/root/domainNames/default/users', BOB, PASSWORD);
      const given = await consoleApi(page, 'POST', 'companys/root/roleAssignments', { role: 'administrator', holderType: 'user', holderId: BOB.id, holderCompanyId: 'root', holderDomainId: 'default' });
      expect(given.status, JSON.stringify(given.json)).toBe(201);

      const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
      try {
        const bob = await context.newPage();
        await bob.goto('/login');
        await bob.getByLabel('Email').fill(BOB.email);
        await bob.getByRole('button', { name: 'Login' }).click();
        // a refusal lands elsewhere (the console's callback with the provider's sentence): say where
        await bob.getByRole('heading', { name: 'Link your account' }).waitFor({ timeout: 30_000 }).catch(async (error) => {
          throw new Error(`${error}\n${bob.url()}\n${await bob.textContent('body').catch(() => '')}`);
        });
        await bob.getByLabel('Password').fill(PASSWORD);
        await bob.getByRole('button', { name: 'Link and sign in' }).click();
        await bob.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
        await poll(() => bob.getByRole('heading', { name: `Hello ${BOB.name}` }).count()).toBe(1);
      } finally {
        await context.close();
      }
    } finally {
      await saml.close();
    }
  });
});
