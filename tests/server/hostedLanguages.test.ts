import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandingChanged } from '../../server/branding/effective.js';
import { pickLanguage } from '../../server/i18n/index.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';
import { addApplication, injectBrowser, pkce, setPassword } from './oauthHelpers.js';

/**
 * The hosted pages' language and branding (docs/CONSOLE.md, "Languages" and "Branding"): ui_locales,
 * then the person's stored language, then Accept-Language, among the domain's offered languages.
 */
let server: TestServer;
let reseller: Tenant;
let customer: Tenant;
let other: Tenant;
const REDIRECT = 'https://shop.example/callback';

beforeAll(async () => {
  server = await startServer();
  reseller = await createTenant(server, 'sellco', 'root', 'reseller');
  customer = await createTenant(server, 'buyco', 'sellco', 'customer');
  other = await createTenant(server, 'otherco', 'root', 'customer');
  await addApplication(server, { id: 'shop', companyId: 'buyco', domainId: 'buyco-domain', redirectUris: [REDIRECT] });
  await setPassword(server, 'buyco', 'buyco-domain', 'worker', 'a long enough password');
}, 60_000);
afterAll(() => server?.close());

/** The hosted sign-in page of the customer's application, as a browser with these headers sees it. */
async function signInPage(query: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const { challenge } = pkce();
  const params = new URLSearchParams({ client_id: 'shop', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', ...query });
  const browser = injectBrowser(server, undefined, { headers });
  const page = await browser.get(`/oauth/authorize?${params}`);
  return { page, browser };
}
const langOf = (html: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(html)?.slice(1);

describe('pickLanguage', () => {
  it('takes ui_locales, then the stored language, then Accept-Language, among the offered ones', () => {
    expect(pickLanguage({})).toBe('en');
    expect(pickLanguage({ uiLocales: 'de-CH fr', stored: 'ja', acceptLanguage: 'es' })).toBe('de');
    expect(pickLanguage({ uiLocales: 'xx', stored: 'ja', acceptLanguage: 'es' })).toBe('ja');
    expect(pickLanguage({ acceptLanguage: 'xx, es;q=0.5, fr;q=0.8' })).toBe('fr');
    expect(pickLanguage({ uiLocales: 'de', offered: ['en', 'ja'], fallback: 'ja' })).toBe('ja');
    expect(pickLanguage({ uiLocales: 'de', offered: ['en', 'ja'] })).toBe('en');
    expect(pickLanguage({ uiLocales: '<script>'.repeat(500), acceptLanguage: 'a'.repeat(10_000) })).toBe('en');
  });
});

describe('the hosted sign-in page', () => {
  it('is German for ui_locales=de', async () => {
    const { page } = await signInPage({ ui_locales: 'de' });
    expect(page.status).toBe(200);
    expect(langOf(page.body)).toEqual(['de', 'ltr']);
    expect(page.body).toContain('Bei shop anmelden');
    expect(page.body).toContain('Passwort vergessen?');
    expect(page.body).not.toContain('Forgot your password?');
  });

  it('is French for Accept-Language fr, English by default', async () => {
    const { page } = await signInPage({}, { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' });
    expect(langOf(page.body)).toEqual(['fr', 'ltr']);
    expect(page.body).toContain('Se connecter à shop');
    const english = (await signInPage()).page;
    expect(langOf(english.body)).toEqual(['en', 'ltr']);
    expect(english.body).toContain('Sign in to shop');
  });

  it('is Arabic right to left', async () => {
    const { page } = await signInPage({ ui_locales: 'ar' });
    expect(langOf(page.body)).toEqual(['ar', 'rtl']);
    expect(page.body).toContain('تسجيل الدخول');
  });

  it('shows a wrong password in the page language', async () => {
    const { page, browser } = await signInPage({ ui_locales: 'es' });
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1];
    const wrong = await browser.post(action, { email: 'worker@buyco.example', password: 'not it' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Correo electrónico o contraseña incorrectos.');
    expect(langOf(wrong.body)).toEqual(['es', 'ltr']);
  });

  it('follows the domain: only its offered languages, else its default', async () => {
    await server.db.query(`UPDATE domains SET languages = ARRAY['en','ja'], default_language = 'ja' WHERE company_id = 'buyco' AND id = 'buyco-domain'`);
    try {
      const german = (await signInPage({ ui_locales: 'de' }, { 'accept-language': 'de' })).page;
      expect(langOf(german.body)).toEqual(['ja', 'ltr']);
      expect(german.body).toContain('shop にサインイン');
      const english = (await signInPage({ ui_locales: 'en' })).page;
      expect(langOf(english.body)).toEqual(['en', 'ltr']);
    } finally {
      await server.db.query(`UPDATE domains SET languages = NULL, default_language = NULL WHERE company_id = 'buyco' AND id = 'buyco-domain'`);
    }
  });

  it('never fails on hostile ui_locales', async () => {
    for (const uiLocales of ['x'.repeat(5000), '"><script>alert(1)</script>', 'de\u0000fr', '  ', 'ar-'.repeat(300), '😀 ja']) {
      const { page } = await signInPage({ ui_locales: uiLocales });
      expect(page.status).toBeLessThan(500);
      expect(page.body).not.toContain('<script>alert');
    }
  });

  it("shows the reseller's logo and colours on its customer's page, under a policy with their hash", async () => {
    await server.db.query(
      `INSERT INTO company_branding (company_id, display_name, logo, logo_type, primary_light, background_light, primary_dark, background_dark, support_email, support_url)
       VALUES ('sellco', 'Sell & Co', $1, 'image/png', '#0b5394', '#ffffff', '#9fc5e8', '#101418', 'help@sellco.example', 'https://sellco.example/help')`,
      [Buffer.from('89504e470d0a1a0a', 'hex')],
    );
    brandingChanged();
    const { page } = await signInPage({ ui_locales: 'de' });
    expect(page.body).toMatch(/<img src="\/branding\/sellco\/logo\?v=\d+" alt="Sell &amp; Co">/);
    expect(page.body).toContain('#0b5394');
    expect(page.body).toContain('#101418');
    expect(page.body).toContain('mailto:help@sellco.example');
    expect(page.body).toContain('https://sellco.example/help');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy.match(/'sha256-/g)?.length).toBe(2);
    // the customer's own colour wins over its reseller's
    await server.db.query(`INSERT INTO company_branding (company_id, primary_light) VALUES ('buyco', '#38761d')`);
    brandingChanged();
    const own = (await signInPage()).page;
    expect(own.body).toContain('#38761d');
    expect(own.body).toContain('Sell &amp; Co');
    // another company's page has none of it
    await addApplication(server, { id: 'elsewhere', companyId: 'otherco', domainId: 'otherco-domain', redirectUris: [REDIRECT] });
    const { challenge } = pkce();
    const elsewhere = await injectBrowser(server).get(`/oauth/authorize?${new URLSearchParams({ client_id: 'elsewhere', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' })}`);
    expect(elsewhere.body).not.toContain('Sell &amp; Co');
    expect(elsewhere.body).not.toContain('#0b5394');
  });

  it("shows the application's own https logo, never a javascript: or data: one", async () => {
    for (const [logo, shown] of [
      ['https://shop.example/logo.png', true],
      ['javascript:alert(1)', false],
      ['data:image/svg+xml,<svg onload=alert(1)>', false],
      ['http://shop.example/logo.png', false],
    ] as const) {
      await server.db.query(`UPDATE applications SET logo_uri = $1 WHERE id = 'shop'`, [logo]);
      const { page } = await signInPage();
      expect(page.status).toBe(200);
      if (shown) expect(page.body).toContain(`<img class="app-logo" src="${logo}"`);
      else expect(page.body).not.toContain('app-logo" src');
    }
  });
});

describe('PUT /api/me/language', () => {
  it("sets the caller's own language; an unknown one is 400; her pages follow it over Accept-Language", async () => {
    const bad = await call(server, customer.userToken, 'PUT', '/api/me/language', { language: 'xx' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('language');
    expect((await call(server, customer.userToken, 'PUT', '/api/me/language', {})).status).toBe(400);
    expect((await call(server, undefined, 'PUT', '/api/me/language', { language: 'fr' })).status).toBe(401);
    const set = await call(server, customer.userToken, 'PUT', '/api/me/language', { language: 'ja' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ language: 'ja' });
    const { rows } = await server.db.query<{ id: string; language: string | null }>(`SELECT id, language FROM users WHERE company_id = 'buyco' ORDER BY id`);
    expect(rows).toEqual([
      { id: 'boss', language: null },
      { id: 'worker', language: 'ja' },
    ]);
    // nobody else's: the same body with another's ids changes nothing but her own
    await call(server, customer.userToken, 'PUT', '/api/me/language', { language: 'es', userId: 'boss', companyId: 'sellco' });
    const after = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE language IS NOT NULL`);
    expect(after.rows[0].n).toBe(1);
  });
});

describe("a domain's languages in the domains API", () => {
  const path = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;
  it('reads and writes languages and defaultLanguage, checked against the six', async () => {
    const read = await call(server, customer.adminToken, 'GET', path(customer));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ languages: null, defaultLanguage: null });
    const put = await call(server, customer.adminToken, 'PUT', path(customer), { languages: ['en', 'ar'], defaultLanguage: 'ar' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ languages: ['en', 'ar'], defaultLanguage: 'ar' });
    for (const body of [{ languages: ['en', 'xx'] }, { defaultLanguage: 'klingon' }, { languages: ['en'], defaultLanguage: 'fr' }, { languages: [] }, { languages: 'en' }]) {
      const refused = await call(server, customer.adminToken, 'PUT', path(customer), body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message).toMatch(/languages|defaultLanguage/);
    }
    const cleared = await call(server, customer.adminToken, 'PUT', path(customer), { languages: null, defaultLanguage: null });
    expect(cleared.body).toMatchObject({ languages: null, defaultLanguage: null });
  });

  it("another tenant's domain is 404, a lesser role 403", async () => {
    expect((await call(server, other.adminToken, 'PUT', path(customer), { languages: ['en'] })).status).toBe(404);
    expect((await call(server, other.adminToken, 'GET', path(customer))).status).toBe(404);
    expect((await call(server, customer.userToken, 'PUT', path(customer), { languages: ['en'] })).status).toBe(403);
    void reseller;
  });
});
