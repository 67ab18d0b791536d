// Pure posting rules: the shape of a valid set of lines, the balance check (exact decimal
// arithmetic) and the lines of a reversal. The posting function and every producer rely on these.
import { AMOUNT_DECIMALS, Decimal, MAX_AMOUNT } from '../money.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { VAT_ACCOUNT_NUMBERS } from '../vat/codes.ts';
import { foreignMismatch, type ForeignAmount } from '../currency/rules.ts';
import type { LineDimensions } from '../dimensions/schema.ts';

/** An account's number in a company's chart: 1 to 10 digits (the standard chart's have 4). */
export const ACCOUNT_NUMBER = /^\d{1,10}$/;

export interface PostingLine {
  accountId: string;
  /** The account's number and name when the caller has read them already (the view shows them); else the posting reads them. */
  account?: { account_number: string; name: string };
  debit: Decimal;
  credit: Decimal;
  description: string;
  vatCode: string;
  /**
   * A registration in foreign currency (bogføringsloven § 15): its currency, the amount in it and the rate.
   * debit/credit stay the DKK amount and must be exactly toDkk(amount, rate) (assertPostable).
   */
  foreign?: ForeignAmount | undefined;
  /** The line's dimensions, a value code per dimension name ({"Projekt": "A"}): checked and stored by the writer (dimensions/catalogue.ts). */
  dimensions?: LineDimensions | undefined;
}

export const unbalanced = (debit: Decimal, credit: Decimal) =>
  new DomainError('unbalanced_transaction', `Total debit ${debit.toFixed(2)} does not equal total credit ${credit.toFixed(2)}.`, 'lines');

/** The field a refusal of a posting's `i`th line names (lines[2]); lineOfField reads it back. */
export const lineField = (i: number) => `lines[${i}]`;
/** The line a refusal names (lineField), or undefined when it names the posting as a whole. */
export const lineOfField = (field: string | undefined): number | undefined => {
  const m = /^lines\[(\d+)\]/.exec(field ?? '');
  return m ? Number(m[1]) : undefined;
};

/** Throws unless every line has either a positive debit or a positive credit, and the totals are equal. */
export function assertPostable(lines: readonly PostingLine[]): { debit: Decimal; credit: Decimal } {
  if (lines.length < 2) throw invalidRequest('A transaction needs at least two lines.', 'lines');
  let debit = new Decimal(0);
  let credit = new Decimal(0);
  lines.forEach((l, i) => {
    const field = lineField(i);
    if (l.debit.isNegative() || l.credit.isNegative())
      throw invalidRequest('Debit and credit are never negative.', `${field}.${l.debit.isNegative() ? 'debit' : 'credit'}`);
    if (l.debit.greaterThan(0) && l.credit.greaterThan(0)) throw invalidRequest('A line has a debit or a credit, never both.', field);
    if (l.debit.isZero() && l.credit.isZero()) throw invalidRequest('A line needs a debit or a credit greater than zero.', field);
    if (l.debit.decimalPlaces() > AMOUNT_DECIMALS || l.credit.decimalPlaces() > AMOUNT_DECIMALS)
      throw invalidRequest(`Amounts have at most ${AMOUNT_DECIMALS} decimals.`, field);
    const side = l.debit.isZero() ? 'credit' : 'debit';
    const mismatch = l.foreign && foreignMismatch(l[side], l.foreign);
    if (mismatch) throw invalidRequest(`${field}.${side} ${mismatch}.`, `${field}.${side}`);
    debit = debit.plus(l.debit);
    credit = credit.plus(l.credit);
  });
  if (!debit.equals(credit)) throw unbalanced(debit, credit);
  if (debit.greaterThan(MAX_AMOUNT))
    throw invalidRequest(`The total of ${debit.toFixed(2)} exceeds the largest amount of a document, ${MAX_AMOUNT.toFixed(2)}.`, 'lines');
  return { debit, credit };
}

/** The lines that undo `lines`: the same accounts with debit and credit swapped. */
export function reversingLines(lines: readonly PostingLine[]): PostingLine[] {
  return lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit }));
}

/** A stored journal line (transaction_lines) as the posting line it was: what a reversal turns around. */
export function storedPostingLine(l: {
  account_id: string;
  debit: { toString(): string };
  credit: { toString(): string };
  description: string;
  vat_code: string;
  currency: string;
  currency_amount: { toString(): string } | null;
  exchange_rate: { toString(): string } | null;
  /** Its dimensions as stored (read with STORED_LINE_DIMENSIONS): a reversal carries them back. */
  dimensions?: readonly StoredLineDimension[];
}): PostingLine {
  const dec = (v: { toString(): string }) => new Decimal(v.toString());
  return {
    ...(l.dimensions?.length ? { dimensions: dimensionsOf(l.dimensions) } : {}),
    accountId: l.account_id,
    debit: dec(l.debit),
    credit: dec(l.credit),
    description: l.description,
    vatCode: l.vat_code,
    ...(l.currency && l.currency_amount && l.exchange_rate
      ? { foreign: { currency: l.currency, amount: dec(l.currency_amount), rate: dec(l.exchange_rate) } }
      : {}),
  };
}

/** A stored line's dimension as Prisma reads it with STORED_LINE_DIMENSIONS. */
export interface StoredLineDimension {
  value: { code: string; dimension: { name: string } };
}
/** The include that reads a journal line's dimensions (transaction_lines.dimensions). */
export const STORED_LINE_DIMENSIONS = { select: { value: { select: { code: true, dimension: { select: { name: true } } } } } } as const;
/** Stored dimensions as a line's `dimensions` object, keys in name order. */
export const dimensionsOf = (stored: readonly StoredLineDimension[]): LineDimensions =>
  Object.fromEntries(stored.map((d) => [d.value.dimension.name, d.value.code] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

type Totals = Map<string, { debit: Decimal; credit: Decimal }>;

/** The summed debit and credit of the lines per key; a line whose key is undefined counts nowhere. */
function totalsBy(lines: readonly PostingLine[], keyOf: (l: PostingLine) => string | undefined): Totals {
  const out: Totals = new Map();
  for (const l of lines) {
    const key = keyOf(l);
    if (key === undefined) continue;
    const t = out.get(key) ?? { debit: new Decimal(0), credit: new Decimal(0) };
    out.set(key, { debit: t.debit.plus(l.debit), credit: t.credit.plus(l.credit) });
  }
  return out;
}

/** Per account: the summed debit and credit of the lines (what the daily balances add). */
export const totalsByAccount = (lines: readonly PostingLine[]) => totalsBy(lines, (l) => l.accountId);

/**
 * Per VAT code: the summed debit and credit of the coded lines that are a base, i.e. not on an account
 * the VAT return reads as VAT (what vat_monthly_bases adds up for the return's boxes).
 */
export const totalsByVatBase = (lines: readonly PostingLine[], accountNumber: (accountId: string) => string) =>
  totalsBy(lines, (l) => (l.vatCode && !VAT_ACCOUNT_NUMBERS.has(accountNumber(l.accountId)) ? l.vatCode : undefined));
