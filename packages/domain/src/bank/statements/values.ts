// The values of a bank file as written (Danish CSV: "1.234,50", "31-01-2026"; camt.053: "1234.50",
// "2026-01-31") read into amounts and dates, with the reason when one cannot be. Pure.
import { checkDate, readDateOrDateTime, ymd } from '../../calendar.ts';
import { Decimal, parseDecimalText } from '../../money.ts';

export const DATE_FORMATS = ['dd-mm-yyyy', 'dd.mm.yyyy', 'dd/mm/yyyy', 'yyyy-mm-dd', 'yyyy/mm/dd'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

const DAY_FIRST = /^(\d{1,2})([-./])(\d{1,2})\2(\d{4})$/;
const YEAR_FIRST = /^(\d{4})([-./])(\d{1,2})\2(\d{1,2})$/;

/**
 * A date as Danish banks write it: day first (dd-mm-yyyy, dd.mm.yyyy, dd/mm/yyyy) or year first
 * (yyyy-mm-dd, yyyy/mm/dd). Without a format both are read (the four-digit year tells which); with one,
 * only it. Answers YYYY-MM-DD or the reason.
 */
export function readDate(text: string, format?: DateFormat): string | { problem: string } {
  const t = text.trim();
  const day = DAY_FIRST.exec(t);
  const year = day ? null : YEAR_FIRST.exec(t);
  const sep = day?.[2] ?? year?.[2];
  const fits = format === undefined || ((format.startsWith('yyyy') ? !!year : !!day) && format.includes(sep!));
  if ((!day && !year) || !fits) return { problem: `${JSON.stringify(t)} is not a date ${format ?? 'dd-mm-yyyy, dd.mm.yyyy or yyyy-mm-dd'}` };
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
