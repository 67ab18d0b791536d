// DELETE /invoices/{id}: a draft goes entirely (it has no number and no posting); an approved invoice is
// cancelled with a credit note instead.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { recordEvent } from '../events/outbox.ts';
import { assertDraft, lockInvoice } from './invoice-rows.ts';

export async function deleteInvoice(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await lockInvoice(db, scope, id);
  assertDraft(row, 'deleted');
  // A draft has no number and no posting: nothing of it belongs to the books, so it goes entirely.
  await db.invoice.delete({ where: { id } });
  await recordEvent(db, scope, 'invoice.deleted', { id, invoice_number: '', status: 'draft' });
  return { id, deleted: true };
}
