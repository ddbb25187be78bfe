/**
 * Moving in (docs/CONSOLE.md, "Import and export", "Provisioning (SCIM)") in Chromium (npm run
 * test:e2e): an administrator imports a CSV with one bad row through the console, first as a dry run
 * that changes nothing, then for real, watching the job's progress and counts, and downloads the
 * error file; exports the users; makes a SCIM token on the domain's Provisioning tab, sees it once,
 * uses it, and revokes it. axe and screenshots, light and dark
 * (test-results/screenshots/import-*.png, copied to /tmp/shots/).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, clickUntil, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

const run = Date.now().toString(36);
const COMPANY = `move-${run}`;
const DOMAIN = `people-${run}`;
const ADA = `ada-${run}@example.com`;
const GRACE = `grace-${run}@example.com`;
const CSV = [
  'E-mail,Full name,Groups,Verified,Shoe size',
  `${ADA},Ada Lovelace,staff-${run},yes,38`,
  'not-an-address,Bad Row,,no,41',
  `${GRACE},Grace Hopper,staff-${run};ops-${run},true,39`,
  '',
].join('\n');

const eventually = <T>(read: () => T | Promise<T>, timeout = 30_000) => expect.poll(read, { timeout, interval: 250 });
const row = (text: string) => page.getByRole('row').filter({ hasText: text });
const sidebarHeading = () => page.getByRole('navigation', { name: 'IAM Console' }).getByRole('heading', { level: 2 });
const button = (name: string) => page.getByRole('button', { name, exact: true });

async function setTheme(target: Page, theme: 'light' | 'dark') {
  await target.emulateMedia({ colorScheme: theme });
  await target.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** Both themes: `ready` brings the page back after the reload (or sets it up again), then axe and a screenshot. */
async function judge(name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    await page.reload();
    await ready();
    await expectNoAxeViolations(page);
    const file = await screenshot(page, `import-${name}-${theme}`);
    fs.mkdirSync('/tmp/shots', { recursive: true });
    fs.copyFileSync(file, path.join('/tmp/shots', path.basename(file)));
  }
  await setTheme(page, 'light');
}

/** The counts of a job's screen, by their terms. */
async function counts(): Promise<Record<string, string>> {
  const terms = await page.locator('dl dt').allTextContents();
  const values = await page.locator('dl dd').allTextContents();
  return Object.fromEntries(terms.map((term, index) => [term, values[index]]));
}

/** The Import / Export screen with the CSV chosen and its mapping shown. */
async function chooseCsv() {
  await eventually(() => button('Choose a file').isVisible()).toBe(true);
  await page.locator('input[type=file]').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await eventually(() => page.getByRole('table', { name: 'Columns' }).isVisible()).toBe(true);
}

const usersOf = async () =>
  (await consoleApi(page, 'GET', `companys/${COMPANY}/domainNames/${DOMAIN}/users?filter=${encodeURIComponent(JSON.stringify({ q: run }))}`)).json as { email: string }[];

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
  const made = await consoleApi(page, 'POST', 'companys', { id: COMPANY, name: COMPANY, displayName: COMPANY, description: 'moving in', type: 'customer', parent: 'root' });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  const domain = await consoleApi(page, 'POST', `companys/${COMPANY}/domainNames`, { name: DOMAIN, description: 'people moving in' });
  expect(domain.status, JSON.stringify(domain.json)).toBe(201);
  // work in the new company: its one domain is current
  await page.goto(`${baseUrl()}/onboarding-companies?perPage=15&page=1`);
  await row(COMPANY).waitFor();
  await row(COMPANY).getByRole('checkbox').check();
  await button('Switch').click();
  await sidebarHeading().filter({ hasText: COMPANY }).waitFor();
}, 180_000);
afterAll(() => browser?.close());

