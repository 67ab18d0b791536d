// An e-invoice message's fields, once: the body of POST /invoices/{id}/send, the message the API
// answers with (sent or received), and the `einvoice` summary an invoice carries (views.ts builds them).
import { z } from 'zod';
import { amountOut, dateOut, timestamp } from '../fields.ts';
import { deliveryAttempts } from '../integers.ts';
import { recipients } from '../email/schema.ts';

/**
 * Outbound: queued: waiting for (another) attempt; sent: the access point accepted it; delivered and
 * rejected: what the access point or the receiver answered afterwards; failed: every attempt failed
 * (dead letter). Inbound: received (imported as a draft expense).
 */
export const EINVOICE_STATUSES = ['queued', 'sent', 'delivered', 'rejected', 'failed', 'received'] as const;
export type EinvoiceStatus = (typeof EINVOICE_STATUSES)[number];
/** The statuses a replay starts again from: the access point never took the document, or refused it. */
export const REPLAYABLE_STATUSES: readonly EinvoiceStatus[] = ['failed', 'rejected'];

export const DOCUMENT_KINDS = ['invoice', 'credit_note'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
/**
 * What a message carries: an invoice or credit note, an invoice response (outbound: the company's answer
 * to a document it received), or a reminder (outbound: a reminder of an invoice sent as OIOUBL).
 */
export const MESSAGE_KINDS = [...DOCUMENT_KINDS, 'application_response', 'reminder'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
/** What an invoice response says of the received document: received (imported), accepted (its expense booked), rejected. */
export const RESPONSE_STATUSES = ['received', 'accepted', 'rejected'] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];
export const EINVOICE_DIRECTIONS = ['outbound', 'inbound'] as const;
export type EinvoiceDirection = (typeof EINVOICE_DIRECTIONS)[number];
/**
 * What a document is: Peppol BIS Billing 3.0 (every document sent), or, received: OIOUBL 2.1, EN 16931
 * in UBL (plain, XRechnung, other CIUS) or in CII (XRechnung CII, Factur-X / ZUGFeRD's XML).
 */
export const EINVOICE_FORMATS = ['peppol-bis3', 'oioubl-2.1', 'en16931-ubl', 'en16931-cii'] as const;
export type EinvoiceFormat = (typeof EINVOICE_FORMATS)[number];

/** The invoice, or the credit note that cancelled it: what a PDF, a UBL document or an e-invoice is of. */
export const documentKind = z
  .enum(DOCUMENT_KINDS, { error: 'must be invoice or credit_note' })
  .default('invoice')
  .meta({ description: 'invoice (default): the invoice; credit_note: the credit note (kreditnota) that cancelled it' });

export const einvoiceSendBody = z.strictObject({
  channel: z.enum(['peppol', 'email'], { error: 'must be peppol or email' }).meta({
    description:
      "peppol: an e-invoice over Peppol (NemHandel) to the customer's peppol_id; email: the PDF attached to an e-mail to the customer's email or to `to` (docs/email.md)",
  }),
  document: documentKind,
  to: recipients().optional(),
});
export type EinvoiceSendInput = z.output<typeof einvoiceSendBody>;

export const einvoiceRejectBody = z.strictObject({
  reason: z
    .string({ error: 'must be a text' })
    .trim()
    .min(1, { error: 'must say why the document is rejected' })
    .max(500, { error: 'must be at most 500 characters' })
    .meta({ description: 'Why the document is rejected: sent to the supplier in the response', example: 'Vi har ikke fået de aftalte 800,- kr i rabat' }),
});

const lastResponse = z.record(z.string(), z.unknown()).nullable().meta({
  description:
    "What answered the document last: the access point's answer to the hand-over or its receipt (`source` receipt), or a summary of a Peppol ApplicationResponse (`source` application_response, with `code` and `description`); null before any",
});
const status = z.enum(EINVOICE_STATUSES).meta({
  description:
    'Sent: queued (waiting for an attempt), sent (accepted by the access point), delivered, rejected, failed (every attempt failed: replay it). Received: received (imported as a draft expense)',
});
const link = (what: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `The path of ${what}; null when there is none` });

