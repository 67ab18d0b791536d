// What postings write to the journal, worked out without the database: a posting's check (the posting
// rules and the journal's own limits) and the columns of the one statement the journal writer (post.ts)
// sends for a set of postings: transactions, lines, the daily balances and VAT bases they add to, and
// the numbers they draw. One posting and a batch of thousands go through the same code.
import type { Decimal } from '../money.ts';
import { invalidRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { assertPostable, totalsByAccount, totalsByVatBase, type PostingLine } from './rules.ts';
import type { LineDimensionRef } from '../dimensions/catalogue.ts';

/** What produced a posting; the documents' own postings are changed through their documents only. */
export const POSTING_SOURCES = [
  'manual',
  'reversal',
  'invoice',
  'payment',
  'credit_note',
  'expense',
  'vat_settlement',
  'bank',
  'reminder',
  'import',
  'year_end',
  'opening_balance',
  // A fixed asset's month of depreciation; its capitalisation and disposal (assets/assets.ts).
  'depreciation',
  'asset',
  // A month of an accrued expense or invoice line moved to its result account (accruals/accruals.ts).
  'accrual',
] as const;
export type PostingSource = (typeof POSTING_SOURCES)[number];

export interface Posting {
  date: string;
  description: string;
  lines: PostingLine[];
  source: PostingSource;
  sourceId?: string | undefined;
  reversesId?: string | undefined;
  voucherId?: string | undefined;
  /** An existing document number to post under; by default the next one is drawn. */
  documentNumber?: bigint | undefined;
  /** A posting imported from a SAF-T file: the file's JournalID and TransactionID. */
  sourceJournalId?: string | undefined;
  sourceTransactionId?: string | undefined;
}

/** Lines of one posting at most: line_number is a smallint. */
export const MAX_POSTING_LINES = 32_767;

/** Throws unless the posting's lines may be written (assertPostable, and at most MAX_POSTING_LINES); its totals. */
export function checkPosting(posting: Posting): { debit: Decimal; credit: Decimal } {
  if (posting.lines.length > MAX_POSTING_LINES) throw invalidRequest(`A transaction has at most ${MAX_POSTING_LINES} lines.`, 'lines');
  return assertPostable(posting.lines);
}

/** A checked posting with the ids it will be written under (known before it is written: a caller may refer to them). */
export interface PreparedPosting {
  posting: Posting;
  id: string;
  lineIds: string[];
  debit: Decimal;
  credit: Decimal;
}

/** Checks a posting and gives it and its lines their ids. */
export function preparePosting(posting: Posting): PreparedPosting {
  const { debit, credit } = checkPosting(posting);
  return { posting, id: newId(), lineIds: posting.lines.map(() => newId()), debit, credit };
}

type Sums = { debit: Decimal; credit: Decimal };
const add = (into: Map<string, Sums & { a: string; b: string }>, a: string, b: string, t: Sums) => {
  const key = `${a}\u0000${b}`;
  const was = into.get(key);
  into.set(key, was ? { ...was, debit: was.debit.plus(t.debit), credit: was.credit.plus(t.credit) } : { a, b, ...t });
};
const money = (d: Decimal) => d.toFixed(2);
/** The first day of a date's month (the monthly balances' and VAT bases' key). */
export const monthOf = (date: string) => `${date.slice(0, 7)}-01`;

/**
 * The columns of a set of postings, in the order added: what the journal writer's statement unnests.
 * The balances are summed here per (date, account) and the VAT bases per (month, code), so that each
 * upsert meets a key once. A posting with an existing document number draws none (draw 0); the others
 * draw the next numbers in the order added (draw 1, 2, ...).
 */
export class JournalRows {
  readonly transactions = {
    id: [] as string[],
    documentNumber: [] as (string | null)[],
    draw: [] as number[],
    date: [] as string[],
    description: [] as string[],
    source: [] as string[],
    sourceId: [] as (string | null)[],
    sourceJournalId: [] as (string | null)[],
    sourceTransactionId: [] as (string | null)[],
    reversesId: [] as (string | null)[],
    voucherId: [] as (string | null)[],
  };
  readonly lines = {
    id: [] as string[],
    transactionId: [] as string[],
    lineNumber: [] as number[],
    accountId: [] as string[],
    debit: [] as string[],
    credit: [] as string[],
    description: [] as string[],
    vatCode: [] as string[],
    currency: [] as string[],
    currencyAmount: [] as (string | null)[],
    exchangeRate: [] as (string | null)[],
  };
  /** Per line and dimension: the line's value, with the line's account, date and amounts (journal_line_dimensions). */
  readonly lineDimensions = {
    lineId: [] as string[],
    transactionId: [] as string[],
    dimensionId: [] as string[],
    valueId: [] as string[],
    accountId: [] as string[],
    date: [] as string[],
    debit: [] as string[],
    credit: [] as string[],
  };
  /** Postings that draw a new document number. */
  draws = 0;
  /** The earliest posting date (the lock date is checked against it under the lock). */
  minDate = '';
  private daily = new Map<string, Sums & { a: string; b: string }>();
  /** Lines per date and account (the daily balances' `lines`), keyed as `daily`. */
  private dailyLines = new Map<string, number>();
  private bases = new Map<string, Sums & { a: string; b: string }>();

  get count(): number {
    return this.transactions.id.length;
  }

  /**
   * Adds a prepared posting; `accountNumber` names each line's account (the VAT-base rule reads it);
   * `dimensions`, per line, the dimension values checked by lineDimensionRefs (none: no line has any).
   */
  add(p: PreparedPosting, accountNumber: (accountId: string) => string, dimensions?: readonly (readonly LineDimensionRef[])[]): void {
    const { posting } = p;
    const t = this.transactions;
    t.id.push(p.id);
    t.documentNumber.push(posting.documentNumber === undefined ? null : posting.documentNumber.toString());
    t.draw.push(posting.documentNumber === undefined ? ++this.draws : 0);
    t.date.push(posting.date);
    t.description.push(posting.description);
    t.source.push(posting.source);
    t.sourceId.push(posting.sourceId ?? null);
    t.sourceJournalId.push(posting.sourceJournalId ?? null);
    t.sourceTransactionId.push(posting.sourceTransactionId ?? null);
    t.reversesId.push(posting.reversesId ?? null);
    t.voucherId.push(posting.voucherId ?? null);
    if (!this.minDate || posting.date < this.minDate) this.minDate = posting.date;
    const l = this.lines;
    posting.lines.forEach((line, i) => {
      l.id.push(p.lineIds[i]!);
      l.transactionId.push(p.id);
      l.lineNumber.push(i + 1);
      l.accountId.push(line.accountId);
      l.debit.push(money(line.debit));
      l.credit.push(money(line.credit));
      l.description.push(line.description);
      l.vatCode.push(line.vatCode);
      l.currency.push(line.foreign?.currency ?? '');
      l.currencyAmount.push(line.foreign ? money(line.foreign.amount) : null);
      l.exchangeRate.push(line.foreign ? line.foreign.rate.toFixed() : null);
      const ld = this.lineDimensions;
      for (const ref of dimensions?.[i] ?? []) {
        ld.lineId.push(p.lineIds[i]!);
        ld.transactionId.push(p.id);
        ld.dimensionId.push(ref.dimensionId);
        ld.valueId.push(ref.valueId);
        ld.accountId.push(line.accountId);
        ld.date.push(posting.date);
        ld.debit.push(money(line.debit));
        ld.credit.push(money(line.credit));
      }
    });
    for (const [accountId, sums] of totalsByAccount(posting.lines)) add(this.daily, posting.date, accountId, sums);
    for (const line of posting.lines) {
      const key = `${posting.date}\u0000${line.accountId}`;
      this.dailyLines.set(key, (this.dailyLines.get(key) ?? 0) + 1);
    }
    const month = monthOf(posting.date);
    for (const [code, sums] of totalsByVatBase(posting.lines, accountNumber)) add(this.bases, month, code, sums);
  }

  /** Per date and account: what the postings add to account_daily_balances (the monthly balances are their sums per month). */
  dailyColumns() {
    const rows = [...this.daily.values()];
    return {
      date: rows.map((r) => r.a),
      accountId: rows.map((r) => r.b),
      debit: rows.map((r) => money(r.debit)),
      credit: rows.map((r) => money(r.credit)),
      lines: rows.map((r) => this.dailyLines.get(`${r.a}\u0000${r.b}`) ?? 0),
    };
  }

  /** Per month and VAT code: what the postings add to vat_monthly_bases. */
  vatBaseColumns() {
    const rows = [...this.bases.values()];
    return { month: rows.map((r) => r.a), vatCode: rows.map((r) => r.b), debit: rows.map((r) => money(r.debit)), credit: rows.map((r) => money(r.credit)) };
  }
}
