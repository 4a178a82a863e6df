/**
 * CSV answers (`Accept: text/csv`), RFC 4180: comma-separated, CRLF line ends, a field quoted
 * when it holds a comma, a quote, CR or LF, quotes doubled inside. Cells a spreadsheet would run
 * as a formula (`= + - @`, tab or CR first) get a leading `'`, since many cells are
 * caller-controlled (user agents, emails, names): OWASP, "CSV Injection".
 */
export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header row then one row per record, each line ending in CRLF. */
export function toCsv(columns: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [columns, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}

/** Whether the caller asked for CSV (`Accept: text/csv`, alone or among others). */
export const wantsCsv = (accept: string | undefined): boolean => accept !== undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
