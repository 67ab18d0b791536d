// /expenses: drafts (edited and deleted freely), booking (posted with a number from the unified
// sequence), payment and cancellation by reversal, through PUT /expenses/{id}/status.
import { z } from 'zod';
import {
  createExpense,
  DEFAULT_ACCOUNTS,
  deleteExpense,
  EXPENSE_LIST,
  EXPENSE_STATUSES,
  EXPENSE_TRANSITIONS,
  expenseCreate,
  expenseResource,
  expenseStatusBody,
  expenseLineUpdate,
  expenseUpdate,
  getExpense,
  listExpenses,
  setExpenseStatus,
  updateExpense,
  updateExpenseLine,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { currencyFilter } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const transitions = EXPENSE_STATUSES.map((s) => `${s} → ${EXPENSE_TRANSITIONS[s].length ? EXPENSE_TRANSITIONS[s].join(', ') : '(final)'}`).join('; ');
const tag = 'Expenses';

export const expensesRouter = router({
  list: listEndpoint({
    path: '/expenses',
    tag,
    summary: 'List expenses',
    scope: 'expenses:read',
    spec: EXPENSE_LIST,
    searchDescription: 'Case-insensitive search in the description',
    filters: currencyFilter,
    resource: expenseResource,
    run: listExpenses,
  }),
  create: createEndpoint({
    path: '/expenses',
    tag,
    summary: 'Create an expense',
    description:
      'A draft, or with book: true booked at once: posted on date (debit the expense account with amount - vat_amount and 7740 Købsmoms with vat_amount, credit 7440 Leverandører with amount) with a number from the unified document sequence; its voucher then documents the posting and is kept five years after the end of the financial year. A negative amount is a credit note from the supplier (kreditnota): its VAT is negative too, and booking posts the mirror (the same lines, debit and credit swapped). With accrual ({from, to} months): booking debits 6390 Periodeafgrænsningsposter (prepaid expenses) instead of the expense account, the VAT as usual, and the daily run-accruals job moves the share of each month to the expense account on the last day of the month (decisions 820-826).',
    scope: 'expenses:write',
    problems: [422],
    body: expenseCreate,
    resource: expenseResource,
    run: createExpense,
  }),
  get: getEndpoint({ path: '/expenses/{id}', tag, summary: 'Get an expense', scope: 'expenses:read', resource: expenseResource, run: getExpense }),
  update: updateEndpoint({
    path: '/expenses/{id}',
    tag,
    summary: 'Update a draft expense',
    description:
      "Only a draft; a booked expense is changed only by cancelling it (its posting is reversed): 409 expense_not_draft. An expense with lines (a received e-invoice's) is the sum of them: amount, vat_amount, vat_code and accrual are 409 expense_has_lines (a line is accrued with PUT /expenses/{id}/lines/{line_id}), and account_number moves every line to that account (account_source manual).",
    scope: 'expenses:write',
    problems: [409],
    body: expenseUpdate,
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
  updateLine: authedProcedure
    .meta(
      metaOf(
        {
          path: '/expenses/{id}/lines/{line_id}',
          tag,
          summary: "Change a draft expense line's account, dimensions or accrual",
          description:
            "A line of a draft expense (lines: a received e-invoice's) to another active expense account of the chart; its account_source becomes manual, and the expense's account_number follows the largest part of its lines. Booking posts one journal line per account, VAT code and dimensions, and teaches the supplier's item the account: its next document's same item is proposed there (account_source supplier_item). With dimensions ({\"Projekt\": \"A\"}; null or {} clears them): booking posts the line's cost with them over the expense's dimensions, dimension by dimension (the expense's are the default of every line), and the writer holds each cost line to the dimensions the company requires on its account (400 dimension_required at booking; decisions 855-857). With accrual ({from, to} months, at most 60; null clears it): booking debits the line's net amount to 6390 prepaid expenses under its VAT code, and the run-accruals job moves each month's share to the line's account on the month's last day (the last month takes the rounding; decisions 820-826). Any of the three fields, or several (none: 400). Answers the expense. Not a draft: 409 expense_not_draft; another expense's line: 404. Emits expense.updated.",
          scope: 'expenses:write',
          problems: [404, 409],
        },
        'PUT',
      ),
    )
    .input(z.strictObject({ id: uuid(), line_id: uuid(), ...expenseLineUpdate.shape }))
    .output(single(expenseResource))
    .mutation(async ({ ctx, input: { id, line_id, ...body } }) => ({ data: await updateExpenseLine(ctx.tx, ctx.scope, id, line_id, body) })),
  setStatus: authedProcedure
    .meta(
      metaOf(
        {
          path: '/expenses/{id}/status',
          tag,
          summary: 'Book, pay or cancel an expense',
          description: `Transitions: ${transitions}. booked posts the expense; paid posts the settlement (debit ${DEFAULT_ACCOUNTS.payable}, credit account_number/account_id, default ${DEFAULT_ACCOUNTS.bank} Bankkonto; for a credit note the supplier's refund, debit the bank and credit ${DEFAULT_ACCOUNTS.payable}) on date (default today, Europe/Copenhagen); cancelled posts the reversal of the booking on date (409 asset_exists while a fixed asset was made from the expense: delete it first); an accrued expense's reversal credits 6390 only with what is left on it and the expense account with the months already moved, and no later month is posted (decision 825). The current status again is a no-op. A move the table forbids: 409 invalid_transition with allowed_statuses. Emits expense.updated.`,
          scope: 'expenses:write',
          problems: [409, 422],
        },
        'PUT',
        { idempotent: { status: 200, optional: true } },
      ),
    )
    .input(z.strictObject({ id: uuid(), ...expenseStatusBody.shape }))
    .output(single(expenseResource))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: await setExpenseStatus(ctx.tx, ctx.scope, id, body) })),
});
