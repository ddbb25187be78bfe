/**
 * History tabs and the Audit log (docs/CONSOLE.md, "History and audit log") in Chromium against the
 * running provider (npm run test:e2e): a user's display name changed in the console shows in the
 * user's History tab, before and after; the Audit log finds the change by resource type and action,
 * expands it and exports it as CSV. axe and screenshots in the light and dark themes.
 */
import fs from 'node:fs';
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn, consoleApi } from './browser.js';

let browser: Browser;
let page: Page;

const suffix = Date.now().toString(36);
const user = { username: `hist-${suffix}`, displayName: `Hedy History ${suffix}`, email: `hist-${suffix}@example.com`, notes: '' };
const renamed = `Hedy Lamarr ${suffix}`;
let userId = '';

/** The console loads lazily and lists debounce: give the page time before judging. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

/** Calls the management API with the signed-in console's own token (setup that is not under test). */
const api = (method: string, path: string, body?: unknown) => consoleApi(page, method, path, body);

async function domainPath(): Promise<string> {
  const { company, domain } = await page.evaluate(() => ({
    company: JSON.parse(sessionStorage.getItem('company') ?? '{}').id as string,
    domain: JSON.parse(sessionStorage.getItem('domain') ?? '{}').id as string,
  }));
  return `companys/${encodeURIComponent(company)}/domainNames/${encodeURIComponent(domain)}`;
}

/** Opens the user from the Users list (its search box), in view mode. */
async function openUser(name: string) {
  await page.goto(`${baseUrl()}/users`);
  await page.getByPlaceholder('Search').first().fill(user.username);
  await page.waitForTimeout(700);
  await page.waitForLoadState('networkidle');
  // the first column is a link to the user's address (docs/CONSOLE.md, "Routes")
  await page.getByRole('link', { name }).click();
  await page.waitForURL(/\/users\/[^/?]+\?company=/);
}

const historyEntry = (action: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: action, exact: true }) });

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
  const created = await api('POST', `${await domainPath()}/users`, { ...user, authVerification: await bcrypt.hash('History-Pass-1', 10) });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  userId = created.json.id;
});
afterAll(() => browser?.close());

describe('History and audit log', () => {
  it("a display name changed in the console shows in the user's History tab, before and after", async () => {
    await openUser(user.displayName);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Display Name').fill(renamed);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/users(\?|$)/);

    await openUser(renamed);
    await page.getByRole('tab', { name: 'History' }).click();
    const updated = historyEntry('Updated');
    await eventually(() => updated.count()).toBe(1);
    const change = updated.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Display Name' }) });
    await eventually(() => change.getByRole('cell').allTextContents()).toEqual([user.displayName, renamed]);
    // by the signed-in administrator, from the browser's address
    await eventually(() => updated.getByRole('link', { name: 'Administrator' }).count()).toBe(1);
    await expect(updated.getByText(/^from /).textContent()).resolves.toMatch(/^from \S+/);
    // the create is there too, with the password only as "changed (hidden)"
    const created = historyEntry('Created');
    await eventually(() => created.count()).toBe(1);
    await expect(created.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Password' }) }).textContent()).resolves.toContain(
      'changed (hidden)',
    );
    expect(await created.textContent()).not.toContain('$2');
  });

  it('the Audit log finds the change by resource type and action, expands it and exports it as CSV', async () => {
    await page.goto(`${baseUrl()}/dashboard`);
    await page.getByRole('menuitem', { name: 'Audit log' }).click();
    await page.waitForURL(/\/audit-log(\?|$)/);
    await eventually(() => page.getByRole('row').count()).toBeGreaterThan(1);

    await page.getByRole('combobox', { name: 'Resource type' }).click();
    await page.getByRole('option', { name: 'User', exact: true }).click();
    await page.getByRole('combobox', { name: 'Action' }).click();
    await page.getByRole('option', { name: 'Updated', exact: true }).click();
    // the changed user is named by her display name (docs/CONSOLE.md, "History and audit log")
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: renamed, exact: true }) });
    await eventually(() => row.count()).toBe(1);
    await eventually(() => page.getByRole('row').filter({ hasText: 'Created' }).count()).toBe(0);
    // the changed user is a link to their screen; the actor is named
    await expect(row.getByRole('link', { name: renamed, exact: true }).getAttribute('href')).resolves.toMatch(new RegExp(`^/users/${userId}\\?company=`));
    await eventually(() => row.getByRole('link', { name: 'Administrator' }).count()).toBe(1);

    await row.getByRole('cell', { name: 'User', exact: true }).click();
    const changes = page.getByRole('table', { name: 'Changes' });
    await eventually(() => changes.count()).toBe(1);
    await expect(changes.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Display Name' }) }).textContent()).resolves.toBe(
      `Display Name${user.displayName}${renamed}`,
    );
    await screenshot(page, 'audit-log-filtered');

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('auditEvents.csv');
    const lines = fs.readFileSync((await download.path())!, 'utf8').trim().split(/\r\n/);
    // the provider's export: the id, the columns shown under their headers, then the changes (docs/CONSOLE.md, "Lists")
    expect(lines[0]).toBe('ID,Time,Action,Resource type,Resource,Actor,Domain,Changes');
    const mine = lines.filter((line) => line.includes(userId));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toContain(',update,users,');
    expect(mine[0]).toContain(`""displayName"":{""after"":""${renamed}"",""before"":""${user.displayName}""}`);
    // every exported row is an update of a user: the export follows the filters
    expect(lines.slice(1).every((line) => line.includes(',update,users,'))).toBe(true);

    // the link opens the user's screen
    await row.getByRole('link', { name: renamed, exact: true }).click();
    await page.waitForURL(/\/users\/[^/?]+\?company=/);
    await eventually(() => page.getByLabel('Display Name').inputValue()).toBe(renamed);
  });
});

/** axe on the History tab and the Audit log (a row expanded), light and dark, with a screenshot of each. */
describe('accessibility of the History tab and the Audit log', () => {
  const screens: [string, () => Promise<void>][] = [
    [
      'user-history',
      async () => {
        await openUser(renamed);
        await page.getByRole('tab', { name: 'History' }).click();
        await eventually(() => historyEntry('Updated').count()).toBe(1);
      },
    ],
    [
      'audit-log',
      async () => {
        // filtered to this user's update (the shared server's other tests fill the first pages)
        const filter = JSON.stringify({ resourceType: 'users', resourceId: userId, action: 'update' });
        await page.goto(`${baseUrl()}/audit-log?filter=${encodeURIComponent(filter)}`);
        const row = page.getByRole('row').filter({ hasText: 'Updated' }).filter({ has: page.getByRole('link', { name: renamed, exact: true }) });
        await eventually(() => row.count()).toBe(1);
        // react-admin's store keeps a row expanded from the last visit
        await page.waitForLoadState('networkidle');
        // the store's expansion may show a moment after the page settles: a click then closes it, so look again before each try
        for (let attempt = 0; attempt < 4; attempt++) {
          if ((await page.getByRole('table', { name: 'Changes' }).count()) === 1) break;
          await row.getByRole('cell', { name: 'User', exact: true }).click();
          await page.waitForTimeout(1500);
        }
        await eventually(() => page.getByRole('table', { name: 'Changes' }).count()).toBe(1);
      },
    ],
  ];

  for (const theme of ['light', 'dark'] as const) {
    it.each(screens)(`%s (${theme})`, async (name, open) => {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await open();
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(800);
      await screenshot(page, `${name}-${theme}`);
      await expectNoAxeViolations(page);
    });
  }
});
