/**
 * Every language module (src/i18n/locales/<code>.ts) has exactly the keys of the English tree:
 * react-admin's (ra-language-english), en.ts (with signIn.ts) and screens.ts; the same
 * placeholders in each message, and the plural forms its language needs (docs/CONSOLE.md, "Languages").
 */
import englishMessages from 'ra-language-english';
import { mergeTranslations } from 'react-admin';
import { describe, expect, it } from 'vitest';
import { en } from './en';
import { LANGUAGES } from './language';
import { messagesOf } from './messageKeys';
import { screens } from './screens';

const englishTree = mergeTranslations(englishMessages, en, screens) as object;

const placeholders = (message: string) => [...new Set(message.match(/%\{\w+\}/g) ?? [])].sort();
/** Polyglot's plural forms per language: Arabic six (zero, one, two, few, many, other), Japanese one. */
const PLURAL_FORMS: Record<string, number> = { en: 2, fr: 2, de: 2, es: 2, ja: 1, ar: 6 };

const english = messagesOf(englishTree);
const modules = import.meta.glob<{ default: object }>('./locales/*.ts', { eager: true });

describe.each(LANGUAGES.filter((language) => language !== 'en'))('the %s module', (language) => {
  const module = modules[`./locales/${language}.ts`];

  it('exists', () => expect(module, `src/i18n/locales/${language}.ts`).toBeDefined());
  if (!module) return;
  const messages = messagesOf(module.default);

  it('has every key English has, and no other', () => {
    expect([...english.keys()].filter((key) => !messages.has(key)), 'missing').toEqual([]);
    expect([...messages.keys()].filter((key) => !english.has(key)), 'not in English').toEqual([]);
  });

  it("keeps each message's placeholders, and has its language's plural forms", () => {
    const wrong: string[] = [];
    for (const [key, message] of messages) {
      const source = english.get(key);
      if (source === undefined) continue;
      // no placeholder English lacks (it would show raw); all of English's, but react-admin's own
      // messages from ra-language-french leave a few out ("Êtes-vous sûr(e)…" without %{name})
      const given = placeholders(message);
      const expected = placeholders(source);
      if (given.some((name) => !expected.includes(name))) wrong.push(`${key}: ${message}`);
      if (!key.startsWith('ra.') && expected.some((name) => !given.includes(name) && name !== '%{smart_count}')) wrong.push(`${key}: ${message}`);
      if (source.includes('||||') && message.split('||||').length !== PLURAL_FORMS[language]) wrong.push(`${key} (plural forms): ${message}`);
    }
    expect(wrong).toEqual([]);
  });
});
