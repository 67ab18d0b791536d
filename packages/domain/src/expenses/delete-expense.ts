// DELETE /expenses/{id}: a draft goes, and its voucher is free again; a booked expense is cancelled
// instead.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { recordEvent } from '../events/outbox.ts';
import { detachVoucherFromExpense } from '../vouchers/vouchers.ts';
import { assertDraft, lockExpense } from './expense-rows.ts';

export async function deleteExpense(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await lockExpense(db, scope, id);
  assertDraft(row, 'deleted');
  // Its voucher is free again (a draft has no posting, so nothing is under retention).
  await detachVoucherFromExpense(db, scope, id);
  await db.expense.delete({ where: { id } });
  await recordEvent(db, scope, 'expense.deleted', { id });
  return { id, deleted: true };
}
