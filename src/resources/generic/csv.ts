/**
 * CSV text for an export. Cells starting with = + - @ or a tab would run as formulas in a
 * spreadsheet: they get a leading apostrophe, the usual neutralisation. A structured value (an
 * audit record's changes, a list of objects) is written as JSON; a list of plain values as before.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

const isStructured = (value: unknown) =>
  typeof value === 'object' && value !== null && (!Array.isArray(value) || value.some((item) => typeof item === 'object' && item !== null));

export function csvCell(value: unknown): string {
  let text = value === undefined || value === null ? '' : isStructured(value) ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  return [columns.map(csvCell).join(','), ...rows.map((row) => columns.map((column) => csvCell(row[column])).join(','))].join('\r\n');
}
