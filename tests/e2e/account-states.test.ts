/**
 * Account states in the console (docs/CONSOLE.md, "Account states") in Chromium against the running
 * provider (npm run test:e2e): a support agent finds a user the sign-in throttle locked, sees until
 * when and why, unlocks her, and she signs in; an administrator blocks a user (her console session
 * ends, and her sign-in is refused with the blocked sentence) and unblocks her; Set password with
 * "Require a new password at next sign-in" sends her to the change-password step. axe, and
 * screenshots light and dark at 1280 and 390 pixels (test-results/screenshots/account-*.png).
 */
import http from 'node:http';
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, clickUntil, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const PASSWORD = 'Account-States-Pass-1';
const DOMAIN_PATH = 'companys/root/domainNames/default';
type Person = { id: string; name: string; email: string };
const person = (id: string, name: string): Person => ({ id: `${id}-${run}`, name: `${name} ${run}`, email: `${id}-${run}@example.com` });
const AGENT = person('agent', 'Sue Support');
const TESS = person('tess', 'Tess Throttled');
const BEA = person('bea', 'Bea Blocked');
const PAM = person('pam', 'Pam Password');

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 250 });
const button = (within: Page | Locator, name: string) => within.getByRole('button', { name, exact: true });
const accountCard = (page: Page) => page.getByRole('region', { name: 'Account', exact: true });

/** A person of root's default domain with a password and a role, so that she may sign in to the console. */
async function makeUser(who: Person, role: string) {
  const made = await consoleApi(root, 'POST', `${DOMAIN_PATH}/users`, {
    id: who.id,
    username: who.id,
    displayName: who.name,
    email: who.email,
    authVerification: await bcrypt.hash(PASSWORD, 10),
  });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', { role, holderType: 'user', holderId: who.id, holderCompanyId: 'root', holderDomainId: 'default' });
  expect(given.status, JSON.stringify(given.json)).toBe(201);
}

async function ownBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
  return { context, page: await context.newPage() };
}

