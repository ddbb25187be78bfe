/**
 * The console's language (docs/CONSOLE.md, "Languages"): one of six, the one chosen on this browser
 * (localStorage `language`, react-admin's store key `locale` maps there: src/layout/store.ts), else
 * the browser's first among them (navigator.languages), else English. Each language other than
 * English is one module, src/i18n/locales/<code>.ts, loaded only when chosen. Small: the sign-in
 * pages use it too.
 */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'ja', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language by its own name, as a language menu lists them. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  es: 'Español',
  ja: '日本語',
  ar: 'العربية',
};

export const LANGUAGE_KEY = 'language';

export const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);
export const isRtl = (language: string) => language === 'ar';

/** The stored choice, else the browser's first language among the six ("fr-CA" is fr), else English. */
export function chosenLanguage(): Language {
  const stored = localStorage.getItem(LANGUAGE_KEY);
  if (isLanguage(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const code = tag?.toLowerCase().split('-')[0];
    if (isLanguage(code)) return code;
  }
  return 'en';
}

/** `<html lang dir>` follow the language; dates and numbers read it (uiLocale). */
export function showLanguage(language: string): void {
  document.documentElement.lang = language;
  document.documentElement.dir = isRtl(language) ? 'rtl' : 'ltr';
}

/** The language the page is shown in, for Intl (dates, times, numbers). */
export const uiLocale = (): string => (typeof document === 'undefined' ? '' : document.documentElement.lang) || 'en';

type Tree = Record<string, unknown>;
const modules = import.meta.glob<{ default: Tree }>(['./locales/*.ts', '!./locales/*.test.ts']);

/** The whole message tree of a language other than English (undefined when its module is not there). */
export async function loadLanguage(language: string): Promise<Tree | undefined> {
  const load = modules[`./locales/${language}.ts`];
  return load ? (await load()).default : undefined;
}
