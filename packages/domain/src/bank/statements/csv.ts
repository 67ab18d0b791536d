// The CSV export of a Danish bank, read as it streams: decoded (UTF-8 with or without a BOM, or
// Windows-1252), split into records (RFC 4180 quoting, a quoted field may hold the separator or a line
// break), the columns found by a preset or a mapping, each line read into a bank line, and the running
// balance checked where the file gives one. Memory holds one chunk and its records, never the file.
import { Decimal } from '../../money.ts';
import { fileError, type BankFileLine, type BankFileParser, type StatementHead } from './types.ts';
import { CSV_PRESETS, SEPARATORS, mappingOf, type BankImportOptions, type CsvColumn, type CsvMapping, type CsvPresetName } from './options.ts';
import { columnsByName, headerKey } from './columns.ts';
import { isProblem, readAmount, readDate } from './values.ts';

interface CsvRecord {
  /** The physical line the record starts on (1-based). */
  line: number;
  cells: string[];
}

/** The splitter's states: at a field's start, in an unquoted field, in a quoted one, just after a quote in a quoted one. */
const State = { FieldStart: 0, Unquoted: 1, Quoted: 2, QuoteInQuoted: 3 } as const;
type State = (typeof State)[keyof typeof State];

/**
 * The most characters one record (a line, or the lines a quoted field spans) may have, separators and
 * quotes counted: a real bank line is a few hundred characters; this bounds a field, the cells of a
 * line and the text read before the separator is chosen, as the text arrives (decision 460).
 */
export const CSV_MAX_LINE = 64 * 1024;

/** C0 control characters other than tab, line feed and carriage return: no bank export has them (a NUL is binary data). */
// eslint-disable-next-line no-control-regex -- these are exactly the characters refused
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/**
 * RFC 4180 records from text chunks; the separator is chosen from the first line unless given. A field
 * grows by slices of the chunk, never character by character, and a record past CSV_MAX_LINE characters
 * or a control character is refused where it stands (400 bank_file_invalid naming the line).
 */
export class CsvSplitter {
  private state: State = State.FieldStart;
  private field = '';
  private cells: string[] = [];
  private line = 1;
  private recordLine = 1;
  /** Characters of the current record read so far. */
  private size = 0;
  private head = '';
  private sep: string | undefined;
  constructor(sep: string | undefined) {
    this.sep = sep;
  }

  get separator(): string | undefined {
    return this.sep;
  }

  push(text: string, out: CsvRecord[]): void {
    if (this.sep === undefined) {
      this.head += text;
      if (this.head.length <= CSV_MAX_LINE && !text.includes('\n')) return;
      text = this.decide();
    }
    const bad = CONTROL.exec(text);
    this.scan(text, bad ? bad.index : text.length, out);
    if (bad) {
      const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      throw fileError({ kind: 'line', n: this.line }, 'body', `the text contains the control character U+${code}, which a bank's CSV export does not have`);
    }
  }

  private scan(text: string, end: number, out: CsvRecord[]): void {
    const sep = this.sep!;
    let i = 0;
    while (i < end) {
      const from = i;
      switch (this.state) {
        case State.FieldStart:
          if (text[i] === '"') {
            this.state = State.Quoted;
            i++;
            break;
          }
          this.state = State.Unquoted;
        // falls through: the character starts an unquoted field
        case State.Unquoted: {
          let j = i;
          while (j < end) {
            const c = text[j];
            if (c === sep || c === '\n' || c === '\r') break;
            j++;
          }
          this.take(text, i, j, from);
          i = j;
          if (j < end) {
            const c = text[j];
            i++;
            this.size++;
            if (c === sep) this.endField();
            else if (c === '\n') this.endRecord(out);
          }
          continue;
        }
        case State.Quoted: {
          let j = i;
          while (j < end && text[j] !== '"' && text[j] !== '\n') j++;
          this.take(text, i, j, from);
          i = j;
          if (j < end) {
            i++;
            this.size++;
            if (text[j] === '"') this.state = State.QuoteInQuoted;
            else {
              this.line++;
              this.field += '\n';
            }
          }
          continue;
        }
        case State.QuoteInQuoted: {
          const c = text[i]!;
          i++;
          if (c === '"') {
            this.field += '"';
            this.state = State.Quoted;
          } else if (c === sep) this.endField();
          else if (c === '\n') {
            this.size++;
            this.endRecord(out);
            continue;
          } else if (c !== '\r') {
            // Text after a closing quote ("abc"def): kept, as spreadsheets do.
            this.field += c;
            this.state = State.Unquoted;
          }
          break;
        }
      }
      this.size += i - from;
      if (this.size > CSV_MAX_LINE) this.tooLong();
    }
  }

