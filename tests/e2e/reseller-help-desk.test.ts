/**
 * A reseller runs its own help desk (issue 35; docs/CONSOLE.md, "Roles") in Chromium against the
 * running provider (npm run test:e2e): root sets a reseller up through the API (its company, domain,
 * first administrator, who is its Owner, and a second administrator, who is an Administrator only);
 * the Administrator signs in to the console with the reseller's link and gives a person of her
 * company the Support role on the Roles screen, the Owner role greyed out with the reason; the
 * provider refuses the Owner role forced past the console. axe, and screenshots light and dark.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, createUser, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const RESELLER = `desk-${run}`;
const RESELLER_NAME = `Desk Reseller ${run}`;
const DOMAIN = 'prod';
const BASE = `companys/${RESELLER}/domainNames/${DOMAIN}`;
const PASSWORD = 'Help-Desk-Pass-1';
const OWNER = { id: 'olga', name: `Olga Owner ${run}`, email: `olga@${RESELLER}.example` };
const ADMIN = { id: 'ada', name: `Ada Admin ${run}`, email: `ada@${RESELLER}.example` };
const AGENT = { id: 'pat', name: `Pat Agent ${run}`, email: `pat@${RESELLER}.example` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (within: Page | Locator, name: string) => within.getByRole('button', { name, exact: true });

const makeUser = (person: typeof OWNER) => createUser(root, `${BASE}/users`, person, PASSWORD);

async function addToAdministrators(personId: string) {
  const added = await consoleApi(root, 'POST', `${BASE}/groups/administrators/members`, [{ type: 'user', id: personId }]);
  expect(added.status, JSON.stringify(added.json)).toBe(200);
}

/** Her roles over the reseller, as the provider lists them. */
async function rolesOf(personId: string): Promise<string[]> {
  const listed = await consoleApi(root, 'GET', `companys/${RESELLER}/roleAssignments?filter=${encodeURIComponent(JSON.stringify({ holderId: personId }))}`);
  expect(listed.status).toBe(200);
  return (listed.json as { role: string }[]).map((assignment) => assignment.role).sort();
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
});
afterAll(() => browser?.close());

describe("a reseller's Administrator runs its help desk", () => {
  let context: BrowserContext;
  let ada: Page;

  it("root sets the reseller up: its first administrator is its Owner, the second an Administrator", async () => {
    const company = await consoleApi(root, 'POST', 'companys', { name: RESELLER, displayName: RESELLER_NAME, description: 'help desk journey', type: 'reseller', parent: 'root' });
    expect(company.status, JSON.stringify(company.json)).toBe(201);
    expect((await consoleApi(root, 'POST', `companys/${RESELLER}/domainNames`, { name: DOMAIN, description: 'production' })).status).toBe(201);
    const group = await consoleApi(root, 'POST', `${BASE}/groups`, { name: 'administrators', displayName: 'Administrators', email: `admins@${RESELLER}.example` });
    expect(group.status, JSON.stringify(group.json)).toBe(201);
    for (const person of [OWNER, ADMIN, AGENT]) await makeUser(person);
    await addToAdministrators(OWNER.id);
    await addToAdministrators(ADMIN.id);
    expect(await rolesOf(OWNER.id)).toEqual(['owner']);
    // the second is an Administrator through the group alone: no assignment of her own
    expect(await rolesOf(ADMIN.id)).toEqual([]);
  });

  it('the Administrator signs in and gives Support on the Roles screen; Owner is greyed out with the reason', async () => {
    context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    ada = await context.newPage();
    await ada.goto(`${baseUrl()}/login?company=${RESELLER}`);
    await eventually(() => button(ada, 'Login').isEnabled()).toBe(true);
    await ada.getByLabel('Email').fill(ADMIN.email);
    await ada.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await button(ada, 'Login').click();
    await ada.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    const me = await consoleApi(ada, 'GET', `me/permissions?companyId=${RESELLER}&domainId=${DOMAIN}`);
    expect(me.json.roles).toEqual(['administrator']);
    expect(me.json.permissions).toContain('roles:write');
    expect(me.json.permissions).not.toContain('roles:owner');

    await ada.goto(`${baseUrl()}/roles`);
    await eventually(() => ada.getByRole('row').filter({ hasText: OWNER.name }).count()).toBe(1);
    await eventually(() => button(ada, 'Assign').isEnabled()).toBe(true);

    const openDialog = async () => {
      await button(ada, 'Assign').click();
      const dialog = ada.getByRole('dialog', { name: 'Assign a role' });
      await dialog.getByRole('combobox', { name: 'User' }).fill(AGENT.name);
      await ada.getByRole('option', { name: new RegExp(AGENT.name) }).click();
      const owner = dialog.getByRole('radio', { name: /^Owner/ });
      await eventually(() => owner.isDisabled()).toBe(true);
      await dialog.getByRole('radio', { name: /^Support/ }).check();
      return dialog;
    };

    for (const theme of ['light', 'dark'] as const) {
      await ada.emulateMedia({ colorScheme: theme });
      await ada.evaluate((value) => localStorage.setItem('theme', value), theme);
      await ada.reload();
      await eventually(() => button(ada, 'Assign').isEnabled()).toBe(true);
      const dialog = await openDialog();
      const ownerLabel = dialog.locator('label').filter({ has: ada.getByRole('radio', { name: /^Owner/ }) });
      expect(await ownerLabel.textContent()).toContain('Needs the Owner role');
      expect(await dialog.getByRole('radio', { name: /^Administrator/ }).isEnabled()).toBe(true);
      expect(await dialog.getByRole('radio', { name: /^User manager/ }).isEnabled()).toBe(true);
      await expectNoAxeViolations(ada);
      await screenshot(ada, `reseller-help-desk-assign-${theme}`);
      await button(dialog, 'Cancel').click();
      await eventually(() => dialog.isVisible()).toBe(false);
    }

    const dialog = await openDialog();
    await button(dialog, 'Assign').click();
    await eventually(() => ada.getByText(`Support given to ${AGENT.name} over ${RESELLER_NAME} (and below)`).isVisible()).toBe(true);
    await eventually(() => ada.getByRole('row').filter({ hasText: AGENT.name }).count()).toBe(1);
    expect(await rolesOf(AGENT.id)).toEqual(['support']);
    await ada.mouse.move(0, 0);
    await expectNoAxeViolations(ada);
    await screenshot(ada, 'reseller-help-desk-given');
  });

  it('the provider refuses her the Owner role forced past the console, and acting on the Owner', async () => {
    const forced = await consoleApi(ada, 'POST', `companys/${RESELLER}/roleAssignments`, { role: 'owner', holderType: 'user', holderId: AGENT.id, holderCompanyId: RESELLER, holderDomainId: DOMAIN });
    expect(forced.status).toBe(403);
    expect(forced.json.message).toBe(`You cannot give the Owner role over company ${RESELLER} and the companies below it: your roles there do not give all it gives.`);
    const onOwner = await consoleApi(ada, 'POST', `${BASE}/users/${OWNER.id}/block`, {});
    expect(onOwner.status).toBe(403);
    expect(await rolesOf(AGENT.id)).toEqual(['support']);
    await context.close();
  });
});