/** The console's sign-in form as she fills it, whatever the answer. */
async function trySignIn(page: Page, who: Person, password = PASSWORD) {
  await page.goto(`${baseUrl()}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

/**
 * Where the wrong passwords come from: a loopback address of this file's own (any 127.x.y.z reaches
 * the server on 127.0.0.1), so that its hundred failures fill the throttle's counters of her account
 * and of this address, never those of 127.0.0.1, which the other browser tests of the shared server
 * sign in from (LOGIN_MAX_FAILURES_PER_ADDRESS).
 */
const GUESSER = `127.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;

/** One form post to the console's sign-in from GUESSER; its status and where it sends the browser. */
function postFromGuesser(form: URLSearchParams): Promise<{ status: number; location?: string }> {
  const url = new URL(`${baseUrl()}/oauth/login`);
  const body = form.toString();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: GUESSER,
        headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Wrong passwords posted to the console's sign-in until the throttle refuses her account: the
 * console's form is sent back saying so (303 to its callback, "Too many failed sign-in attempts…").
 */
async function throttle(who: Person) {
  for (let attempt = 0; attempt < 150; attempt++) {
    const form = new URLSearchParams({
      client_id: 'iam-console',
      redirect_uri: `${baseUrl()}/callback`,
      scope: 'openid username email user:admin',
      state: 'state-1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      email: who.email,
      password: `wrong password ${attempt}`,
    });
    const { status, location } = await postFromGuesser(form);
    if (status === 303 && /^Too many /.test(new URL(location ?? '', baseUrl()).searchParams.get('error_description') ?? '')) return;
  }
  throw new Error(`${who.email} was never throttled`);
}

async function setTheme(page: Page, theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/**
 * Opens her user screen from the users list, found by searching (the suite shares one server). On a
 * busy machine the list may still be settling when her name is clicked: a second try starts over;
 * each failure leaves account-debug-open-<attempt>.png.
 */
async function openUser(page: Page, who: Person) {
  for (let attempt = 1; ; attempt++) {
    await page.goto(`${baseUrl()}/users`);
    await page.getByPlaceholder('Search').first().fill(who.email);
    const row = page.getByRole('row').filter({ hasText: who.email });
    await eventually(() => row.count()).toBe(1);
    // her name opens her screen (a link or a button)
    await row.getByText(who.name, { exact: true }).click();
    try {
      await expect.poll(() => accountCard(page).isVisible(), { timeout: 20_000, interval: 250 }).toBe(true);
      return;
    } catch (error) {
      await screenshot(page, `account-debug-open-${attempt}`);
      if (attempt === 2) {
        throw new Error(`her screen did not show at ${page.url()}: ${(error as Error).message}`);
      }
    }
  }
}

/**
 * Each theme, at 1280 and 390 pixels: `show` brings the page to the state to judge (after a reload
 * for the theme), then axe and a screenshot account-<name>-<theme>-<width>.png.
 */
async function judge(page: Page, name: string, show: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.reload();
      await show();
      await expectNoAxeViolations(page);
      await screenshot(page, `account-${name}-${theme}-${width}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await setTheme(page, 'light');
}

/**
 * A dialog in each theme at 1280 and 390 pixels: the theme applies on reload, so the page is
 * reloaded and `open` opens the dialog again; axe, then account-<name>-<theme>-<width>.png.
 */
async function dialogShots(page: Page, name: string, open: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    await page.reload();
    await open();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await expectNoAxeViolations(page);
      await screenshot(page, `account-${name}-${theme}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  await setTheme(page, 'light');
  await page.reload();
  await open();
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  await makeUser(AGENT, 'support');
  // a role (so that they may sign in to the console) that the agent holds too: nobody acts on more than she holds
  for (const who of [TESS, BEA, PAM]) await makeUser(who, 'support');
}, 120_000);
afterAll(() => browser?.close());

describe('account states in the console', () => {
  it('a support agent finds a throttled user, sees until when, unlocks her, and she signs in', async () => {
    await throttle(TESS);
    const { context, page } = await ownBrowser();
    await signIn(page, { email: AGENT.email, password: PASSWORD });
    await openUser(page, TESS);
    const card = accountCard(page);
    await eventually(() => card.getByText(/^Locked until .* because of too many failed sign-ins\.$/).isVisible()).toBe(true);
    expect(await card.textContent()).toMatch(/\d{3} failed sign-ins counted/);
    // Support may unlock and block; setting a password is not hers
    expect(await button(card, 'Unlock').isEnabled()).toBe(true);
    expect(await button(card, 'Set password').isDisabled()).toBe(true);

    await judge(page, 'locked', () => eventually(() => accountCard(page).getByText(/^Locked until .* because/).isVisible()).toBe(true));

    await button(accountCard(page), 'Unlock').click();
    await eventually(() => page.getByText(`${TESS.name} is unlocked and may sign in again`).isVisible()).toBe(true);
    await eventually(() => accountCard(page).getByText('Can sign in.').isVisible()).toBe(true);
    await context.close();

    const tess = await ownBrowser();
    await signIn(tess.page, { email: TESS.email, password: PASSWORD });
    await tess.context.close();
  }, 240_000);

  it('an administrator blocks a user: her console session ends and her sign-in is refused; unblocked, she signs in', async () => {
    const bea = await ownBrowser();
    await signIn(bea.page, { email: BEA.email, password: PASSWORD });

    await openUser(root, BEA);
    const card = accountCard(root);
    await eventually(() => card.getByText('Can sign in.').isVisible()).toBe(true);
    const dialog = root.getByRole('dialog');
    const openBlock = async () => {
      await eventually(() => accountCard(root).getByText('Can sign in.').isVisible()).toBe(true);
      // (a just reloaded screen: clicked again if the first click had no effect, tests/e2e/browser.ts)
      await clickUntil(button(accountCard(root), 'Block'), () => dialog.isVisible());
    };
    await openBlock();
    await eventually(() => dialog.textContent()).toContain(`Block ${BEA.name}?`);
    expect(await dialog.textContent()).toContain(`${BEA.name} is signed out everywhere and cannot sign in until unblocked.`);
    await dialogShots(root, 'block-confirm', openBlock);
    await button(dialog, 'Block').click();
    await eventually(() => root.getByText(`${BEA.name} is blocked and signed out everywhere`).isVisible()).toBe(true);
    await eventually(() => card.getByText(/^Blocked since .*: cannot sign in until unblocked\.$/).isVisible()).toBe(true);
    await judge(root, 'blocked', () => eventually(() => accountCard(root).getByText(/^Blocked since/).isVisible()).toBe(true));

    // the users list says Blocked on her row
    await root.goto(`${baseUrl()}/users`);
    await root.getByPlaceholder('Search').first().fill(BEA.email);
    const row = root.getByRole('row').filter({ hasText: BEA.email });
    await eventually(() => row.count()).toBe(1);
    await eventually(() => row.getByText('Blocked', { exact: true }).isVisible()).toBe(true);
    await judge(root, 'users-list', async () => {
      await root.getByPlaceholder('Search').first().fill(BEA.email);
      await eventually(() => root.getByRole('row').filter({ hasText: BEA.email }).getByText('Blocked', { exact: true }).isVisible()).toBe(true);
    });

    // her console: the provider ended her sign-in
    await bea.page.goto(`${baseUrl()}/users`);
    await bea.page.waitForURL(/\/login\?reason=ended/, { timeout: 30_000 });
    await eventually(() => bea.page.getByText('Your session was ended by the provider', { exact: false }).isVisible()).toBe(true);
    await trySignIn(bea.page, BEA);
    await eventually(() => bea.page.getByText('This account is blocked. Ask your administrator to unblock it.').isVisible()).toBe(true);
    // a wrong password learns nothing of the block
    await trySignIn(bea.page, BEA, 'not her password 1');
    await eventually(() => bea.page.getByText('This account is blocked.', { exact: false }).count()).toBe(0);

    await openUser(root, BEA);
    await button(accountCard(root), 'Unblock').click();
    await eventually(() => root.getByText(`${BEA.name} is unblocked and may sign in again`).isVisible()).toBe(true);
    await eventually(() => accountCard(root).getByText('Can sign in.').isVisible()).toBe(true);
    await signIn(bea.page, { email: BEA.email, password: PASSWORD });
    await bea.context.close();
  }, 240_000);

  it('Set password with "Require a new password at next sign-in": her next sign-in asks for a new one', async () => {
    const NEW_PASSWORD = `Pam-Fresh-${run}-2026`;
    await openUser(root, PAM);
    const dialog = root.getByRole('dialog', { name: `Set a new password for ${PAM.name}` });
    const openSetPassword = async () => {
      await eventually(() => button(accountCard(root), 'Set password').isEnabled()).toBe(true);
      await clickUntil(button(accountCard(root), 'Set password'), () => dialog.getByLabel(/^Password/).isVisible());
      await dialog.getByLabel(/^Password/).fill(NEW_PASSWORD);
      await dialog.getByLabel(/^Confirm Password/).fill(NEW_PASSWORD);
    };
    await openSetPassword();
    expect(await dialog.getByRole('checkbox', { name: 'Require a new password at next sign-in' }).isChecked()).toBe(true);
    await dialogShots(root, 'set-password', openSetPassword);
    await button(dialog, 'Set password').click();
    await eventually(() => root.getByText(`New password set for ${PAM.name}, who must choose a new one at next sign-in`).isVisible()).toBe(true);
    await eventually(() => accountCard(root).textContent()).toContain('At next sign-in:Change password');

    const pam = await ownBrowser();
    await trySignIn(pam.page, PAM, NEW_PASSWORD);
    await pam.page.waitForURL(/\/oauth\/steps/, { timeout: 30_000 });
    await eventually(() => pam.page.getByRole('heading', { name: 'Choose a new password' }).isVisible()).toBe(true);
    await expectNoAxeViolations(pam.page);
    // her own new password, and the sign-in goes on to the console
    const OWN_PASSWORD = `Pam-Own-${run}-2026`;
    await pam.page.getByLabel('New password', { exact: true }).fill(OWN_PASSWORD);
    await pam.page.getByLabel('Confirm new password').fill(OWN_PASSWORD);
    await pam.page.getByRole('button', { name: 'Change password and continue' }).click();
    await pam.page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
    await pam.context.close();

    // nothing is required of her any more
    await root.reload();
    await eventually(() => accountCard(root).textContent()).toContain('At next sign-in:Nothing required');
  }, 240_000);
});
