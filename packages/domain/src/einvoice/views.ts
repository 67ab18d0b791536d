// The API shapes of e-invoice messages: the message itself, and the summary its invoice shows.
import type { Prisma } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import { amountToJson, quantityToJson } from '../money.ts';
import type { StoredLine } from './inbound.ts';
import type {
  DocumentKind,
  EinvoiceDirection,
  EinvoiceFormat,
  EinvoiceMessageView,
  EinvoiceStatus,
  InvoiceEinvoiceView,
  MessageKind,
  ResponseStatus,
} from './schema.ts';

/** What an invoice read includes of its messages: its own document's and its credit note's, outbound. */
export const invoiceEinvoiceInclude = {
  where: { direction: 'outbound' },
  // Not the document: a list of invoices reads none of their XML.
  select: { id: true, document_kind: true, status: true, last_response: true },
} satisfies Prisma.Invoice$einvoice_messagesArgs;

export type EinvoiceMessageRow = Prisma.EinvoiceMessageGetPayload<object>;
/** A message as read without its document (lists and reads never need the XML). */
export type EinvoiceMessageHead = Omit<EinvoiceMessageRow, 'document_xml'>;

const responseOf = (v: Prisma.JsonValue | null) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** A jsonb array column as the code wrote it (inbound.ts), [] otherwise. */
const arrayOf = <T>(v: Prisma.JsonValue | undefined): T[] => (Array.isArray(v) ? (v as unknown as T[]) : []);

const path = (collection: string, id: string | null) => (id ? `/api/v1/${collection}/${id}` : null);

export function einvoiceMessageView(m: EinvoiceMessageHead): EinvoiceMessageView {
  const inbound = m.direction === 'inbound';
  return {
    id: m.id,
    // The columns hold only these (checked by the table's trigger).
    direction: m.direction as EinvoiceDirection,
    invoice_id: m.invoice_id,
    expense_id: m.expense_id,
    supplier_id: m.supplier_id,
    document_kind: m.document_kind as MessageKind,
    document_format: m.document_format as EinvoiceFormat,
    document_number: m.document_number,
    document_uuid: m.document_uuid,
    application_response: m.response_to_id ? { responds_to: m.response_to_id, status: m.response_status as ResponseStatus, reason: m.response_reason } : null,
    reminder: m.document_kind === 'reminder' ? { number: m.reminder_number } : null,
    issue_date: m.issue_date ? fromDate(m.issue_date) : null,
    counterpart: { name: m.counterpart_name, peppol_id: inbound ? m.sender_peppol_id : m.receiver_peppol_id },
    currency: m.currency,
    net_amount: amountToJson(m.net_amount),
    vat_amount: amountToJson(m.vat_amount),
    total_amount: amountToJson(m.total_amount),
    payable_amount: amountToJson(m.payable_amount),
    lines: arrayOf<StoredLine>(m.lines).map((l) => ({
      id: l.id,
      description: l.description,
      item_id: l.item_id,
      quantity: quantityToJson(l.quantity),
      unit: l.unit,
      price: l.price === null ? null : quantityToJson(l.price),
      net_amount: amountToJson(l.net_amount),
      allowances: l.allowances.map((a) => ({ charge: a.charge, amount: amountToJson(a.amount), reason: a.reason })),
      vat_category: l.vat_category,
      vat_rate: l.vat_rate === null ? null : quantityToJson(l.vat_rate),
      vat_amount: l.vat_amount === null ? null : amountToJson(l.vat_amount),
      account_number: l.account_number,
      account_source: l.account_source,
    })),
    payment_means: arrayOf<EinvoiceMessageView['payment_means'][number]>(m.payment_means),
    other_taxes: arrayOf<{ scheme: string; name: string; amount: string }>(m.other_taxes).map((t) => ({ ...t, amount: amountToJson(t.amount) })),
    channel: 'peppol',
    sender: m.sender_peppol_id,
    receiver: m.receiver_peppol_id,
    status: m.status as EinvoiceStatus,
    attempts: m.attempts,
    next_attempt_at: m.next_attempt_at?.toISOString() ?? null,
    last_error: m.last_error,
    last_response: responseOf(m.last_response),
    links: {
      self: path('einvoices', m.id)!,
      xml: `${path('einvoices', m.id)!}/xml`,
      invoice: path('invoices', m.invoice_id),
      expense: path('expenses', m.expense_id),
      supplier: path('suppliers', m.supplier_id),
      voucher: path('vouchers', m.voucher_id),
      attachments: (m.attachment_voucher_ids ?? []).map((id) => path('vouchers', id)!),
    },
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}

/** The message of reminder `number` among an invoice's reminder messages, or null: what the reminder shows of its e-invoice. */
export function reminderEinvoiceView(
  messages: readonly Pick<EinvoiceMessageRow, 'id' | 'reminder_number' | 'status' | 'last_response'>[],
  number: number,
): InvoiceEinvoiceView {
  const m = messages.find((x) => x.reminder_number === number);
  return m ? { status: m.status as EinvoiceStatus, message_id: m.id, last_response: responseOf(m.last_response) } : null;
}

/** The message of the invoice's document `kind` (read with invoiceEinvoiceInclude), or null. */
export function invoiceEinvoiceView(
  messages: readonly Pick<EinvoiceMessageRow, 'id' | 'document_kind' | 'status' | 'last_response'>[],
  kind: DocumentKind,
): InvoiceEinvoiceView {
  const m = messages.find((x) => x.document_kind === kind);
  return m ? { status: m.status as EinvoiceStatus, message_id: m.id, last_response: responseOf(m.last_response) } : null;
}
