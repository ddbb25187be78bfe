/**
 * The console in French and in Arabic (docs/CONSOLE.md, "Languages") in Chromium against the running
 * provider (npm run test:e2e): the sign-in page's language menu, then the dashboard, the users list,
 * the user form and the application wizard; the app bar's language menu switches to Arabic, laid out
 * right to left. On each screen `<html lang dir>`, axe, and screenshots light and dark in /tmp/shots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEmail, adminPassword, baseUrl, expectNoAxeViolations, launchBrowser, newPage } from './browser.js';

const SHOTS = '/tmp/shots';
const LANGUAGE_MENU = 'Language · Langue · Sprache · Idioma · 言語 · اللغة';

let browser: Browser;
let page: Page;
const languagePuts: string[] = [];

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
  page = await newPage(browser);
  page.on('request', (request) => {
    if (request.method() === 'PUT' && new URL(request.url()).pathname === '/api/me/language') languagePuts.push(request.postData() ?? '');
  });
});
afterAll(() => browser?.close());

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });

const htmlLangDir = () => page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));

/** The console's theme (localStorage theme) and the system's (the sign-in page follows it). */
async function setTheme(theme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** axe, then a screenshot in each theme: <language>-<screen>-<theme>.png in /tmp/shots/. */
async function judge(name: string, ready: () => Promise<unknown>) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(theme);
    await page.reload();
    await ready();
    await page.waitForLoadState('networkidle');
    await expectNoAxeViolations(page);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${theme}.png`), fullPage: true });
  }
}

/** The side bar's horizontal middle over the page's: left of it in French, right of it in Arabic. */
async function sidebarSide(): Promise<'left' | 'right'> {
  const box = await page.locator('.RaSidebar-fixed, .MuiDrawer-root').first().boundingBox();
  const width = page.viewportSize()!.width;
  expect(box).not.toBeNull();
  return box!.x + box!.width / 2 < width / 2 ? 'left' : 'right';
}

/**
 * The side bar with every group open, in each theme (<name>-light.png, -dark.png): a label too long
 * for one line wraps, none is cut off or runs past the side bar (in English, `oneLine`: every link
 * fits on one line, as before; a group's heading now shows its chevron within the side bar, which
 * puts Enterprise Applications on two lines); then collapsed, one line per icon.
 */
async function judgeSidebar(name: string, oneLine = false) {
  const sidebar = page.locator('.RaSidebar-fixed').first();
  const entryHeights = (entries = '[role="menuitem"]') =>
    sidebar.evaluate((bar, selector) => [...bar.querySelectorAll(selector)].map((item) => item.getBoundingClientRect().height), entries);
  const closed = sidebar.locator('[aria-expanded="false"]');
  await page.setViewportSize({ width: 1280, height: 1800 });
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(theme);
    await page.reload();
    await sidebar.getByRole('menuitem').first().waitFor();
    for (let i = 0; i < 10 && (await closed.count()) > 0; i++) await closed.first().click();
    await page.waitForLoadState('networkidle');
    const cut = await sidebar.evaluate((bar) => {
      // the side bar's paper clips what runs past it
      const right = Math.min(bar.getBoundingClientRect().right, bar.parentElement!.getBoundingClientRect().right);
      return [...bar.querySelectorAll<HTMLElement>('[role="menuitem"], [role="menuitem"] *')]
        // (a badge's number stands out of its icon by design)
        .filter((item) => item instanceof HTMLElement && !item.closest('.MuiBadge-root') && (item.scrollWidth > item.clientWidth + 1 || item.getBoundingClientRect().right > right + 1))
        .map((item) => item.textContent);
    });
    await sidebar.screenshot({ path: path.join(SHOTS, `${name}-${theme}.png`) });
    expect(cut).toEqual([]);
    if (oneLine) expect(Math.max(...(await entryHeights('a[role="menuitem"]')))).toBeLessThan(50);
  }
  // collapsed: icons only, each entry one line high, as before
  await setTheme('light');
  await page.getByRole('button', { name: /men[uü]/i }).first().click();
  const paperWidth = () => sidebar.evaluate((bar) => bar.parentElement!.getBoundingClientRect().width);
  await eventually(paperWidth).toBeLessThan(100);
  expect(Math.max(...(await entryHeights()))).toBeLessThan(50);
  const paper = await sidebar.evaluate((bar) => bar.parentElement!.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number });
  await page.screenshot({ path: path.join(SHOTS, `${name}-collapsed-light.png`), clip: { x: paper.x, y: paper.y, width: paper.width, height: Math.min(paper.height, 900) } });
  await page.getByRole('button', { name: /men[uü]/i }).first().click();
  await eventually(paperWidth).toBeGreaterThan(100);
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('the console in French', () => {
  it('the sign-in page switches to French with its language menu, and signs in', async () => {
    await page.goto(`${baseUrl()}/login`);
    await page.getByLabel(LANGUAGE_MENU).selectOption('fr');
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Connectez-vous à votre compte');
    expect(await htmlLangDir()).toEqual({ lang: 'fr', dir: 'ltr' });
    await judge('fr-sign-in', () => page.getByRole('heading', { name: 'Connectez-vous à votre compte' }).waitFor());
    // remembered: still French after the reloads
    expect(await page.evaluate(() => localStorage.getItem('language'))).toBe('fr');
    await setTheme('light');
    await page.getByLabel('E-mail').fill(adminEmail());
    await page.getByLabel('Mot de passe', { exact: true }).fill(adminPassword());
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
  });

  it('the dashboard, the users list, the user form and the application wizard', async () => {
    await judge('fr-dashboard', () => page.getByText(/^Bonjour /).first().waitFor());
    expect(await htmlLangDir()).toEqual({ lang: 'fr', dir: 'ltr' });
    expect(await sidebarSide()).toBe('left');
    // the app bar's language menu names the language in its own name
    await expect(page.getByRole('button', { name: 'Français' })).toBeDefined();

    // long labels wrap in the side bar, in French and in German
    await judgeSidebar('fr-sidebar');
    await page.getByRole('button', { name: 'Français' }).click();
    await page.getByRole('menuitem', { name: 'Deutsch' }).click();
    await eventually(htmlLangDir).toEqual({ lang: 'de', dir: 'ltr' });
    await judgeSidebar('de-sidebar');
    // English as before: one line each
    await page.getByRole('button', { name: 'Deutsch' }).click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await eventually(htmlLangDir).toEqual({ lang: 'en', dir: 'ltr' });
    await judgeSidebar('en-sidebar', true);
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('menuitem', { name: 'Français' }).click();
    await eventually(htmlLangDir).toEqual({ lang: 'fr', dir: 'ltr' });

    await page.goto(`${baseUrl()}/users`);
    await judge('fr-users', () => page.getByRole('button', { name: 'Nouveau' }).first().waitFor());
    await eventually(() => page.getByRole('columnheader', { name: 'Nom' }).first().isVisible()).toBe(true);

    await page.goto(`${baseUrl()}/users-new`);
    await judge('fr-user-form', () => page.getByLabel("Nom d'utilisateur").waitFor());
    await eventually(() => page.getByLabel('Confirmer le mot de passe').isVisible()).toBe(true);

    await page.goto(`${baseUrl()}/applications-new`);
    await judge('fr-application-wizard', () => page.getByText('Informations de base').first().waitFor());
    await eventually(() => page.getByRole('button', { name: 'Suivant' }).isVisible()).toBe(true);
    expect(await htmlLangDir()).toEqual({ lang: 'fr', dir: 'ltr' });
  });
});

describe('the console in Arabic, right to left', () => {
  it("the app bar's language menu switches to Arabic, sent to the provider as her language", async () => {
    await setTheme('light');
    await page.goto(`${baseUrl()}/dashboard`);
    await page.getByRole('button', { name: 'Français' }).click();
    await page.getByRole('menuitem', { name: 'العربية' }).click();
    await eventually(htmlLangDir).toEqual({ lang: 'ar', dir: 'rtl' });
    await eventually(() => page.getByText(/^مرحبًا /).first().isVisible()).toBe(true);
    await eventually(() => languagePuts).toContain(JSON.stringify({ language: 'ar' }));
    expect(await page.evaluate(() => localStorage.getItem('language'))).toBe('ar');
  });

  it('the dashboard, the users list, the user form and the application wizard, mirrored', async () => {
    await judge('ar-dashboard', () => page.getByText(/^مرحبًا /).first().waitFor());
    expect(await htmlLangDir()).toEqual({ lang: 'ar', dir: 'rtl' });
    // mirrored: the side bar on the right, MUI's styles flipped by the right-to-left emotion cache
    expect(await sidebarSide()).toBe('right');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl');

    await page.goto(`${baseUrl()}/users`);
    await judge('ar-users', () => page.getByRole('button', { name: 'جديد' }).first().waitFor());

    await page.goto(`${baseUrl()}/users-new`);
    await judge('ar-user-form', () => page.getByLabel('اسم المستخدم').waitFor());
    await eventually(() => page.getByLabel('تأكيد كلمة المرور').isVisible()).toBe(true);

    await page.goto(`${baseUrl()}/applications-new`);
    await judge('ar-application-wizard', () => page.getByText('المعلومات الأساسية').first().waitFor());
    await eventually(() => page.getByRole('button', { name: 'التالي' }).isVisible()).toBe(true);
    expect(await htmlLangDir()).toEqual({ lang: 'ar', dir: 'rtl' });
  });

  it('the sign-in page in Arabic, right to left', async () => {
    const signInPage = await newPage(browser);
    await signInPage.goto(`${baseUrl()}/login`);
    await signInPage.evaluate(() => localStorage.setItem('language', 'ar'));
    page = signInPage;
    await judge('ar-sign-in', () => page.getByRole('heading', { name: 'سجّل الدخول إلى حسابك' }).waitFor());
    expect(await htmlLangDir()).toEqual({ lang: 'ar', dir: 'rtl' });
    await expect(page.getByRole('button', { name: 'تسجيل الدخول' }).isVisible()).resolves.toBe(true);
  });
});
