// The API shapes of invoices: the list shape (the contract's fields plus additive ones), the full
// invoice with its lines and payments, the create summary and the compact data of invoice events.
import type { Prisma } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import { amountToJson, quantityToJson, rateToJson } from '../money.ts';
import { exchangeRateToJson } from '../currency/rules.ts';
import { invoiceEinvoiceInclude, invoiceEinvoiceView } from '../einvoice/views.ts';
import type { InvoiceStatus } from './rules.ts';
import { registrationView } from '../trail/actor.ts';
import type { LineDimensions } from '../dimensions/schema.ts';
import { rangeOf } from '../accruals/rules.ts';
import { accrualKey, accrualView } from '../accruals/accruals.ts';
import type { AccrualView } from '../accruals/schema.ts';
import { documentDeliveriesInclude, emailDeliveryView } from '../email/views.ts';
import type { FullInvoiceView, InvoicePaymentView, InvoiceSummary, InvoiceView } from './schema.ts';

export const invoiceInclude = { credit_note: true, einvoice_messages: invoiceEinvoiceInclude } satisfies Prisma.InvoiceInclude;
export const fullInvoiceInclude = {
  credit_note: true,
  einvoice_messages: invoiceEinvoiceInclude,
  lines: { orderBy: { line_number: 'asc' } },
  payments: { orderBy: [{ created_at: 'asc' }, { id: 'asc' }] },
  email_deliveries: documentDeliveriesInclude,
} satisfies Prisma.InvoiceInclude;

export type InvoiceRow = Prisma.InvoiceGetPayload<{ include: typeof invoiceInclude }>;
export type FullInvoiceRow = Prisma.InvoiceGetPayload<{ include: typeof fullInvoiceInclude }>;

export function invoiceView(i: InvoiceRow): InvoiceView {
  return {
    id: i.id,
    invoice_number: i.invoice_number,
    customer_id: i.customer_id,
    customer_name: i.customer_name,
    // The column holds only these (every write goes through rules.ts).
    status: i.status as InvoiceStatus,
    issue_date: fromDate(i.issue_date),
    due_date: fromDate(i.due_date),
    subtotal: amountToJson(i.subtotal),
    vat_amount: amountToJson(i.vat_amount),
    total: amountToJson(i.total),
    currency: i.currency,
    exchange_rate: i.exchange_rate === null ? null : exchangeRateToJson(i.exchange_rate),
    total_dkk: amountToJson(i.total_dkk),
    created_at: i.created_at.toISOString(),
    updated_at: i.updated_at.toISOString(),
    ...registrationView(i),
    // Additive: beyond the contract's shape.
    notes: i.notes,
    payment_id: i.payment_id,
    fi_creditor_number: i.fi_creditor_number,
    paid_amount: amountToJson(i.paid_amount),
    balance_due: amountToJson(i.status === 'cancelled' ? 0 : i.total.minus(i.paid_amount)),
    posted_transaction_id: i.posted_transaction_id,
    posted_system_id: i.posted_system_id === null ? null : Number(i.posted_system_id),
    credit_note: i.credit_note
      ? {
          id: i.credit_note.id,
          credit_note_number: String(i.credit_note.document_number),
          date: fromDate(i.credit_note.date),
          transaction_id: i.credit_note.transaction_id,
          ...registrationView(i.credit_note),
          einvoice: invoiceEinvoiceView(i.einvoice_messages, 'credit_note'),
        }
      : null,
    einvoice: invoiceEinvoiceView(i.einvoice_messages, 'invoice'),
    quote_id: i.quote_id,
  };
}

/** The full invoice; `schedules` the months of its accrued lines (accrualSchedules), else each accrued line shows none. */
export function fullInvoiceView(i: FullInvoiceRow, schedules: ReadonlyMap<string, AccrualView['schedule']> = new Map()): FullInvoiceView {
  return {
    ...invoiceView(i),
    lines: i.lines.map((l) => ({
      ...lineView(l),
      dimensions: (l.dimensions as LineDimensions | null) ?? {},
      accrual: accrualView(rangeOf(l.accrual_from, l.accrual_to), schedules, accrualKey(i.id, l.id)),
    })),
    payments: i.payments.map(paymentView),
    deliveries: i.email_deliveries.map(emailDeliveryView),
  };
}

/** A stored line (an invoice's, or a quote's with the same columns) as the API shows it. */
export function lineView(
  l: Omit<Prisma.InvoiceLineGetPayload<object>, 'id' | 'company_id' | 'invoice_id' | 'account_id' | 'dimensions' | 'accrual_from' | 'accrual_to'>,
): Omit<FullInvoiceView['lines'][number], 'dimensions' | 'accrual'> {
  return {
    line_number: l.line_number,
    product_id: l.product_id,
    description: l.description,
    quantity: quantityToJson(l.quantity),
    unit_price: amountToJson(l.unit_price),
    vat_rate: rateToJson(l.vat_rate),
    vat_code: l.vat_code,
    unit: l.unit,
    discount_percent: rateToJson(l.discount_percent),
    amount: amountToJson(l.amount),
  };
}

export function paymentView(p: Prisma.InvoicePaymentGetPayload<object>): InvoicePaymentView {
  return {
    id: p.id,
    invoice_id: p.invoice_id,
    amount: amountToJson(p.amount),
    exchange_rate: exchangeRateToJson(p.exchange_rate),
    date: fromDate(p.date),
    account_id: p.account_id,
    transaction_id: p.transaction_id,
    reversed_transaction_id: p.reversed_transaction_id,
    created_at: p.created_at.toISOString(),
    ...registrationView(p),
  };
}

/** The 201 answer of POST /invoices (contract: the compact summary; the posting ids once approved). */
export function invoiceSummary(v: InvoiceView): InvoiceSummary {
  return {
    id: v.id,
    invoice_number: v.invoice_number,
    status: v.status,
    subtotal: v.subtotal,
    vat_amount: v.vat_amount,
    total: v.total,
    ...(v.posted_transaction_id && v.posted_system_id !== null ? { posted_transaction_id: v.posted_transaction_id, posted_system_id: v.posted_system_id } : {}),
  };
}

/** The data of every invoice.* event (contract, for invoice.paid: id, invoice_number, status, total, currency). */
export function invoiceEventData(v: InvoiceView) {
  return {
    id: v.id,
    invoice_number: v.invoice_number,
    status: v.status,
    customer_id: v.customer_id,
    issue_date: v.issue_date,
    due_date: v.due_date,
    total: v.total,
    paid_amount: v.paid_amount,
    currency: v.currency,
    exchange_rate: v.exchange_rate,
    total_dkk: v.total_dkk,
  };
}
