import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../errors.ts';
import { CSV_MAX_LINE, CsvSplitter, parseCsv, presetByHeader } from './csv.ts';
import { bankImportQuery } from './options.ts';
import type { BankFileLine, StatementHead } from './types.ts';

const split = (chunks: string[], sep?: string) => {
  const s = new CsvSplitter(sep);
  const out: { line: number; cells: string[] }[] = [];
  for (const c of chunks) s.push(c, out);
  s.end(out);
  return { records: out, sep: s.separator, open: s.openQuote };
};

async function parse(text: string | Uint8Array, query: Record<string, string> = {}, chunk = 7) {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  async function* source() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const options = bankImportQuery.parse(query);
  const utf8 = (() => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return true;
    } catch {
      return false;
    }
  })();
  const gen = parseCsv(source(), options, { utf8, currency: 'DKK' });
  const lines: BankFileLine[] = [];
  let step = await gen.next();
  while (!step.done) {
    lines.push(...step.value);
    step = await gen.next();
  }
  return { lines, head: step.value as StatementHead };
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: DomainError) => ({ code: e.code, field: e.field, line: e.extensions.line, detail: e.message }),
  );

describe('CsvSplitter', () => {
  it('splits RFC 4180 records across any chunking: quotes, doubled quotes, separators and line breaks inside quotes, CRLF', () => {
    const text = 'a;"b;c";"say ""hi"""\r\n"multi\nline";x;\r\n\r\n1;2;3';
    const whole = split([text]);
    expect(whole.sep).toBe(';');
    expect(whole.records).toEqual([
      { line: 1, cells: ['a', 'b;c', 'say "hi"'] },
      { line: 2, cells: ['multi\nline', 'x', ''] },
      { line: 5, cells: ['1', '2', '3'] },
    ]);
    expect(split([...text]).records).toEqual(whole.records);
  });
  it('chooses the separator from the first line: ; before tab before ,', () => {
    expect(split(['a,b;c\n']).sep).toBe(';');
    expect(split(['a\tb,c\n']).sep).toBe('\t');
    expect(split(['"a;b",c\n']).sep).toBe(',');
    expect(split(['a;b'], ',').records).toEqual([{ line: 1, cells: ['a;b'] }]);
  });
  it('tells of a quote never closed', () => {
    expect(split(['a;"b\nc']).open).toBe(1);
  });
  it('a line, a quoted field or a first line without a line end past the bound is refused while read, naming the line and the bound', () => {
    const refusal = (chunks: string[]) => {
      try {
        split(chunks);
        return undefined;
      } catch (e) {
        return { line: (e as DomainError).extensions.line, detail: (e as DomainError).message };
      }
    };
    const chunk = 'x'.repeat(16 * 1024);
    const many = (n: number, s: string) => Array.from({ length: n }, () => s);
    // a quoted field that runs on, after a good line
    expect(refusal(['a;b\n1;"', ...many(5, chunk)])).toEqual({ line: 2, detail: expect.stringContaining(`longer than ${CSV_MAX_LINE} characters`) });
    // one line of separators, and a first line with no line end at all
    expect(refusal(['a;b\n', ...many(5, ';'.repeat(16 * 1024))])?.line).toBe(2);
    expect(refusal(many(5, chunk))?.line).toBe(1);
    // exactly the bound is still a line
    expect(split([`${'y'.repeat(CSV_MAX_LINE - 2)};z\n1;2`]).records.map((r) => r.cells.length)).toEqual([2, 2]);
  });
  it('a NUL or another control character is refused by line; tab, CR and LF are text', () => {
    expect(() => split(['a;b\n1;2\n3;x\u0000y\n'])).toThrow(/Line 3, body: the text contains the control character U\+0000/);
    expect(() => split(['a;b\n"1\n\u001B";2\n'])).toThrow(/Line 3, .*U\+001B/);
    expect(split(['a\tb\r\n1\t2']).records).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
    ]);
  });
});

