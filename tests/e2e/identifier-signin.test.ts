/**
 * Issue 35, the organization found, not demanded (docs/CONSOLE.md, "Sign-in form"; DECISIONS 43), in
 * Chromium against the running provider (npm run test:e2e): at the console's /login with no
 * organization, the address and password of one account holding a console role in a reseller sign in
 * to that reseller; the same password proving accounts in two companies offers the two (named only
 * once the password proved them) and the one picked signs her in there; a wrong password and the
 * throttle come back to the console's own form, the address kept and a sentence said, never the
 * provider's page; a shared record link fills Organization. axe, light and dark screenshots of the
 * forms that come back and of the pick.
 */
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const PASSWORD = 'Identifier-Pass-1';
const RESELLER = `idr-${run}`;
const RESELLER_NAME = `Identifier Reseller ${run}`;
/** Two customers where one person has an account each, with the same address and password. */
const FIRST = `ida-${run}`;
const FIRST_NAME = `Identifier A ${run}`;
const SECOND = `idb-${run}`;
const SECOND_NAME = `Identifier B ${run}`;
const ONE = `one-${run}@identifier.example`;
const TWO = `two-${run}@identifier.example`;

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const switcher = (page: Page) => page.getByRole('button', { name: /^Company and domain: / });

/** A company under root with its first (primary) domain, an administrators group, and `email` in it (a console role). */
async function companyWithAdministrator(id: string, displayName: string, type: 'reseller' | 'customer', domain: string, email: string) {
  const made = await consoleApi(root, 'POST', 'companys', { id, name: id, displayName, description: 'identifier sign-in test', type, parent: 'root' });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  const first = await consoleApi(root, 'POST', `companys/${id}/domainNames`, { name: domain, description: 'its first domain' });
  expect(first.status, JSON.stringify(first.json)).toBe(201);
  const base = `companys/${id}/domainNames/${domain}`;
  const group = await consoleApi(root, 'POST', `${base}/groups`, { name: 'administrators', displayName: 'Administrators', email: `admins@${id}.example` });
  expect([201, 409], JSON.stringify(group.json)).toContain(group.status);
  const user = await consoleApi(root, 'POST', `${base}/users`, { id: 'boss', username: `boss-${id}`, displayName: `Boss of ${id}`, email, authVerification: await bcrypt.hash(PASSWORD, 10) });
  expect(user.status, JSON.stringify(user.json)).toBe(201);
  const member = await consoleApi(root, 'POST', `${base}/groups/administrators/members`, [{ type: 'user', id: 'boss' }]);
  expect([200, 201], JSON.stringify(member.json)).toContain(member.status);
}

/** A browser of her own: no organization typed before on this device. */
async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  return { context, page: await context.newPage() };
}

/** The console's form (already open): Organization as given (empty: none), then the address and password, sent. */
async function submit(page: Page, email: string, password: string, organization = '') {
  await eventually(() => button(page, 'Login').isEnabled()).toBe(true);
  await page.getByLabel('Organization (optional)').fill(organization);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await button(page, 'Login').click();
}

/** Back on the console's own sign-in form (not the provider's page), saying `sentence`, the address kept. */
async function backOnTheForm(page: Page, reason: string, sentence: string | RegExp, email: string) {
  await page.waitForURL((url) => url.origin === baseUrl() && url.pathname === '/login' && url.searchParams.get('reason') === reason, { timeout: 30_000 });
  await eventually(() => page.getByText(sentence).isVisible()).toBe(true);
  await expect(page.getByRole('heading', { name: 'Sign in to your account' }).isVisible()).resolves.toBe(true);
  await eventually(() => page.getByLabel('Email').inputValue()).toBe(email);
  // the password is typed again, never kept
  expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
  await eventually(() => button(page, 'Login').isEnabled()).toBe(true);
}

/** axe and a screenshot in the light and the dark system scheme; ends light. */
async function judge(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(300);
    await screenshot(page, `identifier-signin-${name}-${scheme}`);
    await expectNoAxeViolations(page);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  await companyWithAdministrator(RESELLER, RESELLER_NAME, 'reseller', 'prod', ONE);
  await companyWithAdministrator(FIRST, FIRST_NAME, 'customer', 'main', TWO);
  await companyWithAdministrator(SECOND, SECOND_NAME, 'customer', 'main', TWO);
}, 120_000);
afterAll(() => browser?.close());