describe('import', () => {
  it('a dry run from the users list checks every row and changes nothing; then for real, with the error file', async () => {
    await page.goto(`${baseUrl()}/users?page=1`);
    const importExport = page.getByRole('link', { name: 'Import / Export' });
    await clickUntil(importExport, async () => page.url().includes('/users-import'));
    await chooseCsv();
    expect(await page.getByText(`people.csv (${Buffer.byteLength(CSV)} B)`).isVisible()).toBe(true);
    // guessed from the names; Shoe size is left out
    const mapped = (column: string) => page.getByRole('combobox', { name: `Column ${column} imported as` });
    expect(await mapped('E-mail').textContent()).toBe('E-mail');
    expect(await mapped('Full name').textContent()).toBe('Display name');
    expect(await mapped('Groups').textContent()).toBe('Groups');
    expect(await mapped('Verified').textContent()).toBe('E-mail verified');
    expect(await mapped('Shoe size').textContent()).toBe('Not imported');
    // with the keyboard: Shoe size as notes, then left out again
    await mapped('Shoe size').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('option', { name: 'Notes' }).focus();
    await page.keyboard.press('Enter');
    await eventually(() => mapped('Shoe size').textContent()).toBe('Notes');
    await mapped('Shoe size').press('Enter');
    await page.getByRole('option', { name: 'Not imported' }).click();
    await eventually(() => mapped('Shoe size').textContent()).toBe('Not imported');
    await page.getByRole('switch', { name: 'Groups and memberships' }).check();
    await judge('screen', async () => {
      await chooseCsv();
      await page.getByRole('switch', { name: 'Groups and memberships' }).check();
    });
    // the reloads forgot the choice of groups
    await page.getByRole('switch', { name: 'Groups and memberships' }).check();

    await button('Dry run').click();
    await page.waitForURL(/\/syncing-results-view\?kind=import&id=/);
    await eventually(() => page.getByRole('progressbar', { name: 'Progress' }).isVisible()).toBe(true);
    await eventually(() => page.getByText('Done, with errors').isVisible(), 60_000).toBe(true);
    expect(await page.getByRole('heading', { name: 'Dry run', level: 1 }).isVisible()).toBe(true);
    expect(await counts()).toEqual({ 'Rows read': '3', Created: '2', Updated: '0', Skipped: '0', Failed: '1' });
    expect(await usersOf()).toEqual([]);
    await judge('dry-run', () => page.getByText('Done, with errors').waitFor());

    const dryRun = new URL(page.url()).searchParams.get('id');
    await button('Import for real').click();
    await page.waitForURL((url) => url.pathname === '/syncing-results-view' && url.searchParams.get('id') !== dryRun);
    await eventually(() => page.getByRole('heading', { name: 'Import', level: 1 }).isVisible()).toBe(true);
    await eventually(() => page.getByText('Done, with errors').isVisible(), 60_000).toBe(true);
    expect(await counts()).toEqual({ 'Rows read': '3', Created: '2', Updated: '0', Skipped: '0', Failed: '1' });
    expect((await usersOf()).map((user) => user.email).sort()).toEqual([ADA, GRACE]);
    const groups = (await consoleApi(page, 'GET', `companys/${COMPANY}/domainNames/${DOMAIN}/groups?filter=${encodeURIComponent(JSON.stringify({ q: run }))}`)).json as { id: string }[];
    expect(groups.map((group) => group.id).sort()).toEqual([`ops-${run}`, `staff-${run}`]);

    const [download] = await Promise.all([page.waitForEvent('download'), button('Download the error file').click()]);
    const lines = fs.readFileSync((await download.path())!, 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe('row,field,message');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^\d+,email,.*not-an-address.*not an e-mail address/)]);
    await judge('done', () => page.getByText('Done, with errors').waitFor());
  });

  it("the side bar's Sync'ing results lists the jobs, each opening its screen", async () => {
    await page.goto(`${baseUrl()}/dashboard`);
    await page.getByRole('menuitem', { name: 'Users' }).click();
    await clickUntil(page.getByRole('menuitem', { name: "Sync'ing results" }), async () => page.url().includes('/syncing-results'));
    const table = page.getByRole('table', { name: 'Import and export jobs' });
    await eventually(() => table.getByRole('row').count()).toBe(3);
    expect(await table.getByRole('row').nth(1).getByRole('cell').nth(1).textContent()).toBe('Import');
    expect(await table.getByRole('row').nth(2).getByRole('cell').nth(1).textContent()).toBe('Dry run');
    await judge('jobs', () => table.getByRole('row').nth(2).waitFor());
    await table.getByRole('row').nth(2).getByRole('link').click();
    await eventually(() => page.getByRole('heading', { name: 'Dry run', level: 1 }).isVisible()).toBe(true);
  });
});

