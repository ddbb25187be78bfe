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
/** A reset link of a user of the customer (its path and query), as the outbox holds it. */
async function sendLink(userId: string): Promise<string> {
  const sent = await call(server, customer.adminToken, 'POST', `/api/companys/buyco/domainNames/buyco-domain/users/${userId}/sendResetLink`, {});
  expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
  const { rows } = await server.db.query<{ text_body: string }>(`SELECT text_body FROM mail_outbox WHERE company_id = 'buyco' ORDER BY created_at DESC LIMIT 1`);
  const url = new URL(/https?:\/\/\S+\/account\/reset\?token=\S+/.exec(rows[0].text_body)![0]);
  return url.pathname + url.search;
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
  it("sets the caller's own language, and nobody else's; an unknown one is 400", async () => {
    const bad = await call(server, customer.adminToken, 'PUT', '/api/me/language', { language: 'xx' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('language');
    expect((await call(server, customer.adminToken, 'PUT', '/api/me/language', {})).status).toBe(400);
    expect((await call(server, customer.adminToken, 'PUT', '/api/me/language', { language: 'ja'.repeat(100) })).status).toBe(400);
    expect((await call(server, undefined, 'PUT', '/api/me/language', { language: 'fr' })).status).toBe(401);
    // a person without the console's right has no API at all
    expect((await call(server, customer.userToken, 'PUT', '/api/me/language', { language: 'fr' })).status).toBe(403);
    const set = await call(server, customer.adminToken, 'PUT', '/api/me/language', { language: 'ja', userId: 'worker', companyId: 'sellco', domainId: 'sellco-domain' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ language: 'ja' });
    const { rows } = await server.db.query<{ company_id: string; id: string }>(`SELECT company_id, id FROM users WHERE language IS NOT NULL`);
    expect(rows).toEqual([{ company_id: 'buyco', id: 'boss' }]);
    await server.db.query(`UPDATE users SET language = NULL`);
  });

  it("a person's stored language beats Accept-Language on her pages", async () => {
    await server.db.query(`UPDATE users SET language = 'ja' WHERE company_id = 'buyco' AND id = 'worker'`);
    try {
      const link = await sendLink('worker');
      const page = await server.app.inject({ method: 'GET', url: link, headers: { 'accept-language': 'fr' } });
      expect(page.statusCode).toBe(200);
      expect(langOf(page.body)).toEqual(['ja', 'ltr']);
      expect(page.body).toContain('新しいパスワード');
      // without a stored language, the browser's
      await server.db.query(`UPDATE users SET language = NULL WHERE company_id = 'buyco' AND id = 'worker'`);
      const french = await server.app.inject({ method: 'GET', url: link, headers: { 'accept-language': 'fr' } });
      expect(langOf(french.body)).toEqual(['fr', 'ltr']);
      expect(french.body).toContain('Nouveau mot de passe');
    } finally {
      await server.db.query(`UPDATE users SET language = NULL`);
    }
  });
});

describe("a domain's languages in the domains API", () => {
  const path = (tenant: Tenant) => `/api/companys/${tenant.companyId}/domainNames/${tenant.domainId}`;
  const put = (tenant: Tenant, token: string, body: Record<string, unknown>) => call(server, token, 'PUT', path(tenant), { name: tenant.domainId, description: 'test', ...body });
  it('reads and writes languages and defaultLanguage, checked against the six', async () => {
    const read = await call(server, customer.adminToken, 'GET', path(customer));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ languages: null, defaultLanguage: null });
    const written = await put(customer, customer.adminToken, { languages: ['en', 'ar'], defaultLanguage: 'ar' });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ languages: ['en', 'ar'], defaultLanguage: 'ar' });
    expect((await call(server, customer.adminToken, 'GET', path(customer))).body).toMatchObject({ languages: ['en', 'ar'], defaultLanguage: 'ar' });
    for (const body of [{ languages: ['en', 'xx'] }, { defaultLanguage: 'klingon' }, { languages: ['en'], defaultLanguage: 'fr' }, { languages: [] }, { languages: ['en', 'en'] }, { defaultLanguage: 'fr' }]) {
      const refused = await put(customer, customer.adminToken, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message).toMatch(/languages|defaultLanguage/);
    }
    const cleared = await put(customer, customer.adminToken, { languages: null, defaultLanguage: null });
    expect(cleared.body).toMatchObject({ languages: null, defaultLanguage: null });
  });

  it("another tenant's domain is 404, a lesser role 403", async () => {
    expect((await put(customer, other.adminToken, { languages: ['en'] })).status).toBe(404);
    expect((await call(server, other.adminToken, 'GET', path(customer))).status).toBe(404);
    expect((await put(customer, customer.userToken, { languages: ['en'] })).status).toBe(403);
    // nothing changed
    expect((await call(server, customer.adminToken, 'GET', path(customer))).body).toMatchObject({ languages: null });
    void reseller;
  });
});
