import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn, consoleApi } from './browser.js';

/** The whole page, app bar and list checkboxes included (src/layout/theme.ts makes them pass). */
async function checkA11y(page: Page) {
  // Colours are judged after transitions end (a fading dialog blends into the page behind it).
  await page.waitForFunction(() => document.getAnimations().length === 0, undefined, { timeout: 10_000 }).catch(() => undefined);
  await expectNoAxeViolations(page);
}
/** expect.poll with room for a loaded machine (its default is one second). */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });

let browser: Browser;
let page: Page;

/** Calls the management API with the signed-in console's own token (setup that is not under test). */
const api = (method: string, path: string, body?: unknown) => consoleApi(page, method, path, body);

async function chooseDomain(name: string) {
  await page.getByRole('combobox', { name: 'Domains' }).click();
  await page.getByRole('option', { name, exact: true }).click();
}

async function setTheme(dark: boolean) {
  await page.evaluate((value) => localStorage.setItem('theme', value), dark ? 'dark' : 'light');
  await page.reload(); // the screen's navigation state survives a reload (it lives in history.state)
}

const suffix = Date.now().toString(36);
const appName = `Shop front ${suffix}`;
const apiName = `Orders ${suffix}`;
const apiIdentifier = `https://orders-${suffix}.example`;
const secondDomain = `second-${suffix}`;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  await signIn(page);
  const created = await api('POST', 'companys/root/domainNames', { id: secondDomain, name: secondDomain, description: 'Second domain' });
  expect(created.status).toBe(201);
});
afterAll(() => browser?.close());

describe('applications', () => {
  it('creates an application through the wizard, shows the secret once, and lists it under its domain', async () => {
    await page.goto('/applications');
    await poll(() => page.getByRole('combobox', { name: 'Domains' }).textContent()).toContain('default');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.waitForURL(/\/applications-new$/);

    const basic = page.getByRole('group', { name: 'Basic Information' });
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await poll(() => basic.getByText('Required').count()).toBeGreaterThan(0);
    await basic.getByRole('textbox', { name: /^Name/ }).fill(appName);
    const clientId = await basic.getByRole('textbox', { name: /Client ID/ }).inputValue();
    expect(clientId).toMatch(/^[A-Za-z0-9]{32}$/);
    await checkA11y(page);
    await screenshot(page, 'applications-wizard-basic-light');

    await page.getByRole('button', { name: 'Next', exact: true }).click();
    const properties = page.getByRole('group', { name: 'Application Properties' });
    expect(await properties.getByRole('spinbutton', { name: /ID Token Expiration/ }).inputValue()).toBe('36000');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    const uris = page.getByRole('group', { name: 'Application URIs' });
    await uris.getByRole('textbox', { name: /Allowed Callback URIs/ }).fill('https://shop.example/cb\nhttps://shop.example/other');
    await checkA11y(page);
    await page.getByRole('button', { name: 'Finish', exact: true }).click();

    const dialog = page.getByRole('dialog');
    await poll(() => dialog.textContent()).toContain("won't be shown again");
    const secret = await dialog.getByRole('textbox').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/);
    await checkA11y(page);
    await screenshot(page, 'applications-secret-once');
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    await page.waitForURL(/\/applications$/);
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(1);
    const stored = await api('GET', `application/${clientId}`);
    expect(stored.json).toMatchObject({ client_name: appName, domain: 'default', redirect_uris: ['https://shop.example/cb', 'https://shop.example/other'] });
    expect(JSON.stringify(stored.json)).not.toContain(secret);
    await checkA11y(page);
    await screenshot(page, 'applications-list-light');
  });

  it('switches domain with the Domains drop-down', async () => {
    await chooseDomain(secondDomain);
    await poll(() => page.getByText('No applications yet. Choose New to create the first one.').count()).toBe(1);
    expect(await page.getByRole('cell', { name: appName }).count()).toBe(0);
    await poll(() => page.evaluate(() => JSON.parse(sessionStorage.getItem('domain') ?? '{}').id)).toBe(secondDomain);
    await chooseDomain('default');
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(1);
  });

  it('views the Quick Start and Settings tabs and edits a section', async () => {
    await page.getByRole('cell', { name: appName }).click();
    await page.waitForURL(/\/applications\/[^/?]+\?company=/);
    expect(await page.getByRole('tab', { name: 'Quick Start' }).getAttribute('aria-selected')).toBe('true');
    const code = page.getByRole('region', { name: 'Code' });
    await poll(() => code.textContent()).toContain('code_challenge_method');
    const snippet = (await code.textContent()) ?? '';
    expect(snippet).toContain('/oauth/authorize');
    expect(snippet).toContain('https://shop.example/cb');
    await checkA11y(page);
    await screenshot(page, 'applications-view-quick-start-light');

    await page.getByRole('tab', { name: 'Settings' }).click();
    const description = page.getByRole('textbox', { name: /^Description/ });
    expect(await description.getAttribute('readonly')).not.toBeNull();
    await checkA11y(page);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('button', { name: 'Application Properties' }).click(); // collapse one section
    expect(await page.getByRole('button', { name: 'Application Properties' }).getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('textbox', { name: /^Description/ }).fill('Edited in its section');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/applications$/);
    const list = await api('GET', `root/default/application?filter=${encodeURIComponent(JSON.stringify({ q: appName }))}`);
    expect(list.json[0]).toMatchObject({ client_name: appName, description: 'Edited in its section' });
  });

  it('deletes (soft, confirmed) and recovers the application', async () => {
    await page.getByRole('row', { name: new RegExp(appName) }).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(0);
    await page.getByRole('button', { name: 'Deleted', exact: true }).click();
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(1);
    await page.getByRole('row', { name: new RegExp(appName) }).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Recover', exact: true }).click();
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(0);
    await page.getByRole('button', { name: 'Active', exact: true }).click();
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(1);
  });
});

