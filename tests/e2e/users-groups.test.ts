/**
 * SPEC 2.10 journeys in Chromium against the running provider (npm run test:e2e): users from
 * creation to purge, bulk delete, CSV export, groups with members; axe and screenshots on the way.
 */
import fs from 'node:fs';
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await newPage(browser);
  await signIn(page);
});
afterAll(() => browser?.close());

/** The signed-in session's token and the provider path of its company and domain. */
async function sessionPath(): Promise<{ token: string; domainPath: string }> {
  const session = await page.evaluate(() => ({
    token: JSON.parse(sessionStorage.getItem('accessToken') ?? 'null') as string,
    company: JSON.parse(sessionStorage.getItem('company') ?? '{}') as { id: string },
    domain: JSON.parse(sessionStorage.getItem('domain') ?? '{}') as { id: string },
  }));
  const domainPath = `${baseUrl()}/api/companys/${encodeURIComponent(session.company.id)}/domainNames/${encodeURIComponent(session.domain.id)}`;
  return { token: session.token, domainPath };
}

/** Seeds records through the provider API (what the journeys need, not what they test). */
async function seed(resource: 'users' | 'groups', records: Record<string, unknown>[]) {
  const { token, domainPath } = await sessionPath();
  const passwordHash = resource === 'users' ? await bcrypt.hash('Seeded-Pass-1', 10) : undefined;
  for (const record of records) {
    const response = await page.request.post(`${domainPath}/${resource}`, {
      headers: { Authorization: `Bearer ${token}` },
      data: passwordHash ? { ...record, authVerification: passwordHash } : record,
    });
    expect(response.status(), await response.text()).toBe(201);
  }
}

/** Types into the list's search box and lets the debounced list request settle. */
async function search(text: string) {
  await page.getByPlaceholder('Search').first().fill(text);
  await page.waitForTimeout(700);
  await page.waitForLoadState('networkidle');
}

const row = (text: string) => page.getByRole('row').filter({ hasText: text });

async function chooseStatus(status: 'Active' | 'Deleted') {
  await page.getByRole('combobox', { name: 'Status' }).click();
  await page.getByRole('option', { name: status }).click();
}

async function inDarkTheme(name: string) {
  await page.evaluate(() => localStorage.setItem('theme', 'dark'));
  await page.reload();
  await page.waitForLoadState('networkidle');
  await screenshot(page, `${name}-dark`);
  await page.evaluate(() => localStorage.setItem('theme', 'light'));
}

