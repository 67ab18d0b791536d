// /expenses: drafts (edited and deleted freely), booking (posted with a number from the unified
// sequence), payment and cancellation by reversal, through PUT /expenses/{id}/status.
import { z } from 'zod';
import {
  createExpense,
  deleteExpense,
  EXPENSE_LIST,
  EXPENSE_STATUSES,
  EXPENSE_TRANSITIONS,
  getExpense,
  listExpenses,
  setExpenseStatus,
  updateExpense,
} from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { accountNumber, amountOut, boolean, date, dateOut, money, text, timestamp, uuid } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';

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
    posted_system_id: z.int().nullable(),
    payment_transaction_id: z.guid().nullable(),
    paid_date: dateOut().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Expense' });

const transitions = EXPENSE_STATUSES.map((s) => `${s} → ${EXPENSE_TRANSITIONS[s].length ? EXPENSE_TRANSITIONS[s].join(', ') : '(final)'}`).join('; ');
const tag = 'Expenses';

export const expensesRouter = router({
  list: listEndpoint({
    path: '/expenses',
    tag,
    summary: 'List expenses',
    description: `since/until filter on the creation date; status one of ${EXPENSE_STATUSES.join(', ')}.`,
    scope: 'expenses:read',
    spec: EXPENSE_LIST,
    searchDescription: 'Case-insensitive search in the description',
    resource: expenseResource,
    run: listExpenses,
  }),
  create: createEndpoint({
    path: '/expenses',
    tag,
    summary: 'Create an expense',
    description:
      'A draft, or with book: true booked at once: posted on date (debit the expense account with amount - vat_amount and 7740 Købsmoms with vat_amount, credit 7440 Leverandører with amount) with a number from the unified document sequence; its voucher then documents the posting and is kept five years after the end of the financial year.',
    scope: 'expenses:write',
    problems: [422],
    body: z.strictObject({ ...fields, book: boolean().optional().meta({ description: 'true: book at once' }) }),
    resource: expenseResource,
    run: createExpense,
  }),
  get: getEndpoint({ path: '/expenses/{id}', tag, summary: 'Get an expense', scope: 'expenses:read', resource: expenseResource, run: getExpense }),
  update: updateEndpoint({
    path: '/expenses/{id}',
    tag,
    summary: 'Update a draft expense',
    description: 'Only a draft; a booked expense is changed only by cancelling it (its posting is reversed): 409 expense_not_draft.',
    scope: 'expenses:write',
    problems: [409],
    body: z.strictObject({ ...fields, date: fields.date.optional(), amount: fields.amount.optional() }),
    resource: expenseResource,
    run: updateExpense,
  }),
  delete: deleteEndpoint({
    path: '/expenses/{id}',
    tag,
    summary: 'Delete a draft expense',
    description: 'Only a draft (its voucher is detached); otherwise 409 expense_not_draft.',
    scope: 'expenses:write',
    problems: [409],
    run: deleteExpense,
  }),
  setStatus: authedProcedure
    .meta(
      metaOf(
        {
          path: '/expenses/{id}/status',
          tag,
          summary: 'Book, pay or cancel an expense',
          description: `Transitions: ${transitions}. booked posts the expense; paid posts the settlement (debit 7440, credit account_number/account_id, default 6470 Bankkonto) on date (default today, Europe/Copenhagen); cancelled posts the reversal of the booking on date. The current status again is a no-op. A move the table forbids: 409 invalid_transition with allowed_statuses. Emits expense.updated.`,
          scope: 'expenses:write',
          problems: [409, 422],
        },
        'PUT',
        { idempotent: { status: 200, optional: true } },
      ),
    )
    .input(
      z.strictObject({
        id: uuid(),
        status: z.enum(EXPENSE_STATUSES, { error: `must be one of ${EXPENSE_STATUSES.join(', ')}` }),
        date: date().optional(),
        account_id: uuid().optional(),
        account_number: accountNumber().optional(),
      }),
    )
    .output(single(expenseResource))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: await setExpenseStatus(ctx.tx, ctx.scope, id, body) })),
});
