// The one posting function. Every producer of ledger entries (manual transactions, reversals, and in
// later issues invoice approvals and expense postings) calls postTransaction inside its own database
// transaction. It assigns, under the company's number-sequence row lock (so in order across servers):
//   - document_number: the next number of the company's unified document number sequence, shared by
//     every numbered document; a posting that belongs to an already numbered document may pass that
//     number instead of drawing a new one;
//   - system_id: the next number in posting order (SAF-T SystemID), one per posted transaction.
// Both are gapless: a failed posting rolls back with its transaction, and its numbers with it.
import Decimal from 'decimal.js';
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { openFiscalYearFor } from './books.ts';
import { fromDate, toDate } from './fiscal-years.ts';
import { assertPostable, totalsByAccount, type PostingLine } from './rules.ts';
import { transactionView, type TransactionView } from './views.ts';

export interface Posting {
  date: string;
  description: string;
  lines: PostingLine[];
  source: 'manual' | 'reversal' | 'invoice' | 'expense';
  sourceId?: string | undefined;
  reversesId?: string | undefined;
  voucherId?: string | undefined;
  /** An existing document number to post under; by default the next one is drawn. */
  documentNumber?: bigint | undefined;
}

export const periodLocked = (date: string, lock: string) =>
  new DomainError({
    status: 422,
    code: 'period_locked',
    title: 'Period locked',
    detail: `The books are locked up to and including ${lock}; ${date} cannot be posted.`,
    field: 'date',
  });

export async function postTransaction(db: Db, scope: CompanyScope, posting: Posting): Promise<TransactionView> {
  assertPostable(posting.lines);
  const drawsNumber = posting.documentNumber === undefined;
  // The row lock that orders every posting of the company; the increments roll back on failure.
  const [seq] = await db.$queryRaw<{ last_document_number: bigint; last_system_id: bigint }[]>`
    UPDATE number_sequences
    SET last_document_number = last_document_number + ${drawsNumber ? 1 : 0}, last_system_id = last_system_id + 1
    WHERE company_id = ${scope.companyId}::uuid
    RETURNING last_document_number, last_system_id`;
  if (!seq) throw new Error(`company ${scope.companyId} has no number sequence`);

  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId } });
  if (company.lock_date && toDate(posting.date) <= company.lock_date) throw periodLocked(posting.date, fromDate(company.lock_date));
  await openFiscalYearFor(db, company, posting.date);

  const id = newId();
  await db.ledgerTransaction.create({
    data: {
      id,
      company_id: scope.companyId,
      document_number: drawsNumber ? seq.last_document_number : posting.documentNumber!,
      system_id: seq.last_system_id,
      date: toDate(posting.date),
      description: posting.description,
      source: posting.source,
      source_id: posting.sourceId ?? null,
      reverses_id: posting.reversesId ?? null,
      voucher_id: posting.voucherId ?? null,
      lines: {
        createMany: {
          data: posting.lines.map((l, i) => ({
            id: newId(),
            company_id: scope.companyId,
            line_number: i + 1,
            account_id: l.accountId,
            debit: l.debit.toFixed(2),
            credit: l.credit.toFixed(2),
            description: l.description,
            vat_code: l.vatCode,
          })),
        },
      },
    },
  });

  // Running balances per account, per day and per month, in the same transaction: reports read these.
  const totals = [...totalsByAccount(posting.lines)];
  const accounts = totals.map(([a]) => a);
  const debits = totals.map(([, t]) => t.debit.toFixed(2));
  const credits = totals.map(([, t]) => t.credit.toFixed(2));
  await db.$executeRaw`
    WITH t AS (SELECT * FROM unnest(${accounts}::uuid[], ${debits}::numeric[], ${credits}::numeric[]) AS t(account_id, debit, credit)),
    daily AS (
      INSERT INTO account_daily_balances AS b (company_id, account_id, date, debit, credit)
      SELECT ${scope.companyId}::uuid, account_id, ${posting.date}::date, debit, credit FROM t
      ON CONFLICT (company_id, account_id, date) DO UPDATE SET debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit
    )
    INSERT INTO account_monthly_balances AS m (company_id, account_id, month, debit, credit)
    SELECT ${scope.companyId}::uuid, account_id, date_trunc('month', ${posting.date}::date)::date, debit, credit FROM t
    ON CONFLICT (company_id, account_id, month) DO UPDATE SET debit = m.debit + EXCLUDED.debit, credit = m.credit + EXCLUDED.credit`;

  const row = await db.ledgerTransaction.findUniqueOrThrow({ where: { id }, include: transactionInclude });
  const view = transactionView(row);
  await recordEvent(db, scope, 'transaction.created', compactTransaction(view));
  return view;
}

export const transactionInclude = {
  lines: { orderBy: { line_number: 'asc' as const }, include: { account: { select: { account_number: true, name: true } } } },
  reversed_by: { select: { id: true } },
};

/** The event payload: the transaction without its lines (compact, API-shaped). */
function compactTransaction(v: TransactionView) {
  const { lines: _lines, ...rest } = v;
  return rest;
}

export const zero = () => new Decimal(0);
