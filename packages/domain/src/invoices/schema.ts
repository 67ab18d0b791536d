// An invoice's fields, once: the create and update bodies and those of a status change and a payment,
// the resources the API answers with (their OpenAPI components), and the domain's input and view types
// derived from them (views.ts builds the views, typed by these).
import { z } from 'zod';
import { emailDeliveryResource } from '../email/schema.ts';
import {
  accountNumber,
  amountOut,
  boolean,
  currency,
  date,
  dateOut,
  exchangeRate,
  money,
  percent,
  quantity,
  requiredText,
  text,
  timestamp,
  uuid,
  vatCode,
} from '../fields.ts';
import { lineNumber, ordinal } from '../integers.ts';
import { creditNoteEinvoice, invoiceEinvoice } from '../einvoice/schema.ts';
import { INVOICE_STATUSES, INVOICE_VAT_RATES } from './rules.ts';
import { DEFAULT_LINE_UNIT, LINE_UNITS } from './units.ts';
import { registrationFields } from '../trail/actor.ts';
import { lineDimensions } from '../dimensions/schema.ts';
import { accrualInput, accrualResource } from '../accruals/schema.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

/** A line of an invoice's (and a quote's) create and update bodies. */
export const invoiceLine = z.strictObject({
  product_id: uuid().nullable().optional().meta({ description: 'A product of the company; its name, unit price and VAT rate are the defaults of the line' }),
  description: requiredText(500).optional().meta({ description: 'Required unless product_id gives it', example: 'Konsulentbistand' }),
  quantity: quantity(),
  unit_price: money().optional().meta({ description: 'DKK excluding VAT, at most 2 decimals; required unless product_id gives it', example: 19.96 }),
  vat_rate: percent()
    .optional()
    .meta({
      description: `Percent: ${INVOICE_VAT_RATES.join(' or ')}; default 25 (or the product's rate, or vat_code's rate). Without vat_code, 25 is code S25 and 0 is S0`,
      example: 25,
    }),
  vat_code: vatCode().meta({
    description:
      "The VAT treatment (momskode) of the line, a sales code of the company (GET /vat-codes): S25 salgsmoms, S0 momsfrit (0 %), SMF momsfritaget (§ 13, named on the invoice), SEUV/SEUVI/SEUY EU B2B varer/ydelser (rubrik B, the customer needs an EU vat_number), SEXP eksport (rubrik C), SOMV omvendt betalingspligt § 46 (rubrik C). vat_rate, when also given, must be the code's rate",
    example: 'S25',
  }),
  unit: z
    .string()
    .trim()
    .toUpperCase()
    .refine((u) => LINE_UNITS.has(u), {
      error:
        'must be a UN/ECE Recommendation 20 unit code that Peppol BIS 3 and OIOUBL 2.1 both accept, such as C62 (one, piece), HUR (hour), DAY, KGM, MTR, LTR',
    })
    .optional()
    .meta({
      description: `The unit of the quantity, a UN/ECE Recommendation 20 code: C62 (one, piece; the default), HUR (hour), DAY, KGM, MTR, LTR, ...`,
      example: 'HUR',
    }),
  discount_percent: percent()
    .refine((d) => d.lessThan(100), { error: 'must be less than 100 (a line given away is a line at price 0)' })
    .optional()
    .meta({
      description: 'A discount on the line in percent, 0 (the default) to below 100: amount = quantity × unit_price less the discount, each rounded to øre',
      example: 10,
      // Below 100, not up to it: percent()'s maximum makes way for the exclusive bound.
      maximum: undefined,
      exclusiveMaximum: 100,
    }),
});

const fields = {
  customer_id: uuid().nullable().optional().meta({ description: 'A customer of the company; required when auto_approve is true and for approval' }),
  issue_date: date().meta({ description: 'Invoice date (fakturadato); the approval posts on it' }),
  due_date: date().meta({ description: 'Payment due date; not before issue_date' }),
  notes: text(2000).optional().meta({ description: 'Free text shown on the invoice; searchable' }),
  currency: currency()
    .optional()
    .meta({ description: "The invoice's currency (valuta, ISO 4217); default DKK. Amounts, subtotal, vat_amount and total are in it" }),
  exchange_rate: exchangeRate().nullable().optional().meta({
    description:
      "DKK per unit of currency (valutakurs), e.g. 7.46 for EUR; default: the company's rate for the issue date (PUT /exchange-rates), fixed at approval. Not with DKK",
    example: 7.46,
  }),
  lines: z
    .array(
      invoiceLine.extend({
        dimensions: lineDimensions().optional(),
        accrual: accrualInput().nullable().optional().meta({
          description:
            "An accrual of the line's amount (without VAT) over months, e.g. a year's subscription invoiced up front: approval credits 8070 Periodeafgrænsningsposter (deferred income) instead of the revenue account, the VAT as usual, and each month's share moves to the revenue account on its last day. Cancelling (the credit note) gives back what is left on 8070. null: none",
        }),
      }),
    )
    .min(1, 'needs at least one line')
    .max(500, 'has more than 500 lines'),
};

