// An invoice's row as this folder's use cases take it: locked until the transaction ends, checked to be a
// draft, announced to the outbox; and the live customer an invoice is for.
import type { Customer, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, notFound } from '../errors.ts';
import { recordEvent, type EventType } from '../events/outbox.ts';
import type { InvoiceView } from './schema.ts';
import { fullInvoiceInclude, invoiceEventData, type FullInvoiceRow } from './views.ts';

// Plain SQL through $queryRaw for the reads every invoice creation makes: the rows are the model's
// types, without the query compiler's CPU per call (docs/history/perf-log.md).
export async function liveCustomer(db: Db, scope: CompanyScope, id: string): Promise<Customer | null> {
  const [row] = await db.$queryRaw<Customer[]>`SELECT * FROM customers WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid AND deleted_at IS NULL`;
  return row ?? null;
}

export async function recordInvoiceEvent(db: Db, scope: CompanyScope, type: EventType, view: InvoiceView) {
  await recordEvent(db, scope, type, invoiceEventData(view));
}

/**
 * Reads an invoice of the caller's company and locks its row until the transaction ends. Every change of
 * an existing invoice starts here, so two servers changing one invoice at once queue, and the second sees
 * the first's outcome (one approval, one posting).
 */
export async function lockInvoice(db: Db, scope: CompanyScope, id: string): Promise<FullInvoiceRow> {
  const [locked] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) throw notFound('invoice', id);
  return db.invoice.findUniqueOrThrow({ where: { id }, include: fullInvoiceInclude });
}

export function assertDraft(row: FullInvoiceRow, action: string): void {
  if (row.status !== 'draft') {
    throw new DomainError(
      'invoice_not_draft',
      `Invoice ${row.invoice_number} is ${row.status}; only a draft may be ${action}. ${row.status === 'cancelled' || row.status === 'paid' ? '' : 'Cancel it with a credit note (PUT /invoices/{id}/status {"status":"cancelled"}) instead.'}`.trim(),
      undefined,
      { current_status: row.status },
    );
  }
}