  /** Adds text[i, j) to the field; `from` is where this step started (a quote before i counts too). */
  private take(text: string, i: number, j: number, from: number) {
    this.size += j - from;
    if (this.size > CSV_MAX_LINE) this.tooLong();
    if (j > i) this.field += text.slice(i, j);
  }

  private tooLong(): never {
    throw fileError(
      { kind: 'line', n: this.recordLine },
      'body',
      `the line is longer than ${CSV_MAX_LINE} characters, the most a line of a bank's CSV export may have${this.state === State.Quoted ? ' (a quoted field that is not closed runs on)' : ''}`,
    );
  }

  /** The end of the text: the last record, unless it is inside an open quote (openQuote tells). */
  end(out: CsvRecord[]): void {
    if (this.sep === undefined) this.push(this.decide(), out);
    if (this.state !== State.Quoted && (this.state !== State.FieldStart || this.cells.length || this.field)) this.endRecord(out);
  }

  /** The first line decides the separator: ';' if it has one (outside quotes), else a tab, else ','. Answers the text held back meanwhile. */
  private decide(): string {
    const end = this.head.indexOf('\n');
    const first = (end < 0 ? this.head : this.head.slice(0, end)).replace(/"[^"]*"/g, '');
    this.sep = first.includes(';') ? ';' : first.includes('\t') ? '\t' : ',';
    const text = this.head;
    this.head = '';
    return text;
  }

  /** An unterminated quote at the end of the file. */
  get openQuote(): number | undefined {
    return this.state === State.Quoted ? this.recordLine : undefined;
  }

  private endField() {
    this.cells.push(this.field);
    this.field = '';
    this.state = State.FieldStart;
  }

  private endRecord(out: CsvRecord[]) {
    this.endField();
    // A blank line is no record (a trailing newline, a spacer between a preamble and the header).
    if (this.cells.length > 1 || this.cells[0] !== '') out.push({ line: this.recordLine, cells: this.cells });
    this.cells = [];
    this.size = 0;
    this.line++;
    this.recordLine = this.line;
  }
}

const norm = (s: string) =>
  s
    .replace(/^\ufeff/, '')
    .trim()
    .toLowerCase();

/** The preset whose header names the file's header holds, the most specific first; none, or several equally good: undefined. */
export function presetByHeader(header: readonly string[]): CsvPresetName | undefined {
  const have = new Set(header.map(norm));
  const fits = (Object.entries(CSV_PRESETS) as [CsvPresetName, (typeof CSV_PRESETS)[CsvPresetName]][])
    .filter(([, p]) => p.headers.every((h) => have.has(norm(h))))
    .sort((a, b) => b[1].headers.length - a[1].headers.length);
  if (!fits.length || (fits.length > 1 && fits[0]![1].headers.length === fits[1]![1].headers.length)) return undefined;
  return fits[0]![0];
}

interface Columns {
  index: Partial<Record<CsvColumn, number>>;
  /** What a column is called in messages: its header name, or "column 3". */
  name: (c: CsvColumn) => string;
}

/** The parameter a column of the mapping came from, for a 400 that names it. */
const paramOf = (c: CsvColumn) => `${c}_column`;