/** The lines of a quote's and a recurring invoice's bodies: an invoice's without dimensions. */
export const invoiceLines = z.array(invoiceLine).min(1, 'needs at least one line').max(500, 'has more than 500 lines');

export const invoiceCreate = z.strictObject({
  ...fields,
  auto_approve: boolean().optional().meta({
    description: 'true: approve at once: draws the next number of the unified document number sequence and posts the invoice to the general ledger',
  }),
});
export const invoiceUpdate = z.strictObject({
  customer_id: fields.customer_id,
  currency: fields.currency,
  exchange_rate: fields.exchange_rate,
  issue_date: fields.issue_date.optional(),
  due_date: fields.due_date.optional(),
  notes: fields.notes,
  lines: fields.lines.optional().meta({ description: 'When given, replaces all lines' }),
});

/** PUT /invoices/{id}/status beside the id. */
export const invoiceStatusBody = z.strictObject({
  status: z.enum(INVOICE_STATUSES, { error: `must be one of ${INVOICE_STATUSES.join(', ')}` }),
  date: date().optional().meta({ description: 'paid: payment date; cancelled: credit note date. Default today (Europe/Copenhagen)' }),
  account_id: uuid().optional().meta({ description: 'paid: the asset account the money went to' }),
  account_number: accountNumber()
    .optional()
    .meta({ description: `paid: as account_id, by number; default ${DEFAULT_ACCOUNTS.bank}` }),
  exchange_rate: exchangeRate()
    .optional()
    .meta({ description: "paid, foreign-currency invoice: DKK per unit the rest was received at; default the company's rate for the payment date" }),
});

/** POST /invoices/{id}/payments beside the id. */
export const invoicePaymentBody = z.strictObject({
  amount: money().meta({ description: "In the invoice's currency, greater than 0 and at most the balance due", example: 500 }),
  exchange_rate: exchangeRate()
    .optional()
    .meta({
      description: `Foreign-currency invoice: DKK per unit the payment was received at; default the company's rate for the payment date. The difference to the invoice's rate posts to ${DEFAULT_ACCOUNTS.exchangeDifference} Valutakursreguleringer (kursdifference)`,
      example: 7.45,
    }),
  date: date().optional().meta({ description: 'Payment date; default today (Europe/Copenhagen)' }),
  account_id: uuid().optional().meta({ description: 'The asset account the money went to' }),
  account_number: accountNumber()
    .optional()
    .meta({ description: `As account_id, by number; default ${DEFAULT_ACCOUNTS.bank}` }),
});

const creditNote = z
  .object({
    id: z.guid(),
    credit_note_number: z.string().meta({ description: 'Its own number from the unified document number sequence' }),
    date: dateOut(),
    transaction_id: z.guid().meta({ description: 'The posting that reverses the invoice' }),
    ...registrationFields,
    einvoice: creditNoteEinvoice,
  })
  .nullable()
  .meta({ description: 'The credit note (kreditnota) that cancelled the invoice; null otherwise' });

const invoiceFields = {
  id: z.guid(),
  invoice_number: z.string().meta({ description: 'Empty string until the invoice is approved and numbered' }),
  customer_id: z.guid().nullable().meta({ description: 'null on a draft without customer' }),
  customer_name: z.string().meta({ description: 'May be empty; frozen at approval' }),
  status: z.enum(INVOICE_STATUSES),
  issue_date: dateOut(),
  due_date: dateOut(),
  subtotal: amountOut("Sum of the line amounts excluding VAT, in the invoice's currency"),
  vat_amount: amountOut("VAT, computed per VAT code and rounded half up, in the invoice's currency"),
  total: amountOut("subtotal + vat_amount, in the invoice's currency"),
  currency: z.string().meta({ description: 'ISO 4217 (valuta); DKK unless the invoice was made in another currency', example: 'DKK' }),
  exchange_rate: z
    .number()
    .nullable()
    .meta({ description: 'DKK per unit of currency (1 for DKK); null on a draft whose rate is fixed at approval from the rate table', example: 1 }),
  total_dkk: amountOut('What the approval debited receivables with, DKK (total × exchange_rate, the VAT and revenue lines each rounded to øre); 0 on a draft'),
  created_at: timestamp(),
  updated_at: timestamp(),
  ...registrationFields,
  notes: z.string(),
  payment_id: z.string().meta({
    description:
      'The FI payment id (betalings-id) for FI card type +71, 15 digits: the invoice number left-padded with zeros to 14 digits and a modulus 10 check digit. Given at approval when the company has an fi_creditor_number (PUT /settings/company) and never changed afterwards; "" on a draft and on an invoice approved without one. GET /invoices?search= finds an invoice by it',
    example: '000000000001735',
  }),
  fi_creditor_number: z.string().meta({
    description:
      'The FI creditor number (kreditornummer) the invoice was approved with, frozen with payment_id: the payment line is +71<payment_id> +<fi_creditor_number><; "" when payment_id is ""',
    example: '81234567',
  }),
  paid_amount: amountOut("Payments registered so far, in the invoice's currency"),
  balance_due: amountOut("total - paid_amount (0 once cancelled), in the invoice's currency"),
  posted_transaction_id: z.guid().nullable().meta({ description: 'The ledger posting of the approval; null on a draft' }),
  posted_system_id: ordinal().nullable().meta({ description: 'SystemID of that posting; null on a draft' }),
  credit_note: creditNote,
  einvoice: invoiceEinvoice,
  quote_id: z.guid().nullable().meta({ description: 'The quote this invoice was made of when it was accepted (POST /quotes/{id}/accept); null otherwise' }),
};

