/**
 * Issue 6's browser test: what the console configures takes effect. As the administrator, create a
 * user (/users-new) and register a regular web application (/applications-new wizard); then, in a
 * fresh browser context, the application's user signs in on the provider's hosted login page with
 * the code flow (PKCE, state, nonce). The test plays the relying party's back end: it exchanges the
 * code at the token endpoint with the secret shown once and verifies the ID token against the JWKS.
 * On the way, the group form's Permissions tab grants one scope of an RBAC API to the user's group:
 * the access token for that API carries exactly that permission.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as jose from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectNoAxeViolations, launchBrowser, newPage, screenshot, signIn, consoleApi } from './browser.js';

/** expect.poll with room for a loaded machine. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });

const suffix = Date.now().toString(36);
const user = {
  username: `rp-user-${suffix}`,
  displayName: `RP User ${suffix}`,
  email: `rp-user-${suffix}@example.com`,
  password: 'Rp-Secret-Pass-1',
};
const appName = `Hosted sign-in ${suffix}`;
const rbacApi = { name: `Inventory ${suffix}`, identifier: `https://inventory-${suffix}.example` };
const groupName = `rp-readers-${suffix}`;
const groupDisplayName = `RP Readers ${suffix}`;
const redirectUri = () => `${baseUrl()}/rp-callback`;

const base64url = (bytes: Buffer) => bytes.toString('base64url');
const verifier = base64url(randomBytes(32));
const challenge = base64url(createHash('sha256').update(verifier).digest());
const NONCE = `n-${suffix}`;
const STATE = 'xyz';

let browser: Browser;
let admin: Page;
/** What the console showed while registering the application. */
const registered = { clientId: '', secret: '' };
/** Where the hosted login sent the browser back. */
let callback: URL | undefined;

/** Calls the management API with the signed-in console's own token (setup that is not under test). */
const api = (method: string, path: string, body?: unknown) => consoleApi(admin, method, path, body);

const groupPath = () => `companys/root/domainNames/default/groups/${encodeURIComponent(groupName)}`;

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await newPage(browser);
  await signIn(admin);
});
afterAll(() => browser?.close());

