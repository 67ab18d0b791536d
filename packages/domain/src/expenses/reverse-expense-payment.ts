// Undoing an expense's payment when its bank line is unmatched: the reversal of the payment's posting, and
// the expense booked (unpaid) again.
import type { Db } from '@tlr/db';
import { fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { postReversalOf } from '../ledger/documents.ts';
import type { ExpenseView } from './schema.ts';
import { announceExpense, lockExpense, readExpenseView } from './expense-rows.ts';

/**
 * Undoes an expense's payment (its bank line was unmatched): the reversal of the payment's posting is
 * posted and the expense is booked (unpaid) again. The payment's posting stays, linked by its reversal.
 */
export async function reverseExpensePayment(db: Db, scope: CompanyScope, id: string, date = today()): Promise<ExpenseView> {
  const row = await lockExpense(db, scope, id);
  if (row.status !== 'paid' || !row.payment_transaction_id) return readExpenseView(db, row);
  const paid = fromDate(row.paid_date ?? row.date);
  await postReversalOf(db, scope, row.payment_transaction_id, {
    date: date < paid ? paid : date,
    description: `Tilbageført ${row.amount.isNegative() ? 'refusion' : 'betaling'}: ${row.description || 'udgift'}`.slice(0, 500),
    source: 'reversal',
    sourceId: row.id,
  });
  const booked = await db.expense.update({ where: { id }, data: { status: 'booked', payment_transaction_id: null, paid_date: null } });
  return announceExpense(db, scope, 'expense.updated', booked);
}
