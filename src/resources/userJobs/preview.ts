/**
 * The first rows of a chosen file, read in the browser for the column mapping (docs/CONSOLE.md,
 * "Import and export"): only its first 64 KB, whatever its size; CSV by csv-parse's browser build,
 * loaded on first use.
 */
import type { FileFormat } from './api';

/** How much of the file the preview reads. */
export const PREVIEW_BYTES = 64 * 1024;
/** Rows the preview shows. */
export const PREVIEW_ROWS = 5;

export interface Preview {
  columns: string[];
  /** The first rows, a cell per column ('' when absent). */
  rows: string[][];
}

const cell = (value: unknown): string =>
  value === undefined || value === null ? '' : Array.isArray(value) ? value.map(cell).join('; ') : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** Whole lines only: a file longer than the preview loses its last, cut line. */
function wholeLines(text: string, cut: boolean): string {
  if (!cut) return text;
  const end = text.lastIndexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

async function previewCsv(text: string): Promise<Preview> {
  const { parse } = await import('csv-parse/browser/esm/sync');
  const records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, to_line: 1 + PREVIEW_ROWS * 20 }) as string[][];
  const [header = [], ...rows] = records;
  return { columns: header, rows: rows.slice(0, PREVIEW_ROWS).map((row) => header.map((_, index) => row[index] ?? '')) };
}

function previewJsonl(text: string): Preview {
  const objects = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, PREVIEW_ROWS)
    .map((line, index) => {
      try {
        const value: unknown = JSON.parse(line);
        if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      } catch {
        // said below
      }
      throw new Error(`line ${index + 1} is not a JSON object`);
    });
  const columns = [...new Set(objects.flatMap((object) => Object.keys(object)))];
  return { columns, rows: objects.map((object) => columns.map((column) => cell(object[column]))) };
}

/** The columns and first rows of the file; throws with a sentence when they cannot be read. */
export async function readPreview(file: Blob, format: FileFormat): Promise<Preview> {
  const cut = file.size > PREVIEW_BYTES;
  const text = wholeLines(await file.slice(0, PREVIEW_BYTES).text(), cut);
  return format === 'csv' ? previewCsv(text) : previewJsonl(text);
}