describe('APIs', () => {
  it('creates an API through its wizard', async () => {
    await page.goto('/apis');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.waitForURL(/\/apis-new$/);
    for (const step of ['General Settings', 'Token Setting', 'RBAC Settings', 'Access Settings']) {
      await poll(() => page.getByText(step, { exact: true }).count()).toBeGreaterThan(0);
    }
    const general = page.getByRole('group', { name: 'General Settings' });
    await general.getByRole('textbox', { name: /^Name/ }).fill(apiName);
    await general.getByRole('textbox', { name: /^Identifier/ }).fill(apiIdentifier);
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    expect(await page.getByRole('group', { name: 'Token Setting' }).getByRole('spinbutton', { name: /^Token Expiration \(/ }).inputValue()).toBe('86400');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await checkA11y(page);
    await page.getByRole('button', { name: 'Finish', exact: true }).click();
    await page.waitForURL(/\/apis$/);
    await poll(() => page.getByRole('cell', { name: apiName }).count()).toBe(1);
    expect(await page.getByRole('cell', { name: apiIdentifier }).count()).toBe(1);
    await checkA11y(page);
    await screenshot(page, 'apis-list-light');
  });

  it('adds three permission scopes, deletes one and pages through twenty', async () => {
    await page.getByRole('cell', { name: apiName }).click();
    await page.waitForURL(/\/apis\/[^/?]+\?company=/);
    await poll(() => page.getByRole('region', { name: 'Code' }).textContent()).toContain('createRemoteJWKSet');
    expect(await page.getByRole('region', { name: 'Code' }).textContent()).toContain(apiIdentifier);
    await page.getByRole('tab', { name: 'Permission' }).click();
    // editable at once for the Owner (docs/CONSOLE.md, "APIs and permission scopes")
    const add = page.getByRole('button', { name: 'Add', exact: true });
    await poll(() => add.isEnabled()).toBe(true);

    for (const [permission, description] of [
      ['orders:read', 'Read orders'],
      ['orders:write', 'Write orders'],
      ['orders:delete', ''],
    ]) {
      await page.getByRole('textbox', { name: /^Permission/ }).fill(permission);
      await page.getByRole('textbox', { name: /^Description/ }).fill(description);
      await add.click();
      // each scope's permission is a link to its own address (docs/CONSOLE.md, "APIs and permission scopes")
      await poll(() => page.getByRole('link', { name: permission, exact: true }).count()).toBe(1);
    }
    await checkA11y(page);
    await screenshot(page, 'apis-permission-light');

    await page.getByRole('button', { name: 'Purge orders:delete' }).click();
    await poll(() => page.getByRole('link', { name: 'orders:delete', exact: true }).count()).toBe(0);

    const apiId = (await api('GET', `root/default/api?filter=${encodeURIComponent(JSON.stringify({ q: apiName }))}`)).json[0].id;
    for (let index = 0; index < 18; index++) {
      const created = await api('POST', `api/${apiId}/PermissionScopes`, { permission: `bulk:${String(index).padStart(2, '0')}`, description: `Bulk ${index}` });
      expect(created.status).toBe(201);
    }
    await page.getByRole('tab', { name: 'Domain' }).click();
    await page.getByRole('tab', { name: 'Permission' }).click();
    await poll(() => page.getByText('1-15 of 20').count()).toBe(1);
    await poll(() => page.getByRole('button', { name: /^Purge / }).count()).toBe(15);
    await page.getByRole('button', { name: 'Page 2' }).click();
    await poll(() => page.getByText('16-20 of 20').count()).toBe(1);
    await poll(() => page.getByRole('button', { name: /^Purge / }).count()).toBe(5);
    await checkA11y(page);

    await page.getByRole('tab', { name: 'Domain' }).click();
    await poll(() => page.getByRole('tabpanel').textContent()).toContain('default');
    await checkA11y(page);

    await setTheme(true);
    await page.getByRole('tab', { name: 'Permission' }).click();
    await poll(() => page.getByText(/of 20/).count()).toBe(1);
    await checkA11y(page);
    await screenshot(page, 'apis-permission-dark');
    await page.getByRole('tab', { name: 'Settings' }).click();
    await screenshot(page, 'apis-settings-dark');
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await page.waitForURL(/\/apis$/);
    await checkA11y(page);
    await screenshot(page, 'apis-list-dark');
    await page.goto('/applications');
    await poll(() => page.getByRole('cell', { name: appName }).count()).toBe(1);
    await checkA11y(page);
    await screenshot(page, 'applications-list-dark');
    await setTheme(false);
  });
});
