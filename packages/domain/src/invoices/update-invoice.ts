// PUT /invoices/{id}: a draft's changes, its lines replaced whole. An approved invoice is a legal document:
// it is never edited, it is cancelled with a credit note.
import { Prisma, type Db } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { decimalOf } from '../money.ts';
import type { FullInvoiceView, InvoiceUpdate } from './schema.ts';
import { fullInvoiceInclude, fullInvoiceView, invoiceView } from './views.ts';
import { assertDraft, lockInvoice, recordInvoiceEvent } from './invoice-rows.ts';
import { checkCurrency, checkDates, customerOf, draftAmounts, lineRows, resolveLines } from './draft-lines.ts';

export async function updateInvoice(db: Db, scope: CompanyScope, id: string, input: InvoiceUpdate): Promise<FullInvoiceView> {
  const row = await lockInvoice(db, scope, id);
  assertDraft(row, 'updated');
  const issue = input.issue_date ?? fromDate(row.issue_date);
  const due = input.due_date ?? fromDate(row.due_date);
  checkDates(issue, due);
  const customer = input.customer_id === undefined ? {} : (await customerOf(db, scope, input.customer_id)).fields;
  const currency =
    input.currency === undefined && input.exchange_rate === undefined
      ? undefined
      : checkCurrency(
          input.currency ?? row.currency,
          input.exchange_rate === undefined ? row.exchange_rate && decimalOf(row.exchange_rate) : input.exchange_rate,
        );
  const resolved = input.lines ? await resolveLines(db, scope, input.lines) : undefined;
  if (resolved) {
    await db.invoiceLine.deleteMany({ where: { invoice_id: id } });
    await db.invoiceLine.createMany({ data: lineRows(scope, id, resolved).map((l) => ({ ...l, dimensions: l.dimensions ?? Prisma.DbNull })) });
  }
  const updated = await db.invoice.update({
    where: { id },
    data: {
      ...customer,
      ...(currency ? { currency: currency.currency, exchange_rate: currency.rate?.toFixed(6) ?? null } : {}),
      issue_date: toDate(issue),
      due_date: toDate(due),
      ...(input.notes === undefined ? {} : { notes: input.notes }),
      ...(resolved ? draftAmounts(resolved) : {}),
    },
    include: fullInvoiceInclude,
  });
  await recordInvoiceEvent(db, scope, 'invoice.updated', invoiceView(updated));
  return fullInvoiceView(updated);
}
