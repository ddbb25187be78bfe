import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../server/i18n/index.js';
import { DEFAULTS } from '../../server/branding/emailDefaults.js';
import { checkTemplate, PURPOSES, renderCompanyMessage, renderMessage } from '../../server/mail/templates.js';
import { call, createTenant, PUBLIC_URL, startServer, type Tenant, type TestServer, tokenFor } from './helpers.js';

/**
 * A company's e-mail templates (docs/CONSOLE.md, "E-mail templates"): per kind and language, its
 * own, else its nearest ancestor's, else the default (in every language); placeholders checked at
 * PUT and every value escaped in the HTML; the preview; a sent message uses the company's template
 * and branding. Another tenant 404, lesser roles 403.
 */

let server: TestServer;
let acme: Tenant; // a reseller
let shop: Tenant; // its customer
let beta: Tenant; // another tenant
const tokens: Record<string, string> = {};
const templates = (companyId: string) => `/api/companys/${companyId}/emailTemplates`;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const HOSTILE = '<img src=x onerror=alert(1)>{{link}}';

async function messagesTo(recipient: string) {
  const { rows } = await server.db.query<{ subject: string; text: string; html: string; language: string }>(
    `SELECT subject, text_body AS text, html_body AS html, language FROM mail_outbox WHERE recipient = $1 ORDER BY created_at DESC, id DESC`,
    [recipient],
  );
  return rows;
}

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'reseller');
  shop = await createTenant(server, 'shop', 'acme', 'customer');
  beta = await createTenant(server, 'beta', 'root', 'customer');
  for (const role of ['administrator', 'support', 'user-manager', 'application-manager', 'auditor']) {
    const userId = `as-${role}`;
    await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, $2, $2, $2, $2 || '@acme.example')`, [acme.domainId, userId]);
    await server.db.query(`INSERT INTO role_assignments (company_id, domain_id, holder_type, holder_id, role, scope_company_id) VALUES ('acme', $1, 'user', $2, $3, 'acme')`, [acme.domainId, userId, role]);
    tokens[role] = await tokenFor(server.ctx, { companyId: 'acme', domainId: acme.domainId, userId });
  }
}, 120_000);
afterAll(() => server?.close());

describe('default templates', () => {
  it('exist for every kind in all six languages, with only known placeholders and a link', () => {
    for (const language of LANGUAGES) {
      for (const kind of PURPOSES) {
        const template = DEFAULTS[language].templates[kind];
        expect(() => checkTemplate(kind, template), `${kind}.${language}`).not.toThrow();
        const message = renderMessage(kind, language, { companyName: 'Acme', personName: 'Ana', login: 'ana@x.example', email: 'ana@x.example', link: 'https://id.example/account/reset?token=abc' });
        expect(message.text).toContain('https://id.example/account/reset?token=abc');
        expect(message.html).toContain(`lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}"`);
        expect(message.subject).toContain('Acme');
        expect(message.text).not.toMatch(/\{\{/);
      }
      // the languages differ (real translations, not copies of English)
      if (language !== 'en') expect(DEFAULTS[language].templates.reset.body).not.toBe(DEFAULTS.en.templates.reset.body);
    }
  });
});

