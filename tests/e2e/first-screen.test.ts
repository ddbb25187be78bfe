import zlib from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launchBrowser, newPage, signIn } from './browser.js';

/**
 * The first screen after sign-in stays within 250 kB of gzipped JavaScript (docs/PERFORMANCE.md,
 * "Console bundle"), counted as the browser fetches it: every script from the sign-in page until the
 * dashboard is idle, lazily loaded chunks included. `bench/bundle.ts` counts the same from the build's
 * manifest; this is the browser's own count.
 */
const LIMIT = 250 * 1024;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe('the first screen after sign-in', () => {
  it('fetches at most 250 kB of gzipped JavaScript until the dashboard is idle', async () => {
    const page = await newPage(browser);
    const scripts = new Set<string>();
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.add(request.url());
    });
    await signIn(page);
    await page.waitForLoadState('networkidle');
    let total = 0;
    const sizes: string[] = [];
    for (const url of scripts) {
      // read again: a body fetched before a navigation is no longer held by the page
      const body = await (await page.request.get(url)).body();
      const gzipped = zlib.gzipSync(body).length;
      total += gzipped;
      sizes.push(`${(gzipped / 1024).toFixed(1)} kB ${new URL(url).pathname}`);
    }
    expect(scripts.size).toBeGreaterThan(1);
    expect(total, `${(total / 1024).toFixed(1)} kB:\n${sizes.join('\n')}`).toBeLessThanOrEqual(LIMIT);
    // the tooltips load at the first input, never with the first screen (vite.config.ts, lazyTooltip)
    expect([...scripts].filter((url) => /\/Tooltip-[^/]*\.js$/.test(url))).toEqual([]);
    await page.context().close();
  });
});