describe('users', () => {
  it('create (mismatch caught first), edit, soft delete, find in deleted, recover, purge', async () => {
    const userPosts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/users$/.test(new URL(request.url()).pathname)) userPosts.push(request.postData() ?? '');
    });

    await page.goto(`${baseUrl()}/users`);
    await expect.poll(() => page.getByRole('button', { name: 'New' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New' }).click();
    await page.waitForURL(/\/users-new$/);
    await page.getByLabel('User Name').fill('e2e-ada');
    await page.getByLabel('Display Name').fill('E2E Ada');
    await page.getByLabel('Notes').fill('created by the browser test');
    await page.getByLabel('Email').fill('e2e-ada@example.com');
    await page.getByLabel(/^Password/).fill('Secret-Pass-1');
    await page.getByLabel('Confirm Password').fill('Secret-Pass-2');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.getByText('Password mismatch!').isVisible()).toBe(true);
    expect(userPosts).toHaveLength(0);
    await screenshot(page, 'user-new-mismatch');
    await expectNoAxeViolations(page);

    await page.getByLabel('Confirm Password').fill('Secret-Pass-1');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/users$/);
    expect(userPosts).toHaveLength(1);
    const sent = JSON.parse(userPosts[0]);
    expect(sent.authVerification).toMatch(/^\$2[aby]\$10\$/);
    expect(userPosts[0]).not.toContain('Secret-Pass-1');
    expect(sent).not.toHaveProperty('confirmPassword');

    await search('e2e-ada');
    await page.getByRole('button', { name: 'E2E Ada' }).click();
    await page.waitForURL(/\/users-new$/);
    await expect.poll(() => page.getByLabel(/^Password/).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Display Name').fill('E2E Ada Lovelace');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/users/);
    await search('e2e-ada');
    await expect.poll(() => row('E2E Ada Lovelace').count()).toBe(1);
    await screenshot(page, 'users-active');
    await expectNoAxeViolations(page);

    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => row('E2E Ada Lovelace').count()).toBe(0);

    await chooseStatus('Deleted');
    await page.waitForURL(/\/users-deleted/);
    await search('e2e-ada');
    await expect.poll(() => row('E2E Ada Lovelace').count()).toBe(1);
    await screenshot(page, 'users-deleted');
    await expectNoAxeViolations(page);
    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Recover' }).click();
    await expect.poll(() => row('E2E Ada Lovelace').count()).toBe(0);

    await chooseStatus('Active');
    await page.waitForURL(/\/users(\?|$)/);
    await search('e2e-ada');
    await expect.poll(() => row('E2E Ada Lovelace').count()).toBe(1);
    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => row('E2E Ada Lovelace').count()).toBe(0);

    await page.goto(`${baseUrl()}/users-deleted`);
    await search('e2e-ada');
    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Purge' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByRole('button', { name: 'Purge' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Type e2e-ada to confirm').fill('e2e-ada');
    await screenshot(page, 'users-purge-confirm');
    await dialog.getByRole('button', { name: 'Purge' }).click();
    await expect.poll(() => page.getByText(/No users match the search/).isVisible()).toBe(true);

    const { token, domainPath } = await sessionPath();
    const left = await page.request.get(`${domainPath}/users?filter=${encodeURIComponent('{"q":"e2e-ada"}')}&condition=status,=,deleted`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(await left.json()).toEqual([]);
    await inDarkTheme('users-deleted');
  });

  it('exports the filtered rows as CSV, then deletes several rows at once', async () => {
    await seed(
      'users',
      [1, 2, 3].map((n) => ({ username: `bulk-${n}`, displayName: `Bulk ${n}`, email: `bulk-${n}@example.com`, notes: '' })),
    );
    await page.goto(`${baseUrl()}/users`);
    await search('bulk-');
    await expect.poll(() => page.getByRole('row').filter({ hasText: /Bulk \d/ }).count()).toBe(3);

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('users.csv');
    const lines = fs.readFileSync((await download.path())!, 'utf8').trim().split(/\r\n/);
    expect(lines[0]).toBe('id,username,displayName,notes,email,status');
    expect(lines.slice(1).map((line) => line.split(',')[1]).sort()).toEqual(['bulk-1', 'bulk-2', 'bulk-3']);

    await page.getByRole('columnheader').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('dialog').textContent()).toContain('Delete 3 item(s)?');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText(/No users match the search/).isVisible()).toBe(true);

    await page.goto(`${baseUrl()}/users-deleted`);
    await search('bulk-');
    await expect.poll(() => page.getByRole('row').filter({ hasText: /Bulk \d/ }).count()).toBe(3);
  });
});

describe('groups', () => {
  it('create a group, add a user and a group as members, remove one; Escape closes the modal', async () => {
    await seed('users', [{ username: 'member-kim', displayName: 'Member Kim', email: 'member-kim@example.com', notes: '' }]);
    await seed('groups', [{ name: 'e2e-sub', displayName: 'E2E Sub', email: 'e2e-sub@example.com', notes: '' }]);

    await page.goto(`${baseUrl()}/groups`);
    await page.getByRole('button', { name: 'New' }).click();
    await page.waitForURL(/\/groups-new$/);
    await page.getByLabel('Group Name').fill('e2e-team');
    await page.getByLabel('Display Name').fill('E2E Team');
    await page.getByLabel('Email').fill('e2e-team@example.com');
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/groups$/);
    await search('e2e-team');
    await page.getByRole('button', { name: 'E2E Team' }).click();
    await page.waitForURL(/\/groups-new$/);
    await page.getByRole('tab', { name: 'Members' }).click();
    await expect.poll(() => page.getByText(/This group has no members yet/).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Add' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('searchbox', { name: 'Search' }).fill('member-kim');
    await dialog.getByRole('checkbox', { name: 'Select Member Kim' }).check();
    await dialog.getByRole('tab', { name: 'Groups' }).click();
    await dialog.getByRole('searchbox', { name: 'Search' }).fill('e2e-');
    await dialog.getByRole('checkbox', { name: 'Select E2E Sub' }).check();
    // The group itself is never offered.
    expect(await dialog.getByRole('checkbox', { name: 'Select E2E Team' }).count()).toBe(0);
    await screenshot(page, 'group-add-members');
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(() => row('Member Kim').count()).toBe(1);
    await expect.poll(() => row('E2E Sub').count()).toBe(1);
    await screenshot(page, 'group-members');
    await expectNoAxeViolations(page);

    await row('E2E Sub').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => row('E2E Sub').count()).toBe(0);
    expect(await row('Member Kim').count()).toBe(1);

    await page.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    await page.goto(`${baseUrl()}/groups`);
    await search('e2e-');
    await expect.poll(() => row('E2E Team').count()).toBe(1);
    await screenshot(page, 'groups-active');
    await expectNoAxeViolations(page);
    await inDarkTheme('groups-active');
  });
});
