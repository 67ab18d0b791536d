// Pure rules of the Danish SAF-T Financial file: the export period, the account type mapping, the
// schema's text limits, XML text escaping, balances on their side and accounting periods.
import { invalidRequest } from '../errors.ts';
import { CVR_SHAPE } from '../identifiers/cvr.ts';
import { fiscalYearContaining } from '../ledger/fiscal-years.ts';
import type { AccountType } from '../ledger/standard-chart.ts';
import { fromOere, toOere } from '../money.ts';

/** The schema's text types, by maximum length in characters. */
export const SAFT_TEXT = { code: 9, short: 18, middle1: 35, middle2: 70, long: 256 } as const;

/** The schema's PeriodYear runs from 1970 to 2100. */
const SAFT_FIRST_DAY = '1970-01-01';
const SAFT_LAST_DAY = '2100-12-31';

export interface SaftPeriod {
  from: string;
  to: string;
}

/**
 * The selection period. Both bounds are inclusive calendar days. Without both: the fiscal year
 * containing today; with one: the fiscal year containing that bound supplies the other.
 */
export function saftPeriod(params: { from?: string | undefined; to?: string | undefined }, fiscalYearStartMonth: number, today: string): SaftPeriod {
  const from = params.from ?? fiscalYearContaining(params.to ?? today, fiscalYearStartMonth).start;
  const to = params.to ?? fiscalYearContaining(params.from ?? today, fiscalYearStartMonth).end;
  for (const [field, value] of [
    ['from', params.from],
    ['to', params.to],
  ] as const) {
    if (value !== undefined && (value < SAFT_FIRST_DAY || value > SAFT_LAST_DAY)) {
      throw invalidRequest(`${field} must lie between ${SAFT_FIRST_DAY} and ${SAFT_LAST_DAY} (the accounting years SAF-T can express).`, field);
    }
  }
  if (from > to) throw invalidRequest(`from (${from}) must not be after to (${to}).`, 'from');
  return { from, to };
}

export type SaftAccountType = 'Asset' | 'Liability' | 'Sale' | 'Expense' | 'Other';

/**
 * The schema's AccountType. Equity sits with liabilities on the credit side of the balance sheet
 * (passiver), so it is Liability; Other is kept for a type this mapping does not know.
 */
export function saftAccountType(type: AccountType | string): SaftAccountType {
  switch (type) {
    case 'asset':
      return 'Asset';
    case 'liability':
    case 'equity':
      return 'Liability';
    case 'revenue':
      return 'Sale';
    case 'expense':
      return 'Expense';
    default:
      return 'Other';
  }
}

// Characters XML 1.0 does not allow (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/F).
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const HAS_NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * Text that fits a schema text type: characters XML cannot carry are dropped, and text longer than
 * `max` characters (Unicode code points, as XSD counts them) is cut at `max`.
 */
export function fit(text: string | null | undefined, max: number): string {
  let s = text ?? '';
  if (HAS_NOT_XML.test(s)) s = s.replace(NOT_XML, '');
  // A UTF-16 length within the limit means the code point count is too.
  if (s.length <= max) return s;
  const points = Array.from(s);
  return points.length <= max ? s : points.slice(0, max).join('');
}

/** Escapes character data (the same three characters xmlbuilder2 escapes in text). */
export function escapeText(s: string): string {
  if (!/[&<>]/.test(s)) return s;
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** fit + escape: ready to place between tags. */
export const xmlText = (text: string | null | undefined, max: number) => escapeText(fit(text, max));

/**
 * A Danish CVR number as the schema's DanishCvrNumber allows it (10000000 to 99999999): the CVR module's
 * shape. New numbers also pass its modulus 11 check; one stored before that rule is exported as it is.
 */
export const isCvr = (s: string | null | undefined): s is string => !!s && CVR_SHAPE.test(s);

/** A signed balance (debit positive) as the schema's Debit/Credit choice with a non-negative amount. */
export function balanceSide(balance: string): { side: 'Debit' | 'Credit'; amount: string } {
  const oere = toOere(balance);
  return oere < 0n ? { side: 'Credit', amount: fromOere(-oere) } : { side: 'Debit', amount: fromOere(oere) };
}

/**
 * The accounting period of a date: the month of the fiscal year (1 = its first month) and the
 * calendar year in which that fiscal year starts. With a calendar fiscal year these are the
 * calendar month and year.
 */
export function accountingPeriod(date: string, fiscalYearStartMonth: number): { period: number; year: number } {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  return { period: ((m - fiscalYearStartMonth + 12) % 12) + 1, year: m >= fiscalYearStartMonth ? y : y - 1 };
}

/** A UUID (36 characters) as the 32 hex digits that fit SAFmiddle1textType (35) identifiers. */
export const compactId = (uuid: string) => uuid.replace(/-/g, '');

/** An export's attachment name: <kind>-<CVR or company id>-<from>-<to>.<ext>. */
export function exportFilename(kind: string, company: { id: string; cvr: string | null }, period: SaftPeriod, ext: string): string {
  const who = company.cvr && /^[0-9A-Za-z]+$/.test(company.cvr) ? company.cvr : company.id;
  return `${kind}-${who}-${period.from}-${period.to}.${ext}`;
}

/** The SAF-T file's name: saft-<CVR or company id>-<from>-<to>.xml. */
export const saftFilename = (company: { id: string; cvr: string | null }, period: SaftPeriod) => exportFilename('saft', company, period, 'xml');
