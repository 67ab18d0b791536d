// A bank line's match as the matching use cases take it: the line locked with its bank account, the
// ledger lines of the bank's account it may reconcile with, and the line marked matched (once).
import { Prisma, type BankAccount, type BankLine, type Db } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, notFound } from '../errors.ts';
import { postTransaction, type PostingSource } from '../ledger/post.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { decimalOf, type Decimal } from '../money.ts';
import type { Suggestion } from './rules.ts';
import type { BANK_MATCH_TYPES } from './schema.ts';

/** What a line is matched to (the resource's match.type). */
export type MatchType = (typeof BANK_MATCH_TYPES)[number];

export interface Bank {
  account: BankAccount;
  ledgerAccountId: string;
}
export interface Target {
  /** vat_filing: the tax account of an approved VAT return (vat/tax-account.ts), matched as a posting. */
  type: Exclude<MatchType, 'posting'> | 'vat_filing';
  id: string;
  /** The ledger line a transaction match reconciles with (found by the rule or checked for the manual match). */
  journalLineId?: string;
}
export interface Found {
  certain: Target[];
  suggestions: Suggestion[];
}

/** The line of the caller's company, locked until the transaction ends, with its bank account. */
export async function lockLine(db: Db, scope: CompanyScope, id: string, skipLocked = false): Promise<{ line: BankLine; bank: Bank } | null> {
  const rows = skipLocked
    ? await db.$queryRaw<{ id: string }[]>`SELECT id FROM bank_lines WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE SKIP LOCKED`
    : await db.$queryRaw<{ id: string }[]>`SELECT id FROM bank_lines WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!rows.length) {
    if (skipLocked) return null;
    throw notFound('bank line', id);
  }
  const line = await db.bankLine.findUniqueOrThrow({ where: { id }, include: { bank_account: true } });
  const ledger = await db.account.findUniqueOrThrow({
    where: { company_id_account_number: { company_id: scope.companyId, account_number: line.bank_account.account_number } },
    select: { id: true },
  });
  return { line, bank: { account: line.bank_account, ledgerAccountId: ledger.id } };
}

/**
 * A ledger line's amount in the bank account's currency, signed as the bank's (+ money in = debit):
 * DKK from debit and credit, another currency from the amount each line records in it (§ 15).
 */
const ledgerAmount = (currency: string) =>
  currency === 'DKK'
    ? Prisma.sql`(l.debit - l.credit)`
    : Prisma.sql`(CASE WHEN l.currency = ${currency} THEN sign(l.debit - l.credit) * l.currency_amount END)`;

/** Ledger lines on the bank's account that no bank line reconciles yet, of the amount, in the transaction or the date window. */
export function openLedgerLines(db: Db, scope: CompanyScope, bank: Bank, amount: Decimal, where: Prisma.Sql, near = '2000-01-01') {
  return db.$queryRaw<{ id: string; transaction_id: string; date: Date; description: string }[]>`
    SELECT l.id, l.transaction_id, t.date, t.description
      FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id
     WHERE l.company_id = ${scope.companyId}::uuid AND l.account_id = ${bank.ledgerAccountId}::uuid
       AND ${ledgerAmount(bank.account.currency)} = ${amount.toFixed(2)}::numeric AND ${where}
       AND NOT EXISTS (SELECT 1 FROM bank_lines b WHERE b.journal_line_id = l.id)
     ORDER BY abs(t.date - ${near}::date), l.id
     LIMIT 20`;
}

export function markMatched(
  db: Db,
  id: string,
  m: Pick<BankLine, 'match_type' | 'invoice_id' | 'expense_id' | 'transaction_id' | 'journal_line_id' | 'matched_by'>,
): Promise<BankLine> {
  const now = new Date();
  // The unique journal_line_id is the last word: a ledger line taken by a concurrent match fails here, and the whole match rolls back.
  return db.bankLine
    .update({ where: { id }, data: { ...m, status: 'matched', matched_at: now, checked_at: now, suggestions: [] } })
    .catch((e: unknown) =>
      Promise.reject(
        e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002'
          ? new DomainError('conflict', 'The ledger line was reconciled with another bank line at the same moment; fetch the line and retry.')
          : e,
      ),
    );
}

/**
 * A bank line posted on its booking date (the journal writer) and matched to that posting's line on the
 * bank's ledger account: a manual posting from the line, or the tax account paid. `then` runs between the
 * two, in the same transaction, with the posting's id. The posting is the line's (source bank) unless it names
 * its own source (an opening balance's payment, decision 877).
 */
export async function postAndMatch(
  db: Db,
  scope: CompanyScope,
  line: BankLine,
  bank: Bank,
  posting: { description: string; lines: PostingLine[]; source?: PostingSource; sourceId?: string },
  by: 'auto' | 'manual',
  then?: (transactionId: string) => Promise<unknown>,
): Promise<BankLine> {
  const posted = await postTransaction(db, scope, { date: fromDate(line.booking_date), source: 'bank', sourceId: line.id, ...posting });
  await then?.(posted.id);
  const [journal] = await openLedgerLines(db, scope, bank, decimalOf(line.amount), Prisma.sql`l.transaction_id = ${posted.id}::uuid`);
  return markMatched(db, line.id, {
    match_type: 'posting',
    invoice_id: null,
    expense_id: null,
    transaction_id: posted.id,
    journal_line_id: journal!.id,
    matched_by: by,
  });
}

export const alreadyMatched = (line: BankLine) =>
  new DomainError('bank_line_matched', `Bank line ${line.id} is already matched (${line.match_type}); unmatch it first.`, undefined, {
    current_status: line.status,
  });
