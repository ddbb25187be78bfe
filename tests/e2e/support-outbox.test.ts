/**
 * A support agent resends a message from the Outbox (docs/CONSOLE.md, "E-mail, reset links and
 * invitations"; issue 35) in Chromium against the running provider (npm run test:e2e): root sends a
 * person a reset link and gives an agent Support; the agent signs in, finds the message in the
 * Outbox (recipient, subject, kind, when, whether it went), opens it: no text and no link, which
 * only roles that may set the person's password see; Resend, confirmed, sends a fresh one, a second
 * row. axe, and screenshots light and dark. Other browser tests share the server: her people have
 * names of their own and are found by searching.
 */
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, consoleApi, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn } from './browser.js';

let browser: Browser;
let root: Page;

const run = Date.now().toString(36);
const DOMAIN_PATH = 'companys/root/domainNames/default';
const PASSWORD = 'Outbox-Pass-1';
const AGENT = { id: `ob-agent-${run}`, name: `Olive Outbox ${run}`, email: `ob-agent-${run}@example.com` };
const PERSON = { id: `ob-person-${run}`, name: `Pete Person ${run}`, email: `ob-person-${run}@example.com` };

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const button = (within: Page | Locator, name: string) => within.getByRole('button', { name, exact: true });

async function makeUser(person: typeof AGENT, password?: string) {
  const made = await consoleApi(root, 'POST', `${DOMAIN_PATH}/users`, {
    id: person.id,
    username: person.id,
    displayName: person.name,
    email: person.email,
    ...(password ? { authVerification: await bcrypt.hash(password, 10) } : {}),
  });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
}

/** The outbox's messages to the person, as root reads them. */
async function messagesTo(email: string): Promise<{ id: string; recipient: string }[]> {
  const listed = await consoleApi(root, 'GET', `${DOMAIN_PATH}/outbox?filter=${encodeURIComponent(JSON.stringify({ q: email }))}`);
  expect(listed.status, JSON.stringify(listed.json)).toBe(200);
  return (listed.json as { id: string; recipient: string }[]).filter((message) => message.recipient === email);
}

beforeAll(async () => {
  browser = await launchBrowser();
  root = await newPage(browser);
  await signIn(root);
});
afterAll(() => browser?.close());

describe('a support agent and the Outbox', () => {
  let context: BrowserContext;
  let agent: Page;

  it('root sends a person a reset link and gives an agent Support', async () => {
    await makeUser(AGENT, PASSWORD);
    await makeUser(PERSON);
    const given = await consoleApi(root, 'POST', 'companys/root/roleAssignments', { role: 'support', holderType: 'user', holderId: AGENT.id, holderCompanyId: 'root', holderDomainId: 'default' });
    expect(given.status, JSON.stringify(given.json)).toBe(201);
    const sent = await consoleApi(root, 'POST', `${DOMAIN_PATH}/users/${PERSON.id}/sendResetLink`, {});
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    expect(await messagesTo(PERSON.email)).toHaveLength(1);
  });

  it('the agent finds the message: to whom, what, when and whether it went; no text, no link', async () => {
    context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
    agent = await context.newPage();
    await signIn(agent, { email: AGENT.email, password: PASSWORD });
    const me = await consoleApi(agent, 'GET', 'me/permissions?companyId=root&domainId=default');
    expect(me.json.roles).toEqual(['support']);

    const open = async () => {
      await agent.goto(`${baseUrl()}/outbox`);
      await agent.getByPlaceholder('Search').first().fill(PERSON.email);
      // her row (and, once opened, the detail under it: the list remembers what was open)
      const row = agent.getByRole('row').filter({ hasText: PERSON.email }).filter({ hasText: 'Reset link' }).first();
      await eventually(() => row.isVisible()).toBe(true);
      const detail = agent.getByText(`To: ${PERSON.email}`);
      // its expand button says whether it is open (the detail itself loads after)
      if ((await row.locator('[aria-expanded]').first().getAttribute('aria-expanded')) !== 'true') await row.click();
      await eventually(() => detail.isVisible()).toBe(true);
    };

    for (const theme of ['light', 'dark'] as const) {
      await agent.emulateMedia({ colorScheme: theme });
      await agent.evaluate((value) => localStorage.setItem('theme', value), theme);
      await open();
      // sent, waiting or failed: the provider's mail server in these tests takes no connection
      await eventually(async () => /(^|\n)(Sent |Not sent: )/.test(await agent.locator('main').innerText())).toBe(true);
      await eventually(() => agent.getByText(/^Its text holds the link/).isVisible()).toBe(true);
      // no link of the message anywhere on her screen
      expect(await agent.locator('main').innerText()).not.toMatch(/token=/);
      expect(await agent.locator('a[href*="token="]').count()).toBe(0);
      await eventually(() => button(agent, 'Resend').isEnabled()).toBe(true);
      await expectNoAxeViolations(agent);
      await screenshot(agent, `support-outbox-message-${theme}`);
    }
    // what the provider sent her: the message without its text
    const [message] = await messagesTo(PERSON.email);
    const read = await consoleApi(agent, 'GET', `${DOMAIN_PATH}/outbox/${message.id}`);
    expect(read.status).toBe(200);
    expect(read.json.text).toBeUndefined();
    expect(JSON.stringify(read.json)).not.toMatch(/token=/);
  });

  it('Resend, confirmed, sends a fresh one: a second message to her', async () => {
    await button(agent, 'Resend').click();
    const confirm = agent.getByRole('dialog', { name: `Resend to ${PERSON.email}?` });
    await eventually(() => confirm.isVisible()).toBe(true);
    await button(confirm, 'Send').click();
    await eventually(() => agent.getByText(new RegExp(`^(Sent to|Written to the outbox for) ${PERSON.email.replace(/[.]/g, '\\.')}`)).first().isVisible()).toBe(true);
    await eventually(async () => (await messagesTo(PERSON.email)).length).toBe(2);
    await agent.reload();
    await agent.getByPlaceholder('Search').first().fill(PERSON.email);
    await eventually(() => agent.getByRole('row').filter({ hasText: PERSON.email }).filter({ hasText: 'Reset link' }).count()).toBe(2);
    await context.close();
  });
});
