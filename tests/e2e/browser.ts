import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import bcrypt from 'bcryptjs';
import { expect } from 'vitest';

/** Where Debian's chromium lives; E2E_CHROMIUM overrides it. */
export const CHROMIUM = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests with npm run test:e2e (it starts a server and sets it)`);
  return value;
}

/** The server under test (scripts/e2e.mjs starts it on a free port with a fresh data dir). */
export const baseUrl = () => required('E2E_BASE_URL').replace(/\/+$/, '');
export const adminEmail = () => required('E2E_ADMIN_EMAIL');
export const adminPassword = () => required('E2E_ADMIN_PASSWORD');

/** Launches headless Chromium (Debian's package, driven by playwright-core). */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (Debian: apt-get install chromium) or set E2E_CHROMIUM`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A new page in a fresh context (own cookies and storage), with the base URL set. */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1280, height: 800 } });
  return context.newPage();
}

/** Signs in through the console's /login form as the seeded administrator (or `who`); ends on /dashboard. */
export async function signIn(page: Page, who: { email?: string; password?: string } = {}): Promise<void> {
  await page.goto(`${baseUrl()}/login`);
  await page.getByLabel('Email').fill(who.email ?? adminEmail());
  await page.getByLabel('Password', { exact: true }).fill(who.password ?? adminPassword());
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
}

/** Saves a full-page PNG under test-results/screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = path.resolve('test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Runs axe on the current page (WCAG 2.0/2.1 A and AA) and fails with a readable list of violations. */
export async function expectNoAxeViolations(page: Page, options: { exclude?: string[] } = {}): Promise<void> {
  // Colours are judged once transitions end: a snackbar or dialog fading in blends into the page behind it.
  const settle = () => page.waitForFunction(() => document.getAnimations().length === 0, undefined, { timeout: 10_000 }).catch(() => undefined);
  const analyze = async () => {
    await settle();
    let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
    for (const selector of options.exclude ?? []) builder = builder.exclude(selector);
    return (await builder.analyze()).violations;
  };
  // A notification can start fading in while axe runs (after the wait): judge the page once more
  // when it has settled. What the settled page shows must be clean.
  let violations = await analyze();
  if (violations.length > 0) {
    await page.waitForTimeout(1_000);
    violations = await analyze();
  }
  const summary = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}`).join('\n')}`,
  );
  expect(summary, `axe violations on ${page.url()}`).toEqual([]);
}

/**
 * Calls the management API at /api/<path> from inside `page`, with the signed-in console's own
 * access token (test setup that is not under test); the body is sent as JSON.
 */
export async function consoleApi(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const token = JSON.parse(sessionStorage.getItem('accessToken') ?? '""');
      const response = await fetch(`/api/${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    },
    { method, path, body },
  );
}

/** Creates a person with a password through the management API (`usersPath`: the domain's users, under /api). */
export async function createUser(page: Page, usersPath: string, person: { id: string; name: string; email: string }, password: string): Promise<void> {
  const made = await consoleApi(page, 'POST', usersPath, {
    id: person.id,
    username: person.id,
    displayName: person.name,
    email: person.email,
    authVerification: await bcrypt.hash(password, 10),
  });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
}

/**
 * Clicks `target` until `done` holds, at most `attempts` times, waiting up to 8 s after each click.
 * In a full run (one server shared by every file, two busy cores) a click on a screen that has just
 * loaded is now and then without effect; a test that needs the click's result clicks again rather
 * than waiting 30 s for a dialog that will not come. Still fails when the click never works.
 */
export async function clickUntil(target: Locator, done: () => Promise<boolean>, attempts = 3): Promise<void> {
  const holds = () => done().catch(() => false);
  for (let attempt = 1; ; attempt++) {
    try {
      await target.click({ timeout: 10_000 });
    } catch (error) {
      // the first click may have worked after all, and the control gone or greyed out since
      if (attempt > 1 && (await holds())) return;
      throw error;
    }
    for (const deadline = Date.now() + 8_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      if (await holds()) return;
    }
    if (attempt >= attempts) throw new Error(`clicked ${attempts} times and what the click does did not happen`);
  }
}
