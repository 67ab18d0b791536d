// Cancelling a booked expense: the reversal of its booking is posted; the booking itself is never changed.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { postReversalOf } from '../ledger/documents.ts';
import type { ExpenseView } from './schema.ts';
import { announceExpense, type ExpenseRow } from './expense-rows.ts';

/** Booked -> cancelled on `date`. */
export async function cancelExpense(db: Db, scope: CompanyScope, row: ExpenseRow, date: string): Promise<ExpenseView> {
  const reversal = await postReversalOf(db, scope, row.posted_transaction_id!, {
    date,
    description: `Annulleret udgift: ${row.description}`.slice(0, 500),
    source: 'expense',
    sourceId: row.id,
  });
  const cancelled = await db.expense.update({ where: { id: row.id }, data: { status: 'cancelled', reversal_transaction_id: reversal.id } });
  return announceExpense(db, scope, 'expense.updated', cancelled);
}
