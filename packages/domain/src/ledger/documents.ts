// Postings of documents (invoices, expenses): the bank or cash account a settlement goes through, and
// the reversal of a document's posting (a credit note, a cancelled expense). One place for both, so
// an invoice and an expense follow the same rules.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { Decimal } from '../money.ts';
import { postTransaction, type PostingSource } from './post.ts';
import { reversingLines, storedPostingLine } from './rules.ts';

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

/** A payment of a document from one account to another, all lines carrying the same text. */
export function postPayment(db: Db, scope: CompanyScope, p: PaymentPosting) {
  const zero = new Decimal(0);
  const text = p.text.slice(0, 500);
  const foreign = (rate: Decimal) =>
    p.foreign && p.foreign.currency !== 'DKK' ? { foreign: { currency: p.foreign.currency, amount: p.foreign.amount, rate } } : {};
  const difference = p.debit.minus(p.credit);
  return postTransaction(db, scope, {
    date: p.date,
    description: text,
    source: 'payment',
    sourceId: p.sourceId,
    lines: [
      { accountId: p.debitAccountId, debit: p.debit, credit: zero, description: text, vatCode: '', ...foreign(p.foreign?.debitRate ?? zero) },
      { accountId: p.creditAccountId, debit: zero, credit: p.credit, description: text, vatCode: '', ...foreign(p.foreign?.creditRate ?? zero) },
      ...(difference.isZero()
        ? []
        : [
            {
              accountId: p.differenceAccountId!,
              debit: difference.isNegative() ? difference.negated() : zero,
              credit: difference.isNegative() ? zero : difference,
              description: `Kursdifference: ${text}`.slice(0, 500),
              vatCode: '',
            },
          ]),
    ],
  });
}

/** Posts the line-by-line reversal of a document's posting, linked to it (reverses_id: at most once). */
export async function postReversalOf(
  db: Db,
  scope: CompanyScope,
  transactionId: string,
  o: { date: string; description: string; source: PostingSource; sourceId: string },
) {
  const original = await db.transactionLine.findMany({
    where: { transaction_id: transactionId, company_id: scope.companyId },
    orderBy: { line_number: 'asc' },
  });
  return postTransaction(db, scope, {
    date: o.date,
    description: o.description,
    source: o.source,
    sourceId: o.sourceId,
    reversesId: transactionId,
    lines: reversingLines(original.map((l) => ({ ...storedPostingLine(l), description: o.description }))),
  });
}