describe('export', () => {
  it('exports the users with their groups, and downloads the file', async () => {
    await page.goto(`${baseUrl()}/users-import`);
    const section = page.getByRole('region', { name: 'Export users' });
    await eventually(() => section.getByRole('switch', { name: 'Include password hashes' }).isEnabled()).toBe(true);
    await clickUntil(section.getByRole('button', { name: 'Export' }), async () => page.url().includes('kind=export'));
    await eventually(() => page.getByText('Done', { exact: true }).isVisible(), 60_000).toBe(true);
    expect(await counts()).toEqual({ 'Users exported': '2' });
    const [download] = await Promise.all([page.waitForEvent('download'), button('Download the file').click()]);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    expect(text.split(/\r?\n/)[0]).toContain('email');
    expect(text).toContain(ADA);
    expect(text).toContain(GRACE);
  });
});

describe('the Provisioning tab', () => {
  it('shows the SCIM base URL, makes a token shown once, which the SCIM server takes, and revokes it', async () => {
    const open = async () => {
      await page.goto(`${baseUrl()}/domains/${DOMAIN}?company=${COMPANY}&tab=provisioning`);
      await eventually(() => page.getByRole('textbox', { name: 'SCIM base URL' }).isVisible()).toBe(true);
    };
    await open();
    const scimBase = `${baseUrl()}/scim/v2/${COMPANY}/${DOMAIN}`;
    expect(await page.getByRole('textbox', { name: 'SCIM base URL' }).inputValue()).toBe(scimBase);
    await eventually(() => page.getByText('No token yet. Choose New token to let an identity system provision this domain.').isVisible()).toBe(true);

    await clickUntil(button('New token'), () => page.getByRole('dialog', { name: 'New token' }).isVisible());
    await page.getByRole('dialog').getByRole('textbox', { name: 'Name' }).fill('Entra ID provisioning');
    await page.keyboard.press('Enter');
    const shown = page.getByRole('dialog', { name: 'Your SCIM token' });
    await eventually(() => shown.isVisible()).toBe(true);
    expect(await shown.getByText("Copy the SCIM token now and keep it somewhere safe: it won't be shown again.").isVisible()).toBe(true);
    const token = await shown.getByRole('textbox', { name: 'SCIM token' }).inputValue();
    expect(token.length).toBeGreaterThan(30);
    await expectNoAxeViolations(page);
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      const file = await screenshot(page, `import-token-${theme}`);
      fs.copyFileSync(file, path.join('/tmp/shots', path.basename(file)));
    }
    await setTheme(page, 'light');
    await shown.getByRole('button', { name: 'Close' }).click();
    await eventually(() => shown.isVisible()).toBe(false);
    expect(await page.content()).not.toContain(token);

    // the token works at the SCIM server, and the call is listed
    const users = await page.request.get(`${scimBase}/Users?count=5`, { headers: { Authorization: `Bearer ${token}` } });
    expect(users.status()).toBe(200);
    await open();
    const calls = page.getByRole('table', { name: 'Last calls' });
    await eventually(() => calls.getByRole('row').count()).toBeGreaterThan(1);
    expect(await calls.getByRole('row').nth(1).textContent()).toContain(`/scim/v2/${COMPANY}/${DOMAIN}/Users`);
    const tokens = page.getByRole('table', { name: 'Tokens' });
    expect(await tokens.getByRole('row').filter({ hasText: 'Entra ID provisioning' }).count()).toBe(1);
    await judge('provisioning', () => page.getByRole('table', { name: 'Last calls' }).waitFor());

    await button('Revoke Entra ID provisioning').click();
    const confirm = page.getByRole('dialog', { name: 'Revoke token "Entra ID provisioning"?' });
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await eventually(() => page.getByText('Token Entra ID provisioning revoked').isVisible()).toBe(true);
    await eventually(() => button('Revoke Entra ID provisioning').count()).toBe(0);
    const refused = await page.request.get(`${scimBase}/Users?count=5`, { headers: { Authorization: `Bearer ${token}` } });
    expect(refused.status()).toBe(401);
  });
});
