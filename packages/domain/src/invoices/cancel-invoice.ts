// Cancelling an approved, unpaid invoice with a credit note (kreditnota): a document with its own number
// whose posting reverses the invoice's. The invoice's posting is never changed.
import type { Db } from '@tlr/db';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { postReversalOf } from '../ledger/documents.ts';
import { amountToJson, decimalOf } from '../money.ts';
import { fullInvoiceInclude, invoiceView, type FullInvoiceRow } from './views.ts';
import { recordInvoiceEvent } from './invoice-rows.ts';
import { cancelAccruals } from '../accruals/accruals.ts';
import { reversalWithMoved } from '../accruals/rules.ts';

/**
 * Cancels an approved, unpaid invoice with a credit note (kreditnota): a document with its own number
 * whose posting reverses the invoice's posting line by line. The invoice's posting is never changed.
 */
export async function cancelInvoice(db: Db, scope: CompanyScope, row: FullInvoiceRow, date = today()): Promise<FullInvoiceRow> {
  if (decimalOf(row.paid_amount).greaterThan(0)) {
    throw new DomainError(
      'invoice_has_payments',
      `Invoice ${row.invoice_number} has payments of ${decimalOf(row.paid_amount).toFixed(2)} registered; a paid amount is refunded before the invoice is credited.`,
      undefined,
      { paid_amount: amountToJson(row.paid_amount) },
    );
  }
  const issued = fromDate(row.issue_date);
  if (date < issued) throw invalidRequest(`A credit note cannot be dated ${date}, before the invoice's issue date ${issued}.`, 'date');
  // Accrued lines give back what is left on deferred income and take the months moved off revenue (decision 825).
  const moved = await cancelAccruals(db, scope, row.id);
  const posted = await postReversalOf(
    db,
    scope,
    row.posted_transaction_id!,
    { date, description: `Kreditnota for faktura ${row.invoice_number}`, source: 'credit_note', sourceId: row.id },
    (lines) => reversalWithMoved(lines, moved),
  );
  await db.creditNote.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      invoice_id: row.id,
      document_number: posted.document_number,
      date: toDate(date),
      transaction_id: posted.id,
    },
  });
  const cancelled = await db.invoice.update({ where: { id: row.id }, data: { status: 'cancelled', cancelled_at: new Date() }, include: fullInvoiceInclude });
  await recordInvoiceEvent(db, scope, 'invoice.cancelled', invoiceView(cancelled));
  return cancelled;
}
