/**
 * The users and groups journeys (docs/CONSOLE.md, "Users" and "Groups") in Chromium against the running provider (npm run test:e2e): users from
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

/** The console loads lazily and lists debounce: give the page time before judging. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

const row = (text: string) => page.getByRole('row').filter({ hasText: text });

async function chooseStatus(status: 'Active' | 'Deleted') {
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: status }).click();
}

describe('users', () => {
  it('create (mismatch caught first), edit, soft delete, find in deleted, recover, purge', async () => {
    const userPosts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/users$/.test(new URL(request.url()).pathname)) userPosts.push(request.postData() ?? '');
    });

    await page.goto(`${baseUrl()}/users`);
    await eventually(() => page.getByRole('button', { name: 'New' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New' }).click();
    await page.waitForURL(/\/users-new$/);
    await page.getByLabel('User Name').fill('e2e-ada');
    await page.getByLabel('Display Name').fill('E2E Ada');
    await page.getByLabel('Notes').fill('created by the browser test');
    await page.getByLabel('Email').fill('e2e-ada@example.com');
    await page.getByLabel(/^Password/).fill('Secret-Pass-1');
    await page.getByLabel('Confirm Password').fill('Secret-Pass-2');
    await page.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.getByText('Password mismatch!').isVisible()).toBe(true);
    expect(userPosts).toHaveLength(0);
    await screenshot(page, 'user-new-mismatch');

    await page.getByLabel('Confirm Password').fill('Secret-Pass-1');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/users(\?|$)/);
    expect(userPosts).toHaveLength(1);
    const sent = JSON.parse(userPosts[0]);
    expect(sent.authVerification).toMatch(/^\$2[aby]\$10\$/);
    expect(userPosts[0]).not.toContain('Secret-Pass-1');
    expect(sent).not.toHaveProperty('confirmPassword');

    await search('e2e-ada');
    await page.getByRole('link', { name: 'E2E Ada' }).click();
    await page.waitForURL(/\/users\/[^/?]+\?company=/);
    await eventually(() => page.getByLabel(/^Password/).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Display Name').fill('E2E Ada Lovelace');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/users(\?|$)/);
    await search('e2e-ada');
    await eventually(() => row('E2E Ada Lovelace').count()).toBe(1);
    await screenshot(page, 'users-active');

    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await eventually(() => row('E2E Ada Lovelace').count()).toBe(0);

    await chooseStatus('Deleted');
    await page.waitForURL(/\/users-deleted/);
    await search('e2e-ada');
    await eventually(() => row('E2E Ada Lovelace').count()).toBe(1);
    await screenshot(page, 'users-deleted');
    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Recover' }).click();
    await eventually(() => row('E2E Ada Lovelace').count()).toBe(0);

    await chooseStatus('Active');
    await page.waitForURL(/\/users(\?|$)/);
    await search('e2e-ada');
    await eventually(() => row('E2E Ada Lovelace').count()).toBe(1);
    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await eventually(() => row('E2E Ada Lovelace').count()).toBe(0);

    await page.goto(`${baseUrl()}/users-deleted`);
    await search('e2e-ada');
    await row('E2E Ada Lovelace').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Purge' }).click();
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.getByRole('button', { name: 'Purge' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Type e2e-ada to confirm').fill('e2e-ada');
    await screenshot(page, 'users-purge-confirm');
    await dialog.getByRole('button', { name: 'Purge' }).click();
    await eventually(() => page.getByText(/No users match the search/).isVisible()).toBe(true);

    const { token, domainPath } = await sessionPath();
    const left = await page.request.get(`${domainPath}/users?filter=${encodeURIComponent('{"q":"e2e-ada"}')}&condition=status,=,deleted`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(await left.json()).toEqual([]);
  });

  it('exports the filtered rows as CSV, then deletes several rows at once', async () => {
    await seed(
      'users',
      [1, 2, 3].map((n) => ({ username: `bulk-${n}`, displayName: `Bulk ${n}`, email: `bulk-${n}@example.com`, notes: '' })),
    );
    await page.goto(`${baseUrl()}/users`);
    await search('bulk-');
    await eventually(() => page.getByRole('row').filter({ hasText: /Bulk \d/ }).count()).toBe(3);

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('users.csv');
    const lines = fs.readFileSync((await download.path())!, 'utf8').trim().split(/\r\n/);
    // the provider's export: the id and the columns shown, under their headers (docs/CONSOLE.md, "Lists")
    expect(lines[0]).toBe('ID,Name,Email');
    expect(lines.slice(1).map((line) => line.split(',')[2]).sort()).toEqual(['bulk-1@example.com', 'bulk-2@example.com', 'bulk-3@example.com']);

    await page.getByRole('columnheader').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(() => page.getByRole('dialog').textContent()).toContain('Delete 3 item(s)?');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await eventually(() => page.getByText(/No users match the search/).isVisible()).toBe(true);

    await page.goto(`${baseUrl()}/users-deleted`);
    await search('bulk-');
    await eventually(() => page.getByRole('row').filter({ hasText: /Bulk \d/ }).count()).toBe(3);
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
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/groups(\?|$)/);
    await search('e2e-team');
    await page.getByRole('link', { name: 'E2E Team' }).click();
    await page.waitForURL(/\/groups\/[^/?]+\?company=/);
    await page.getByRole('tab', { name: 'Members' }).click();
    await eventually(() => page.getByText(/This group has no members yet/).isVisible()).toBe(true);

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
    await dialog.getByRole('button', { name: 'Add' }).click();
    await eventually(() => dialog.count()).toBe(0);
    await eventually(() => row('Member Kim').count()).toBe(1);
    await eventually(() => row('E2E Sub').count()).toBe(1);
    await screenshot(page, 'group-members');

    await row('E2E Sub').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    // While the dialog fades out the page is aria-hidden: wait for it to go before reading rows.
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    await eventually(() => row('Member Kim').count()).toBe(1);
    expect(await row('E2E Sub').count()).toBe(0);

    await page.getByRole('button', { name: 'Add' }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(1);
    await page.keyboard.press('Escape');
    await eventually(() => page.getByRole('dialog').count()).toBe(0);

    await page.goto(`${baseUrl()}/groups`);
    await search('e2e-');
    await eventually(() => row('E2E Team').count()).toBe(1);
    await screenshot(page, 'groups-active');
  });
});

/**
 * axe-core on each users and groups screen, in the light and the dark theme, with a screenshot of each.
 * Separate from the journeys so a finding names its page and never hides a behaviour failure.
 */
describe('accessibility of the users and groups screens', () => {
  const openGroupMembers = async (withModal: boolean) => {
    await page.goto(`${baseUrl()}/groups`);
    await search('e2e-team');
    await page.getByRole('link', { name: 'E2E Team' }).click();
    await page.getByRole('tab', { name: 'Members' }).click();
    await eventually(() => row('Member Kim').count()).toBe(1);
    if (withModal) {
      await page.getByRole('button', { name: 'Add' }).click();
      await page.getByRole('dialog').getByRole('tab', { name: 'Users' }).waitFor();
      await page.waitForLoadState('networkidle');
    }
  };
  const screens: [string, () => Promise<void>][] = [
    ['users', async () => void (await page.goto(`${baseUrl()}/users`))],
    ['users-deleted', async () => void (await page.goto(`${baseUrl()}/users-deleted`))],
    ['users-new', async () => void (await page.goto(`${baseUrl()}/users-new`))],
    ['groups', async () => void (await page.goto(`${baseUrl()}/groups`))],
    ['groups-new', async () => void (await page.goto(`${baseUrl()}/groups-new`))],
    ['group-members', () => openGroupMembers(false)],
    ['group-add-members-modal', () => openGroupMembers(true)],
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
