import { uiLocale } from '../../i18n/language';

/** A date and time in the console's language (lists and view forms of dateTime fields; docs/CONSOLE.md, "Languages"); not a date: as given. */
export function formatDateTime(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(String(value));
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString(uiLocale());
}