export const invoiceResource = z.object(invoiceFields).meta({ id: 'Invoice' });

export const invoicePaymentResource = z
  .object({
    id: z.guid(),
    invoice_id: z.guid(),
    amount: amountOut("In the invoice's currency"),
    exchange_rate: z.number().meta({ description: 'DKK per unit on the payment (1 for DKK)' }),
    date: dateOut(),
    account_id: z.guid().meta({ description: 'The account debited (bank)' }),
    transaction_id: z.guid().meta({ description: 'The ledger posting of the payment' }),
    reversed_transaction_id: z
      .guid()
      .nullable()
      .meta({ description: 'The posting that reversed the payment when its bank line was unmatched (it no longer counts in paid_amount); null otherwise' }),
    created_at: timestamp(),
    ...registrationFields,
  })
  .meta({ id: 'InvoicePayment' });

/** A line as an invoice (and a quote) shows it. */
export const invoiceLineResource = z.object({
  line_number: lineNumber(),
  product_id: z.guid().nullable(),
  description: z.string(),
  quantity: z.number(),
  unit_price: amountOut(),
  vat_rate: z.number().meta({ description: 'Percent, as sent (25 when omitted)' }),
  vat_code: z.string().meta({ description: 'The VAT code (momskode) of the line: as sent, else S25 or S0 by vat_rate', example: 'S25' }),
  unit: z.string().meta({ description: `The unit of the quantity (UN/ECE Recommendation 20); ${DEFAULT_LINE_UNIT} when none was sent`, example: 'HUR' }),
  discount_percent: z.number().meta({ description: 'The discount in percent; 0 when none', example: 10 }),
  amount: amountOut('quantity × unit_price rounded half up to øre, less discount_percent of it rounded half up to øre'),
});

export const fullInvoiceResource = z
  .object({
    ...invoiceFields,
    lines: z.array(
      invoiceLineResource.extend({
        dimensions: z
          .record(z.string(), z.string())
          .meta({ description: 'The dimensions of the line ({} for none); approval posts them with its revenue line', example: { Projekt: 'A' } }),
        accrual: accrualResource.nullable().meta({
          description:
            "The line's accrual and its months once approved: each month's share (DKK), posted (with its transaction) or pending; cancelled when the invoice was credited first. null when it is not accrued",
        }),
      }),
    ),
    payments: z.array(invoicePaymentResource),
    deliveries: z.array(emailDeliveryResource).meta({
      description:
        'The e-mails of the invoice, its credit note and its reminders (POST /invoices/{id}/send with channel email, POST /invoices/{id}/reminders with channel email), oldest first, each with its status (queued, sent, failed)',
    }),
  })
  .meta({ id: 'InvoiceWithLines' });

export const invoiceSummaryResource = z
  .object({
    id: z.guid(),
    invoice_number: z.string().meta({ description: 'Empty for a draft; filled with auto_approve' }),
    status: z.enum(INVOICE_STATUSES),
    subtotal: amountOut(),
    vat_amount: amountOut(),
    total: amountOut(),
    posted_transaction_id: z.guid().optional().meta({ description: 'Only with auto_approve: the ledger posting' }),
    posted_system_id: ordinal().optional().meta({ description: 'Only with auto_approve: its SystemID' }),
  })
  .meta({ id: 'InvoiceSummary' });

export type InvoiceInput = z.output<typeof invoiceCreate>;
export type InvoiceUpdate = z.output<typeof invoiceUpdate>;
export type InvoiceStatusInput = z.output<typeof invoiceStatusBody>;
export type PaymentInput = z.output<typeof invoicePaymentBody>;
export type InvoiceView = z.input<typeof invoiceResource>;
export type FullInvoiceView = z.input<typeof fullInvoiceResource>;
export type InvoicePaymentView = z.input<typeof invoicePaymentResource>;
export type InvoiceSummary = z.input<typeof invoiceSummaryResource>;
