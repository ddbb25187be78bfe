/**
 * A resource type added by declaration alone, end to end (docs/ADDING-A-RESOURCE.md): devices are
 * declared in tests alone. The server half is a table, a definition, its rules and crudRoutes
 * (tests/server/fixtures/devices.ts, shared with tests/server/resourceType.test.ts); the console half is one declaration
 * (no components), which a Vite plugin adds to the registry of a console built for this test. The
 * test serves that console from its own provider and drives it in Chromium: menu entry, list,
 * search, a filter, create, view, edit, CSV export, delete, recover-free purge.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build, type Plugin } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICES_TABLE, deviceRoutes } from '../server/fixtures/devices.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from '../server/helpers.js';
import { expectNoAxeViolations, launchBrowser, screenshot } from './browser.js';

// ---- the console declaration: the module the registry gains (plain JS, served by the build) ----
const CONSOLE_DECLARATION = `
import DevicesIcon from '@mui/icons-material/Devices';

export const devices = {
  name: 'devices',
  labelKey: 'resources.devices.name',
  icon: DevicesIcon,
  needsDomain: true,
  paths: {
    collection: ({ companyId, domainId }) =>
      'companys/' + encodeURIComponent(companyId) + '/domainNames/' + encodeURIComponent(domainId) + '/devices',
  },
  fields: [
    { source: 'name', kind: 'text', required: true, maxLength: 200 },
    { source: 'serial', kind: 'text', required: true, rule: 'noSpaces', maxLength: 64 },
    { source: 'kind', kind: 'select', choices: ['phone', 'laptop', 'key'], defaultValue: 'phone' },
    { source: 'seats', kind: 'number', min: 1, max: 100, defaultValue: 1 },
    { source: 'managed', kind: 'boolean', defaultValue: false },
  ],
  listColumns: ['name', 'serial', 'kind'],
  searchable: true,
  filters: [
    { source: 'kind', kind: 'select', choices: ['phone', 'laptop', 'key'] },
    { source: 'managed', kind: 'boolean' },
  ],
  formFields: ['name', 'serial', 'kind', 'seats', 'managed'],
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'name', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/devices', form: '/devices-new' },
};
`;

/** Adds the declaration above to src/resources/registry.ts's list, in this build only. */
function testDeclarations(source: string): Plugin {
  const virtual = 'virtual:test-declarations';
  return {
    name: 'test-declarations',
    resolveId: (requested) => (requested === virtual ? `\0${virtual}` : undefined),
    load: (loaded) => (loaded === `\0${virtual}` ? source : undefined),
    transform(code, file) {
      if (!file.endsWith('/src/resources/registry.ts')) return undefined;
      return `${code}\nimport { devices as __testDevices } from '${virtual}';\nregistry.push(__testDevices);\n`;
    },
  };
}

// ---- the test ----
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 200 });
const rowNames = (page: Page) => page.locator('tbody tr td:nth-child(2)').allTextContents();

let consoleDir: string;
let server: TestServer | undefined;
let browser: Browser;
let page: Page;
let baseUrl: string;

beforeAll(async () => {
  consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-declared-console-'));
  await build({
    configFile: path.resolve('vite.config.ts'),
    logLevel: 'warn',
    plugins: [testDeclarations(CONSOLE_DECLARATION)],
    build: { outDir: consoleDir, emptyOutDir: true },
  });
  const port = await freePort();
  baseUrl = `http://localhost:${port}`;
  server = await startServer({ consoleDir, publicUrl: baseUrl }, { apiRoutes: [deviceRoutes] });
  await server.db.query(DEVICES_TABLE);
  await server.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (consoleDir) fs.rmSync(consoleDir, { recursive: true, force: true });
});

describe('a resource type declared in the test file alone (devices)', () => {
  it('gets a menu entry, a list with search and filters, create, view, edit, CSV export, delete and purge', async () => {
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });

    // the menu entry, named by the readable form of the resource's name
    await page.getByRole('menuitem', { name: 'Devices' }).click();
    await page.waitForURL(/\/devices(\?|$)/);
    await page.getByText(/^No devices yet\./).waitFor({ timeout: 20_000 });

    // create three, each through the generic form
    for (const [name, serial, kind] of [
      ['Alpha phone', 'SN-001', 'phone'],
      ['Bravo laptop', 'SN-002', 'laptop'],
      ['Charlie laptop', 'SN-003', 'laptop'],
    ]) {
      await page.getByRole('button', { name: 'New' }).click();
      await page.getByRole('textbox', { name: 'Name' }).fill(name);
      await page.getByRole('textbox', { name: 'Serial' }).fill(serial);
      if (kind !== 'phone') {
        await page.getByRole('combobox', { name: 'Kind' }).click();
        await page.getByRole('option', { name: kind, exact: true }).click();
      }
      await page.getByRole('button', { name: 'Create' }).click();
      await page.waitForURL(/\/devices(\?|$)/);
      await page.getByRole('button', { name, exact: true }).waitFor({ timeout: 20_000 });
    }
    await poll(() => rowNames(page)).toEqual(['Alpha phone', 'Bravo laptop', 'Charlie laptop']);
    await screenshot(page, 'declared-devices-list');
    await expectNoAxeViolations(page);

    // search, then a declared filter
    await page.getByPlaceholder('Search').fill('charlie');
    await poll(() => rowNames(page)).toEqual(['Charlie laptop']);
    await page.getByPlaceholder('Search').fill('');
    await poll(() => rowNames(page)).toHaveLength(3);
    await page.getByRole('combobox', { name: 'Kind' }).click();
    await page.getByRole('option', { name: 'laptop', exact: true }).click();
    await poll(() => rowNames(page)).toEqual(['Bravo laptop', 'Charlie laptop']);

    // CSV export of what the list shows
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = fs.readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
    // the provider's export: the id and the columns shown, under their headers (docs/CONSOLE.md, "Lists")
    expect(csv[0].toLowerCase()).toBe('id,name,serial,kind');
    expect(csv.slice(1).map((line) => line.split(',')[1])).toEqual(['Bravo laptop', 'Charlie laptop']);

    // view, then edit
    await page.getByRole('button', { name: 'Bravo laptop', exact: true }).click();
    expect(await page.getByRole('textbox', { name: 'Name' }).getAttribute('readonly')).not.toBeNull();
    await screenshot(page, 'declared-devices-view');
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Bravo laptop (spare)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/devices(\?|$)/);
    await poll(() => rowNames(page)).toEqual(['Bravo laptop (spare)', 'Charlie laptop']);

    // bulk delete (soft, as declared), then purge from the deleted list
    await page.getByRole('columnheader').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await poll(() => page.getByRole('button', { name: 'Charlie laptop' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Deleted', exact: true }).click();
    await poll(() => rowNames(page)).toEqual(['Bravo laptop (spare)', 'Charlie laptop']);
    await page.getByRole('columnheader').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Purge', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Purge' }).click();
    await page.getByText(/^No (deleted )?devices/).waitFor({ timeout: 20_000 });
    const { rows } = await server!.db.query<{ id: string; status: string }>('SELECT id, status FROM devices ORDER BY id');
    expect(rows).toEqual([{ id: 'SN-001', status: 'active' }]);
  }, 180_000);
});
