/**
 * E-mail, reset links and invitations (docs/CONSOLE.md) in Chromium against the running provider
 * (npm run test:e2e), through a real SMTP receiver started here on the port the provider sends to
 * (scripts/e2e.mjs sets SMTP_URL and E2E_SMTP_PORT): a person forgets her password on the console's
 * sign-in page, follows the mailed link, chooses a new one and signs in with it; an administrator
 * sends an invitation from the user screen and the invited person chooses her password and signs in;
 * the Outbox lists both. axe on the hosted pages and the E-mail panel.
 */
import bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;
let receiver: SMTPServer;
const mails: { to: string; body: string }[] = [];

const run = Date.now().toString(36);
const DOMAIN_PATH = 'companys/root/domainNames/default';
const NEW_PASSWORD = 'Forgot-Password-New-42';
const FORGETFUL = { id: `fay-${run}`, name: `Fay Forgetful ${run}`, email: `fay-${run}@example.com` };
const NEWBIE = { id: `ivy-${run}`, name: `Ivy Invited ${run}`, email: `ivy-${run}@example.com` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

/** The link of the newest mail to `to` (quoted-printable unfolded). */
async function linkSentTo(to: string, count: number): Promise<string> {
  await eventually(() => mails.filter((mail) => mail.to === to).length).toBeGreaterThanOrEqual(count);
  const body = mails.filter((mail) => mail.to === to).at(-1)!.body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return /https?:\/\/[^\s"<>]+\/account\/(?:reset|invite|verify)\?token=[A-Za-z0-9_-]{43}/.exec(body)![0];
}

/** A role, so that she may sign in to the console. */
async function giveRole(who: { id: string }) {
  const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', { role: 'auditor', holderType: 'user', holderId: who.id, holderCompanyId: 'root', holderDomainId: 'default' });
  expect(given.status, JSON.stringify(given.json)).toBe(201);
}

async function makeUser(who: typeof FORGETFUL, password: string) {
  const made = await consoleApi(root, 'POST', `${DOMAIN_PATH}/users`, {
    id: who.id,
    username: who.id,
    displayName: who.name,
    email: who.email,
    authVerification: await bcrypt.hash(password, 10),
  });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  await giveRole(who);
}

/** Chooses a password on the hosted page a link opened, and follows "Sign in" to the console. */
async function choosePassword(page: Page, link: string, done: string) {
  await page.goto(link);
  await expectNoAxeViolations(page);
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByLabel('Type it again').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set my password' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toContain(done);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL(/\/login\?/);
}

async function signInAs(page: Page, email: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
}

beforeAll(async () => {
  const port = Number(process.env.E2E_SMTP_PORT);
  expect(port, 'E2E_SMTP_PORT (scripts/e2e.mjs)').toBeGreaterThan(0);
  receiver = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (chunk) => (body += chunk));
      stream.on('end', () => {
        for (const to of session.envelope.rcptTo) mails.push({ to: to.address, body });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
  await makeUser(FORGETFUL, 'Forgot-Password-Old-1');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(resolve) : resolve()));
});

describe('a forgotten password', () => {
  it("from the console's sign-in page to a new password, and a sign-in with it", async () => {
    const page = await newPage(browser);
    await page.goto(`${baseUrl()}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(/\/account\/forgot/);
    await expectNoAxeViolations(page);
    await page.getByLabel('E-mail address').fill(FORGETFUL.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain("If an account with that address exists, we've sent a link");
    await screenshot(page, 'forgot-password-sent');

    const link = await linkSentTo(FORGETFUL.email, 1);
    await choosePassword(page, link, 'Your password is changed.');
    await signInAs(page, FORGETFUL.email);
    // the link is spent
    await page.goto(link);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('has already been used');
    await page.context().close();
  });
});

describe('an invitation', () => {
  it('made with the new-user form without a password, sent again from the user screen: she chooses her password from the mail and signs in; the Outbox lists it', async () => {
    await root.goto(`${baseUrl()}/users`);
    await eventually(() => root.getByRole('button', { name: 'New' }).isVisible()).toBe(true);
    await root.getByRole('button', { name: 'New' }).click();
    await root.waitForURL(/\/users-new$/);
    await root.getByLabel('User Name').fill(NEWBIE.id);
    await root.getByLabel('Display Name').fill(NEWBIE.name);
    await root.getByLabel('Email').fill(NEWBIE.email);
    await root.getByLabel('Invite by e-mail instead of setting a password').check();
    await eventually(() => root.getByLabel(/^Password/).count()).toBe(0);
    await root.getByRole('button', { name: 'Create' }).click();
    await eventually(() => root.getByText(`Invitation sent to ${NEWBIE.email}`).isVisible()).toBe(true);
    const first = await linkSentTo(NEWBIE.email, 1);
    const made = await consoleApi(root, 'GET', `${DOMAIN_PATH}/users?filter=${encodeURIComponent(JSON.stringify({ q: NEWBIE.email }))}`);
    NEWBIE.id = made.json[0].id;
    await giveRole(NEWBIE);

    await root.goto(`${baseUrl()}/users`);
    await root.getByPlaceholder('Search').first().fill(NEWBIE.email);
    const row = root.getByRole('row').filter({ hasText: NEWBIE.email });
    await eventually(() => row.count()).toBe(1);
    await row.getByRole('link').first().click();
    const panel = root.getByRole('region', { name: 'E-mail', exact: true });
    await eventually(() => panel.isVisible()).toBe(true);
    await panel.getByRole('button', { name: 'Resend invitation' }).click();
    await expect.poll(() => root.getByRole('dialog').textContent()).toContain(`Send an invitation to ${NEWBIE.name}?`);
    await root.getByRole('button', { name: 'Send', exact: true }).click();
    await eventually(() => root.getByText(`Sent to ${NEWBIE.email}`).isVisible()).toBe(true);
    await expectNoAxeViolations(root);
    await screenshot(root, 'invitation-sent');

    const link = await linkSentTo(NEWBIE.email, 2);
    expect(link).toContain('/account/invite?token=');
    const page = await newPage(browser);
    // the newer invitation replaced the first
    await page.goto(first);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This link is invalid');
    await choosePassword(page, link, 'Your password is set.');
    await signInAs(page, NEWBIE.email);
    await page.context().close();

    // the Outbox of the domain: both messages, sent; one opens to its words
    await root.goto(`${baseUrl()}/outbox`);
    const sent = root.getByRole('row').filter({ hasText: NEWBIE.email });
    await eventually(() => sent.count()).toBe(2);
    await eventually(() => root.getByRole('row').filter({ hasText: FORGETFUL.email }).count()).toBe(1);
    await sent.first().click();
    await eventually(() => root.getByText(`To: ${NEWBIE.email}`).isVisible()).toBe(true);
    await expectNoAxeViolations(root);
    await screenshot(root, 'outbox');

    // dark, and a phone's width: the Outbox and the user screen's E-mail card
    await root.emulateMedia({ colorScheme: 'dark' });
    await root.evaluate(() => localStorage.setItem('theme', 'dark'));
    await root.setViewportSize({ width: 390, height: 844 });
    await root.reload();
    await eventually(() => root.getByRole('row').filter({ hasText: NEWBIE.email }).count()).toBe(2);
    await expectNoAxeViolations(root);
    await screenshot(root, 'outbox-dark-390');
    await root.goto(`${baseUrl()}/users`);
    await root.getByPlaceholder('Search').first().fill(NEWBIE.email);
    await eventually(() => root.getByRole('row').filter({ hasText: NEWBIE.email }).count()).toBe(1);
    await root.getByRole('row').filter({ hasText: NEWBIE.email }).getByRole('link').first().click();
    await eventually(() => panel.isVisible()).toBe(true);
    await expectNoAxeViolations(root);
    await screenshot(root, 'email-card-dark-390');
    // the hosted page in the dark
    const dark = await newPage(browser);
    await dark.emulateMedia({ colorScheme: 'dark' });
    await dark.goto(`${baseUrl()}/account/forgot?company=root`);
    await expectNoAxeViolations(dark);
    await dark.context().close();
  });
});