/** A payment means a received document states (the message's, and the expense's it made). */
export const paymentMeansResource = z.object({
  code: z.string().meta({ description: 'UNCL 4461: 31, 42, 58 bank transfer; 93 FI payment (FIK); 49 direct debit; ...' }),
  due_date: z.string().meta({ description: 'The payment due date it names; "" when none' }),
  card_type: z.string().meta({ description: 'An FI payment: its card type (71, 73, 75); "" otherwise' }),
  payment_id: z.string().meta({ description: 'The payment id (FI: the betalings-id); "" when none' }),
  creditor: z.string().meta({ description: 'An FI payment: the creditor number (kreditornummer)' }),
  fi_line: z.string().meta({
    description: 'An FI payment: the payment line as typed into a bank, +71<payment id> +<creditor><',
    example: '+71<000000000001735 +81234567<',
  }),
  account: z.string().meta({ description: 'A bank transfer: the account number or IBAN; "" otherwise' }),
  branch: z.string().meta({ description: 'A bank transfer: the registration number (Danish account) or BIC' }),
});

// Written with the document's exact digits (a price may carry more than a double holds).
const decimal = (description: string) => amountOut(description);
const inboundLine = z
  .object({
    id: z.string().meta({ description: "The line's id in the document" }),
    description: z.string().meta({ description: "The item's name (or description) as the document states it" }),
    item_id: z.string().meta({ description: 'The seller\'s item id; "" when none' }),
    quantity: decimal('The quantity invoiced (credited)'),
    unit: z.string().meta({ description: 'UN/ECE Recommendation 20 unit code (C62, HUR, EA, ...); "" when none' }),
    price: decimal('The price per unit, as stated').nullable(),
    net_amount: decimal("The line's amount without VAT, allowances and charges applied"),
    allowances: z
      .array(
        z.object({
          charge: z.boolean().meta({ description: 'true: a charge; false: an allowance (discount)' }),
          amount: decimal('The allowance or charge'),
          reason: z.string(),
        }),
      )
      .meta({ description: "The line's allowances and charges" }),
    vat_category: z
      .string()
      .meta({ description: 'The VAT category (UNCL 5305: S, Z, E, AE, K, G, O; OIOUBL StandardRated is S, ZeroRated Z, ReverseCharge AE)' }),
    vat_rate: decimal('The VAT rate in percent').nullable(),
    vat_amount: decimal("The line's VAT when the document states it (OIOUBL); null otherwise").nullable(),
    account_number: z.string().meta({
      description:
        "The expense account proposed for the line on import; the draft expense's own line carries it (GET /expenses/{id}, lines), where a person may change it",
      example: '2810',
    }),
    account_source: z.enum(['supplier_item', 'supplier_default', 'vat_category']).meta({
      description:
        "Where the proposal comes from: supplier_item, the account this supplier's same item was last booked to; supplier_default, the supplier's default_account_number; vat_category, the default expense account for the line's VAT category",
    }),
  })
  .meta({ id: 'EinvoiceLine' });

