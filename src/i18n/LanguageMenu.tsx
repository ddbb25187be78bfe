/**
 * The app bar's language menu (docs/CONSOLE.md, "Languages"): react-admin's LocalesMenuButton, which
 * lists i18nProvider.getLocales() and keeps the choice in the store (localStorage `language`). A
 * choice made here is also the signed-in person's language on the provider's pages and e-mails:
 * PUT /api/me/language (an answer other than success changes nothing here).
 */
import { useEffect } from 'react';
import { LocalesMenuButton, useLocaleState } from 'react-admin';
import { config } from '../config';
import { httpClient } from '../http/httpClient';

/** The language last seen here: the menu mounts again after each change (react-admin re-renders the app). */
let shown: string | undefined;

export function LanguageMenu() {
  const [locale] = useLocaleState();
  useEffect(() => {
    if (shown !== undefined && shown !== locale) {
      httpClient(`${config.apiBase}/me/language`, { method: 'PUT', body: JSON.stringify({ language: locale }) }).catch(() => undefined);
    }
    shown = locale;
  }, [locale]);
  return <LocalesMenuButton />;
}