function resolveColumns(mapping: CsvMapping, header: readonly string[] | undefined, fromPreset: CsvPresetName | undefined): Columns {
  const index: Partial<Record<CsvColumn, number>> = {};
  const names = header?.map(norm) ?? [];
  for (const [c, ref] of Object.entries(mapping) as [CsvColumn, string][]) {
    let i: number;
    if (/^\d+$/.test(ref)) i = Number(ref) - 1;
    else {
      i = names.indexOf(norm(ref));
      if (i < 0) {
        throw fileError(
          null,
          fromPreset ? 'preset' : paramOf(c),
          header
            ? `${fromPreset ? `the ${fromPreset} layout's column` : 'the column'} ${JSON.stringify(ref)} is not in the header (it has ${header.map((h) => JSON.stringify(h.trim())).join(', ')})`
            : 'with header_rows=0 columns are named by number',
        );
      }
    }
    if (i < 0) throw fileError(null, paramOf(c), 'column numbers start at 1');
    index[c] = i;
  }
  return { index, name: (c) => header?.[index[c]!]?.trim() || `column ${index[c]! + 1}` };
}

/**
 * Reads the mapping: a preset (with the parameters overriding its columns), the parameters alone (with
 * date_column), the preset the header names, or else the header's own column names (columns.ts).
 */
function chooseMapping(
  o: BankImportOptions,
  header: readonly string[] | undefined,
): { mapping: CsvMapping; preset: CsvPresetName | undefined; byName: boolean } {
  const given = mappingOf(o);
  const preset = o.preset ?? (given.date ? undefined : header && presetByHeader(header));
  let byName = false;
  let mapping: CsvMapping = { ...(preset ? CSV_PRESETS[preset].mapping : {}), ...given };
  if (!preset && !given.date) {
    const read = header ? columnsByName(header, given) : { missing: ['a header (header_rows=0)'] };
    if ('missing' in read) {
      throw fileError(
        null,
        'preset',
        `The CSV header (${header?.map((h) => JSON.stringify(h.trim())).join(', ') ?? 'none'}) is no known bank's export and does not name ${read.missing.join(', ')}: name the preset (${Object.keys(CSV_PRESETS).join(', ')}) or map the columns (date_column and amount_column, or debit_column and credit_column).`,
      );
    }
    mapping = { ...read.mapping, ...given };
    byName = true;
  }
  if (!mapping.date) throw fileError(null, 'date_column', 'date_column is required with a column mapping');
  if (mapping.amount && (given.debit || given.credit)) delete mapping.amount;
  if (!mapping.amount && !(mapping.debit && mapping.credit)) {
    throw fileError(null, 'amount_column', 'give amount_column, or debit_column and credit_column');
  }
  if (mapping.amount) {
    delete mapping.debit;
    delete mapping.credit;
  }
  return { mapping, preset, byName };
}

/** The format a statement is stored with: the preset's, the header's names', or a mapping of one's own. */
const formatOf = (preset: CsvPresetName | undefined, byName: boolean) => (preset ? `csv:${preset}` : byName ? 'csv:header' : 'csv');

/** The running balance, checked in both orders: banks export oldest first or newest first. */
class RunningBalance {
  private first: { amount: Decimal; balance: Decimal; date: string } | undefined;
  private last: { amount: Decimal; balance: Decimal; date: string } | undefined;
  private prev: { amount: Decimal; balance: Decimal } | undefined;
  private pairs = 0;
  /** Oldest first: prev.balance + amount = balance. Newest first: balance + prev.amount = prev.balance. */
  private forward: Decimal | null = null;
  private backward: Decimal | null = null;

  add(amount: Decimal, balance: Decimal | null, date: string) {
    if (balance === null) {
      this.prev = undefined;
      return;
    }
    const entry = { amount, balance, date };
    this.first ??= entry;
    this.last = entry;
    if (this.prev) {
      this.pairs++;
      const f = balance.minus(this.prev.balance.plus(amount));
      if (!f.isZero()) this.forward ??= f;
      const b = this.prev.balance.minus(balance.plus(this.prev.amount));
      if (!b.isZero()) this.backward ??= b;
    }
    this.prev = entry;
  }