export const einvoiceMessageResource = z
  .object({
    id: z.guid(),
    direction: z.enum(EINVOICE_DIRECTIONS).meta({
      description:
        "outbound: sent by the company (POST /invoices/{id}/send, and the invoice responses it sends about documents it received); inbound: received by it (POST /einvoices/inbound, the transport's inbox)",
    }),
    invoice_id: z.guid().nullable().meta({ description: 'outbound: the invoice the document (or reminder) is of; null when received' }),
    expense_id: z.guid().nullable().meta({ description: 'inbound: the draft expense the import made; null when sent' }),
    supplier_id: z.guid().nullable().meta({ description: 'inbound: the supplier the document is from (found or created); null when sent' }),
    document_kind: z.enum(MESSAGE_KINDS).meta({
      description:
        'invoice or credit_note; application_response: an invoice response the company sent (direction outbound) to the sender of a document it received; reminder: a payment reminder (rykker) of an invoice sent as OIOUBL, sent as an OIOUBL 2.1 Reminder (direction outbound) to where the invoice went',
    }),
    document_format: z.enum(EINVOICE_FORMATS).meta({
      description:
        'peppol-bis3 (Peppol BIS Billing 3.0; a response: Peppol BIS Invoice Response 3), oioubl-2.1 (OIOUBL 2.1, 2.02, 2.01; a response: an OIOUBL ApplicationResponse; a reminder: an OIOUBL Reminder), en16931-ubl (EN 16931 in UBL: plain, XRechnung) or en16931-cii (EN 16931 in CII: XRechnung CII, Factur-X / ZUGFeRD)',
    }),
    document_number: z.string().meta({
      description:
        "The invoice (or credit note) number the document carries; a response: the number of the document it answers; a reminder: the invoice number and the reminder's (1042-R2)",
    }),
    application_response: z
      .object({
        responds_to: z.guid().meta({ description: 'The received e-invoice it answers' }),
        status: z.enum(RESPONSE_STATUSES).meta({
          description:
            'received: the document was imported (Peppol AB, OIOUBL TechnicalAccept); accepted: its expense was booked (AP, BusinessAccept); rejected (RE, BusinessReject): POST /einvoices/{id}/reject',
        }),
        reason: z.string().meta({ description: 'Why it was rejected; "" otherwise' }),
      })
      .nullable()
      .meta({ description: 'An invoice response (document_kind application_response): what it says of which received document; null otherwise' }),
    reminder: z
      .object({
        number: z.int().min(1).max(3).meta({ description: "The reminder's number (1, 2 or 3): GET /invoices/{invoice_id}/reminders lists it" }),
      })
      .nullable()
      .meta({ description: "A reminder (document_kind reminder): which of the invoice's reminders it sends; null otherwise" }),
    document_uuid: z.string().meta({ description: 'The UBL document UUID (cbc:UUID); responses refer to the document by it; "" when a received one has none' }),
    issue_date: dateOut().nullable().meta({ description: "The document's issue date" }),
    counterpart: z
      .object({
        name: z.string().meta({ description: 'The customer (sent) or supplier (received) as the document names it' }),
        peppol_id: z.string().meta({ description: 'Its Peppol participant id, <scheme>:<id>; "" when the document has none', example: '0088:5798000020000' }),
      })
      .meta({ description: 'Who is at the other end: the buyer of a document sent, the seller of one received' }),
    currency: z.string().meta({ description: "The document's currency (ISO 4217)", example: 'DKK' }),
    net_amount: amountOut("The total without VAT, in the document's currency"),
    vat_amount: amountOut("The VAT total, in the document's currency"),
    total_amount: amountOut("The total with VAT, in the document's currency"),
    payable_amount: amountOut('What the document asks to be paid (the total less anything prepaid)'),
    lines: z.array(inboundLine).meta({ description: "Received: the document's lines, each with the account proposed for it; [] when sent" }),
    payment_means: z.array(paymentMeansResource).meta({ description: 'Received: how the supplier asks to be paid, as the document states it; [] when sent' }),
    other_taxes: z
      .array(z.object({ scheme: z.string(), name: z.string(), amount: decimal("The tax, in the document's currency") }))
      .meta({ description: 'Received: taxes other than VAT (excise duties, each by its tax scheme), part of the cost; [] when none' }),
    channel: z.enum(['peppol']),
    sender: z.string().meta({
      description: 'The sender\'s Peppol participant id: the company (sent) or the supplier (received); "" when the document names none',
      example: '0184:12345674',
    }),
    receiver: z.string().meta({
      description: "The receiver's Peppol participant id, <scheme>:<id>: the customer (sent) or the company (received)",
      example: '0088:5798000020000',
    }),
    status,
    attempts: deliveryAttempts().meta({ description: 'Sent: attempts since it was queued or last replayed (at most 8, as for webhooks); 0 when received' }),
    next_attempt_at: timestamp().nullable().meta({ description: 'When the next attempt is due while queued; null once settled' }),
    last_error: z.string().meta({ description: 'Why the last attempt failed; "" if it did not' }),
    last_response: lastResponse,
    links: z
      .object({
        self: z.string().meta({ description: 'This message', example: '/api/v1/einvoices/3f1c…' }),
        xml: z.string().meta({ description: 'The document as sent or received (GET /einvoices/{id}/xml)' }),
        invoice: link('the invoice (sent)'),
        expense: link('the draft expense (received)'),
        supplier: link('the supplier (received)'),
        voucher: link('the voucher the expense carries: the received XML, or the Factur-X / ZUGFeRD PDF it came in (its XML is then among attachments)'),
        attachments: z.array(z.string()).meta({ description: "The vouchers of the received document's embedded attachments (such as its PDF)" }),
      })
      .meta({ description: 'Where to read what the message refers to' }),
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
export const reminderEinvoice = einvoiceSummary.meta({
  description:
    'The e-invoice sending this reminder (an OIOUBL Reminder, for an invoice sent as OIOUBL): its message (GET /einvoices/{message_id}), status and last response; null when it went as a PDF only',
});
export type InvoiceEinvoiceView = z.input<typeof invoiceEinvoice>;
