import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import { mergeTranslations, type I18nProvider } from 'react-admin';
import { en } from './en';
import { readableName } from './readableName';

const polyglot = polyglotI18nProvider(() => mergeTranslations(englishMessages, en), 'en', [
  { locale: 'en', name: 'English' },
]);

/** resources.<name>.name and resources.<name>.fields.<source>: the keys a declared type may leave untranslated. */
const RESOURCE_KEY = /^resources\.([^.]+)\.(?:name|fields\.(.+))$/;

/**
 * Labels of a declared type come from i18n; without a translation, the readable form of the name
 * ("displayName" as "Display Name") instead of react-admin's sentence case ("Display name").
 */
export const i18nProvider: I18nProvider = {
  ...polyglot,
  translate: (key, options) => {
    const match = RESOURCE_KEY.exec(key);
    return polyglot.translate(key, match ? { ...options, _: readableName(match[2] ?? match[1]) } : options);
  },
};
