/**
 * A tiny translator for the sign-in pages, which must not load react-admin. It reads the same
 * messages (the sign-in part of en.ts, or the chosen language's module) and the same %{name}
 * interpolation as ra-i18n-polyglot.
 */
import { LANGUAGE_KEY, chosenLanguage, loadLanguage, showLanguage } from './language';
import { signInMessages } from './signIn';

const english = { iam: { appTitle: 'IAM Console', ...signInMessages } };
let messages: object = english;

export function translate(key: string, values: Record<string, string | number> = {}): string {
  let node: unknown = messages;
  for (const part of key.split('.')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node !== 'string') return key;
  return node.replace(/%\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}

/** The words of a language's module, or English (the console's provider sets them too: its 404 page reads them). */
export function setLanguageMessages(tree: object | undefined): void {
  messages = tree ?? english;
}

/** Uses a language on the sign-in pages (remembered when `remember`); English when its module is missing. */
export async function applyLanguage(language = chosenLanguage(), remember = false): Promise<void> {
  const tree = language === 'en' ? undefined : await loadLanguage(language).catch(() => undefined);
  setLanguageMessages(tree);
  showLanguage(tree ? language : 'en');
  if (remember) localStorage.setItem(LANGUAGE_KEY, language);
  window.dispatchEvent(new Event(LANGUAGE_CHANGED));
}

/** Dispatched on window once the sign-in pages' words changed language (main.tsx renders again). */
export const LANGUAGE_CHANGED = 'iam:language';
