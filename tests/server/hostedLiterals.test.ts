import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, inLanguage, LANGUAGES, type MessageKey, t } from '../../server/i18n/index.js';
import en from '../../server/i18n/messages/en.js';
import { renderConsentPage, renderErrorPage, renderLoginPage, renderMessagePage } from '../../server/oauth/loginPage.js';
import { renderPickPage } from '../../server/oauth/organizationPick.js';
import { overviewPage, passkeyPage, recoveryCodesPage, removePage, secondFactorForm, totpEnrolForm } from '../../server/mfa/pages.js';

/**
 * Every word of the hosted pages goes through the catalogue (docs/CONSOLE.md, "Languages"): each
 * language has exactly English's keys and placeholders, every key is used, no page module writes
 * a word of its own in its HTML, and a page rendered in another language holds no English sentence.
 */
const PAGE_MODULES = [
  'server/oauth/loginPage.ts',
  'server/oauth/accountPages.ts',
  'server/oauth/interactions.ts',
  'server/oauth/signUp.ts',
  'server/oauth/organizationPick.ts',
  'server/oauth/changePasswordStep.ts',
  'server/oauth/verifyEmailStep.ts',
  'server/oauth/provider.ts',
  'server/mfa/pages.ts',
  'server/mfa/steps.ts',
  'server/mfa/account.ts',
  'server/upstream/routes.ts',
];
const read = (file: string) => fs.readFileSync(path.join(process.cwd(), file), 'utf8');
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const keys = Object.keys(en) as MessageKey[];

describe('the catalogue', () => {
  it('has every English key, and no other, in every language, with the same placeholders', () => {
    for (const language of LANGUAGES) {
      const catalogue = CATALOGUES[language];
      expect(Object.keys(catalogue).sort(), language).toEqual([...keys].sort());
      for (const key of keys) {
        expect(placeholders(catalogue[key]), `${language} ${key}`).toEqual(placeholders(en[key]));
        expect(catalogue[key].trim(), `${language} ${key}`).not.toBe('');
      }
    }
  });

  it('is translated: no language but English repeats an English sentence', () => {
    for (const language of LANGUAGES.filter((l) => l !== 'en')) {
      const same = keys.filter((key) => CATALOGUES[language][key] === en[key] && /\s/.test(en[key]));
      expect(same, language).toEqual([]);
    }
  });

  it('has no unused key: each is named in a page module, or is an English sentence another module writes', () => {
    const server = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return full.includes(`i18n${path.sep}messages`) ? [] : server(full);
        return entry.name.endsWith('.ts') ? [full] : [];
      });
    const sources = server(path.join(process.cwd(), 'server')).map((file) => fs.readFileSync(file, 'utf8')).join('\n');
    const unused = keys.filter((key) => {
      if (sources.includes(`'${key}'`)) return false;
      // a sentence of another module, translated by translateSentence
      if (key.startsWith('error.')) return !sources.includes(en[key]) && !(key === 'error.minLength' && sources.includes('Use at least ${'));
      return true;
    });
    expect(unused).toEqual([]);
  });
});

describe('the page modules', () => {
  it('write no word of their own in their HTML: every text and label comes from t() or th()', () => {
    const found: string[] = [];
    for (const file of PAGE_MODULES) {
      const source = read(file);
      // text between tags, and the words of aria-label, placeholder, alt and title attributes
      for (const match of source.matchAll(/>([^<>`${}]*)</g)) if (/\p{L}{2,}/u.test(match[1]) && !/[()[\];=/&|]/.test(match[1])) found.push(`${file}: >${match[1]}<`);
      for (const match of source.matchAll(/(?:aria-label|placeholder|alt|title)="([^"$]*)"/g)) if (/\p{L}{2,}/u.test(match[1])) found.push(`${file}: ${match[0]}`);
      // a page's title written as a literal (renderPage('Title', …), renderMessagePage('Title', …))
      for (const match of source.matchAll(/render(?:Message)?Page\(\s*(['"`][^'"`]*['"`])/g)) if (/\p{L}{2,}/u.test(match[1])) found.push(`${file}: ${match[0]}`);
    }
    expect(found).toEqual([]);
  });
});

/** Every page function's HTML in `language`, with every option shown. */
async function pages(language: (typeof LANGUAGES)[number]): Promise<Record<string, string>> {
  return inLanguage(language, async () => {
    const factor = { id: 'f1', type: 'totp', label: 'Phone', createdAt: '2026-01-01T00:00:00Z', lastUsedAt: null } as never;
    const recovery = { id: 'f2', type: 'recovery', label: 'Codes', remaining: 3, createdAt: '2026-01-01T00:00:00Z', lastUsedAt: null } as never;
    return {
      login: renderLoginPage({
        clientName: 'Shop',
        action: '/oauth/interaction/abc/login',
        email: 'ann@example.com',
        error: 'Wrong email or password.',
        organization: 'acme',
        signUpUrl: '/oauth/signup?company=acme',
        connections: [{ name: 'Okta', href: '/x' }],
        passwordOptional: true,
      }),
      consent: renderConsentPage({ clientName: 'Shop', apiName: 'Orders', userName: 'Ann', scopes: [], action: '/x' }),
      error: renderErrorPage('This sign-in has expired. Please sign in again.'),
      message: renderMessagePage(t('logout.doneTitle'), t('logout.done')),
      pick: renderPickPage([{ index: 0, row: { companyName: 'Acme', domainName: 'Main' } as never }], '/login'),
      overview: overviewPage({ name: 'Ann', organization: 'Acme', factors: [factor, recovery], required: true, fromConsole: true, notice: t('mfa.keyAdded') }),
      codes: recoveryCodesPage(['aaaa-bbbb']),
      passkey: passkeyPage({ options: {}, error: 'That code or key is not right. Try again.' }),
      remove: removePage({ factor, error: 'Wrong password.' }),
      secondFactor: secondFactorForm({ action: '/x', error: 'That code or key is not right. Try again.', webauthnOptions: {} }),
      totp: await totpEnrolForm({ action: '/x', uri: 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP', secret: 'JBSWY3DPEHPK3PXP', withLabel: true }),
    };
  });
}

describe('the pages rendered in each language', () => {
  it('hold no English sentence of the catalogue outside English; lang and dir follow the language', async () => {
    // the words of several words: a single word (Code, Or) may be the same in two languages
    const english = keys.map((key) => en[key].replace(/\{\w+\}/g, '').trim()).filter((text) => text.split(/\s+/).length >= 2 && !/^\(/.test(text));
    const englishPages = await pages('en');
    expect(englishPages.login).toContain('Sign in to Shop');
    for (const language of LANGUAGES.filter((l) => l !== 'en')) {
      for (const [name, html] of Object.entries(await pages(language))) {
        if (html.startsWith('<!doctype')) expect(html, `${language} ${name}`).toContain(`<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">`);
        const text = html.replace(/<style>[^<]*<\/style>/g, '').replace(/&#39;/g, "'");
        const leftovers = english.filter((sentence) => text.includes(sentence));
        expect(leftovers, `${language} ${name}`).toEqual([]);
      }
    }
  });
});
