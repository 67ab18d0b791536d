// The API shape of an e-mail delivery, and the deliveries a document shows (GET /invoices/{id}, GET /quotes/{id}).
import type { Prisma } from '@tlr/db';
import type { EmailDeliveryView, EmailKind, EmailStatus } from './schema.ts';

export type EmailDeliveryRow = Prisma.EmailDeliveryGetPayload<object>;

/** What a document's view reads of its deliveries: not the PDF bytes, oldest first. */
export const documentDeliveriesInclude = {
  omit: { attachment: true },
  orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
} satisfies Prisma.Invoice$email_deliveriesArgs;

export function emailDeliveryView(d: Omit<EmailDeliveryRow, 'attachment'>): EmailDeliveryView {
  return {
    id: d.id,
    channel: 'email',
    // The columns hold only these (outbound.ts writes them).
    document_kind: d.document_kind as EmailKind,
    invoice_id: d.invoice_id,
    quote_id: d.quote_id,
    customer_id: d.customer_id,
    reminder_number: d.reminder_number,
    to: d.recipients,
    reply_to: d.reply_to,
    subject: d.subject,
    body: d.body,
    message_id: d.message_id,
    attachment: d.attachment_name,
    status: d.status as EmailStatus,
    attempts: d.attempts,
    next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
    last_response: d.last_response,
    last_error: d.last_error,
    sent_at: d.sent_at?.toISOString() ?? null,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}
