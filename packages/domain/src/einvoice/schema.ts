// An e-invoice message's fields, once: the body of POST /invoices/{id}/send, the message the API
// answers with, and the `einvoice` summary an invoice carries (views built in outbound.ts).
import { z } from 'zod';
import { timestamp } from '../fields.ts';
import { deliveryAttempts } from '../integers.ts';

/**
 * queued: waiting for (another) attempt; sent: the access point accepted it; delivered and rejected:
 * what the access point or the receiver answered afterwards; failed: every attempt failed (dead letter).
 */
export const EINVOICE_STATUSES = ['queued', 'sent', 'delivered', 'rejected', 'failed'] as const;
export type EinvoiceStatus = (typeof EINVOICE_STATUSES)[number];
/** The statuses a replay starts again from: the access point never took the document, or refused it. */
export const REPLAYABLE_STATUSES: readonly EinvoiceStatus[] = ['failed', 'rejected'];

export const DOCUMENT_KINDS = ['invoice', 'credit_note'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** The invoice, or the credit note that cancelled it: what a PDF, a UBL document or an e-invoice is of. */
export const documentKind = z
  .enum(DOCUMENT_KINDS, { error: 'must be invoice or credit_note' })
  .default('invoice')
  .meta({ description: 'invoice (default): the invoice; credit_note: the credit note (kreditnota) that cancelled it' });

export const einvoiceSendBody = z.strictObject({
  channel: z.enum(['peppol'], { error: 'must be peppol' }).meta({ description: 'The network: peppol (NemHandel), the only one so far' }),
  document: documentKind,
});
export type EinvoiceSendInput = z.output<typeof einvoiceSendBody>;

const lastResponse = z.record(z.string(), z.unknown()).nullable().meta({
  description:
    "What answered the document last: the access point's answer to the hand-over or its receipt (`source` receipt), or a summary of a Peppol ApplicationResponse (`source` application_response, with `code` and `description`); null before any",
});
const status = z.enum(EINVOICE_STATUSES).meta({
  description: 'queued (waiting for an attempt), sent (accepted by the access point), delivered, rejected, failed (every attempt failed: replay it)',
});

export const einvoiceMessageResource = z
  .object({
    id: z.guid(),
    invoice_id: z.guid().nullable(),
    direction: z.enum(['outbound']),
    document_kind: z.enum(DOCUMENT_KINDS),
    document_number: z.string().meta({ description: 'The invoice (or credit note) number the document carries' }),
    channel: z.enum(['peppol']),
    receiver: z.string().meta({ description: "The receiver's Peppol participant id, <scheme>:<id>", example: '0088:5798000020000' }),
    status,
    attempts: deliveryAttempts().meta({ description: 'Attempts since it was queued or last replayed (at most 8, as for webhooks)' }),
    next_attempt_at: timestamp().nullable().meta({ description: 'When the next attempt is due while queued; null once settled' }),
    last_error: z.string().meta({ description: 'Why the last attempt failed; "" if it did not' }),
    last_response: lastResponse,
    document_uuid: z.string().meta({ description: 'The UBL document UUID (cbc:UUID); responses refer to the document by it' }),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'EinvoiceMessage' });
export type EinvoiceMessageView = z.input<typeof einvoiceMessageResource>;

/** What an invoice shows of the e-invoice that sent it (its own document; its credit note's shows on the credit note). */
const einvoiceSummary = z.object({ status, message_id: z.guid(), last_response: lastResponse }).nullable();
export const invoiceEinvoice = einvoiceSummary.meta({
  description: 'The e-invoice sending this invoice (POST /invoices/{id}/send); null when it was never sent as one',
});
export const creditNoteEinvoice = einvoiceSummary.meta({
  description: 'The e-invoice sending this credit note (POST /invoices/{id}/send {"document":"credit_note"}); null when it was never sent as one',
});
export type InvoiceEinvoiceView = z.input<typeof invoiceEinvoice>;
