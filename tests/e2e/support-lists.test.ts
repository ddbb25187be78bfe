/**
 * A support agent answers her questions from the users list (docs/CONSOLE.md, "Lists" and "Bulk
 * actions") in Chromium against the running provider (npm run test:e2e): "users created in the last
 * 7 days who never signed in", asked with the declared filters, carried in the address, exported
 * with the columns she chose (the downloaded CSV read back); 20 users added to a group from the users
 * list in at most 6 actions; a saved view restored. axe, and screenshots light and dark at a laptop's
 * and a phone's width. Other browser tests share the server: her people have names of their own and
 * are found by searching.
 */
import fs from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEmail, baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

const run = Date.now().toString(36);
const DOMAIN_PATH = 'companys/root/domainNames/default';
/** 20 people to add to a group, and 2 more of the same mail domain. */
const BULK = Array.from({ length: 20 }, (_, index) => ({
  id: `sl-${run}-${String(index + 1).padStart(2, '0')}`,
  name: `Listed ${run} ${String(index + 1).padStart(2, '0')}`,
  email: `sl-${run}-${index + 1}@l${run}.example`,
}));
const OTHERS = [1, 2].map((index) => ({ id: `slo-${run}-${index}`, name: `Other ${run} ${index}`, email: `slo-${run}-${index}@l${run}.example` }));
const GROUP = { id: `support-${run}`, name: `support-${run}`, displayName: `Support desk ${run}`, email: `desk-${run}@example.com` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (within: Page | Locator, name: string) => within.getByRole('button', { name, exact: true });
const rows = () => page.locator('tbody tr');
/** What the pagination says ("1-3 of 22"), or what the list says instead. */
const shownRange = async () =>
  (await page.getByText(/^\d+-\d+ of \d+$/).count()) ? page.getByText(/^\d+-\d+ of \d+$/).first().textContent() : page.locator('main').innerText();

async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Each theme at 1280 and 390 px: reload, wait for `ready`, axe, a screenshot. */
async function judge(name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(theme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.reload();
      await ready();
      await expectNoAxeViolations(page);
      await screenshot(page, `lists-${name}-${theme}-${width}`);
    }
  }
  await setTheme('light');
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** "Add filter", then one of its entries. */
async function addFilter(label: string) {
  await button(page, 'Add filter').click();
  await page.getByRole('menuitemcheckbox', { name: label, exact: true }).click();
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
  for (const person of [...BULK, ...OTHERS]) {
    const made = await consoleApi(page, 'POST', `${DOMAIN_PATH}/users`, { id: person.id, username: person.id, displayName: person.name, email: person.email });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
  }
  const group = await consoleApi(page, 'POST', `${DOMAIN_PATH}/groups`, GROUP);
  expect(group.status, JSON.stringify(group.json)).toBe(201);
});
afterAll(() => browser?.close());

