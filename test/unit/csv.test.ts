import { csvCell, toCsv, wantsCsv } from '#http/csv';

describe('CSV answers (http/csv.ts)', () => {
  it('quotes a field with a comma, a quote or a line break (RFC 4180), and ends every line in CRLF', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['line\nbreak', null], [3, true]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\n3,true\r\n');
  });

  it('neutralises cells a spreadsheet would run as a formula, never numbers', () => {
    expect(['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tx', '\rx'].map(csvCell)).toEqual(["'=1+1", "'+cmd", "'-2+3", "'@SUM(A1)", "'\tx", `"'\rx"`]);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('answers CSV only when the Accept header names text/csv', () => {
    expect([wantsCsv('text/csv'), wantsCsv('application/json, text/csv;q=0.9'), wantsCsv('TEXT/CSV')]).toEqual([true, true, true]);
    expect([wantsCsv(undefined), wantsCsv('application/json'), wantsCsv('*/*'), wantsCsv('text/csvx')]).toEqual([false, false, false, false]);
  });
});
