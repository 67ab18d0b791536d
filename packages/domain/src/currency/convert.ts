// A document in a foreign currency posts in DKK: the ledger, the balances, the reports and the VAT
// return are in DKK; every journal line of the document also records its currency, its amount in that
// currency and the rate (bogføringsloven § 15). One rule for invoices, expenses and their payments.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest } from '../errors.ts';
import { Decimal } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { rateOn } from './exchange-rates.ts';
import { toDkk } from './rules.ts';

export interface DocumentCurrency {
  currency: string;
  /** DKK per unit of the currency. */
  rate: Decimal;
}

export const isDkk = (fx: DocumentCurrency) => fx.currency === 'DKK';

/**
 * The posting of a document made in its own currency, in DKK. Every line becomes its amount × rate,
 * rounded half up to øre, and records the currency, the amount and the rate (the one rule of
 * assertPostable). Rounded line by line, the DKK lines may miss balancing by a few øre: that difference
 * is a line of its own on the `balancing` line's account (receivables, payables), in DKK only, so what
 * the document is owed or owes in DKK is exactly what its other lines made. A DKK document is returned
 * as it is.
 */
export function postingInDkk(lines: readonly PostingLine[], fx: DocumentCurrency, balancing: number): PostingLine[] {
  if (isDkk(fx)) return [...lines];
  const zero = new Decimal(0);
  const converted: PostingLine[] = lines.map((l) => ({
    ...l,
    debit: toDkk(l.debit, fx.rate),
    credit: toDkk(l.credit, fx.rate),
    foreign: { currency: fx.currency, amount: l.debit.isZero() ? l.credit : l.debit, rate: fx.rate },
  }));
  const off = converted.reduce((sum, l) => sum.plus(l.debit).minus(l.credit), zero);
  if (off.isZero()) return converted;
  const b = converted[balancing]!;
  return [
    ...converted,
    {
      accountId: b.accountId,
      debit: off.isNegative() ? off.negated() : zero,
      credit: off.isNegative() ? zero : off,
      description: `Øreafrunding ved omregning: ${b.description}`.slice(0, 500),
      vatCode: '',
    },
  ];
}

/** What the lines on `accountId` add up to, debit less credit, DKK (receivables of an invoice, negated payables of an expense). */
export const netOn = (lines: readonly PostingLine[], accountId: string) =>
  lines.filter((l) => l.accountId === accountId).reduce((sum, l) => sum.plus(l.debit).minus(l.credit), new Decimal(0));

/**
 * The currency and rate a document posts at: DKK at 1; a foreign currency at the rate the document
 * names, else at the company's rate for `date` (exchange-rates.ts). A rate on a DKK document is refused.
 */
export async function documentCurrency(
  db: Db,
  scope: CompanyScope,
  currency: string,
  given: Decimal | null | undefined,
  date: string,
): Promise<DocumentCurrency> {
  const rate = givenRate(currency, given);
  if (currency === 'DKK') return { currency, rate: new Decimal(1) };
  return { currency, rate: rate ?? (await rateOn(db, scope, currency, date)).rate };
}

/** The rate a document names for its currency (null: none, or DKK, whose rate is 1); another rate on a DKK document is refused. */
export function givenRate(currency: string, rate: Decimal | null | undefined): Decimal | null {
  if (currency !== 'DKK') return rate ?? null;
  if (rate && !rate.equals(1)) throw invalidRequest('A DKK document has no exchange rate (it is 1).', 'exchange_rate');
  return null;
}
