import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv.ts';

describe('CSV of a report', () => {
  it('quotes what RFC 4180 asks for and nothing else', () => {
    expect(csvCell('Salg af varer')).toBe('Salg af varer');
    expect(csvCell('Hansen, Jensen & Co')).toBe('"Hansen, Jensen & Co"');
    expect(csvCell('Det "gode" firma')).toBe('"Det ""gode"" firma"');
    expect(csvCell('to\r\nlinjer')).toBe('"to\r\nlinjer"');
    expect(csvCell('Ærø Østergade å')).toBe('Ærø Østergade å');
  });

  it('writes numbers as they are, empty for null, and defuses a text that a spreadsheet would run', () => {
    expect(csvCell(-1234.5)).toBe('-1234.5');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('+45 12345678')).toBe("'+45 12345678");
  });

  it('a header row and one CRLF-ended row per record', () => {
    expect(
      toCsv({
        columns: ['account_number', 'name', 'balance'],
        rows: [
          ['1010', 'Salg', -20000],
          ['6470', 'Bank, drift', 50000.5],
        ],
      }),
    ).toBe('account_number,name,balance\r\n1010,Salg,-20000\r\n6470,"Bank, drift",50000.5\r\n');
    expect(toCsv({ columns: ['a'], rows: [] })).toBe('a\r\n');
  });
});
