/**
 * The console follows the roles (docs/CONSOLE.md, "Roles") in Chromium against the running provider
 * (npm run test:e2e): root (Owner) makes two people of its domain, gives one Support through the API
 * and the other Auditor on the Roles screen; each signs in in a browser of her own and sees what her
 * role lets her read, with what it does not let her do disabled and saying which role would; the
 * provider refuses a write forced past the console (403, naming the permission). axe, and
 * screenshots light and dark.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, clickUntil, consoleApi, createUser, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const PASSWORD = 'Roles-Pass-1';
const SUPPORT = { id: `support-${run}`, name: `Sam Support ${run}`, email: `support-${run}@example.com` };
const AUDITOR = { id: `auditor-${run}`, name: `Alex Auditor ${run}`, email: `auditor-${run}@example.com` };
const USER_MANAGER = { id: `um-${run}`, name: `Uma Manager ${run}`, email: `um-${run}@example.com` };
const DOMAIN_PATH = 'companys/root/domainNames/default';

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (within: Page | Locator, name: string) => within.getByRole('button', { name, exact: true });
const menuItem = (page: Page, name: string) => page.getByRole('menuitem', { name, exact: true });

/** The tooltip of a disabled button: its wrapper takes the pointer (and the focus). */
async function reasonOf(page: Page, disabled: Locator): Promise<string> {
  await eventually(() => disabled.isDisabled()).toBe(true);
  await disabled.locator('xpath=..').hover();
  const tooltip = page.getByRole('tooltip');
  await eventually(() => tooltip.isVisible()).toBe(true);
  return (await tooltip.textContent()) ?? '';
}

/** A person of root's default domain, with a password. */
const makeUser = (person: typeof SUPPORT) => createUser(root, `${DOMAIN_PATH}/users`, person, PASSWORD);

/** A fresh browser of her own, signed in to the console. */
async function signedIn(person: typeof SUPPORT): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, { email: person.email, password: PASSWORD });
  // the side bar once her permissions are in
  await eventually(() => menuItem(page, 'Audit log').isVisible()).toBe(true);
  return { context, page };
}

async function setTheme(page: Page, theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Root's Roles screen: Assign, the auditor, the Auditor role; the dialog is left open. */
async function chooseAuditor(): Promise<Locator> {
  await eventually(() => button(root, 'Assign').isEnabled()).toBe(true);
  const dialog = root.getByRole('dialog', { name: 'Assign a role' });
  await clickUntil(button(root, 'Assign'), () => dialog.isVisible());
  await dialog.getByRole('combobox', { name: 'User' }).fill(AUDITOR.name);
  await root.getByRole('option', { name: new RegExp(AUDITOR.name) }).click();
  await dialog.getByRole('radio', { name: /^Auditor/ }).check();
  return dialog;
}

/** Each theme: reload, wait for `ready`, axe, then a screenshot (with `hover` first: a tooltip in the picture). */
async function judge(page: Page, name: string, ready: () => Promise<unknown>, hover?: () => Locator) {
  const files: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    await page.reload();
    await ready();
    await expectNoAxeViolations(page);
    if (hover) {
      await hover().locator('xpath=..').hover();
      await eventually(() => page.getByRole('tooltip').isVisible()).toBe(true);
    }
    files.push(await screenshot(page, `${name}-${theme}`));
    await page.mouse.move(0, 0);
  }
  return files;
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
});
afterAll(() => browser?.close());

