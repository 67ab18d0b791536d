// Cancelling a booked expense: the reversal of its booking is posted; the booking itself is never changed.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { postReversalOf } from '../ledger/documents.ts';
import type { ExpenseView } from './schema.ts';
import { announceExpense, type ExpenseRow } from './expense-rows.ts';
import { cancelAccruals } from '../accruals/accruals.ts';
import { reversalWithMoved } from '../accruals/rules.ts';

/** Booked -> cancelled on `date`; refused while a fixed asset was made from it (decision 579). */
export async function cancelExpense(db: Db, scope: CompanyScope, row: ExpenseRow, date: string): Promise<ExpenseView> {
  const asset = await db.fixedAsset.findFirst({ where: { company_id: scope.companyId, expense_id: row.id }, select: { id: true } });
  if (asset) throw new DomainError('asset_exists', `The fixed asset ${asset.id} was made from this expense: delete it (or dispose of it) first.`, 'status');
  // An accrued expense gives back what is left on prepaid expenses and takes the months moved off their account (decision 825).
  const moved = await cancelAccruals(db, scope, row.id);
  const reversal = await postReversalOf(
    db,
    scope,
    row.posted_transaction_id!,
    { date, description: `Annulleret udgift: ${row.description}`.slice(0, 500), source: 'expense', sourceId: row.id },
    (lines) => reversalWithMoved(lines, moved),
  );
  const cancelled = await db.expense.update({ where: { id: row.id }, data: { status: 'cancelled', reversal_transaction_id: reversal.id } });
  return announceExpense(db, scope, 'expense.updated', cancelled);
}
