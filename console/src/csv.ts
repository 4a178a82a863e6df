/**
 * RFC 4180 CSV as the console exports it: a header line, CRLF line ends, fields quoted when they
 * need it, and a leading =, +, - or @ neutralised, so a spreadsheet never reads a field as a formula.
 */
export function csvText(columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const lines = [columns.map(csvField).join(','), ...rows.map((row) => row.map(csvField).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  const safe = /^[=+@]/.test(text) || (/^-/.test(text) && !/^-\d+$/.test(text)) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
