import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launchBrowser, newPage, screenshot } from './browser.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe('smoke', () => {
  it('serves an HTML page at / (the console, or the placeholder before it is built)', async () => {
    const page = await newPage(browser);
    const response = await page.goto(baseUrl() + '/');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/text\/html/);
    expect(await page.locator('body').count()).toBe(1);
    await screenshot(page, 'smoke-home');
    await page.context().close();
  });

  it('publishes the OpenID configuration with the server as issuer', async () => {
    const page = await newPage(browser);
    const response = await page.goto(baseUrl() + '/.well-known/openid-configuration');
    expect(response?.status()).toBe(200);
    const discovery = await response!.json();
    expect(discovery.issuer).toBe(baseUrl());
    expect(discovery.authorization_endpoint).toBe(`${baseUrl()}/oauth/authorize`);
    expect(discovery.jwks_uri).toMatch(/^http/);
    await page.context().close();
  });
});
