// An expense's fields, once: the create and update bodies and that of a status change, the resource
// the API answers with (its OpenAPI component), and the domain's input and view types derived from them.
import { z } from 'zod';
import { accountNumber, amountOut, boolean, date, dateOut, money, text, timestamp, uuid } from '../fields.ts';
import { ordinal } from '../integers.ts';
import { EXPENSE_STATUSES } from './expenses.ts';

const fields = {
  supplier_id: uuid().nullable().optional().meta({ description: 'A supplier of the company; optional (a till receipt has none)' }),
  voucher_id: uuid().nullable().optional().meta({
    description:
      "An uploaded voucher of the company documenting the expense; it gets expense_id. Another company's (or the other mode's) voucher, or one attached elsewhere: 400 invalid_request",
  }),
  date: date().meta({ description: 'The date of the bill; booking posts on it' }),
  due_date: date().optional().meta({ description: 'When it is to be paid; default date; not before it' }),
  description: text(500).optional().meta({ example: 'Kontorartikler' }),
  amount: money().meta({ description: 'The total of the bill INCLUDING VAT, DKK, greater than 0', example: 1250 }),
  vat_amount: money({ min: 0 })
    .optional()
    .meta({ description: 'The input VAT (købsmoms) contained in amount, DKK; default 0; at most the 25 % VAT amount can contain (amount / 5)', example: 250 }),
  account_number: accountNumber()
    .optional()
    .meta({ description: 'The expense account debited with amount - vat_amount; default 2810 Andre eksterne omkostninger', example: '2810' }),
};

export const expenseCreate = z.strictObject({ ...fields, book: boolean().optional().meta({ description: 'true: book at once' }) });
export const expenseUpdate = z.strictObject({ ...fields, date: fields.date.optional(), amount: fields.amount.optional() });

/** PUT /expenses/{id}/status beside the id. */
export const expenseStatusBody = z.strictObject({
  status: z.enum(EXPENSE_STATUSES, { error: `must be one of ${EXPENSE_STATUSES.join(', ')}` }),
  date: date().optional(),
  account_id: uuid().optional(),
  account_number: accountNumber().optional(),
});

export const expenseResource = z
  .object({
    id: z.guid(),
    supplier_id: z.guid().nullable(),
    voucher_id: z.guid().nullable(),
    date: dateOut(),
    due_date: dateOut(),
    description: z.string(),
    amount: amountOut('Including VAT, DKK'),
    vat_amount: amountOut('Input VAT, DKK'),
    net_amount: amountOut('amount - vat_amount: what the expense account is debited'),
    account_number: z.string(),
    status: z.enum(EXPENSE_STATUSES),
    posted_transaction_id: z.guid().nullable().meta({ description: "The booking's posting; null on a draft" }),
    posted_system_id: ordinal().nullable(),
    payment_transaction_id: z.guid().nullable(),
    paid_date: dateOut().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Expense' });

export type ExpenseInput = z.output<typeof expenseCreate>;
export type ExpenseUpdate = z.output<typeof expenseUpdate>;
export type ExpenseStatusInput = z.output<typeof expenseStatusBody>;
export type ExpenseView = z.input<typeof expenseResource>;