describe('presetByHeader', () => {
  it('finds the bank whose whole header the file has, the most specific first', () => {
    expect(presetByHeader(['\ufeffDato', 'Tekst', 'Beløb', 'Saldo', 'Status', 'Afstemt'])).toBe('danske_bank');
    expect(presetByHeader(['dato', 'TEKST', 'beløb', 'saldo', 'status', 'afstemt', 'Ekstra'])).toBe('danske_bank');
    expect(presetByHeader(['Dato', 'Tekst', 'Beløb'])).toBeUndefined();
  });
});

describe('parseCsv', () => {
  it('reads a preset file in Windows-1252, oldest first, with its running balance', async () => {
    const text = 'Dato;Tekst;Beløb;Saldo;Status;Afstemt\n01-03-2026;Løn;100,00;1.100,00;;\n02-03-2026;Gebyr;-10,00;1.090,00;;\n';
    const cp1252 = Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
    const { lines, head } = await parse(cp1252);
    expect(lines.map((l) => [l.n, l.booking_date, l.amount.toFixed(2), l.text])).toEqual([
      [2, '2026-03-01', '100.00', 'Løn'],
      [3, '2026-03-02', '-10.00', 'Gebyr'],
    ]);
    expect(head).toMatchObject({ format: 'csv:danske_bank', from_date: '2026-03-01', to_date: '2026-03-02', balance_status: 'ok' });
    expect([head.opening?.toFixed(2), head.closing?.toFixed(2)]).toEqual(['1000.00', '1090.00']);
  });
  it('counts lines physically: a quoted line break moves the next line number', async () => {
    const { lines } = await parse('Dato;Tekst;Beløb\n01-03-2026;"to\nlinjer";1,00\n02-03-2026;x;2,00', {
      date_column: 'Dato',
      amount_column: 'Beløb',
      text_column: 'Tekst',
    });
    expect(lines.map((l) => [l.n, l.text])).toEqual([
      [2, 'to\nlinjer'],
      [4, 'x'],
    ]);
  });
  it('skips preamble lines and reads columns by number', async () => {
    const { lines, head } = await parse('Kontoudtog,1234\nDato,Beløb\n05.03.2026,"-1.000,50"', { header_rows: '2', date_column: '1', amount_column: 'beløb' });
    expect(lines.map((l) => l.amount.toFixed(2))).toEqual(['-1000.50']);
    expect(head).toMatchObject({ format: 'csv', balance_status: 'not_stated' });
  });
  it('refuses by line and column', async () => {
    const head = 'Dato;Tekst;Beløb;Saldo;Status;Afstemt\n';
    expect(await failure(parse(`${head}01-03-2026;x;1,00;;;\n02-03-2026;y;1,2,3;;;`))).toMatchObject({ code: 'bank_file_invalid', line: 3, field: 'Beløb' });
    expect(await failure(parse(`${head}01-03-2026;x;1,00;abc;;`))).toMatchObject({ line: 2, field: 'Saldo' });
    expect(await failure(parse('Foo;Bar\n1;2'))).toMatchObject({ field: 'preset' });
    expect(await failure(parse('Dato;Beløb\n01-03-2026;1,00', { date_column: 'Dato' }))).toMatchObject({ field: 'amount_column' });
    expect(await failure(parse(''))).toMatchObject({ field: 'body' });
  });
  it('reads a decimal point where the comma cannot read the amount, and refuses a file that writes both', async () => {
    const { lines, head } = await parse('Bogført;Tekst;Beløb;Saldo\n2026-11-26;Ind;1500.00;2500.00\n2026-11-27;Ud;-125.5;2374.50\n');
    expect(lines.map((l) => l.amount.toFixed(2))).toEqual(['1500.00', '-125.50']);
    expect(head).toMatchObject({ format: 'csv:header', balance_status: 'ok' });
    expect(await failure(parse('Dato;Tekst;Beløb\n26-11-2026;a;1,50\n27-11-2026;b;2.50'))).toMatchObject({
      code: 'bank_file_invalid',
      field: 'decimal_separator',
      detail: expect.stringContaining('line 2: "1,50"') as unknown,
    });
    // Said outright, the separator is the only reading.
    expect(await failure(parse('Dato;Tekst;Beløb\n26-11-2026;a;2.50', { decimal_separator: ',' }))).toMatchObject({ field: 'Beløb' });
  });
});
