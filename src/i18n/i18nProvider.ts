import polyglotI18nProvider from 'ra-i18n-polyglot';
import { mergeTranslations, type I18nProvider, type TranslationMessages } from 'react-admin';
import { en } from './en';
import { LANGUAGES, LANGUAGE_NAMES, loadLanguage, showLanguage } from './language';
import { reactAdminFirstScreen } from './reactAdmin';
import { readableName } from './readableName';
import { setLanguageMessages } from './translate';
import type { DeclaredLabels } from '../resources/types';

const LOCALES = LANGUAGES.map((locale) => ({ locale, name: LANGUAGE_NAMES[locale] }));

/**
 * The English words of the first screen after sign-in (en.ts, and react-admin's own that it uses);
 * once a screen or dialog has loaded (loadScreenWords), theirs and the whole of react-admin's too.
 */
let english: TranslationMessages = mergeTranslations(reactAdminFirstScreen, en);
/** The chosen language's whole tree (its module replaces both parts of English), or none for English. */
let chosen: { locale: string; messages: TranslationMessages } | undefined;

/** The labels declarations give (declareLabels), per language: { resources: { <name>: { name, fields } } }. */
let declared: Record<string, { resources: Record<string, object> }> = {};
const declaredIn = (locale: string) => (declared[locale] ?? {}) as unknown as TranslationMessages;

/**
 * Polyglot with the chosen language's words over English (a key its module lacks still reads in
 * English); a declaration's labels under the console's own words of the same language.
 */
const polyglotOf = () =>
  polyglotI18nProvider(
    () =>
      chosen
        ? mergeTranslations(declaredIn('en'), english, declaredIn(chosen.locale), chosen.messages)
        : mergeTranslations(declaredIn('en'), english),
    chosen?.locale ?? 'en',
    LOCALES,
  );

let polyglot = polyglotOf();

/** resources.<name>.name and resources.<name>.fields.<source>: the keys a declared type may leave untranslated. */
const RESOURCE_KEY = /^resources\.([^.]+)\.(?:name|fields\.(.+))$/;

/**
 * Labels of a declared type come from i18n; without a translation, the readable form of the name
 * ("displayName" as "Display Name") instead of react-admin's sentence case ("Display name").
 */
export const i18nProvider: I18nProvider = {
  translate: (key, options) => {
    const match = RESOURCE_KEY.exec(key);
    return polyglot.translate(key, match ? { ...options, _: readableName(match[2] ?? match[1]) } : options);
  },
  /** docs/CONSOLE.md, "Languages": the chosen language's module, loaded now (English when it is missing). */
  changeLocale: async (locale) => {
    const messages = locale === 'en' ? undefined : ((await loadLanguage(locale)) as TranslationMessages | undefined);
    chosen = messages ? { locale, messages } : undefined;
    setLanguageMessages(messages);
    polyglot = polyglotOf();
    showLanguage(polyglot.getLocale());
  },
  getLocale: () => polyglot.getLocale(),
  getLocales: () => LOCALES,
};

/**
 * The labels the declarations give in each language (docs/ADDING-A-RESOURCE.md, "Adding a
 * language"), as resources.<name>.name and resources.<name>.fields.<source>. App.tsx calls it once.
 */
export function declareLabels(declarations: readonly { name: string; labels?: DeclaredLabels }[]): void {
  declared = {};
  for (const { name, labels } of declarations) {
    for (const [locale, { name: label, fields }] of Object.entries(labels ?? {})) {
      const resources = (declared[locale] ??= { resources: {} }).resources;
      resources[name] = { ...(label ? { name: label } : {}), ...(fields ? { fields } : {}) };
    }
  }
  polyglot = polyglotOf();
}

let screenWords: Promise<void> | undefined;
let screenWordsAdded = false;

/**
 * Loads the words of the screens and dialogs that load on use (screens.ts, a chunk of its own) and
 * adds them, once: from then on the provider reads every message, with the same polyglot
 * interpolation and pluralization, and a key still missing shows as before (the key, or the `_`
 * default). Only modules of the first screen's own chunk call it (DeclaredRoute, the app bar's
 * buttons): imported by the declarations, this module made the bundler split it into a chunk of its
 * own (docs/PERFORMANCE.md, "Console bundle").
 */
export function loadScreenWords(): Promise<void> {
  screenWords ??= import('./screens').then(({ reactAdminMessages, screens }) => {
    english = mergeTranslations(reactAdminMessages, en, screens);
    polyglot = polyglotOf();
    screenWordsAdded = true;
  });
  return screenWords;
}

/** Whether the screens' words are in the provider: a screen waits for them only until then. */
export function hasScreenWords(): boolean {
  return screenWordsAdded;
}

/** A lazily loaded dialog with the screens' words: both load side by side, and the module is there once both are. */
export function withScreenWords<T>(module: Promise<T>): Promise<T> {
  return Promise.all([module, loadScreenWords()]).then(([loaded]) => loaded);
}