describe('sign in to an application registered in the console', () => {
  it('creates the user through /users-new', async () => {
    await admin.goto('/users');
    await poll(() => admin.getByRole('button', { name: 'New' }).isVisible()).toBe(true);
    await admin.getByRole('button', { name: 'New' }).click();
    await admin.waitForURL(/\/users-new$/);
    await admin.getByLabel('User Name').fill(user.username);
    await admin.getByLabel('Display Name').fill(user.displayName);
    await admin.getByLabel('Email').fill(user.email);
    await admin.getByLabel(/^Password/).fill(user.password);
    await admin.getByLabel('Confirm Password').fill(user.password);
    await admin.getByRole('button', { name: 'Create' }).click();
    await admin.waitForURL(/\/users(\?|$)/, { timeout: 30_000 });
  });

  it('registers a regular web application through the /applications-new wizard, secret shown once', async () => {
    await admin.goto('/applications');
    await poll(() => admin.getByRole('combobox', { name: 'Domains' }).textContent()).toContain('default');
    await admin.getByRole('button', { name: 'New', exact: true }).click();
    await admin.waitForURL(/\/applications-new$/);

    const basic = admin.getByRole('group', { name: 'Basic Information' });
    await basic.getByRole('textbox', { name: /^Name/ }).fill(appName);
    await basic.getByRole('combobox', { name: /Application Type/ }).click();
    await admin.getByRole('option', { name: 'Regular Web Applications' }).click();
    registered.clientId = await basic.getByRole('textbox', { name: /Client ID/ }).inputValue();
    expect(registered.clientId).not.toBe('');

    await admin.getByRole('button', { name: 'Next', exact: true }).click();
    await poll(() => admin.getByRole('group', { name: 'Application Properties' }).isVisible()).toBe(true);
    await admin.getByRole('button', { name: 'Next', exact: true }).click();
    const uris = admin.getByRole('group', { name: 'Application URIs' });
    await uris.getByRole('textbox', { name: /Allowed Callback URIs/ }).fill(redirectUri());
    await admin.getByRole('button', { name: 'Finish', exact: true }).click();

    const dialog = admin.getByRole('dialog');
    await poll(() => dialog.textContent()).toContain("won't be shown again");
    registered.secret = await dialog.getByRole('textbox').inputValue();
    expect(registered.secret).not.toBe('');
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await admin.waitForURL(/\/applications$/);
    await poll(() => admin.getByRole('cell', { name: appName }).count()).toBe(1);
  });

  it("grants one scope of an RBAC API to the user's group in the group form's Permissions tab", async () => {
    // Setup through the API: an RBAC API with two scopes, and a group with the new user in it.
    const created = await api('POST', 'root/default/api', { ...rbacApi, RBAC: true, addPermissionAccessToken: true });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    for (const [permission, description] of [
      ['stock:read', 'Read stock levels'],
      ['stock:write', 'Change stock levels'],
    ]) {
      expect((await api('POST', `api/${created.json.id}/PermissionScopes`, { permission, description })).status).toBe(201);
    }
    const group = await api('POST', 'companys/root/domainNames/default/groups', {
      name: groupName,
      displayName: groupDisplayName,
      email: `${groupName}@example.com`,
      notes: '',
    });
    expect(group.status, JSON.stringify(group.json)).toBe(201);
    const found = await api('GET', `companys/root/domainNames/default/users?filter=${encodeURIComponent(JSON.stringify({ q: user.username }))}`);
    const userId = found.json.find((candidate: { username: string }) => candidate.username === user.username)?.id;
    expect(userId).toBeTruthy();
    expect((await api('POST', `${groupPath()}/members`, [{ id: userId, displayName: user.displayName, type: 'user' }])).status).toBe(200);

    await admin.goto('/groups');
    await admin.getByPlaceholder('Search').first().fill(groupName);
    await admin.getByRole('link', { name: groupDisplayName }).click();
    await admin.waitForURL(/\/groups\/[^/?]+\?company=/);
    await admin.getByRole('tab', { name: 'Permissions' }).click();
    await poll(() => admin.getByText(/This group has no permissions yet/).isVisible()).toBe(true);

    await admin.getByRole('button', { name: 'Add', exact: true }).click();
    const dialog = admin.getByRole('dialog', { name: `Add permissions to ${groupDisplayName}` });
    await dialog.getByRole('combobox', { name: 'API' }).click();
    await admin.getByRole('option', { name: new RegExp(rbacApi.name) }).click();
    const scopes = dialog.getByRole('group', { name: 'Permission scopes' });
    await poll(() => scopes.getByRole('checkbox').count()).toBe(2);
    await scopes.getByRole('checkbox', { name: /stock:read/ }).check();
    await expectNoAxeViolations(admin, { exclude: ['header'] });
    await screenshot(admin, 'group-permissions-add-light');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await poll(() => admin.getByRole('dialog').count()).toBe(0);

    const table = admin.getByRole('table', { name: 'Permissions' });
    await poll(() => table.getByRole('row').filter({ hasText: 'stock:read' }).count()).toBe(1);
    expect(await table.getByRole('row').filter({ hasText: 'stock:write' }).count()).toBe(0);
    await expectNoAxeViolations(admin, { exclude: ['header'] });
    await screenshot(admin, 'group-permissions-light');
    const granted = await api('GET', `${groupPath()}/permissions`);
    expect(granted.json).toEqual([{ apiId: created.json.id, apiName: rbacApi.name, permission: 'stock:read', description: 'Read stock levels' }]);
  });

  it('signs the user in on the hosted login page and lands on the redirect URI with code and state', async () => {
    expect(registered.clientId, 'the application was registered').not.toBe('');
    // A fresh context: no console session, only what a relying party's user would have.
    const page = await newPage(browser);
    try {
      const authorize = new URL(`${baseUrl()}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.clientId,
        redirect_uri: redirectUri(),
        scope: 'openid email stock:read stock:write',
        audience: rbacApi.identifier,
        state: STATE,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        nonce: NONCE,
      }).toString();
      await page.goto(authorize.toString());

      const login = page.getByRole('textbox', { name: 'Email or username' });
      await poll(() => login.isVisible()).toBe(true);
      // The page names the application as registered in the console.
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Sign in to ${appName}`);
      await expectNoAxeViolations(page);
      await screenshot(page, 'hosted-login-light');

      // A wrong password keeps the user on the page with an accessible error.
      await login.fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill('not-the-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await poll(() => page.getByRole('alert').isVisible()).toBe(true);
      expect(await page.getByRole('textbox', { name: 'Email or username' }).getAttribute('aria-invalid')).toBe('true');
      expect(page.url().startsWith(redirectUri())).toBe(false);
      await expectNoAxeViolations(page);
      await screenshot(page, 'hosted-login-error-light');

      await page.getByRole('textbox', { name: 'Email or username' }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // The provider answers /rp-callback with the console's page or a 404: arriving is what counts,
      // so the URL is read as soon as the navigation commits (before any script there runs).
      await page.waitForURL((url) => url.toString().startsWith(redirectUri()), { timeout: 30_000, waitUntil: 'commit' });
      callback = new URL(page.url());
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri());
      expect(callback.searchParams.get('state')).toBe(STATE);
      expect(callback.searchParams.get('code')).toBeTruthy();
      expect(callback.searchParams.get('error')).toBeNull();
    } finally {
      await page.context().close();
    }
  });

  it("exchanges the code with the verifier and the secret; the ID token verifies against the provider's keys", async () => {
    expect(callback, 'the browser came back with a code').toBeDefined();
    const discovery = (await (await fetch(`${baseUrl()}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
      token_endpoint: string;
      jwks_uri: string;
    };
    const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(registered.clientId)}:${encodeURIComponent(registered.secret)}`).toString('base64')}`;
    const exchange = () =>
      fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form({
          grant_type: 'authorization_code',
          code: callback!.searchParams.get('code')!,
          redirect_uri: redirectUri(),
          code_verifier: verifier,
        }),
      });

    // One try: the provider spends the code on any attempt, so a wrong verifier here would burn it.
    let response = await exchange();
    const body = (await response.json()) as { id_token?: string; access_token?: string; token_type?: string; error?: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.token_type).toMatch(/^bearer$/i);
    expect(body.access_token).toBeTruthy();

    const { payload } = await jose.jwtVerify(body.id_token!, jose.createRemoteJWKSet(new URL(discovery.jwks_uri)), {
      issuer: discovery.issuer,
      audience: registered.clientId,
    });
    expect(discovery.issuer).toBe(baseUrl());
    expect(payload.nonce).toBe(NONCE);
    expect(payload.email).toBe(user.email);
    expect(payload.sub).toBeTruthy();

    // The access token is for the RBAC API and carries only what the group was granted.
    const access = await jose.jwtVerify(body.access_token!, jose.createRemoteJWKSet(new URL(discovery.jwks_uri)), {
      issuer: discovery.issuer,
      audience: rbacApi.identifier,
    });
    expect(access.payload.permissions).toEqual(['stock:read']);
    expect(String(access.payload.scope).split(' ')).toContain('stock:read');
    expect(String(access.payload.scope).split(' ')).not.toContain('stock:write');

    // The code is single-use.
    response = await exchange();
    expect(response.status).toBe(400);
  });
  it('takes the permission back in the Permissions tab after confirmation', async () => {
    const table = admin.getByRole('table', { name: 'Permissions' });
    await admin.getByRole('button', { name: `Delete stock:read of ${rbacApi.name}` }).click();
    const confirm = admin.getByRole('dialog');
    await poll(() => confirm.textContent()).toContain(`Remove stock:read of ${rbacApi.name} from the group?`);
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await poll(() => admin.getByRole('dialog').count()).toBe(0);
    await poll(() => admin.getByText(/This group has no permissions yet/).isVisible()).toBe(true);
    expect(await table.count()).toBe(0);
    expect((await api('GET', `${groupPath()}/permissions`)).json).toEqual([]);
  });
});
