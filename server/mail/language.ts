/**
 * The language of a message (docs/CONSOLE.md, "E-mail, reset links and invitations"): English or
 * French, the first of the two that the browser's Accept-Language asks for (by its q weights),
 * English otherwise. Self-service pages read the person's own request; messages an administrator
 * sends read the administrator's, since the person's language is not stored anywhere.
 */
export type Language = 'en' | 'fr';
export const LANGUAGES: readonly Language[] = ['en', 'fr'];

export function languageOf(acceptLanguage: string | string[] | undefined): Language {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : (acceptLanguage ?? '');
  const asked = header
    .slice(0, 500)
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { primary: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && !Number.isNaN(entry.q))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return (asked.find((entry) => (LANGUAGES as readonly string[]).includes(entry.primary))?.primary as Language | undefined) ?? 'en';
}
