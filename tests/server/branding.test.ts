import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveBranding } from '../../server/branding/index.js';
import { contrast } from '../../server/branding/contrast.js';
import { call, createTenant, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';

/**
 * A company's branding (docs/CONSOLE.md, "Branding"): inherited down the tree, each field from the
 * nearest company that sets it; another tenant 404, lesser roles 403; colours checked for WCAG AA;
 * images told by their bytes, SVG refused, sizes bounded; the public image route's headers.
 */

let server: TestServer;
let acme: Tenant; // a reseller
let shop: Tenant; // its customer
let beta: Tenant; // another tenant
const tokens: Record<string, string> = {};
const branding = (companyId: string) => `/api/companys/${companyId}/branding`;

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(32)]);

function upload(token: string, companyId: string, kind: 'logo' | 'icon', bytes: Buffer, type = 'image/png') {
  return server.app.inject({ method: 'PUT', url: `${branding(companyId)}/${kind}`, headers: { authorization: `Bearer ${token}`, 'content-type': type }, payload: bytes });
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  shop = await createTenant(server, 'shop', 'acme', 'customer');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  for (const role of ['owner', 'administrator', 'support', 'user-manager', 'application-manager', 'auditor']) {
    const userId = `as-${role}`;
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example')`, [acme.domainId, userId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', $2, $3, 'acme')`, [acme.domainId, userId, role]);
    tokens[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId });
  }
}, 120_000);
afterAll(() => server?.close());

describe('branding', () => {
  it('is inherited from the reseller and overridden by the customer; a field back to null inherits again', async () => {
    const empty = await call(server, shop.adminToken, 'GET', branding('shop'));
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ id: 'shop', displayName: null, primaryLight: null, logoUrl: null, effective: { inheritedFrom: {} } });

    const reseller = await call(server, tokens.administrator, 'PUT', branding('acme'), {
      displayName: 'Acme Identity',
      primaryLight: '#0D47A1',
      backgroundLight: '#ffffff',
      supportEmail: 'help@acme.example',
      supportUrl: 'https://help.acme.example/',
    });
    expect(reseller.status, JSON.stringify(reseller.body)).toBe(200);
    expect(reseller.body).toMatchObject({ id: 'acme', displayName: 'Acme Identity', primaryLight: '#0d47a1', primaryDark: null });

    const customer = await call(server, shop.adminToken, 'PUT', branding('shop'), { displayName: 'Shop', supportEmail: 'desk@shop.example' });
    expect(customer.status, JSON.stringify(customer.body)).toBe(200);
    expect(customer.body).toMatchObject({
      displayName: 'Shop',
      primaryLight: null,
      effective: {
        displayName: 'Shop',
        primaryLight: '#0d47a1',
        supportEmail: 'desk@shop.example',
        supportUrl: 'https://help.acme.example/',
        inheritedFrom: { displayName: 'shop', primaryLight: 'acme', supportEmail: 'shop', supportUrl: 'acme' },
      },
    });
    expect(await effectiveBranding(server.db, 'shop')).toEqual({
      displayName: 'Shop',
      primaryLight: '#0d47a1',
      backgroundLight: '#ffffff',
      supportEmail: 'desk@shop.example',
      supportUrl: 'https://help.acme.example/',
    });

    // null (or an empty field) inherits again; fields not given are kept
    const back = await call(server, shop.adminToken, 'PUT', branding('shop'), { displayName: null, supportEmail: '' });
    expect(back.body).toMatchObject({ displayName: null, supportEmail: null, effective: { displayName: 'Acme Identity', supportEmail: 'help@acme.example', inheritedFrom: { displayName: 'acme' } } });
    expect((await effectiveBranding(server.db, 'shop')).displayName).toBe('Acme Identity');
    // the record the console read and sends back (with id, images and effective) is accepted
    const echoed = await call(server, shop.adminToken, 'PUT', branding('shop'), back.body);
    expect(echoed.status, JSON.stringify(echoed.body)).toBe(200);
  });

  it('each write is one audit record on the company, naming what changed', async () => {
    await call(server, tokens.owner, 'PUT', branding('acme'), { primaryDark: '#90caf9' });
    const { rows } = await server.db.query<{ action: string; changes: Record<string, unknown>; actor_user_id: string }>(
      `SELECT action, changes, actor_user_id, company_id FROM audit_events WHERE resource_type = 'companies' AND resource_id = 'acme' AND action = 'branding' ORDER BY id DESC LIMIT 1`,
    );
    // in the log that keeps a company's own changes: its parent's, as the companies trigger does
    expect(rows[0]).toMatchObject({ company_id: 'root', actor_user_id: 'as-owner', changes: { primaryDark: { before: null, after: '#90caf9' } } });
  });

  it("another tenant's branding is unreadable and unwritable (404)", async () => {
    for (const [method, url, body] of [
      ['GET', branding('acme'), undefined],
      ['PUT', branding('acme'), { displayName: 'Mine' }],
      ['DELETE', `${branding('acme')}/logo`, undefined],
      ['GET', branding('shop'), undefined],
    ] as const) {
      const answer = await call(server, beta.adminToken, method, url, body);
      expect(answer.status, `${method} ${url}`).toBe(404);
    }
    expect((await upload(beta.adminToken, 'acme', 'logo', PNG)).statusCode).toBe(404);
    // a customer does not reach up to its reseller either
    expect((await call(server, shop.adminToken, 'PUT', branding('acme'), { displayName: 'Mine' })).status).toBe(404);
    expect((await call(server, shop.adminToken, 'GET', branding('acme'))).status).toBe(404);
    expect((await call(server, tokens.owner, 'GET', branding('acme'))).body.displayName).toBe('Acme Identity');
  });

  it('lesser roles: Support, User manager and Application manager cannot write (403); the Auditor reads but cannot write', async () => {
    for (const role of ['support', 'user-manager', 'application-manager', 'auditor']) {
      const put = await call(server, tokens[role], 'PUT', branding('acme'), { displayName: 'Nope' });
      expect(put.status, role).toBe(403);
      expect(put.body.message).toMatch(/branding:write/);
      expect((await upload(tokens[role], 'acme', 'logo', PNG)).statusCode, role).toBe(403);
      expect((await call(server, tokens[role], 'DELETE', `${branding('acme')}/icon`)).status, role).toBe(403);
      // every console person's console shows its company's branding
      expect((await call(server, tokens[role], 'GET', branding('acme'))).status, role).toBe(200);
    }
    expect((await call(server, acme.userToken, 'GET', branding('acme'))).status).toBe(403);
    expect((await call(server, undefined, 'GET', branding('acme'))).status).toBe(401);
    // an administrator of the customer writes its own, not its reseller's (404 above), and the reseller's administrator writes the customer's
    expect((await call(server, tokens.administrator, 'PUT', branding('shop'), { supportUrl: 'https://shop.example/help' })).status).toBe(200);
  });

  it('refuses a bad colour, address or link with a 400 naming the field; unknown fields too', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ primaryLight: 'blue' }, /^primaryLight: "blue" is not a colour/],
      [{ backgroundDark: '#12345' }, /^backgroundDark: /],
      [{ supportEmail: 'not an address' }, /^supportEmail: /],
      [{ supportUrl: 'javascript:alert(1)' }, /^supportUrl: must be an https:\/\//],
      [{ supportUrl: 'http://help.example' }, /^supportUrl: /],
      [{ supportUrl: 'https://user:pw@help.example' }, /^supportUrl: /],
      [{ displayName: 'two\nlines' }, /^displayName: must not contain control characters/],
      [{ displayName: 'x'.repeat(201) }, /displayName/],
      [{ primaryLight: 7 }, /primaryLight/],
      [{ logo: 'AAAA' }, /logo/],
    ];
    for (const [body, message] of cases) {
      const answer = await call(server, tokens.administrator, 'PUT', branding('acme'), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toMatch(message);
    }
  });

  it('refuses colours whose contrast fails WCAG AA, with the ratio', async () => {
    const yellow = await call(server, tokens.administrator, 'PUT', branding('acme'), { primaryLight: '#ffff00' });
    expect(yellow.status).toBe(400);
    expect(yellow.body.message).toBe(
      'primaryLight: the primary colour #ffff00 on the light background #ffffff has a contrast ratio of 1.07:1; WCAG AA asks at least 4.5:1 for text. Choose a darker primary colour.',
    );
    // just under 4.5:1 (#777777 on white is 4.48:1) is refused, just over (#767676, 4.54:1) accepted
    expect((await call(server, tokens.administrator, 'PUT', branding('shop'), { primaryLight: '#777777' })).body.message).toMatch(/^primaryLight: .* 4\.47:1|^primaryLight: .* 4\.48:1/);
    expect((await call(server, tokens.administrator, 'PUT', branding('shop'), { primaryLight: '#767676' })).status).toBe(200);
    // a background that fails against the primary in effect (inherited) names the background
    const dark = await call(server, shop.adminToken, 'PUT', branding('shop'), { backgroundDark: '#a0d0ff' });
    expect(dark.status).toBe(400);
    expect(dark.body.message).toMatch(/^backgroundDark: the primary colour #90caf9 on the dark background #a0d0ff has a contrast ratio of 1\.\d\d:1/);
    expect((await call(server, shop.adminToken, 'PUT', branding('shop'), { primaryLight: null })).status).toBe(200);
  });
});

describe('logo and icon', () => {
  it('refuses a hostile SVG, an HTML file named PNG, an unknown format and an oversized image', async () => {
    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"><script>alert(1)</script></svg>');
    const refusedSvg = await upload(tokens.administrator, 'acme', 'logo', svg, 'image/svg+xml');
    expect(refusedSvg.statusCode).toBe(400);
    expect(refusedSvg.json().message).toMatch(/^logo: SVG images are refused/);
    // the same SVG declared as a PNG is still an SVG
    expect((await upload(tokens.administrator, 'acme', 'logo', svg, 'image/png')).json().message).toMatch(/SVG/);

    const html = Buffer.from('<!doctype html><html><body><script>fetch("/api/me")</script></body></html>');
    const named = await upload(tokens.administrator, 'acme', 'logo', html, 'image/png');
    expect(named.statusCode).toBe(400);
    expect(named.json().message).toBe('logo: the file is not a PNG, JPEG or WebP image (its content says so, whatever its name or declared type)');
    expect((await upload(tokens.administrator, 'acme', 'icon', Buffer.from('GIF89a....'), 'image/gif')).statusCode).toBe(400);
    expect((await upload(tokens.administrator, 'acme', 'logo', Buffer.alloc(0))).statusCode).toBe(400);

    const big = Buffer.concat([PNG, Buffer.alloc(256 * 1024)]);
    const tooBig = await upload(tokens.administrator, 'acme', 'logo', big);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().message).toMatch(/^logo: the image is 257 KB; a logo may be at most 256 KB/);
    const bigIcon = await upload(tokens.administrator, 'acme', 'icon', Buffer.concat([PNG, Buffer.alloc(64 * 1024)]));
    expect(bigIcon.statusCode).toBe(413);
    expect(bigIcon.json().message).toMatch(/at most 64 KB/);
    // a body sent as JSON is not an image
    expect((await call(server, tokens.administrator, 'PUT', `${branding('acme')}/logo`, { logo: 'data:image/png;base64,AAAA' })).status).toBe(400);
    const { rows } = await server.db.query(`SELECT logo, icon FROM company_branding WHERE company_id = 'acme'`);
    expect(rows[0]).toEqual({ logo: null, icon: null });
  });

  it('stores a PNG or JPEG by its bytes, audited without them, and serves the effective one publicly with its cache headers', async () => {
    const stored = await upload(tokens.administrator, 'acme', 'logo', PNG, 'application/octet-stream');
    expect(stored.statusCode, stored.body).toBe(200);
    const logoUrl: string = stored.json().logoUrl;
    expect(logoUrl).toMatch(/^\/branding\/acme\/logo\?v=\d+$/);
    expect(stored.json().effective.logoUrl).toBe(logoUrl);
    const audit = await server.db.query<{ changes: Record<string, unknown> }>(`SELECT changes FROM audit_events WHERE resource_type = 'companies' AND resource_id = 'acme' AND action = 'branding' AND changes ? 'logo'`);
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0].changes).toEqual({ logo: { before: null, after: { type: 'image/png', size: PNG.length } } });

    // the customer shows its reseller's logo, at the reseller's address
    expect((await effectiveBranding(server.db, 'shop')).logoUrl).toBe(logoUrl);
    const current = await server.app.inject({ method: 'GET', url: logoUrl.replace('/acme/', '/shop/') });
    expect(current.statusCode).toBe(200);
    expect(current.rawPayload.equals(PNG)).toBe(true);
    expect(current.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    });
    const unversioned = await server.app.inject({ method: 'GET', url: '/branding/shop/logo' });
    expect(unversioned.headers['cache-control']).toBe('no-cache');
    expect(unversioned.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(unversioned.headers.etag).not.toContain('acme');
    expect((await server.app.inject({ method: 'GET', url: '/branding/shop/logo?v=0' })).headers['cache-control']).toBe('no-cache');
    const revalidated = await server.app.inject({ method: 'GET', url: '/branding/shop/logo', headers: { 'if-none-match': unversioned.headers.etag as string } });
    expect(revalidated.statusCode).toBe(304);

    // the customer's own JPEG overrides it; nothing for another tenant or an unknown company
    const own = await upload(shop.adminToken, 'shop', 'logo', JPEG, 'image/png');
    expect(own.statusCode, own.body).toBe(200);
    const ownLogo = await server.app.inject({ method: 'GET', url: own.json().effective.logoUrl });
    expect(ownLogo.headers['content-type']).toBe('image/jpeg');
    expect(ownLogo.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const url of ['/branding/beta/logo', '/branding/nobody/logo', '/branding/acme/icon']) {
      const none = await server.app.inject({ method: 'GET', url });
      expect(none.statusCode, url).toBe(404);
      expect(none.headers['x-content-type-options']).toBe('nosniff');
    }
    // removed: inherited again, with a new address
    const removed = await call(server, shop.adminToken, 'DELETE', `${branding('shop')}/logo`);
    expect(removed.status).toBe(200);
    expect(removed.body.logoUrl).toBeNull();
    expect(removed.body.effective.logoUrl).toBe(logoUrl);
    expect((await server.app.inject({ method: 'GET', url: '/branding/shop/logo' })).rawPayload.equals(PNG)).toBe(true);
    // an icon within its limit
    const icon = await upload(tokens.owner, 'acme', 'icon', PNG);
    expect(icon.json().iconUrl).toMatch(/^\/branding\/acme\/icon\?v=\d+$/);
    // a later write changes the version: the old address is revalidated
    expect((await server.app.inject({ method: 'GET', url: logoUrl })).headers['cache-control']).toBe('no-cache');
  });
});

describe("an ancestor's colours and its descendants (docs/CONSOLE.md, \"Branding\")", () => {
  let north: Tenant; // a reseller
  let northShop: Tenant; // its customer, setting only its own background
  let south: Tenant; // another tenant

  beforeAll(async () => {
    north = await createTenant(server, 'north', 'root', 'reseller');
    northShop = await createTenant(server, 'northshop', 'north', 'customer');
    south = await createTenant(server, 'south', 'root', 'customer');
    await server.db.query(`UPDATE companies SET display_name = 'North Ltd' WHERE id = 'north'`);
  });

  it('names the company each inherited field comes from: its name inside the reader\'s subtree, above it only its brand name or id', async () => {
    expect((await call(server, north.adminToken, 'PUT', branding('north'), { displayName: 'North Brand', primaryLight: '#0d47a1', backgroundLight: '#ffffff' })).status).toBe(200);
    const own = await call(server, northShop.adminToken, 'GET', branding('northshop'));
    expect(own.body.effective.inheritedFrom).toMatchObject({ displayName: 'north', primaryLight: 'north' });
    // above the customer's own company: not its company name, only the brand its hosted pages show
    expect(own.body.effective.inheritedFromCompanies).toEqual({ north: { name: 'North Brand', readable: false } });
    const fromAbove = await call(server, north.adminToken, 'GET', branding('northshop'));
    expect(fromAbove.body.effective.inheritedFromCompanies).toEqual({ north: { name: 'North Ltd', readable: true } });
    // a field of its own is named too (the console does not show it as inherited)
    const saved = await call(server, northShop.adminToken, 'PUT', branding('northshop'), { backgroundLight: '#e0e0e0' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.effective.inheritedFromCompanies).toEqual({ north: { name: 'North Brand', readable: false }, northshop: { name: 'northshop', readable: true } });
    // without a brand name, the id alone
    expect((await call(server, north.adminToken, 'PUT', branding('north'), { displayName: null })).status).toBe(200);
    const bare = await call(server, northShop.adminToken, 'GET', branding('northshop'));
    expect(bare.body.effective.inheritedFromCompanies.north).toEqual({ name: 'north', readable: false });
    expect(JSON.stringify(bare.body)).not.toContain('North Ltd');
  });

  it("refuses an ancestor's colour that fails with a descendant's own half of the pair, naming it and the ratio; accepts one that still passes", async () => {
    // south (another tenant) sets a primary that would fail on the background north picks later
    expect((await call(server, south.adminToken, 'PUT', branding('south'), { primaryLight: '#767676' })).status).toBe(200);

    // #767676 passes on north's white (4.54:1), not on northshop's own #e0e0e0 (3.44:1)
    const refused = await call(server, north.adminToken, 'PUT', branding('north'), { primaryLight: '#767676' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('branding.contrastDescendant');
    expect(refused.body.params).toEqual({
      field: 'primaryLight',
      company: 'northshop',
      companyName: 'northshop',
      primary: '#767676',
      background: '#e0e0e0',
      theme: 'light',
      ratio: '3.44:1',
      minimum: '4.5:1',
    });
    expect(refused.body.message).toBe(
      "primaryLight: northshop (northshop), below this company, sets its own background and would show the primary colour #767676 on the light background #e0e0e0, a contrast ratio of 3.44:1; WCAG AA asks at least 4.5:1 for text. Choose other colours, or change that company's first.",
    );
    const { rows } = await server.db.query(`SELECT primary_light FROM company_branding WHERE company_id = 'north'`);
    expect(rows[0].primary_light).toBe('#0d47a1');

    // #5a5a5a passes on both (6.89:1 and 5.22:1)
    const accepted = await call(server, north.adminToken, 'PUT', branding('north'), { primaryLight: '#5a5a5a' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await call(server, northShop.adminToken, 'GET', branding('northshop'))).body.effective).toMatchObject({ primaryLight: '#5a5a5a', backgroundLight: '#e0e0e0' });

    // another tenant is never examined: south's #767676 would fail on #f0f0f0 (3.98:1), north's own and northshop's pairs pass
    const background = await call(server, north.adminToken, 'PUT', branding('north'), { backgroundLight: '#f0f0f0' });
    expect(background.status, JSON.stringify(background.body)).toBe(200);

    // a descendant setting both halves is not changed by its ancestor's write
    expect((await call(server, northShop.adminToken, 'PUT', branding('northshop'), { primaryLight: '#0d47a1' })).status).toBe(200);
    expect((await call(server, north.adminToken, 'PUT', branding('north'), { primaryLight: '#767676', backgroundLight: '#ffffff' })).status).toBe(200);
    // …until it inherits one half again: then its own write is checked as before
    const back = await call(server, northShop.adminToken, 'PUT', branding('northshop'), { primaryLight: null });
    expect(back.status).toBe(400);
    expect(back.body.code).toBe('branding.contrast');
    // and the customer's own write never names a company above it
    expect(back.body.message).not.toMatch(/north[^s]|North/);
  });

  it("an ancestor's write and a descendant's at the same time take turns: never both accepted into a failing pair", async () => {
    const east = await createTenant(server, 'east', 'root', 'reseller');
    const eastShop = await createTenant(server, 'eastshop', 'east', 'customer');
    for (let round = 0; round < 5; round++) {
      expect((await call(server, east.adminToken, 'PUT', branding('east'), { primaryLight: '#5a5a5a', backgroundLight: '#ffffff' })).status).toBe(200);
      expect((await call(server, eastShop.adminToken, 'PUT', branding('eastshop'), { backgroundLight: null })).status).toBe(200);
      // each alone passes; together #767676 on #e0e0e0 is 3.44:1
      const [reseller, customer] = await Promise.all([
        call(server, east.adminToken, 'PUT', branding('east'), { primaryLight: '#767676' }),
        call(server, eastShop.adminToken, 'PUT', branding('eastshop'), { backgroundLight: '#e0e0e0' }),
      ]);
      expect([reseller.status, customer.status].sort(), JSON.stringify([reseller.body, customer.body])).toEqual([200, 400]);
      const { effective } = (await call(server, eastShop.adminToken, 'GET', branding('eastshop'))).body;
      expect(contrast(effective.primaryLight, effective.backgroundLight)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('checks the dark pair too, down to a reseller below with customers of its own', async () => {
    await createTenant(server, 'northsub', 'north', 'reseller');
    await createTenant(server, 'northsubshop', 'northsub', 'customer');
    const sub = await call(server, north.adminToken, 'PUT', branding('northsub'), { backgroundDark: '#303030' });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    // #898989 passes on the default #121212 (5.36:1), not on northsub's #303030 (3.77:1), which its customer inherits too
    const refused = await call(server, north.adminToken, 'PUT', branding('north'), { primaryDark: '#898989' });
    expect(refused.status).toBe(400);
    expect(refused.body.params).toMatchObject({ field: 'primaryDark', company: 'northsub', theme: 'dark', ratio: '3.77:1', background: '#303030' });
    expect(refused.body.message).toMatch(/^primaryDark: northsub \(northsub\), below this company, sets its own background and would show the primary colour #898989 on the dark background #303030, a contrast ratio of 3\.77:1/);
    expect((await call(server, north.adminToken, 'PUT', branding('north'), { primaryDark: '#b0b0b0' })).status).toBe(200);
  });
});