describe('the console sign-in with no organization (issue 35)', () => {
  it("one account with the address holding a console role: the right password signs in to its company's dashboard", async () => {
    const { context, page } = await freshPage();
    await page.goto(`${baseUrl()}/login`);
    await eventually(() => page.getByLabel('Organization (optional)').inputValue()).toBe('');
    await submit(page, ONE, PASSWORD);
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await eventually(() => switcher(page).getAttribute('aria-label')).toBe(`Company and domain: ${RESELLER_NAME} › prod`);
    await context.close();
  });

  it('two accounts proved by one password: she is offered the two organizations (only now), picks one and lands in it', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${baseUrl()}/login`);
    // a wrong password names neither
    await submit(page, TWO, 'not the password 2');
    await backOnTheForm(page, 'wrong', 'Wrong email or password.', TWO);
    expect(await page.locator('body').innerText()).not.toMatch(new RegExp(`${FIRST_NAME}|${SECOND_NAME}`));

    await submit(page, TWO, PASSWORD);
    await page.waitForURL((url) => url.pathname === '/oauth/pick', { timeout: 30_000 });
    await eventually(() => page.getByRole('heading', { name: 'Choose your organization' }).isVisible()).toBe(true);
    const choices = page.getByRole('button');
    expect(await choices.allInnerTexts()).toEqual([`${FIRST_NAME} › main`, `${SECOND_NAME} › main`]);
    expect(await page.getByRole('link', { name: 'Back to sign-in' }).getAttribute('href')).toBe(`${baseUrl()}/login`);
    await judge(page, 'pick');

    await button(page, `${SECOND_NAME} › main`).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await eventually(() => switcher(page).getAttribute('aria-label')).toBe(`Company and domain: ${SECOND_NAME} › main`);
    // the attempt that offered them is on record in both organizations, for her account there
    for (const company of [FIRST, SECOND]) {
      const events = await consoleApi(root, 'GET', `companys/${company}/domainNames/main/signInEvents?filter=${encodeURIComponent(JSON.stringify({ outcome: 'several_organizations' }))}`);
      expect(events.status, JSON.stringify(events.json)).toBe(200);
      expect(JSON.stringify(events.json)).toContain(TWO);
    }
    await context.close();
  });

  it('a wrong password stays on the console sign-in page with the address kept and a sentence', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${baseUrl()}/login`);
    await submit(page, ONE, 'not her password 1');
    await backOnTheForm(page, 'wrong', 'Wrong email or password.', ONE);
    await judge(page, 'wrong');
    await context.close();
  });

  it('a shared record link (…?company=) fills the Organization field of the form it sends her to', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${baseUrl()}/users/boss?company=${FIRST}&domain=main`);
    await eventually(() => button(page, 'Login').isVisible()).toBe(true);
    await eventually(() => page.getByLabel('Organization (optional)').inputValue()).toBe(FIRST);
    // its company only: the record's domain need not be hers
    expect(await page.getByLabel('Domain (optional)').inputValue()).toBe('');
    await submit(page, TWO, PASSWORD, FIRST);
    await page.waitForURL((url) => url.pathname === '/users/boss' || url.pathname.startsWith('/users/boss/'), { timeout: 30_000 });
    await eventually(() => switcher(page).getAttribute('aria-label')).toBe(`Company and domain: ${FIRST_NAME} › main`);
    await context.close();
  });

  it("the throttle's refusal comes back to the console's form with a sentence, not the provider's page; the right password too", async () => {
    // her domain allows three failures (the fewest a policy may say)
    const policy = await consoleApi(root, 'PUT', `companys/${RESELLER}/domainNames/prod/securityPolicy`, { failuresPerAccount: 3 });
    expect(policy.status, JSON.stringify(policy.json)).toBe(200);
    const { context, page } = await freshPage();
    await page.goto(`${baseUrl()}/login?company=${RESELLER}`);
    let wrong = 0;
    for (; wrong < 6; wrong++) {
      await submit(page, ONE, `guess ${wrong}`, RESELLER);
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('reason'), { timeout: 30_000 });
      if (new URL(page.url()).searchParams.get('reason') === 'throttled') break;
      await backOnTheForm(page, 'wrong', 'Wrong email or password.', ONE);
      await page.goto(`${baseUrl()}/login?company=${RESELLER}`);
    }
    expect(wrong, 'the throttle refused within six tries').toBeLessThan(6);
    expect(wrong, 'some wrong passwords were answered as such first').toBeGreaterThan(0);
    await backOnTheForm(page, 'throttled', /^Too many sign-in attempts\. Try again in \d+ minutes?\.$/, ONE);
    expect(Number(new URL(page.url()).searchParams.get('retry'))).toBeGreaterThan(0);
    await expect(page.getByText('Too many failed sign-in attempts').isVisible()).resolves.toBe(false);
    await judge(page, 'throttled');

    // the right password is refused too while the lock lasts, the same way
    await page.goto(`${baseUrl()}/login?company=${RESELLER}`);
    await submit(page, ONE, PASSWORD, RESELLER);
    await backOnTheForm(page, 'throttled', /^Too many sign-in attempts\. Try again in/, ONE);
    await context.close();
  });
});
