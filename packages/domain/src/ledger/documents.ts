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

/** A payment of a document: `amount` from one account to another, both lines carrying the same text. */
export function postPayment(
  db: Db,
  scope: CompanyScope,
  p: { date: string; text: string; sourceId: string; debitAccountId: string; creditAccountId: string; amount: Decimal },
) {
  const zero = new Decimal(0);
  const text = p.text.slice(0, 500);
  return postTransaction(db, scope, {
    date: p.date,
    description: text,
    source: 'payment',
    sourceId: p.sourceId,
    lines: [
      { accountId: p.debitAccountId, debit: p.amount, credit: zero, description: text, vatCode: '' },
      { accountId: p.creditAccountId, debit: zero, credit: p.amount, description: text, vatCode: '' },
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
