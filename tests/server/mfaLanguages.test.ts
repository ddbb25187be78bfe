import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTotp, newTotpSecret } from '../../server/accounts/factors.js';
import { brandingChanged } from '../../server/branding/effective.js';
import { LANGUAGES, t } from '../../server/i18n/index.js';
import en from '../../server/i18n/messages/en.js';
import { createTenant, startServer, type TestServer } from './helpers.js';
import { addApplication, CookieJar, formAction, injectBrowser, pageBrowser, pkce, SAME_ORIGIN, setPassword } from './oauthHelpers.js';

/**
 * The second-factor steps and the account page in the person's language (docs/CONSOLE.md,
 * "Languages"): ui_locales of the sign-in, then her stored language, then Accept-Language, among her
 * domain's; right to left in Arabic; with her company's branding under a policy that hashes its style.
 */
let server: TestServer;
const REDIRECT = 'https://shop.example/callback';
const PASSWORD = 'a long enough password';
const TENANT = { companyId: 'buyco', domainId: 'buyco-domain' };
let secret = '';

beforeAll(async () => {
  server = await startServer();
  await createTenant(server, 'sellco', 'root', 'reseller');
  await createTenant(server, 'buyco', 'sellco', 'customer');
  await addApplication(server, { id: 'shop', companyId: 'buyco', domainId: 'buyco-domain', redirectUris: [REDIRECT] });
  await setPassword(server, 'buyco', 'buyco-domain', 'worker', PASSWORD);
  // a person with an authenticator app (the second-factor step), and one asked to add a factor (the enrolment step)
  secret = newTotpSecret();
  await addTotp(server.db, { ...TENANT, id: 'worker' }, secret, 0, 'Phone');
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email, required_actions) VALUES ('buyco', 'buyco-domain', 'newbie', 'newbie', 'newbie', 'newbie@buyco.example', ARRAY['enrol-mfa'])`,
  );
  await setPassword(server, 'buyco', 'buyco-domain', 'newbie', PASSWORD);
  await server.db.query(
    `INSERT INTO company_branding (company_id, display_name, primary_light, background_light, support_email) VALUES ('sellco', 'Sell & Co', '#0b5394', '#ffffff', 'help@sellco.example')`,
  );
  brandingChanged();
}, 60_000);
afterAll(() => server?.close());

const langOf = (html: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(html)?.slice(1);
/** The catalogue's English sentences (two words or more) a page in another language must not hold. */
const ENGLISH = (Object.values(en) as string[]).map((text) => text.replace(/\{\w+\}/g, '').trim()).filter((text) => text.split(/\s+/).length >= 2 && !/^\(/.test(text));
const englishIn = (html: string) => ENGLISH.filter((sentence) => html.replace(/<style>[^<]*<\/style>/g, '').replace(/&#39;/g, "'").includes(sentence));

/** The company's branding is on the page, under a policy that allows its style by hash only. */
function expectBranded(page: { body: string; headers: Record<string, unknown> }) {
  expect(page.body).toContain('Sell &amp; Co');
  expect(page.body).toContain('#0b5394');
  expect(page.body).toContain('mailto:help@sellco.example');
  const policy = String(page.headers['content-security-policy']);
  expect(policy).not.toContain('unsafe-inline');
  expect(policy.match(/'sha256-/g)?.length).toBe(2);
}

/** The hosted sign-in of `login` to the shop with these query parameters, up to its first step page. */
async function hostedSteps(login: string, query: Record<string, string>, headers: Record<string, string> = {}) {
  const { challenge } = pkce();
  const params = new URLSearchParams({ client_id: 'shop', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', ...query });
  const browser = injectBrowser(server, new CookieJar(), { headers: { ...headers, ...SAME_ORIGIN } });
  const page = await browser.get(`/oauth/authorize?${params}`);
  const step = await browser.post(formAction(page.body)!, { email: login, password: PASSWORD });
  return { step, browser };
}

describe('the second-factor steps of a hosted sign-in', () => {
  it('are German for ui_locales=de, over Accept-Language, with the company branding', async () => {
    const { step, browser } = await hostedSteps('worker@buyco.example', { ui_locales: 'de' }, { 'accept-language': 'fr' });
    expect(step.status).toBe(200);
    expect(step.path).toMatch(/\/steps$/);
    expect(langOf(step.body)).toEqual(['de', 'ltr']);
    expect(step.body).toContain(`<h1>${t('mfa.secondFactorTitle', {}, 'de')}</h1>`);
    expect(step.body).toContain('Anmeldung als <strong>worker@buyco.example</strong>');
    expect(step.body).toContain(t('mfa.codeLabel', {}, 'de'));
    expect(englishIn(step.body)).toEqual([]);
    expectBranded(step);
    // a wrong code: the refusal in German too
    const wrong = await browser.post(formAction(step.body)!, { step: 'second-factor', code: '000000' });
    expect(wrong.status).toBe(400);
    expect(langOf(wrong.body)).toEqual(['de', 'ltr']);
    expect(wrong.body).toContain(t('error.badCode', {}, 'de'));
    expect(englishIn(wrong.body)).toEqual([]);
  });

  it("are in the person's stored language without ui_locales; the enrolment step's script words too, Arabic right to left", async () => {
    await server.db.query(`UPDATE users SET language = 'ar' WHERE company_id = 'buyco' AND id = 'newbie'`);
    try {
      const { step } = await hostedSteps('newbie@buyco.example', {}, { 'accept-language': 'de' });
      expect(step.status).toBe(200);
      expect(langOf(step.body)).toEqual(['ar', 'rtl']);
      expect(step.body).toContain(`<h1>${t('mfa.enrolTitle', {}, 'ar')}</h1>`);
      expect(step.body).toContain(t('mfa.keyInstead', {}, 'ar'));
      // the words webauthn.js shows come from the page (data-*), in its language
      expect(step.body).toContain(`data-unsupported="${t('script.unsupported', {}, 'ar')}"`);
      expect(englishIn(step.body)).toEqual([]);
      expectBranded(step);
    } finally {
      await server.db.query(`UPDATE users SET language = NULL`);
    }
  });

  it("ends in the person's language, branded, after too many wrong answers, whatever the browser asks", async () => {
    await server.db.query(`UPDATE users SET language = 'fr' WHERE company_id = 'buyco' AND id = 'worker'`);
    try {
      const tooMany = await hostedSteps('worker@buyco.example', {}, { 'accept-language': 'de' });
      let answer = tooMany.step;
      for (let attempt = 0; attempt < 5; attempt++) answer = await tooMany.browser.post(formAction(tooMany.step.body)!, { step: 'second-factor', code: '000000' });
      expect(answer.status).toBe(401);
      expect(langOf(answer.body)).toEqual(['fr', 'ltr']);
      expect(answer.body).toContain(t('error.tooManyAnswers', {}, 'fr'));
      expectBranded(answer);
    } finally {
      await server.db.query(`UPDATE users SET language = NULL WHERE company_id = 'buyco' AND id = 'worker'`);
    }
  });

  it('every language renders both steps without an English sentence', async () => {
    for (const language of LANGUAGES.filter((l) => l !== 'en')) {
      for (const login of ['worker@buyco.example', 'newbie@buyco.example']) {
        const { step } = await hostedSteps(login, { ui_locales: language });
        expect(langOf(step.body), `${language} ${login}`).toEqual([language, language === 'ar' ? 'rtl' : 'ltr']);
        expect(englishIn(step.body), `${language} ${login}`).toEqual([]);
      }
    }
  });
});

describe('the account page', () => {
  /** Signs in to /account with the password; the page her second factor is asked on. */
  async function accountSignIn(headers: Record<string, string> = {}) {
    const browser = pageBrowser(server);
    const form = await browser.post('/account/login', { email: 'worker@buyco.example', password: PASSWORD, company: 'buyco', domain: 'buyco-domain' }, { ...SAME_ORIGIN, ...headers });
    return { browser, form };
  }

  it('is French for a person whose stored language is fr: the sign-in, the second factor and the page itself', async () => {
    const login = await server.app.inject({ method: 'GET', url: '/account?company=buyco&domain=buyco-domain', headers: { 'accept-language': 'fr' } });
    expect(langOf(login.body)).toEqual(['fr', 'ltr']);
    expect(login.body).toContain(t('login.title', { client: t('mfa.yourAccount', {}, 'fr') }, 'fr'));
    expectBranded({ body: login.body, headers: login.headers });
    await server.db.query(`UPDATE users SET language = 'fr' WHERE company_id = 'buyco' AND id = 'worker'`);
    try {
      const { browser, form } = await accountSignIn();
      expect(form.status).toBe(200);
      expect(langOf(form.body)).toEqual(['fr', 'ltr']);
      expect(form.body).toContain(`<h1>${t('mfa.secondFactorTitle', {}, 'fr')}</h1>`);
      expect(form.body).toContain(t('mfa.proveIt', {}, 'fr'));
      expect(englishIn(form.body)).toEqual([]);
      expectBranded(form);
      const left = 30_000 - (Date.now() % 30_000);
      if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
      const code = new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate();
      const page = await browser.post('/account/second-factor', { code });
      expect(page.status).toBe(200);
      expect(page.path).toBe('/account');
      expect(langOf(page.body)).toEqual(['fr', 'ltr']);
      expect(page.body).toContain(`<h1>${t('mfa.accountTitle', {}, 'fr')}</h1>`);
      expect(englishIn(page.body)).toEqual([]);
      expectBranded(page);
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain("script-src 'self'");
      const app = await browser.get('/account/totp');
      expect(app.body).toContain(`<h1>${t('mfa.addApp', {}, 'fr')}</h1>`);
      expect(englishIn(app.body)).toEqual([]);
      const wrong = await browser.post('/account/totp', { code: '000000' });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toContain(t('error.badAppCode', {}, 'fr'));
      const missing = await browser.get('/account/factors/nope/remove');
      expect(missing.status).toBe(404);
      expect(missing.body).toContain(t('error.noFactor', {}, 'fr'));
    } finally {
      await server.db.query(`UPDATE users SET language = NULL`);
    }
  });

  it('is Arabic right to left for a person whose stored language is ar, whatever the browser asks', async () => {
    await server.db.query(`UPDATE users SET language = 'ar' WHERE company_id = 'buyco' AND id = 'worker'`);
    try {
      const { form } = await accountSignIn({ 'accept-language': 'de' });
      expect(langOf(form.body)).toEqual(['ar', 'rtl']);
      expect(form.body).toContain(`<h1>${t('mfa.secondFactorTitle', {}, 'ar')}</h1>`);
      expect(englishIn(form.body)).toEqual([]);
      // a wrong password: said in the page's language (Accept-Language: nobody is signed in yet)
      const wrong = await pageBrowser(server).post('/account/login', { email: 'worker@buyco.example', password: 'not it', company: 'buyco', domain: 'buyco-domain' }, { ...SAME_ORIGIN, 'accept-language': 'ar' });
      expect(wrong.status).toBe(401);
      expect(langOf(wrong.body)).toEqual(['ar', 'rtl']);
      expect(wrong.body).toContain(t('error.wrong', {}, 'ar'));
    } finally {
      await server.db.query(`UPDATE users SET language = NULL`);
    }
  });

  it("takes Accept-Language without a stored language, among the domain's offered ones, and holds no English sentence in any other", async () => {
    // the page of her second factor as a browser asking for `language` sees it (every request with the header)
    const verifyFrame = async (language: string) => {
      const browser = pageBrowser(server, new CookieJar(), { follow: false });
      await browser.post('/account/login', { email: 'worker@buyco.example', password: PASSWORD, company: 'buyco', domain: 'buyco-domain' }, { ...SAME_ORIGIN, 'accept-language': language });
      return server.app.inject({ method: 'GET', url: '/account', headers: { cookie: browser.jar.header(), 'accept-language': language } });
    };
    for (const language of LANGUAGES.filter((l) => l !== 'en')) {
      const form = await verifyFrame(language);
      expect(langOf(form.body), language).toEqual([language, language === 'ar' ? 'rtl' : 'ltr']);
      expect(form.body, language).toContain(`<h1>${t('mfa.secondFactorTitle', {}, language)}</h1>`);
      expect(englishIn(form.body), language).toEqual([]);
    }
    await server.db.query(`UPDATE domains SET languages = ARRAY['en','ja'], default_language = 'ja' WHERE company_id = 'buyco' AND id = 'buyco-domain'`);
    try {
      const form = await verifyFrame('de');
      expect(langOf(form.body)).toEqual(['ja', 'ltr']);
    } finally {
      await server.db.query(`UPDATE domains SET languages = NULL, default_language = NULL WHERE company_id = 'buyco' AND id = 'buyco-domain'`);
    }
  });
});