describe('a support agent on the users list', () => {
  it('asks for users created in the last 7 days who never signed in; the address carries the question; she exports them with the columns she chose', async () => {
    await page.goto(`${baseUrl()}/users`);
    await eventually(() => button(page, 'Add filter').isVisible()).toBe(true);
    await addFilter('Created');
    await eventually(() => page.getByRole('combobox', { name: 'Created' }).textContent()).toContain('Last 7 days');
    await addFilter('Never signed in');
    await page.getByPlaceholder('Search').first().fill(run);
    // the 22 people made here, on pages of 3 (the specification's size)
    await eventually(() => shownRange()).toBe('1-3 of 22');
    const address = decodeURIComponent(page.url());
    expect(address).toContain('"createdAt_days":7');
    expect(address).toContain('"neverSignedIn":true');

    // the filtered list is a link: opened afresh, it asks the same
    await page.goto(page.url());
    await eventually(() => shownRange()).toBe('1-3 of 22');
    // the administrator signed in: she is not among those who never did (the list's own call)
    const never = await consoleApi(page, 'GET', `${DOMAIN_PATH}/users?filter=${encodeURIComponent(JSON.stringify({ q: adminEmail(), neverSignedIn: true }))}`);
    expect(never.json).toEqual([]);
    const signedIn = await consoleApi(page, 'GET', `${DOMAIN_PATH}/users?filter=${encodeURIComponent(JSON.stringify({ q: adminEmail(), neverSignedIn: false }))}`);
    expect((signedIn.json as { email: string }[]).map((user) => user.email)).toEqual([adminEmail()]);

    // columns: Created and Last sign-in on, Email off
    await page.getByRole('button', { name: 'Columns' }).click();
    for (const label of ['Created', 'Last sign-in', 'Email']) await page.getByRole('option', { name: label, exact: true }).locator('input').click();
    await page.keyboard.press('Escape');
    await eventually(() => page.getByRole('columnheader').allTextContents()).toEqual(['', 'Name', 'Created', 'Last sign-in']);

    const download = page.waitForEvent('download');
    await button(page, 'Export CSV').click();
    const file = await (await download).path();
    const lines = fs.readFileSync(file, 'utf8').replace(/^\ufeff/, '').trim().split(/\r\n/);
    expect(lines[0]).toBe('ID,Name,Created,Last sign-in');
    // the whole filtered list, not the page shown
    expect(lines).toHaveLength(23);
    const ada = lines.find((line) => line.startsWith(`${BULK[0].id},`))!;
    expect(ada).toMatch(new RegExp(`^${BULK[0].id},${BULK[0].name},\\d{4}-\\d\\d-\\d\\dT[^,]+,$`));

    await judge('users-filtered', () => eventually(() => shownRange()).toBe('1-3 of 22'));
  });

  it('saves that question as a view and gets it back from the plain list', async () => {
    await button(page, 'Saved views').click();
    await page.getByRole('menuitem', { name: 'Save current view...' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save current view as' });
    await dialog.getByLabel('View name').fill(`New, never signed in ${run}`);
    await button(dialog, 'Save').click();
    await eventually(() => dialog.count()).toBe(0);

    // the plain list: nothing asked (react-admin would otherwise bring back the last filters)
    await page.goto(`${baseUrl()}/users?filter=${encodeURIComponent('{}')}`);
    await eventually(() => button(page, 'Saved views').isVisible()).toBe(true);
    await eventually(() => page.getByRole('combobox', { name: 'Created' }).count()).toBe(0);
    await button(page, 'Saved views').click();
    await page.getByRole('menuitem', { name: `New, never signed in ${run}` }).click();
    await page.getByPlaceholder('Search').first().waitFor();
    await eventually(() => shownRange()).toBe('1-3 of 22');
    expect(decodeURIComponent(page.url())).toContain('"neverSignedIn":true');
    await eventually(() => page.getByRole('combobox', { name: 'Created' }).textContent()).toContain('Last 7 days');
    // the menu now offers to remove the view it shows
    await button(page, 'Saved views').click();
    await eventually(() => page.getByRole('menuitem', { name: `Remove view "New, never signed in ${run}"` }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');
  });

  it('adds 20 users to a group from the users list in at most 6 actions', async () => {
    const actions: string[] = [];
    const act = async (what: string, done: () => Promise<unknown>) => {
      actions.push(what);
      await done();
    };
    // 1: a link to the 20 of them, 25 a page (the address carries search and page size)
    await act('open the list', () => page.goto(`${baseUrl()}/users?filter=${encodeURIComponent(JSON.stringify({ q: `sl-${run}-` }))}&perPage=25`));
    await eventually(() => rows().filter({ hasText: `Listed ${run}` }).count()).toBe(20);
    // 2: the page selected
    await act('select the page', () => page.getByRole('columnheader').getByRole('checkbox').check());
    await eventually(() => page.getByText('20 items selected').isVisible()).toBe(true);
    // 3: Add to group
    await act('Add to group', () => button(page, 'Add to group').click());
    const dialog = page.getByRole('dialog', { name: 'Add 20 users to a group' });
    await eventually(() => dialog.isVisible()).toBe(true);
    // 4, 5: the group, typed and picked
    await act('type the group', () => dialog.getByRole('combobox', { name: 'Group' }).fill(GROUP.displayName));
    await act('pick the group', () => page.getByRole('option', { name: GROUP.displayName }).click());
    await expectNoAxeViolations(page);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await screenshot(page, `lists-add-to-group-light-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    // 6: confirmed, naming how many
    await act('confirm', () => button(dialog, 'Add to group (20)').click());
    await eventually(() => page.getByText(`20 users added to ${GROUP.displayName}`).isVisible()).toBe(true);
    expect(actions.length).toBeLessThanOrEqual(6);

    // the dialog in the dark (the theme is read at load: a new page, the same steps)
    await setTheme('dark');
    await page.reload();
    await eventually(() => rows().filter({ hasText: `Listed ${run}` }).count()).toBe(20);
    await page.getByRole('columnheader').getByRole('checkbox').check();
    await button(page, 'Add to group').click();
    await dialog.getByRole('combobox', { name: 'Group' }).fill(GROUP.displayName);
    await page.getByRole('option', { name: GROUP.displayName }).click();
    await expectNoAxeViolations(page);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await screenshot(page, `lists-add-to-group-dark-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await button(dialog, 'Cancel').click();
    await setTheme('light');

    const members = await consoleApi(page, 'GET', `${DOMAIN_PATH}/groups/${GROUP.id}/members?range=${encodeURIComponent('[0,99]')}`);
    expect(members.status).toBe(200);
    expect((members.json as { id: string }[]).map((member) => member.id).sort()).toEqual(BULK.map((person) => person.id));

    // "member of group X" and "in no group" answer from the same memberships
    await page.goto(`${baseUrl()}/users?filter=${encodeURIComponent(JSON.stringify({ q: run, inNoGroup: true }))}`);
    await eventually(() => rows().filter({ hasText: `Other ${run}` }).count()).toBe(2);
    expect(await rows().filter({ hasText: `Listed ${run}` }).count()).toBe(0);
  });

  it('the bulk actions bar and the column chooser at both widths, light and dark', async () => {
    await page.goto(`${baseUrl()}/users?filter=${encodeURIComponent(JSON.stringify({ q: `slo-${run}` }))}`);
    const select = async () => {
      await eventually(() => rows().filter({ hasText: `Other ${run}` }).count()).toBe(2);
      await page.getByRole('columnheader').getByRole('checkbox').check();
      await eventually(() => button(page, 'Send reset link').isVisible()).toBe(true);
    };
    await judge('users-selected', select);
    await select();
    await button(page, 'Block').click();
    const confirm = page.getByRole('dialog', { name: 'Block 2 users?' });
    await button(confirm, 'Block').click();
    await eventually(() => page.getByText('2 users blocked').isVisible()).toBe(true);
    await page.goto(`${baseUrl()}/users?filter=${encodeURIComponent(JSON.stringify({ q: run, blocked: true }))}`);
    await eventually(() => rows().filter({ hasText: `Other ${run}` }).count()).toBe(2);
  });
});
