import { LANGUAGES as ALL_LANGUAGES, pickLanguage } from '../i18n/index.js';

/**
 * The language of a message (docs/CONSOLE.md, "Languages"): the person's stored language, then the
 * browser's Accept-Language (by its q weights), only among the domain's offered languages, else its
 * default, else English (pickLanguage, server/i18n/). Self-service pages read the person's own
 * request; messages an administrator sends read the administrator's unless the person's is known.
 * The messages' default words (templates.ts) exist in every one of server/i18n's languages.
 */
export const MAIL_LANGUAGES = ALL_LANGUAGES;
export type Language = (typeof MAIL_LANGUAGES)[number];
export const LANGUAGES: readonly Language[] = MAIL_LANGUAGES;

export function languageOf(
  acceptLanguage: string | string[] | undefined,
  known: { stored?: string | null; offered?: readonly string[] | null; fallback?: string | null } = {},
): Language {
  const offered = known.offered ? MAIL_LANGUAGES.filter((code) => known.offered!.includes(code)) : MAIL_LANGUAGES;
  const chosen = pickLanguage({ acceptLanguage, stored: known.stored, offered, fallback: known.fallback });
  return (MAIL_LANGUAGES as readonly string[]).includes(chosen) ? (chosen as Language) : 'en';
}
