// Postings of documents (invoices, expenses): the bank or cash account a settlement goes through, and
// the reversal of a document's posting (a credit note, a cancelled expense). One place for both, so
// an invoice and an expense follow the same rules.
import type { Account, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { Decimal } from '../money.ts';
import { openJournalBatch, postTransaction, type Posting, type PostingSource } from './post.ts';
import { reversingLines, storedPostingLine, STORED_LINE_DIMENSIONS, type PostingLine } from './rules.ts';
import { toDkk } from '../currency/rules.ts';
import { documentCurrency } from '../currency/convert.ts';

export interface SettlementAccountInput {
  account_id?: string | undefined;
  account_number?: string | undefined;
}

/**
 * The account money is paid into or out of: the asset account given (by id or number), else the
 * default bank account; never `excluded` (receivables for an invoice payment).
 */
export async function settlementAccount(db: Db, scope: CompanyScope, input: SettlementAccountInput, defaultNumber: string, excluded: readonly string[] = []) {
  const field = input.account_id ? 'account_id' : 'account_number';
  const where = input.account_id ? { id: input.account_id } : { account_number: input.account_number ?? defaultNumber };
  const account = await db.account.findFirst({ where: { company_id: scope.companyId, ...where } });
  if (!account) throw invalidRequest(`No account ${input.account_id ?? input.account_number ?? defaultNumber} in the company's chart of accounts.`, field);
  if (!account.active) throw new DomainError('account_inactive', `Account ${account.account_number} is deactivated.`, field);
  if (account.type !== 'asset' || excluded.includes(account.account_number)) {
    throw invalidRequest(
      `A payment goes through a bank or cash account (an asset account${excluded.length ? ` other than ${excluded.join(', ')}` : ''}), not ${account.account_number} ${account.name}.`,
      field,
    );
  }
  return account;
}

export interface PaymentPosting {
  date: string;
  text: string;
  sourceId: string;
  debitAccountId: string;
  creditAccountId: string;
  /** DKK debited and credited; they differ only for a foreign-currency document paid at another rate. */
  debit: Decimal;
  credit: Decimal;
  /** Where the difference (the realised kursdifference) posts: a gain is credited, a loss debited. */
  differenceAccountId?: string;
  /** A foreign-currency document: the amount in its currency and the rate of each side. */
  foreign?: { currency: string; amount: Decimal; debitRate: Decimal; creditRate: Decimal };
}

/** A line of `signed` DKK on an account: a debit when positive, a credit when negative. */
export function signedLine(accountId: string, signed: Decimal, description: string, extra: Pick<PostingLine, 'foreign' | 'dimensions'> = {}): PostingLine {
  const zero = new Decimal(0);
  return {
    accountId,
    debit: signed.isNegative() ? zero : signed,
    credit: signed.isNegative() ? signed.negated() : zero,
    description: description.slice(0, 500),
    vatCode: '',
    ...extra,
  };
}

/**
 * A payment of a document from one account to another, all lines carrying the same text. In a foreign
 * currency each side records the amount at its rate; where the DKK a side clears is not exactly that
 * (the last payment clears the øre the booking rounded, postingInDkk), the rest is a DKK line of its own
 * on the same account, as the booking made it, so that every line in the currency is amount × rate.
 * Pure: a single payment posts it with postTransaction, a batch of them through a journal batch. Its
 * first line is the debit side's (the amount received, in the document's currency when it has one).
 */
export function paymentPosting(p: PaymentPosting): Posting {
  const text = p.text.slice(0, 500);
  const foreign = p.foreign && p.foreign.currency !== 'DKK' ? p.foreign : undefined;
  const side = (accountId: string, signed: Decimal, rate: Decimal): PostingLine[] => {
    if (!foreign) return [signedLine(accountId, signed, text)];
    const converted = toDkk(foreign.amount, rate);
    const inCurrency = signed.isNegative() ? converted.negated() : converted;
    const rest = signed.minus(inCurrency);
    return [
      signedLine(accountId, inCurrency, text, { foreign: { currency: foreign.currency, amount: foreign.amount, rate } }),
      ...(rest.isZero() ? [] : [signedLine(accountId, rest, `Øreafrunding ved omregning: ${text}`)]),
    ];
  };
  // A gain (more received or less paid in DKK than the document booked) is credited, a loss debited.
  const difference = p.credit.minus(p.debit);
  return {
    date: p.date,
    description: text,
    source: 'payment',
    sourceId: p.sourceId,
    lines: [
      ...side(p.debitAccountId, p.debit, foreign?.debitRate ?? new Decimal(0)),
      ...side(p.creditAccountId, p.credit.negated(), foreign?.creditRate ?? new Decimal(0)),
      ...(difference.isZero() ? [] : [signedLine(p.differenceAccountId!, difference, `Kursdifference: ${text}`)]),
    ],
  };
}

/**
 * Posts the line-by-line reversal of a document's posting, linked to it (reverses_id: at most once).
 * `adjust`: the reversing lines changed before they are posted (an accrual's moved months, decision 825).
 */
export async function postReversalOf(
  db: Db,
  scope: CompanyScope,
  transactionId: string,
  o: { date: string; description: string; source: PostingSource; sourceId: string },
  adjust: (lines: PostingLine[]) => PostingLine[] = (lines) => lines,
) {
  const original = await db.transactionLine.findMany({
    where: { transaction_id: transactionId, company_id: scope.companyId },
    orderBy: { line_number: 'asc' },
    // With their dimensions: the reversal carries them back (decision 585).
    include: { dimensions: STORED_LINE_DIMENSIONS },
  });
  return postTransaction(db, scope, {
    date: o.date,
    description: o.description,
    source: o.source,
    sourceId: o.sourceId,
    reversesId: transactionId,
    lines: adjust(reversingLines(original.map((l) => ({ ...storedPostingLine(l), description: o.description })))),
  });
}

/**
 * Many documents' payments in one transaction (automatic bank matching): their postings through one
 * journal batch, and what a single payment looks up each time (the settlement account, the day's rate of
 * a currency) looked up once per batch. `refusal` runs one payment's checks and keeps its refusal.
 */
export async function openPaymentBatch(db: Db, scope: CompanyScope, o: { defaultAccount: string; excluded: readonly string[] }) {
  const settlements = new Map<string, Promise<Account>>();
  const rates = new Map<string, Promise<Decimal>>();
  const once = <T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>) => {
    if (!cache.has(key)) cache.set(key, read());
    return cache.get(key)!;
  };
  return {
    journal: await openJournalBatch(db, scope, { events: true }),
    settlement: (accountNumber: string) =>
      once(settlements, accountNumber, () => settlementAccount(db, scope, { account_number: accountNumber }, o.defaultAccount, o.excluded)),
    rate: (currency: string, date: string) =>
      once(rates, `${currency} ${date}`, () => documentCurrency(db, scope, currency, undefined, date).then((fx) => fx.rate)),
  };
}

/** `f`'s result, or the refusal (a DomainError) it threw; anything else is thrown on. */
export async function refusal<T>(f: () => Promise<T>): Promise<T | { refused: DomainError }> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof DomainError) return { refused: e };
    throw e;
  }
}
