// The values of a bank file as written (Danish CSV: "1.234,50", "31-01-2026"; camt.053: "1234.50",
// "2026-01-31") read into amounts and dates, with the reason when one cannot be. Pure.
import { checkDate, readDateOrDateTime, ymd } from '../../calendar.ts';
import { Decimal, parseDecimalText } from '../../money.ts';

export const DATE_FORMATS = ['dd-mm-yyyy', 'dd.mm.yyyy', 'dd/mm/yyyy', 'yyyy-mm-dd', 'yyyy/mm/dd', 'yyyymmdd', 'ddmmyyyy', 'ddmmyy'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

const DAY_FIRST = /^(\d{1,2})([-./])(\d{1,2})\2(\d{4})$/;
const YEAR_FIRST = /^(\d{4})([-./])(\d{1,2})\2(\d{1,2})$/;
const COMPACT = /^\d{6}$|^\d{8}$/;

/**
 * A compact date: eight digits year first (20261127) or day first (27112026), six digits day first
 * with the year of this century (271126). Never ambiguous: an eight-digit date read the other way has a
 * year before 1900 (calendar.ts refuses it). Answers YYYY-MM-DD, or undefined when it is none.
 */
function compactDate(t: string, format: DateFormat | undefined): string | undefined {
  const n = (from: number, to: number) => Number(t.slice(from, to));
  const tries: [DateFormat, string][] =
    t.length === 6
      ? [['ddmmyy', ymd(2000 + n(4, 6), n(2, 4), n(0, 2))]]
      : [
          ['yyyymmdd', ymd(n(0, 4), n(4, 6), n(6, 8))],
          ['ddmmyyyy', ymd(n(4, 8), n(2, 4), n(0, 2))],
        ];
  return tries.find(([f, date]) => (format === undefined || format === f) && checkDate(date) === undefined)?.[1];
}

/**
 * A date as Danish banks write it: day first (dd-mm-yyyy, dd.mm.yyyy, dd/mm/yyyy), year first
 * (yyyy-mm-dd, yyyy/mm/dd) or compact (yyyymmdd, ddmmyyyy, ddmmyy). Without a format all are read (the
 * four-digit year tells which); with one, only it. Answers YYYY-MM-DD or the reason.
 */
export function readDate(text: string, format?: DateFormat): string | { problem: string } {
  const t = text.trim();
  const expected = format ?? 'dd-mm-yyyy, dd.mm.yyyy, yyyy-mm-dd, yyyymmdd or ddmmyy';
  if (COMPACT.test(t)) {
    const date = compactDate(t, format);
    return date ?? { problem: `${JSON.stringify(t)} is not a date ${expected}` };
  }
  const day = DAY_FIRST.exec(t);
  const year = day ? null : YEAR_FIRST.exec(t);
  const sep = day?.[2] ?? year?.[2];
  const fits = format === undefined || ((format.startsWith('yyyy') ? !!year : !!day) && format.includes(sep!));
  if ((!day && !year) || !fits) return { problem: `${JSON.stringify(t)} is not a date ${expected}` };
  const date = day ? ymd(Number(day[4]), Number(day[3]), Number(day[1])) : ymd(Number(year![1]), Number(year![3]), Number(year![4]));
  const problem = checkDate(date);
  return problem ? { problem: `${JSON.stringify(t)} ${problem.replace(/^must be/, 'is not')}` } : date;
}

/** A camt.053 Dt (YYYY-MM-DD) or DtTm (YYYY-MM-DDThh:mm:ss[offset]): the date the bank wrote, no zone shifted. */
export function readIsoDate(text: string): string | { problem: string } {
  const t = text.trim();
  const read = readDateOrDateTime(t);
  return 'problem' in read ? { problem: `${JSON.stringify(t)}: ${read.problem}` } : read.date;
}

/**
 * An amount as a Danish bank writes it: decimal comma with `.` (or a space) between thousands, or, with
 * decimal '.', the other way round; a leading minus (or U+2212) or a trailing one. At most 2 decimals
 * and 15 integer digits (money.ts), like every amount.
 */
export function readAmount(text: string, decimal: ',' | '.' = ','): Decimal | { problem: string } {
  const thousands = decimal === ',' ? '.' : ',';
  let t = text
    .trim()
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(/\u2212/g, '-');
  let negative = false;
  if (t.startsWith('-') || t.startsWith('+')) {
    negative = t.startsWith('-');
    t = t.slice(1);
  } else if (t.endsWith('-')) {
    negative = true;
    t = t.slice(0, -1);
  }
  const [whole = '', fraction, extra] = t.split(decimal);
  const grouped = whole.includes(thousands) ? /^\d{1,3}(\.\d{3})+$/.test(whole.replaceAll(thousands, '.')) : /^\d+$/.test(whole);
  if (!t || extra !== undefined || !grouped || (fraction !== undefined && !/^\d+$/.test(fraction))) {
    return {
      problem: `${JSON.stringify(text.trim())} is not an amount (decimal ${decimal === ',' ? 'comma' : 'point'}${decimal === ',' ? ', thousands .' : ''})`,
    };
  }
  const parsed = parseDecimalText(`${negative ? '-' : ''}${whole.replaceAll(thousands, '')}${fraction === undefined ? '' : `.${fraction}`}`);
  return typeof parsed === 'string' ? { problem: `${JSON.stringify(text.trim())}: ${parsed}` } : parsed;
}

/** camt.053 amounts: ISO 20022 decimals (a point, no sign, no grouping), read by money.ts's rule. */
export function readIsoAmount(text: string): Decimal | { problem: string } {
  const t = text.trim();
  // The sign is CdtDbtInd's.
  const parsed = t.startsWith('-') ? 'must be a decimal number without a sign' : parseDecimalText(t);
  return typeof parsed === 'string' ? { problem: `${JSON.stringify(t)}: ${parsed}` } : parsed;
}

export const isProblem = (v: unknown): v is { problem: string } => typeof v === 'object' && v !== null && 'problem' in v;

export const ZERO = new Decimal(0);
