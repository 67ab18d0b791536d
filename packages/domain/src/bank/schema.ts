// A bank line as the API shows it (the BankLine component), defined once.
import { z } from 'zod';
import { amountOut, dateOut, timestamp } from '../fields.ts';

export const bankLineResource = z
  .object({
    id: z.guid(),
    bank_account_id: z.guid(),
    statement_id: z.guid(),
    booking_date: dateOut(),
    value_date: dateOut().nullable(),
    amount: amountOut("Signed, in the bank account's currency: positive money in, negative money out"),
    currency: z.string(),
    text: z.string(),
    counterparty_name: z.string(),
    counterparty_iban: z.string(),
    reference: z.string(),
    bank_reference: z.string(),
    status: z.enum(['matched', 'unmatched']),
    match: z
      .object({
        type: z.enum(['invoice', 'expense', 'transaction', 'posting']),
        invoice_id: z.guid().nullable(),
        expense_id: z.guid().nullable(),
        transaction_id: z.guid(),
        matched_by: z.enum(['auto', 'manual']),
        matched_at: timestamp(),
      })
      .nullable(),
    suggestions: z.array(z.object({ type: z.enum(['invoice', 'expense', 'transaction']), id: z.guid(), score: z.number(), reasons: z.array(z.string()) })),
    created_at: timestamp(),
  })
  .meta({ id: 'BankLine' });
export type BankLineView = z.input<typeof bankLineResource>;
