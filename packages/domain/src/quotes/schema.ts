// A quote's fields, once: the create and update bodies, the accept body, and the resources the API answers
// with. Its lines are an invoice's (the same body and the same resource).
import { z } from 'zod';
import { emailDeliveryResource } from '../email/schema.ts';
import { amountOut, boolean, currency, date, dateOut, text, timestamp, uuid } from '../fields.ts';
import { invoiceLineResource, invoiceLines } from '../invoices/schema.ts';
import { registrationFields } from '../trail/actor.ts';
import { QUOTE_STATUSES } from './rules.ts';

const fields = {
  customer_id: uuid().nullable().optional().meta({ description: 'A customer of the company; required to send the quote' }),
  issue_date: date().meta({ description: 'Quote date (tilbudsdato)' }),
  valid_until: date().meta({
    description: 'The last day the quote may be accepted; not before issue_date. The day after, the daily sweep expires a sent quote',
  }),
  notes: text(2000).optional().meta({ description: 'Free text shown on the quote; searchable' }),
  currency: currency().optional().meta({ description: "The quote's currency (ISO 4217); default DKK. The invoice made of it takes its rate at approval" }),
  lines: invoiceLines,
};

export const quoteCreate = z.strictObject(fields);
export const quoteUpdate = z.strictObject({
  customer_id: fields.customer_id,
  issue_date: fields.issue_date.optional(),
  valid_until: fields.valid_until.optional(),
  notes: fields.notes,
  currency: fields.currency,
  lines: fields.lines.optional().meta({ description: 'When given, replaces all lines' }),
});

/** POST /quotes/{id}/accept beside the id. */
export const quoteAcceptBody = z.strictObject({
  approve: boolean().optional().meta({ description: 'true: the invoice is approved at once (numbered and posted); default false: it is a draft' }),
  issue_date: date().optional().meta({ description: "The invoice's date; default today (Europe/Copenhagen)" }),
  due_date: date().optional().meta({ description: "The invoice's due date; default issue_date plus the customer's payment_terms_days" }),
});

const quoteFields = {
  id: z.guid(),
  quote_number: z.string().meta({ description: "Empty string until the quote is sent; then the next number of the company's own quote series" }),
  customer_id: z.guid().nullable(),
  customer_name: z.string().meta({ description: 'The customer as it was when the quote was last changed; may be empty' }),
  status: z.enum(QUOTE_STATUSES),
  issue_date: dateOut(),
  valid_until: dateOut(),
  currency: z.string().meta({ example: 'DKK' }),
  notes: z.string(),
  subtotal: amountOut("Sum of the line amounts excluding VAT, in the quote's currency"),
  vat_amount: amountOut('VAT, computed per VAT code and rounded half up, as on an invoice'),
  total: amountOut('subtotal + vat_amount'),
  invoice_id: z.guid().nullable().meta({ description: 'The invoice made when the quote was accepted; null before (and once that draft invoice is deleted)' }),
  sent_at: timestamp().nullable(),
  accepted_at: timestamp().nullable(),
  declined_at: timestamp().nullable(),
  expired_at: timestamp().nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
  // The control trail (decision 800), as an invoice shows it.
  ...registrationFields,
};

export const quoteResource = z.object(quoteFields).meta({ id: 'Quote' });
export const fullQuoteResource = z
  .object({
    ...quoteFields,
    lines: z.array(invoiceLineResource),
    deliveries: z
      .array(emailDeliveryResource)
      .meta({ description: 'The e-mails of the quote (POST /quotes/{id}/send with channel email), oldest first, each with its status (queued, sent, failed)' }),
  })
  .meta({ id: 'QuoteWithLines' });

export type QuoteInput = z.output<typeof quoteCreate>;
export type QuoteUpdate = z.output<typeof quoteUpdate>;
export type QuoteAcceptInput = z.output<typeof quoteAcceptBody>;
export type QuoteView = z.input<typeof quoteResource>;
export type FullQuoteView = z.input<typeof fullQuoteResource>;
