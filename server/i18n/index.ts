import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { effectiveBranding, type EffectiveBranding } from '../branding/index.js';
import en, { type MessageKey } from './messages/en.js';
import fr from './messages/fr.js';
import de from './messages/de.js';
import es from './messages/es.js';
import ja from './messages/ja.js';
import ar from './messages/ar.js';

/**
 * The languages of the provider's hosted pages and e-mails (docs/CONSOLE.md, "Languages"). English
 * is the default; Arabic is written right to left.
 */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'ja', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];
export const isLanguage = (value: unknown): value is Language => typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
export const isRtl = (language: Language) => language === 'ar';

export const CATALOGUES: Record<Language, Record<MessageKey, string>> = { en, fr, de, es, ja, ar };
export type { MessageKey };

/** The primary subtags of a list of language tags, in the order given (at most 20, each tag as BCP 47 spells one). */
const primaries = (tags: string[]) =>
  tags
    .slice(0, 20)
    .map((tag) => tag.trim().toLowerCase())
    .filter((tag) => /^[a-z]{1,8}(-[a-z0-9]{1,8})*$/.test(tag))
    .map((tag) => tag.split('-')[0]);

/** Accept-Language's languages by their q weights (ties in the header's order). */
function acceptLanguages(header: string | string[] | undefined): string[] {
  const text = (Array.isArray(header) ? header.join(',') : (header ?? '')).slice(0, 500);
  const asked = text
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.split(';');
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && !Number.isNaN(entry.q))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return primaries(asked.map((entry) => entry.tag));
}

/**
 * The language of a page or message: the authorization request's ui_locales first (space-separated
 * tags, the first one offered), then the person's stored language, then Accept-Language (by its q
 * weights); only among the domain's offered languages (null: all). Else the domain's default, else
 * English.
 */
export function pickLanguage(input: {
  uiLocales?: string;
  stored?: string | null;
  acceptLanguage?: string | string[];
  offered?: readonly string[] | null;
  fallback?: string | null;
}): Language {
  const offered = (code: string): code is Language => isLanguage(code) && (!input.offered || input.offered.includes(code));
  const candidates = [
    ...primaries(typeof input.uiLocales === 'string' ? input.uiLocales.slice(0, 500).split(/\s+/) : []),
    ...(typeof input.stored === 'string' ? [input.stored] : []),
    ...acceptLanguages(input.acceptLanguage),
  ];
  const chosen = candidates.find(offered);
  if (chosen) return chosen;
  return isLanguage(input.fallback) ? input.fallback : 'en';
}

/** What a hosted page is rendered with: what its language is chosen from, and the company's branding. */
interface PageScope {
  acceptLanguage?: string | string[];
  uiLocales?: string;
  stored?: string | null;
  offered?: readonly string[] | null;
  fallback?: string | null;
  branding?: EffectiveBranding;
  /** The application's own logo (its logo_uri), already checked (safeLogo). */
  appLogo?: string;
  /** A language set outright (tests, e-mail previews). */
  forced?: Language;
}

const scopes = new AsyncLocalStorage<PageScope>();

/** Every request gets its page scope (read by renderPage and t): Accept-Language until a route knows more. */
export function registerHostedPages(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => scopes.run({ acceptLanguage: request.headers['accept-language'] }, done));
}

/** Runs `work` with the pages it renders in `language` (tests, and pages rendered outside a request). */
export const inLanguage = <T>(language: Language, work: () => T): T => scopes.run({ forced: language }, work);

/** The language of the page being rendered. */
export function pageLanguage(): Language {
  const scope = scopes.getStore();
  if (!scope) return 'en';
  return scope.forced ?? pickLanguage(scope);
}

export const pageBranding = (): { branding?: EffectiveBranding; appLogo?: string } => {
  const scope = scopes.getStore();
  return { branding: scope?.branding, appLogo: scope?.appLogo };
};

/**
 * What a route knows of the page it answers: the authorization request's ui_locales, the tenant
 * (its domain's offered languages and default, its company's branding), the person (her stored
 * language), the application (its logo). Each is optional; what is given replaces what was known.
 */
export async function knowPage(
  db: Queryable,
  input: { uiLocales?: unknown; tenant?: { companyId: string; domainId: string }; userId?: string; application?: { companyId: string; domainId: string; id: string } },
): Promise<void> {
  const scope = scopes.getStore();
  if (!scope) return;
  if (typeof input.uiLocales === 'string') scope.uiLocales = input.uiLocales;
  if (input.application) {
    const { companyId, domainId, id } = input.application;
    const { rows } = await db.query<{ logo_uri: string }>(`SELECT logo_uri FROM applications WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, id]);
    scope.appLogo = safeLogo(rows[0]?.logo_uri);
  }
  if (!input.tenant) return;
  const { companyId, domainId } = input.tenant;
  const [domain, person, branding] = await Promise.all([
    db.query<{ languages: string[] | null; default_language: string | null }>(`SELECT languages, default_language FROM domains WHERE company_id = $1 AND id = $2`, [companyId, domainId]),
    input.userId
      ? db.query<{ language: string | null }>(`SELECT language FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, input.userId])
      : undefined,
    effectiveBranding(db, companyId).catch(() => undefined),
  ]);
  scope.offered = domain.rows[0]?.languages ?? null;
  scope.fallback = domain.rows[0]?.default_language ?? null;
  if (person) scope.stored = person.rows[0]?.language ?? null;
  scope.branding = branding;
}

/**
 * An application's logo as a page may show it: an https address, or a root-relative one of our
 * own origin; never javascript:, data: or http: (a data: SVG or a script address could carry script).
 */
export function safeLogo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2000) return undefined;
  if (/^\/[^/\\]/.test(value)) return value;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && !url.username && !url.password ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The text of `key` in the page's language (or `language`), with `{name}` replaced by `values` (as text: the caller escapes). */
export function t(key: MessageKey, values: Record<string, string | number> = {}, language: Language = pageLanguage()): string {
  const text = CATALOGUES[language][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The catalogue's own text as HTML (text and double-quoted attributes: an apostrophe stays as written). */
const escapeHtml = (value: string) => value.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);

/** The text of `key` as HTML: the text escaped, `{name}` replaced by `html` (HTML the caller made and escaped). */
export function th(key: MessageKey, html: Record<string, string> = {}): string {
  return escapeHtml(t(key, {})).replace(/\{(\w+)\}/g, (whole, name: string) => (name in html ? html[name] : whole));
}

/** English sentences of other modules (refusals, password rules) and their keys: shown translated on a page. */
const SENTENCES = new Map<string, MessageKey>(
  (Object.keys(en) as MessageKey[]).filter((key) => key.startsWith('error.')).map((key) => [en[key], key]),
);

/** A sentence written in English elsewhere (an error's message) in the page's language, when the catalogue has it. */
export function translateSentence(message: string): string {
  const key = SENTENCES.get(message);
  if (key) return t(key);
  const length = /^Use at least (\d+) characters\.$/.exec(message);
  if (length) return t('error.minLength', { n: length[1] });
  return message;
}
