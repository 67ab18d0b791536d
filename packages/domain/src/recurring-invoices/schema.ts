// A recurring invoice's fields, once: the create and update bodies (its lines are invoice lines, the
// invoice's own schema), the resource the API answers with, and the domain's types derived from them.
import { z } from 'zod';
import { amountOut, currency, date, dateOut, exact, text, timestamp, uuid } from '../fields.ts';
import { count, paymentTermsDays } from '../integers.ts';
import { invoiceLines } from '../invoices/schema.ts';
import { registrationFields } from '../trail/actor.ts';
import { RECURRING_ACTIONS, RECURRING_INTERVALS, RECURRING_STATUSES } from './rules.ts';

const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of ${values.join(', ')}` });

// Each integer with its real range, for the body and the answer alike (decision 164).
const everyInt = () => z.int().min(1).max(120);
const countInt = () => z.int().min(1).max(10_000);
const dayInt = () => z.int().min(1).max(31);

const dayOfMonth = z.union([exact(dayInt()), z.literal('last')], { error: "must be a day 1 to 31 or 'last'" }).meta({
  description:
    "The day of the month each invoice is dated: 1 to 31 (29, 30 and 31 fall on the last day of a shorter month), or 'last' for the last day of every month; default start_date's day",
  example: 1,
});

const fields = {
  customer_id: uuid().meta({ description: 'A customer of the company: each invoice is made for it' }),
  lines: invoiceLines.meta({
    description:
      "The lines of every invoice, as an invoice's lines (POST /invoices). A product's name, price and VAT rate are read when each invoice is made, so a change reaches the next period not yet made",
  }),
  interval: oneOf(RECURRING_INTERVALS).meta({ description: 'month, quarter or year', example: 'month' }),
  every: exact(everyInt()).optional().meta({ description: 'An invoice every n intervals (every 2 months); default 1', example: 1 }),
  start_date: date().meta({ description: 'The first invoice is dated on the first schedule day on or after it' }),
  end_date: date().nullable().optional().meta({ description: 'No invoice is dated after it; null for no end. Not with count' }),
  count: exact(countInt())
    .nullable()
    .optional()
    .meta({ description: 'The template ends after this many invoices; null for no end. Not with end_date', example: 12 }),
  day_of_month: dayOfMonth.optional(),
  payment_terms_days: exact(paymentTermsDays()).nullable().optional().meta({
    description: "Days from each invoice's date to its due date; null (default): the customer's payment_terms_days when the invoice is made",
    example: 14,
  }),
  action: oneOf(RECURRING_ACTIONS).optional().meta({
    description:
      "What is done with each invoice made: draft (the default) leaves it a draft; approve numbers and posts it; send approves it and sends it by the customer's channel: as an e-invoice to its peppol_id, or, without one, by e-mail to its email (as POST /invoices/{id}/send with channel peppol or email), so send needs a customer with a peppol_id or an email (else 422 peppol_id_required)",
    example: 'approve',
  }),
  currency: currency().optional().meta({ description: "The invoices' currency (ISO 4217); default DKK" }),
  notes: text(2000).optional().meta({ description: 'Free text shown on every invoice' }),
};

export const recurringInvoiceCreate = z.strictObject(fields);
export const recurringInvoiceUpdate = z.strictObject({
  customer_id: fields.customer_id.optional(),
  lines: fields.lines.optional().meta({ description: 'When given, replaces all lines from the next period not yet made' }),
  interval: fields.interval.optional(),
  every: fields.every,
  start_date: fields.start_date.optional(),
  end_date: fields.end_date,
  count: fields.count,
  day_of_month: fields.day_of_month,
  payment_terms_days: fields.payment_terms_days,
  action: fields.action,
  currency: fields.currency,
  notes: fields.notes,
});

const lineOut = z.object({
  product_id: z.guid().nullable(),
  description: z.string().nullable().meta({ description: "null: the product's name" }),
  quantity: z.number(),
  unit_price: amountOut().nullable().meta({ description: "null: the product's price when each invoice is made" }),
  vat_rate: z.number().nullable(),
  vat_code: z.string().nullable(),
  unit: z.string().nullable(),
  discount_percent: z.number().nullable(),
});

const resourceFields = {
  id: z.guid(),
  customer_id: z.guid(),
  status: z.enum(RECURRING_STATUSES).meta({
    description: 'active: invoices are made on schedule; paused: none are made (POST /recurring-invoices/{id}/resume); ended: the end date or count is reached',
  }),
  interval: z.enum(RECURRING_INTERVALS),
  every: everyInt(),
  start_date: dateOut(),
  end_date: dateOut().nullable(),
  count: countInt().nullable(),
  day_of_month: z.union([dayInt(), z.literal('last')]),
  payment_terms_days: paymentTermsDays().nullable(),
  action: z.enum(RECURRING_ACTIONS),
  currency: z.string(),
  notes: z.string(),
  lines: z.array(lineOut).meta({ description: 'The lines as given (null: not given, the invoice line default)' }),
  next_date: dateOut().nullable().meta({ description: 'The date of the next invoice to be made; null when paused or ended' }),
  invoices_made: count(),
  created_at: timestamp(),
  updated_at: timestamp(),
  // The control trail (decision 800), as an invoice shows it.
  ...registrationFields,
};

export const recurringInvoiceResource = z.object(resourceFields).meta({ id: 'RecurringInvoice' });
export const fullRecurringInvoiceResource = z
  .object({
    ...resourceFields,
    invoices: z
      .array(
        z.object({
          period: dateOut().meta({ description: "The period's date: the invoice's issue date" }),
          invoice_id: z.guid().nullable().meta({ description: 'null when the invoice, a draft, was deleted since (the period is not made again)' }),
          created_at: timestamp(),
        }),
      )
      .meta({ description: 'Each invoice made, in period order' }),
  })
  .meta({ id: 'RecurringInvoiceWithInvoices' });

export type RecurringInvoiceInput = z.output<typeof recurringInvoiceCreate>;
export type RecurringInvoiceUpdate = z.output<typeof recurringInvoiceUpdate>;
export type RecurringInvoiceView = z.input<typeof recurringInvoiceResource>;
export type FullRecurringInvoiceView = z.input<typeof fullRecurringInvoiceResource>;
