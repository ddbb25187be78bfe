/**
 * The sign-in page's language menu (docs/CONSOLE.md, "Languages"): a plain select (no react-admin
 * here), each language by its own name; the choice is remembered for the console too.
 */
import { LANGUAGES, LANGUAGE_NAMES, chosenLanguage, type Language } from './language';
import { applyLanguage } from './translate';

/** Named in every language at once: who cannot read the page's language still finds it. */
const LABEL = 'Language · Langue · Sprache · Idioma · 言語 · اللغة';

export function LanguageSelect() {
  return (
    <select
      className="language-select"
      aria-label={LABEL}
      title={LABEL}
      defaultValue={chosenLanguage()}
      onChange={(event) => void applyLanguage(event.target.value as Language, true)}
    >
      {LANGUAGES.map((language) => (
        <option key={language} value={language} lang={language}>
          {LANGUAGE_NAMES[language]}
        </option>
      ))}
    </select>
  );
}