describe('e-mail templates', () => {
  it('lists every kind and language; inherited from the reseller, overridden by the customer, back to inherited on DELETE', async () => {
    const all = await call(server, shop.adminToken, 'GET', templates('shop'));
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(PURPOSES.length * LANGUAGES.length);
    expect(all.body.find((t: { id: string }) => t.id === 'reset.de')).toMatchObject({ kind: 'reset', language: 'de', source: 'default', subject: DEFAULTS.de.templates.reset.subject });

    const reseller = await call(server, tokens.administrator, 'PUT', `${templates('acme')}/reset/en`, { subject: 'Acme: new password for {{login}}', body: 'Hi {{personName}},\n\n{{link}}\n\nQuestions: {{supportEmail}}' });
    expect(reseller.status, JSON.stringify(reseller.body)).toBe(200);
    expect(reseller.body).toEqual({ id: 'reset.en', kind: 'reset', language: 'en', subject: 'Acme: new password for {{login}}', body: 'Hi {{personName}},\n\n{{link}}\n\nQuestions: {{supportEmail}}', source: 'own' });
    const inherited = (await call(server, shop.adminToken, 'GET', templates('shop'))).body.find((t: { id: string }) => t.id === 'reset.en');
    expect(inherited).toMatchObject({ source: 'inherited', subject: 'Acme: new password for {{login}}' });

    // the record the console read, sent back with its id, kind, language and source
    const own = await call(server, shop.adminToken, 'PUT', `${templates('shop')}/reset/en`, { ...inherited, subject: 'Shop password', body: '{{link}}' });
    expect(own.body.source).toBe('own');
    expect((await call(server, shop.adminToken, 'GET', templates('shop'))).body.find((t: { id: string }) => t.id === 'reset.en').source).toBe('own');
    const removed = await call(server, shop.adminToken, 'DELETE', `${templates('shop')}/reset/en`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: 'reset.en', source: 'inherited', subject: 'Acme: new password for {{login}}' });

    // each write is audited in the log of company changes
    const { rows } = await server.db.query<{ changes: Record<string, unknown> }>(
      `SELECT changes FROM audit_events WHERE resource_type = 'companies' AND resource_id = 'shop' AND action = 'emailTemplate' ORDER BY id`,
    );
    expect(rows.map((row) => row.changes)).toEqual([
      { 'reset.en': { before: null, after: { subject: 'Shop password', body: '{{link}}' } } },
      { 'reset.en': { before: { subject: 'Shop password', body: '{{link}}' }, after: null } },
    ]);
  });

  it('refuses an unknown placeholder, a body without {{link}}, an unknown kind or language (400 naming it)', async () => {
    const unknown = await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: 'Bienvenue {{firstName}}', body: '{{link}}' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^subject: unknown placeholder \{\{firstName\}\}/);
    expect(unknown.body.code).toBe('template.placeholder');
    const spaced = await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: 'x', body: '{{link}} {{ password }}' });
    expect(spaced.body.message).toMatch(/^body: unknown placeholder \{\{ password \}\}/);
    // {{connectionName}} belongs to the identity-link message only
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: '{{connectionName}}', body: '{{link}}' })).status).toBe(400);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/link-identity/fr`, { subject: '{{connectionName}}', body: '{{link}}' })).status).toBe(200);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: 'x', body: 'no link' })).body.message).toMatch(/^body: must contain \{\{link\}\}/);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: ' ', body: '{{link}}' })).body.message).toMatch(/^subject: /);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: 'a\r\nBcc: x@evil.example', body: '{{link}}' })).body.message).toMatch(/^subject: must be one line/);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: 'x', body: '{{link}}'.padEnd(10_001, '.') })).body.message).toMatch(/^body: at most/);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/notice/fr`, { subject: 'x', body: '{{link}}' })).body.message).toMatch(/kind/);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/it`, { subject: 'x', body: '{{link}}' })).body.message).toMatch(/language/);
    expect((await call(server, tokens.administrator, 'PUT', `${templates('acme')}/invite/fr`, { subject: 'x', body: '{{link}}', html: '<b>' })).status).toBe(400);
  });

  it("another tenant's templates are unreadable and unwritable (404); lesser roles 403; the Auditor reads", async () => {
    for (const [method, url, body] of [
      ['GET', templates('acme'), undefined],
      ['PUT', `${templates('acme')}/reset/en`, { subject: 'x', body: '{{link}}' }],
      ['DELETE', `${templates('acme')}/reset/en`, undefined],
      ['POST', `${templates('acme')}/reset/en/preview`, { subject: 'x', body: '{{link}}' }],
    ] as const) {
      expect((await call(server, beta.adminToken, method, url, body)).status, `beta ${method}`).toBe(404);
      expect((await call(server, shop.adminToken, method, url, body)).status, `shop ${method}`).toBe(404);
    }
    for (const role of ['support', 'user-manager', 'application-manager', 'auditor']) {
      const put = await call(server, tokens[role], 'PUT', `${templates('acme')}/reset/en`, { subject: 'x', body: '{{link}}' });
      expect(put.status, role).toBe(403);
      expect(put.body.message).toMatch(/branding:write/);
      expect((await call(server, tokens[role], 'DELETE', `${templates('acme')}/reset/en`)).status, role).toBe(403);
      expect((await call(server, tokens[role], 'GET', templates('acme'))).status, role).toBe(200);
    }
    expect((await call(server, acme.userToken, 'GET', templates('acme'))).status).toBe(403);
    expect((await call(server, tokens.administrator, 'GET', templates('acme'))).body.find((t: { id: string }) => t.id === 'reset.en').subject).toBe('Acme: new password for {{login}}');
  });

  it('previews a template with sample values and the branding: values escaped, Arabic right to left', async () => {
    await call(server, tokens.administrator, 'PUT', '/api/companys/acme/branding', { displayName: 'Acme <Identity>', primaryLight: '#0d47a1', supportEmail: 'help@acme.example', supportUrl: 'https://help.acme.example/' });
    await server.app.inject({ method: 'PUT', url: '/api/companys/acme/branding/logo', headers: { authorization: `Bearer ${tokens.administrator}`, 'content-type': 'image/png' }, payload: PNG });
    const logoUrl = (await call(server, shop.adminToken, 'GET', '/api/companys/shop/branding')).body.effective.logoUrl;

    const preview = await call(server, shop.adminToken, 'POST', `${templates('shop')}/invite/ar/preview`, { subject: 'مرحبًا بك في {{companyName}}', body: 'مرحبًا {{personName}}،\n\n{{link}}\n\n<b>{{supportUrl}}</b>' });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.subject).toBe('مرحبًا بك في Acme <Identity>');
    expect(preview.body.html).toContain('<html lang="ar" dir="rtl">');
    expect(preview.body.html).toContain(`<img src="${PUBLIC_URL}${logoUrl}" alt="Acme &lt;Identity&gt;"`);
    expect(preview.body.html).toContain('background: #0d47a1; color: #ffffff;');
    expect(preview.body.html).toContain('&lt;b&gt;https://help.acme.example/&lt;/b&gt;');
    expect(preview.body.html).toContain('href="mailto:help@acme.example"');
    expect(preview.body.html).not.toContain('<Identity>');
    expect(preview.body.text).toContain('مرحبًا Alex Martin،');
    // a preview stores nothing; an unknown placeholder is refused there too
    expect((await call(server, shop.adminToken, 'GET', templates('shop'))).body.find((t: { id: string }) => t.id === 'invite.ar').source).toBe('default');
    expect((await call(server, shop.adminToken, 'POST', `${templates('shop')}/invite/ar/preview`, { subject: '{{x}}', body: '{{link}}' })).status).toBe(400);
    // Support (no branding:write) may preview: nothing changes
    expect((await call(server, tokens.support, 'POST', `${templates('acme')}/reset/de/preview`, { subject: DEFAULTS.de.templates.reset.subject, body: DEFAULTS.de.templates.reset.body })).status).toBe(200);
  });

  it('renders a placeholder injection in a value inert: escaped in HTML, never read again as a placeholder', async () => {
    const message = await renderCompanyMessage(server.db, { companyId: 'shop', purpose: 'verify', language: 'ja', publicUrl: PUBLIC_URL }, {
      companyName: 'Shop',
      personName: HOSTILE,
      login: '{{supportUrl}}',
      email: '"><script>alert(1)</script>@x.example',
      link: `${PUBLIC_URL}/account/verify?token=abc`,
    });
    expect(message.html).not.toMatch(/<img src=x|<script>/);
    expect(message.html).toContain('&lt;img src=x onerror=alert(1)&gt;{{link}} 様');
    expect(message.html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@x.example');
    expect(message.text).toContain(`${HOSTILE} 様`);
    // the link appears where the template puts it, not where a value names it
    expect(message.text.split(`${PUBLIC_URL}/account/verify?token=abc`)).toHaveLength(2);
  });

  it("a message sent to a customer's person uses the reseller's template, logo and name; her hostile display name is escaped", async () => {
    await server.db.query(`UPDATE users SET display_name = $1 WHERE company_id = 'shop' AND domain_id = $2 AND id = 'worker'`, [HOSTILE, shop.domainId]);
    const sent = await call(server, shop.adminToken, 'POST', `/api/companys/shop/domainNames/${shop.domainId}/users/worker/sendResetLink`, {});
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const [message] = await messagesTo('worker@shop.example');
    expect(message.language).toBe('en');
    expect(message.subject).toBe('Acme: new password for worker@shop.example');
    expect(message.text).toMatch(/^Hi <img src=x onerror=alert\(1\)>\{\{link\}\},\n\nhttp:\/\/localhost:8080\/account\/reset\?token=[\w-]{43}\n\nQuestions: help@acme\.example\n\n-- Acme <Identity>\n/);
    expect(message.html).toContain('Hi &lt;img src=x onerror=alert(1)&gt;{{link}},');
    expect(message.html).not.toContain('<img src=x');
    expect(message.html).toMatch(/<img src="http:\/\/localhost:8080\/branding\/acme\/logo\?v=\d+" alt="Acme &lt;Identity&gt;"/);
    expect(message.html).toContain('background: #0d47a1;');

    // the customer's own French template wins for French; German has the default words with the branding
    await call(server, shop.adminToken, 'PUT', `${templates('shop')}/reset/fr`, { subject: 'Boutique : mot de passe', body: 'Bonjour {{personName}}\n\n{{link}}' });
    await server.app.inject({
      method: 'POST',
      url: `/api/companys/shop/domainNames/${shop.domainId}/users/worker/sendResetLink`,
      headers: { authorization: `Bearer ${shop.adminToken}`, 'accept-language': 'fr', 'content-type': 'application/json' },
      payload: {},
    });
    const [french] = await messagesTo('worker@shop.example');
    expect(french).toMatchObject({ language: 'fr', subject: 'Boutique : mot de passe' });
    const german = await renderCompanyMessage(server.db, { companyId: 'shop', purpose: 'reset', language: 'de', publicUrl: PUBLIC_URL }, { companyName: 'shop', personName: 'Jo', login: 'jo@x.example', email: 'jo@x.example', link: 'https://l.example' });
    expect(german.subject).toBe('Setzen Sie Ihr Acme <Identity>-Passwort zurück');
    expect(german.html).toContain('/branding/acme/logo?v=');
    expect(german.companyName).toBe('Acme <Identity>');
  });
});