describe('roles in the console', () => {
  it('root gives Support through the API and Auditor on the Roles screen', async () => {
    await makeUser(SUPPORT);
    await makeUser(AUDITOR);
    const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', {
      role: 'support',
      holderType: 'user',
      holderId: SUPPORT.id,
      holderCompanyId: 'root',
      holderDomainId: 'default',
    });
    expect(given.status, JSON.stringify(given.json)).toBe(201);

    // the Assign dialog in each theme, at a laptop's and a phone's width
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(root, theme);
      await root.goto(`${baseUrl()}/roles`);
      await eventually(() => root.getByRole('row').filter({ hasText: SUPPORT.name }).count()).toBe(1);
      const dialog = await chooseAuditor();
      await expectNoAxeViolations(root);
      for (const width of [1280, 390]) {
        await root.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        await screenshot(root, `roles-assign-dialog-${theme}-${width}`);
      }
      await root.setViewportSize({ width: 1280, height: 800 });
      await button(dialog, 'Cancel').click();
    }
    await button(await chooseAuditor(), 'Assign').click();
    await eventually(() => root.getByText(`Auditor given to ${AUDITOR.name} over Root (and below)`).isVisible()).toBe(true);
    const auditorRow = root.getByRole('row').filter({ hasText: AUDITOR.name });
    await eventually(() => auditorRow.count()).toBe(1);
    expect(await auditorRow.textContent()).toContain('Root (and below)');

    await judge(root, 'roles-screen-owner', () => eventually(() => root.getByRole('row').filter({ hasText: AUDITOR.name }).count()).toBe(1));

    // her screen's Roles tab says the same
    await root.goto(`${baseUrl()}/users`);
    // (other browser tests share this server: her row is found by searching, not on the first page)
    await root.getByPlaceholder('Search').first().fill(SUPPORT.email);
    await eventually(() => root.getByRole('row').filter({ hasText: SUPPORT.email }).count()).toBe(1);
    await root.getByRole('row').filter({ hasText: SUPPORT.email }).getByRole('link').first().click();
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(root, theme);
      await root.reload();
      await root.getByRole('tab', { name: 'Roles' }).click();
      const panel = root.getByRole('tabpanel', { name: 'Roles' });
      // the role by its name, and where it is held
      await eventually(() => panel.getByRole('row').filter({ hasText: /^Support/ }).filter({ hasText: 'Root (and below)' }).count()).toBe(1);
      await expectNoAxeViolations(root);
      await screenshot(root, `roles-user-tab-${theme}`);
    }
  });

  it('Support reads users, groups, sign-in logs and history; may not create, delete or purge, nor write through the API', async () => {
    const { context, page } = await signedIn(SUPPORT);
    expect(await menuItem(page, 'Enterprise Applications').count()).toBe(0);
    expect(await menuItem(page, 'Roles').count()).toBe(0);
    await menuItem(page, 'Users').click();
    const users = page.locator('#menu-users').getByRole('menuitem');
    // the Outbox too: Support sends links and sees what was sent, without the links (users:recover)
    // Sync'ing results opens the import jobs, which Support may not read (users:import)
    await eventually(() => users.allTextContents()).toEqual(['All users', 'Deleted users', 'Sign-in logs', 'Outbox', 'Password reset', 'User settings']);

    await users.filter({ hasText: 'All users' }).click();
    // (other browser tests share this server: the row is found by searching, not on the first page)
    await page.getByPlaceholder('Search').first().fill(run);
    await eventually(() => page.getByRole('row').filter({ hasText: SUPPORT.email }).count()).toBe(1);
    const needs = 'Needs the Owner, Administrator or User manager role';
    expect(await reasonOf(page, button(page, 'New'))).toBe(needs);
    await page.getByRole('row').filter({ hasText: AUDITOR.email }).getByRole('checkbox').check();
    expect(await reasonOf(page, button(page, 'Delete'))).toBe(needs);
    expect(await button(page, 'Export CSV').isEnabled()).toBe(true);

    // a user's screen: Edit is not hers; History, Sign-ins and Sessions are; Roles is not
    await page.getByRole('row').filter({ hasText: AUDITOR.email }).getByRole('link').first().click();
    await eventually(() => page.getByRole('tab', { name: 'History' }).isVisible()).toBe(true);
    expect(await page.getByRole('tab').allTextContents()).toEqual(['General', 'History', 'Sign-ins', 'Sessions', 'Linked identities']);
    expect(await reasonOf(page, button(page, 'Edit'))).toBe(needs);

    await page.goto(`${baseUrl()}/users-deleted`);
    await eventually(() => button(page, 'Purge').isVisible()).toBe(true);
    expect(await reasonOf(page, button(page, 'Purge'))).toBe(needs);

    const forced = await consoleApi(page, 'POST', `${DOMAIN_PATH}/users`, { username: `x-${run}`, displayName: 'X', email: `x-${run}@example.com` });
    expect(forced.status).toBe(403);
    expect(forced.json.message).toBe(`Your role does not allow users:write here: it needs the Owner, Administrator or User manager role.`);

    // a list her roles do not let her read, by its address
    await page.goto(`${baseUrl()}/applications`);
    await page.waitForURL(/\/access-denied$/);
    await eventually(() => page.getByText("You don't have the right permissions to access this page").isVisible()).toBe(true);
    await expectNoAxeViolations(page);
    await screenshot(page, 'roles-support-access-denied');

    await page.goto(`${baseUrl()}/users`);
    await judge(
      page,
      'roles-support-users',
      () => eventually(() => page.getByRole('row').filter({ hasText: SUPPORT.email }).count()).toBe(1),
      () => button(page, 'New'),
    );
    await context.close();
  });

  it('Auditor reads applications, the audit log and who holds which role; changes nothing', async () => {
    const { context, page } = await signedIn(AUDITOR);
    await menuItem(page, 'Enterprise Applications').click();
    await eventually(() => page.locator('#menu-enterprise').getByRole('menuitem').allTextContents()).toEqual(['Applications', 'APIs', 'Connections']);
    await page.locator('#menu-enterprise').getByRole('menuitem', { name: 'Applications' }).click();
    await eventually(() => page.getByRole('row').filter({ hasText: 'IAM Console' }).count()).toBe(1);
    expect(await reasonOf(page, button(page, 'New'))).toBe('Needs the Owner, Administrator or Application manager role');
    await judge(
      page,
      'roles-auditor-applications',
      () => eventually(() => page.getByRole('row').filter({ hasText: 'IAM Console' }).count()).toBe(1),
      () => button(page, 'New'),
    );

    await menuItem(page, 'Audit log').click();
    // a side-bar link opens its list afresh (?page=1)
    await page.waitForURL(/\/audit-log(\?|$)/);
    // the people root made, and the role it gave
    await eventually(() => page.getByRole('row').filter({ hasText: /Created/ }).count()).toBeGreaterThan(0);
    await judge(page, 'roles-auditor-audit-log', () => eventually(() => page.getByRole('row').count()).toBeGreaterThan(1));

    await page.goto(`${baseUrl()}/roles`);
    await eventually(() => page.getByRole('row').filter({ hasText: SUPPORT.name }).count()).toBe(1);
    expect(await reasonOf(page, button(page, 'Assign'))).toBe('Needs the Owner or Administrator role');
    await judge(
      page,
      'roles-auditor-roles',
      () => eventually(() => page.getByRole('row').filter({ hasText: SUPPORT.name }).count()).toBe(1),
      () => button(page, 'Assign'),
    );

    const forced = await consoleApi(page, 'POST', `${DOMAIN_PATH}/groups`, { name: `g-${run}`, displayName: 'G', email: `g-${run}@example.com` });
    expect(forced.status).toBe(403);
    expect(forced.json.message).toMatch(/^Your role does not allow groups:write here/);
    await context.close();
  });

  it("a User manager sees the administrators group's Add greyed out with the reason, and the provider refuses her joining it", async () => {
    await makeUser(USER_MANAGER);
    const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', { role: 'user-manager', holderType: 'user', holderId: USER_MANAGER.id, holderCompanyId: 'root', holderDomainId: 'default' });
    expect(given.status, JSON.stringify(given.json)).toBe(201);
    const { context, page } = await signedIn(USER_MANAGER);
    await page.goto(`${baseUrl()}/groups/administrators?company=root&domain=default&tab=members`);
    const reason = 'Group administrators gives a role to its members: changing its members is giving or taking a role, which needs roles:write (the Owner or Administrator role).';
    expect(await reasonOf(page, button(page, 'Add'))).toBe(reason);
    await page.mouse.move(0, 0);
    await judge(
      page,
      'roles-user-manager-administrators-members',
      () => eventually(() => button(page, 'Add').isDisabled()).toBe(true),
      () => button(page, 'Add'),
    );
    const forced = await consoleApi(page, 'POST', `${DOMAIN_PATH}/groups/administrators/members`, [{ id: USER_MANAGER.id, type: 'user' }]);
    expect(forced.status).toBe(403);
    expect(forced.json.message).toBe(reason);
    await context.close();
  });
});
