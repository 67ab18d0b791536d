// The API shapes of e-invoice messages: the message itself, and the summary its invoice shows.
import type { Prisma } from '@tlr/db';
import type { DocumentKind, EinvoiceMessageView, EinvoiceStatus, InvoiceEinvoiceView } from './schema.ts';

/** What an invoice read includes of its messages: its own document's and its credit note's, outbound. */
export const invoiceEinvoiceInclude = {
  where: { direction: 'outbound' },
  // Not the document: a list of invoices reads none of their XML.
  select: { id: true, document_kind: true, status: true, last_response: true },
} satisfies Prisma.Invoice$einvoice_messagesArgs;

export type EinvoiceMessageRow = Prisma.EinvoiceMessageGetPayload<object>;

const responseOf = (v: Prisma.JsonValue | null) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

export function einvoiceMessageView(m: EinvoiceMessageRow): EinvoiceMessageView {
  return {
    id: m.id,
    invoice_id: m.invoice_id,
    direction: 'outbound',
    // The columns hold only these (checked by the table's constraints).
    document_kind: m.document_kind as DocumentKind,
    document_number: m.document_number,
    channel: 'peppol',
    receiver: m.receiver_peppol_id,
    status: m.status as EinvoiceStatus,
    attempts: m.attempts,
    next_attempt_at: m.next_attempt_at?.toISOString() ?? null,
    last_error: m.last_error,
    last_response: responseOf(m.last_response),
    document_uuid: m.document_uuid,
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}

/** The message of the invoice's document `kind` (read with invoiceEinvoiceInclude), or null. */
export function invoiceEinvoiceView(
  messages: readonly Pick<EinvoiceMessageRow, 'id' | 'document_kind' | 'status' | 'last_response'>[],
  kind: DocumentKind,
): InvoiceEinvoiceView {
  const m = messages.find((x) => x.document_kind === kind);
  return m ? { status: m.status as EinvoiceStatus, message_id: m.id, last_response: responseOf(m.last_response) } : null;
}
