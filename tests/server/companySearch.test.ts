import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * The companies list's search box (docs/CONSOLE.md, "Companies"; issue 29: a search box on every
 * list): `filter.q` on a company's children matches names, display names and descriptions, case
 * aside, inside that company only; another tenant's children are not reached (404).
 */
let server: TestServer;
let reseller: Tenant;
let other: Tenant;
const q = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}&sort=${encodeURIComponent('["name","ASC"]')}`;
const names = (body: { id: string }[]) => body.map((row) => row.id);

beforeAll(async () => {
  server = await startServer();
  reseller = await createTenant(server, 'globex', 'root', 'reseller');
  other = await createTenant(server, 'initech', 'root', 'reseller');
  await createTenant(server, 'globex-north', 'globex', 'customer');
  await createTenant(server, 'globex-south', 'globex', 'customer');
  await createTenant(server, 'initech-north', 'initech', 'customer');
  await server.db.query(`UPDATE companies SET display_name = 'Southern Widgets' WHERE id = 'globex-south'`);
});
afterAll(() => server?.close());

describe('companies search', () => {
  it("finds a company's children by name or display name, and no one else's", async () => {
    const north = await call(server, reseller.adminToken, 'GET', `/api/companys/globex/childCompanys?${q({ q: 'NORTH' })}`);
    expect(north.status, JSON.stringify(north.body)).toBe(200);
    expect(names(north.body)).toEqual(['globex-north']);
    const widgets = await call(server, reseller.adminToken, 'GET', `/api/companys/globex/childCompanys?${q({ q: 'widgets' })}`);
    expect(names(widgets.body)).toEqual(['globex-south']);
    // a wildcard typed is a character, not a pattern
    const percent = await call(server, reseller.adminToken, 'GET', `/api/companys/globex/childCompanys?${q({ q: '%' })}`);
    expect(names(percent.body)).toEqual([]);
  });

  it("is refused for another tenant's company: 404, as for any of its lists", async () => {
    const theirs = await call(server, other.adminToken, 'GET', `/api/companys/globex/childCompanys?${q({ q: 'north' })}`);
    expect(theirs.status).toBe(404);
  });
});