  head(): Pick<StatementHead, 'opening' | 'closing' | 'balance_status' | 'balance_difference'> {
    const { first, last } = this;
    if (!first || !last) return { opening: null, closing: null, balance_status: 'not_stated', balance_difference: null };
    // The order the dates say, unless only the other order adds up.
    let newestFirst = first.date > last.date;
    if (this.forward === null && this.backward !== null) newestFirst = false;
    if (this.backward === null && this.forward !== null) newestFirst = true;
    const [oldest, newest] = newestFirst ? [last, first] : [first, last];
    const difference = newestFirst ? this.backward : this.forward;
    return {
      opening: oldest.balance.minus(oldest.amount),
      closing: newest.balance,
      balance_status: this.pairs === 0 ? 'not_stated' : difference === null ? 'ok' : 'mismatch',
      balance_difference: this.pairs === 0 ? null : difference,
    };
  }
}

/**
 * Parses a CSV bank export. `utf8`: whether the whole file is valid UTF-8 (found while it was staged),
 * for the default encoding; `currency`: the bank account's, which a currency column must show.
 */
export async function* parseCsv(source: AsyncIterable<Uint8Array>, o: BankImportOptions, ctx: { utf8: boolean; currency: string }): BankFileParser {
  const encoding = o.encoding === 'iso-8859-1' ? 'windows-1252' : (o.encoding ?? (ctx.utf8 ? 'utf-8' : 'windows-1252'));
  const decoder = new TextDecoder(encoding, { fatal: true });
  const splitter = new CsvSplitter(o.separator ? SEPARATORS[o.separator] : undefined);
  const headerRows = o.header_rows ?? 1;
  // Without decimal_separator: the decimal comma, else a decimal point where the comma cannot read the
  // amount (1234.50); a file that needs both is refused rather than read two ways (decision 664).
  const decimalGiven = o.decimal_separator;
  const evidence: Partial<Record<',' | '.', { line: number; text: string }>> = {};
  const readCsvAmount = (text: string, line: number): Decimal | { problem: string } => {
    if (decimalGiven) return readAmount(text, decimalGiven);
    const comma = readAmount(text, ',');
    // The point is the decimal only where it stands before the last one or two digits (1234.5, 1,234.50).
    const point = isProblem(comma) && /\.\d{1,2}-?\s*$/.test(text) ? readAmount(text, '.') : comma;
    if (isProblem(point)) return comma;
    const sep = isProblem(comma) ? '.' : text.includes(',') ? ',' : undefined;
    if (sep) {
      evidence[sep] ??= { line, text: text.trim() };
      const other = evidence[sep === ',' ? '.' : ','];
      if (other) {
        const [c, p] = sep === ',' ? [evidence[',']!, other] : [other, evidence['.']!];
        throw fileError(
          null,
          'decimal_separator',
          `The file writes amounts both with a decimal comma (line ${c.line}: ${JSON.stringify(c.text)}) and with a decimal point (line ${p.line}: ${JSON.stringify(p.text)}): send decimal_separator=, or decimal_separator=.`,
        );
      }
    }
    return point;
  };
  let seen = 0;
  let header: string[] | undefined;
  let columns: Columns | undefined;
  let preset: CsvPresetName | undefined;
  let byName = false;
  let from: string | null = null;
  let to: string | null = null;
  const balance = new RunningBalance();

  const decode = (bytes?: Uint8Array) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw fileError(null, 'encoding', 'The file is not valid UTF-8 text: send encoding=windows-1252 if it is Windows-1252');
    }
  };

  const read = (r: CsvRecord): BankFileLine | undefined => {
    const where = { kind: 'line', n: r.line } as const;
    const cols = columns!;
    const cell = (c: CsvColumn) => {
      const i = cols.index[c];
      return i === undefined ? '' : (r.cells[i] ?? '').trim();
    };
    if (r.cells.every((v) => v.trim() === '')) return undefined;
    const need = (c: CsvColumn) => {
      const i = cols.index[c];
      if (i !== undefined && i >= r.cells.length) throw fileError(where, cols.name(c), `the line has ${r.cells.length} columns, not column ${i + 1}`);
      return cell(c);
    };
    const date = readDate(need('date'), o.date_format);
    if (isProblem(date)) throw fileError(where, cols.name('date'), date.problem);
    const valueText = cols.index.value_date === undefined ? '' : cell('value_date');
    const valueDate = valueText ? readDate(valueText, o.date_format) : null;
    if (isProblem(valueDate)) throw fileError(where, cols.name('value_date'), valueDate.problem);
    const amountOf = (c: CsvColumn) => {
      const a = readCsvAmount(need(c), r.line);
      if (isProblem(a)) throw fileError(where, cols.name(c), a.problem);
      return a;
    };
    let amount: Decimal;
    if (cols.index.amount !== undefined) amount = amountOf('amount');
    else {
      const [debit, credit] = [need('debit'), need('credit')];
      if (!debit && !credit) throw fileError(where, `${cols.name('debit')}/${cols.name('credit')}`, 'neither column has an amount');
      amount = (credit ? amountOf('credit').abs() : new Decimal(0)).minus(debit ? amountOf('debit').abs() : 0);
    }
    const currency = cell('currency').toUpperCase();
    if (currency && currency !== ctx.currency) {
      throw fileError(where, cols.name('currency'), `the line is in ${currency}; the bank account is in ${ctx.currency}`);
    }
    const balanceText = cols.index.balance === undefined ? '' : cell('balance');
    const stated = balanceText ? readCsvAmount(balanceText, r.line) : null;
    if (isProblem(stated)) throw fileError(where, cols.name('balance'), stated.problem);
    balance.add(amount, stated, date);
    if (from === null || date < from) from = date;
    if (to === null || date > to) to = date;
    return {
      n: r.line,
      booking_date: date,
      value_date: valueDate,
      amount,
      text: cell('text'),
      counterparty_name: cell('counterparty'),
      counterparty_iban: '',
      reference: cell('reference'),
      bank_reference: '',
    };
  };

  // The header line again inside the file (exports stitched from pages or periods): skipped, not a line.
  let headerKeys: string | undefined;
  let firstKey = '';
  // The first cell decides cheaply; only a record that starts as the header is compared whole.
  const isHeader = (r: CsvRecord) =>
    headerKeys !== undefined &&
    r.cells.length === header!.length &&
    headerKey(r.cells[0] ?? '') === firstKey &&
    r.cells.map(headerKey).join('\u0000') === headerKeys;

  const take = (records: CsvRecord[]): BankFileLine[] => {
    const lines: BankFileLine[] = [];
    for (const r of records) {
      seen++;
      if (seen <= headerRows) {
        if (seen === headerRows) {
          header = r.cells;
          headerKeys = r.cells.map(headerKey).join('\u0000');
          firstKey = headerKey(r.cells[0] ?? '');
        }
        continue;
      }
      if (!columns) {
        const chosen = chooseMapping(o, header);
        preset = chosen.preset;
        byName = chosen.byName;
        columns = resolveColumns(chosen.mapping, header, o.preset && !mappingOf(o).date ? o.preset : undefined);
      }
      if (isHeader(r)) continue;
      const line = read(r);
      if (line) lines.push(line);
    }
    return lines;
  };

  for await (const chunk of source) {
    const records: CsvRecord[] = [];
    splitter.push(decode(chunk), records);
    const lines = take(records);
    if (lines.length) yield lines;
  }
  const records: CsvRecord[] = [];
  splitter.push(decode(), records);
  splitter.end(records);
  if (splitter.openQuote !== undefined) throw fileError({ kind: 'line', n: splitter.openQuote }, 'quote', 'a quoted field is never closed');
  const lines = take(records);
  if (lines.length) yield lines;
  if (seen === 0) throw fileError(null, 'body', 'The file has no lines.');
  // A header with no lines still says which layout it is.
  if (!columns) ({ preset, byName } = chooseMapping(o, header));
  return { format: formatOf(preset, byName), statement_ref: '', from_date: from, to_date: to, ...balance.head() };
}
