/**
 * A group's members and an API's permission scopes as a support agent uses them (docs/CONSOLE.md,
 * "Groups", "APIs and permission scopes" and "Routes"), in Chromium against the running provider
 * (npm run test:e2e): a group opened at its Members tab's address, its members filtered by type and
 * e-mail domain, a member's link followed to her record; a permission scope's address opened in a
 * fresh browser (a new tab) signs in first, then shows the API's Permission tab on that scope. The
 * suite shares one server: the records here are this run's own (unique names), found by their
 * address or by search, never by their place on a first page. axe, and a screenshot of each.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEmail, adminPassword, baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const MAIL_DOMAIN = `ml-${run}.example`;
const GROUP = `ml-group-${run}`;
const NESTED = `ml-nested-${run}`;
const ADA = { username: `ml-ada-${run}`, displayName: `ML Ada ${run}`, email: `ada@${MAIL_DOMAIN}`, notes: '' };
const BOB = { username: `ml-bob-${run}`, displayName: `ML Bob ${run}`, email: `ml-bob-${run}@example.com`, notes: '' };
const SCOPE = `read:ml-${run}`;

let company = '';
let domain = '';
let adaId = '';
let apiId = '';

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 250 });
const where = () => `company=${encodeURIComponent(company)}&domain=${encodeURIComponent(domain)}`;

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  ({ company, domain } = await root.evaluate(() => ({
    company: JSON.parse(sessionStorage.getItem('company') ?? '{}').id as string,
    domain: JSON.parse(sessionStorage.getItem('domain') ?? '{}').id as string,
  })));
  const base = `companys/${encodeURIComponent(company)}/domainNames/${encodeURIComponent(domain)}`;
  const ada = await consoleApi(root, 'POST', `${base}/users`, ADA);
  expect(ada.status, JSON.stringify(ada.json)).toBe(201);
  adaId = ada.json.id;
  const bob = await consoleApi(root, 'POST', `${base}/users`, BOB);
  expect(bob.status, JSON.stringify(bob.json)).toBe(201);
  for (const [name, email] of [[GROUP, `group@${run}.example`], [NESTED, `nested@${MAIL_DOMAIN}`]]) {
    const group = await consoleApi(root, 'POST', `${base}/groups`, { name, displayName: `ML ${name}`, email });
    expect(group.status, JSON.stringify(group.json)).toBe(201);
  }
  const members = await consoleApi(root, 'POST', `${base}/groups/${GROUP}/members`, [
    { type: 'user', id: adaId },
    { type: 'user', id: bob.json.id },
    { type: 'group', id: NESTED },
  ]);
  expect(members.status, JSON.stringify(members.json)).toBe(200);
  const api = await consoleApi(root, 'POST', 'api', { name: `ML Orders ${run}`, identifier: `urn:ml-orders-${run}`, domain, companyId: company });
  expect(api.status, JSON.stringify(api.json)).toBe(201);
  apiId = api.json.id;
  // more scopes than a page holds, the linked one last in order: found by its address, not by paging
  for (let i = 0; i < 16; i++) {
    expect((await consoleApi(root, 'POST', `api/${apiId}/PermissionScopes`, { permission: `a:ml-${run}-${String(i).padStart(2, '0')}` })).status).toBe(201);
  }
  const scope = await consoleApi(root, 'POST', `api/${apiId}/PermissionScopes`, { permission: SCOPE, description: 'Read the test orders' });
  expect(scope.status, JSON.stringify(scope.json)).toBe(201);
}, 120_000);
afterAll(() => browser?.close());

describe('group members and permission scopes', () => {
  it("a group's Members tab, at its address: filtered by type and e-mail domain, a member's link opens her", async () => {
    await root.goto(`${baseUrl()}/groups/${GROUP}?${where()}&tab=members`);
    await eventually(() => root.getByRole('heading', { name: `Members of ML ${GROUP}` }).isVisible()).toBe(true);
    expect(await root.getByRole('tab', { name: 'Members' }).getAttribute('aria-selected')).toBe('true');
    const table = root.getByRole('table', { name: 'Members' });
    await eventually(() => table.getByRole('row').count()).toBe(4);
    expect(await table.getByText(BOB.email).isVisible()).toBe(true);

    await root.getByRole('searchbox', { name: 'E-mail domain' }).fill(MAIL_DOMAIN);
    // Ada and the nested group have addresses there; Bob has not
    await eventually(() => table.getByRole('row').count()).toBe(3);
    expect(await table.getByText(BOB.displayName).count()).toBe(0);
    await root.getByRole('combobox', { name: 'Type' }).click();
    await root.getByRole('option', { name: 'Users', exact: true }).click();
    await eventually(() => table.getByRole('row').count()).toBe(2);
    const ada = table.getByRole('link', { name: ADA.displayName });
    expect(await ada.getAttribute('href')).toBe(`/users/${encodeURIComponent(adaId)}?${where()}`);
    await expectNoAxeViolations(root);
    await screenshot(root, 'member-links-members-light-1280');

    await ada.click();
    await root.waitForURL((url) => url.pathname === `/users/${adaId}`);
    await eventually(() => root.getByLabel('Display Name').first().inputValue()).toBe(ADA.displayName);
  }, 120_000);

  it("a permission scope's address opened in a fresh browser shows the API's Permission tab on that scope", async () => {
    const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const address = `/apis/${apiId}?${where()}&tab=permission&scope=${encodeURIComponent(SCOPE)}`;
    await page.goto(`${baseUrl()}${address}`);
    // signed out: the sign-in form first, then back at the address
    await eventually(() => page.getByRole('button', { name: 'Login' }).isVisible()).toBe(true);
    await page.getByLabel('Email').fill(adminEmail());
    await page.getByLabel('Password', { exact: true }).fill(adminPassword());
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL((url) => url.pathname === `/apis/${apiId}`, { timeout: 30_000 });
    await eventually(() => page.getByRole('tab', { name: 'Permission' }).getAttribute('aria-selected')).toBe('true');
    await eventually(() => page.getByText(`Showing permission scope ${SCOPE} only.`).isVisible()).toBe(true);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: SCOPE }) });
    await eventually(() => row.count()).toBe(1);
    expect(await row.getByText('Read the test orders').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: SCOPE }).getAttribute('href')).toBe(address);
    await expectNoAxeViolations(page);
    await screenshot(page, 'member-links-scope-light-1280');

    // Show all: the address without the scope, the API's other scopes, paged
    await page.getByRole('button', { name: 'Show all' }).click();
    await page.waitForURL((url) => url.pathname === `/apis/${apiId}` && !url.searchParams.has('scope'));
    await eventually(() => page.getByRole('link', { name: `a:ml-${run}-00` }).isVisible()).toBe(true);
    // the search finds it again on the provider
    await page.getByRole('searchbox', { name: 'Search permission scopes' }).fill(`read:ml-${run}`);
    await eventually(() => page.getByRole('link', { name: /^a:ml-/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: SCOPE }).isVisible()).toBe(true);
    await context.close();
  }, 180_000);
});
