// POST /invoices: a draft, written with its lines in one statement, and approved at once when auto_approve
// asks (approve-invoice.ts). A draft may change freely until it is approved.
import { Prisma, type Db, type Invoice } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import type { InvoiceInput } from './schema.ts';
import { invoiceSummary, invoiceView, type FullInvoiceRow } from './views.ts';
import { recordInvoiceEvent } from './invoice-rows.ts';
import { checkCurrency, checkDates, customerOf, draftAmounts, lineRows, resolveLines } from './draft-lines.ts';
import { approveInvoice } from './approve-invoice.ts';

export async function createInvoice(db: Db, scope: CompanyScope, input: InvoiceInput) {
  // Refused before anything is drawn or written (contract: 400 invalid_request).
  if (input.auto_approve && !input.customer_id) throw invalidRequest('auto_approve needs a customer_id: an approved invoice names its buyer.', 'customer_id');
  checkDates(input.issue_date, input.due_date);
  const currency = checkCurrency(input.currency ?? 'DKK', input.exchange_rate);
  const { fields: customer, customer: buyer } = await customerOf(db, scope, input.customer_id);
  const resolved = await resolveLines(db, scope, input.lines);
  const id = newId();
  const lines = lineRows(scope, id, resolved);
  // The new row needs no lock: nobody else sees it before this transaction commits. The invoice and
  // its lines in one statement (Prisma's nested create sends three); $queryRaw types the row as the model.
  const col = <T>(f: (l: (typeof lines)[number]) => T) => lines.map(f);
  const { subtotal, vat_amount, total } = draftAmounts(resolved);
  const [created] = await db.$queryRaw<Invoice[]>`
    WITH invoice AS (
      INSERT INTO invoices (id, company_id, customer_id, customer_name, status, issue_date, due_date, notes, subtotal, vat_amount, total, currency, exchange_rate)
      VALUES (${id}::uuid, ${scope.companyId}::uuid, ${customer.customer_id}::uuid, ${customer.customer_name}, 'draft', ${input.issue_date}::date,
              ${input.due_date}::date, ${input.notes ?? ''}, ${subtotal}::numeric, ${vat_amount}::numeric, ${total}::numeric,
              ${currency.currency}, ${currency.rate?.toFixed(6) ?? null}::numeric)
      RETURNING *
    ), invoice_lines AS (
      INSERT INTO invoice_lines (id, company_id, invoice_id, line_number, product_id, description, quantity, unit_price, vat_rate, vat_code, unit, discount_percent, amount, dimensions, accrual_from, accrual_to)
      SELECT l.id, invoice.company_id, invoice.id, l.line_number, l.product_id, l.description, l.quantity, l.unit_price, l.vat_rate, l.vat_code, l.unit, l.discount_percent, l.amount, l.dimensions, l.accrual_from, l.accrual_to
      FROM invoice, unnest(${col((l) => l.id)}::uuid[], ${col((l) => l.line_number)}::int2[], ${col((l) => l.product_id)}::uuid[],
                           ${col((l) => l.description)}::text[], ${col((l) => l.quantity)}::numeric[], ${col((l) => l.unit_price)}::numeric[],
                           ${col((l) => l.vat_rate)}::numeric[], ${col((l) => l.vat_code)}::text[], ${col((l) => l.unit)}::text[],
                           ${col((l) => l.discount_percent)}::numeric[], ${col((l) => l.amount)}::numeric[],
                           ${col((l) => (l.dimensions ? JSON.stringify(l.dimensions) : null))}::jsonb[],
                           ${col((l) => l.accrual_from?.toISOString().slice(0, 10) ?? null)}::date[], ${col((l) => l.accrual_to?.toISOString().slice(0, 10) ?? null)}::date[])
           AS l(id, line_number, product_id, description, quantity, unit_price, vat_rate, vat_code, unit, discount_percent, amount, dimensions, accrual_from, accrual_to)
    )
    SELECT * FROM invoice`;
  // Not read back (four statements): a new draft has no credit note, no payments and the lines just written.
  const draft: FullInvoiceRow = {
    ...created!,
    credit_note: null,
    einvoice_messages: [],
    email_deliveries: [],
    payments: [],
    lines: lines.map((l) => ({
      ...l,
      quantity: new Prisma.Decimal(l.quantity),
      unit_price: new Prisma.Decimal(l.unit_price),
      vat_rate: new Prisma.Decimal(l.vat_rate),
      discount_percent: new Prisma.Decimal(l.discount_percent),
      amount: new Prisma.Decimal(l.amount),
      account_id: null,
    })),
  };
  await recordInvoiceEvent(db, scope, 'invoice.created', invoiceView(draft));
  const result = input.auto_approve ? await approveInvoice(db, scope, draft, buyer) : draft;
  return invoiceSummary(invoiceView(result));
}
