// Many booked expenses paid at once (automatic bank matching): the same payment as PUT /expenses/{id}/status
// {"status":"paid"}, its posting planned by the same pure function, written with one statement each for the
// journal, the expenses and their events.
import type { Db } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, type DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { openPaymentBatch, refusal } from '../ledger/documents.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { expenseView, type ExpenseRow } from './expense-rows.ts';
import { expensePaymentPosting } from './pay-expense.ts';

/** A booked expense to pay on `date` through the account numbered `account_number`; its row read under its lock (the caller holds it). */
export interface ExpenseBatchPayment {
  expense: ExpenseRow;
  date: string;
  account_number: string;
}

/** A payment registered (its posting and the posting's line on the settlement account), or why it was refused. */
export type ExpenseBatchOutcome = { transactionId: string; settlementLineId: string } | { refused: DomainError };

/**
 * Pays each booked expense as the status change to paid would; a payment its rules refuse (a date before
 * the expense's, a closed period, no exchange rate) is left out with its refusal, the others are written
 * together. A refusal only the writing finds throws, and the caller retries without the batch.
 */
export async function payExpenses(db: Db, scope: CompanyScope, payments: readonly ExpenseBatchPayment[]): Promise<ExpenseBatchOutcome[]> {
  if (new Set(payments.map((p) => p.expense.id)).size !== payments.length) throw new Error('payExpenses takes one payment per expense');
  if (payments.some((p) => p.expense.status !== 'booked')) throw new Error('payExpenses pays booked expenses');
  const outcomes: ExpenseBatchOutcome[] = [];
  const batch = await openPaymentBatch(db, scope, { defaultAccount: DEFAULT_ACCOUNTS.bank, excluded: [DEFAULT_ACCOUNTS.payable] });
  const account = (n: string) => db.account.findFirstOrThrow({ where: { company_id: scope.companyId, account_number: n } });
  const payable = await account(DEFAULT_ACCOUNTS.payable);
  const difference = await account(DEFAULT_ACCOUNTS.exchangeDifference);
  const planned: { payment: ExpenseBatchPayment; id: string }[] = [];
  for (const [i, payment] of payments.entries()) {
    outcomes[i] = await refusal(async () => {
      const { expense, date } = payment;
      if (date < fromDate(expense.date)) throw invalidRequest(`date: ${date} is before the expense date ${fromDate(expense.date)}.`, 'date');
      const settlement = await batch.settlement(payment.account_number);
      const rate = await batch.rate(expense.currency, date);
      const posting = expensePaymentPosting(expense, date, rate, { settlementId: settlement.id, payableId: payable.id, differenceId: difference.id });
      const added = await batch.journal.add(posting);
      planned.push({ payment, id: added.id });
      return { transactionId: added.id, settlementLineId: added.lineIds[posting.lines.findIndex((l) => l.accountId === settlement.id)]! };
    });
  }
  if (!planned.length) return outcomes;
  await batch.journal.flush();
  const ids = planned.map((p) => p.payment.expense.id);
  await db.$executeRaw`
    UPDATE expenses e SET status = 'paid', payment_transaction_id = u.transaction_id, paid_date = u.paid_date, updated_at = ${new Date()}
      FROM unnest(${ids}::uuid[], ${planned.map((p) => p.id)}::uuid[], ${planned.map((p) => toDate(p.payment.date))}::date[]) AS u(id, transaction_id, paid_date)
     WHERE e.id = u.id AND e.company_id = ${scope.companyId}::uuid`;
  const rows = new Map((await db.expense.findMany({ where: { company_id: scope.companyId, id: { in: ids } } })).map((r) => [r.id, r]));
  const numbers = new Map(
    (
      await db.account.findMany({
        where: { id: { in: [...new Set([...rows.values()].map((r) => r.account_id))] } },
        select: { id: true, account_number: true },
      })
    ).map((a) => [a.id, a.account_number]),
  );
  await recordEvents(
    db,
    scope,
    'expense.updated',
    ids.map((id) => {
      const row = rows.get(id)!;
      return expenseView(row, numbers.get(row.account_id)!);
    }),
  );
  return outcomes;
}
