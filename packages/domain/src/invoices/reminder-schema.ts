// A payment reminder's fields, once: the company settings that drive reminders (PUT/GET /settings/company
// spread them), the body of POST /invoices/{id}/reminders and the reminder resource (its OpenAPI
// component, the event data and the domain's view type).
import { z } from 'zod';
import { amountOut, boolean, date, dateOut, money, percent, timestamp } from '../fields.ts';
import { count } from '../integers.ts';
import { MAX_REMINDERS, reminderFeeProblem } from './reminders.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { reminderEinvoice } from '../einvoice/schema.ts';

/** The reminder settings of PUT /settings/company; fields left out keep their value. */
export const reminderSettingsInput = {
  reminder_fee_enabled: boolean()
    .optional()
    .meta({
      description: `true: each reminder charges reminder_fee (rykkergebyr), posted as income (${DEFAULT_ACCOUNTS.reminderFee}) against receivables (${DEFAULT_ACCOUNTS.receivable}); default false`,
    }),
  reminder_fee: money()
    .superRefine((fee, ctx) => {
      const problem = reminderFeeProblem(fee);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional()
    .meta({ description: 'DKK per reminder, greater than 0 and at most 100.00 (renteloven § 9 b); default 100.00', example: 100 }),
  reminder_interest_enabled: boolean()
    .optional()
    .meta({
      description: `true: a reminder of an invoice to a business buyer (CVR, EU VAT number or EAN on the invoice) charges interest (morarente) at reminder_reference_rate + 8 percentage points a year, pro rata by day, posted as interest income (${DEFAULT_ACCOUNTS.reminderInterest}) against receivables; default false`,
    }),
  reminder_reference_rate: percent().optional().meta({
    description:
      'Danmarks Nationalbank\'s reference rate (udlånsrente) in percent a year, as the Nationalbank publishes it for the half-year (renteloven § 5, stk. 2: the rate of 1 January and 1 July); a decimal string or number, 0 to 100, at most 2 decimals; default "1.60"',
    example: '1.60',
  }),
  reminders_automatic: boolean().optional().meta({
    description:
      'true: a daily job (just after midnight, Danish time) gives every approved, sent or overdue invoice the reminder that is due: the first the day after the due date, the next 10 days after the last, at most 3; default false',
  }),
};

/** The same settings as GET /settings/company answers them. */
export const reminderSettingsOutput = {
  reminder_fee_enabled: z.boolean(),
  reminder_fee: amountOut('DKK per reminder when reminder_fee_enabled'),
  reminder_interest_enabled: z.boolean(),
  reminder_reference_rate: z.string().meta({ description: 'Percent a year, 2 decimals; the interest charged is this + 8', example: '1.60' }),
  reminders_automatic: z.boolean(),
};

/** POST /invoices/{id}/reminders beside the id. */
export const reminderCreateBody = z.strictObject({
  date: date().optional().meta({
    description:
      'The reminder date (rykkerdato); default today (Europe/Copenhagen). Not in the future; not before the day after the due date, nor within 10 days of the last reminder (409 reminder_too_early)',
  }),
});

export const reminderResource = z
  .object({
    id: z.guid(),
    invoice_id: z.guid(),
    invoice_number: z.string(),
    number: z.int().min(1).max(MAX_REMINDERS).meta({ description: 'Rykker 1, 2 or 3' }),
    date: dateOut(),
    currency: z.string().meta({ description: "The invoice's currency: balance_due is in it; fee and interest are in DKK" }),
    balance_due: amountOut("The invoice's balance due on the reminder (total - paid), in its currency"),
    fee: amountOut('The reminder fee (rykkergebyr), DKK; 0 when fees are off'),
    interest: amountOut('Interest (morarente), DKK: balance in DKK × interest_rate / 100 × interest_days / 365, rounded half up to øre; 0 when none'),
    interest_rate: z
      .string()
      .nullable()
      .meta({ description: 'Percent a year charged (reference rate + 8), 2 decimals; null when no interest was charged', example: '9.60' }),
    interest_days: count().meta({ description: 'The days charged: from the due date, or the last reminder that charged interest, to this one' }),
    charges_total: amountOut('DKK: the fees and interest of this reminder and the ones before it, the claim beside the balance due'),
    transaction_id: z
      .guid()
      .nullable()
      .meta({
        description: `The posting of fee and interest (debit ${DEFAULT_ACCOUNTS.receivable}, credit ${DEFAULT_ACCOUNTS.reminderFee} and ${DEFAULT_ACCOUNTS.reminderInterest}); null when both are 0`,
      }),
    einvoice: reminderEinvoice,
    created_at: timestamp(),
  })
  .meta({ id: 'InvoiceReminder' });

export type ReminderSettingsInput = { [K in keyof typeof reminderSettingsInput]?: z.output<(typeof reminderSettingsInput)[K]> };
export type ReminderInput = z.output<typeof reminderCreateBody>;
export type ReminderView = z.input<typeof reminderResource>;
