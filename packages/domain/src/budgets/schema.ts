// A budget's fields, once: the create, update and lines bodies and the resource (decisions 810 to 814).
import { z } from 'zod';
import { accountNumber, amountOut, date, dateOut, money, requiredText, timestamp } from '../fields.ts';

/** The most lines a budget holds: an amount per account per month. */
export const MAX_BUDGET_LINES = 20_000;

const month = () =>
  z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM')
    .meta({ description: 'The month, YYYY-MM, within the budget’s fiscal year', example: '2026-03' });

export const budgetLineInput = z.strictObject({
  account_number: accountNumber().meta({ description: 'A revenue or expense account of the chart', example: '1010' }),
  month: month(),
  amount: money().meta({
    description: 'The budgeted amount, DKK, signed as the profit and loss shows the account: positive on its usual side (revenue as income, costs as cost)',
    example: 10000,
  }),
});

export const budgetCreate = z.strictObject({
  name: requiredText(200).meta({ example: 'Budget 2026' }),
  fiscal_year: date().meta({
    description: 'The first day of the fiscal year the budget is for (GET /fiscal-years; a year not yet opened is computed from the company’s start month)',
    example: '2026-01-01',
  }),
  lines: z.array(budgetLineInput).max(MAX_BUDGET_LINES).optional().meta({ description: 'The amounts; or put them later with PUT /budgets/{id}/lines' }),
});

export const budgetUpdate = z.strictObject({ name: requiredText(200).optional() });

export const budgetLinesBody = z.strictObject({
  lines: z
    .array(budgetLineInput)
    .max(MAX_BUDGET_LINES)
    .meta({ description: 'Every amount of the budget: replaces the lines it had (an account and month given twice: 400)' }),
});

export const budgetResource = z
  .object({
    id: z.guid(),
    name: z.string(),
    fiscal_year: z.object({ start_date: dateOut(), end_date: dateOut() }),
    total: amountOut('Sum of the lines as signed (revenue and costs alike); a figure of control, not a result'),
    lines: z
      .array(z.object({ account_number: z.string(), month: z.string().meta({ example: '2026-03' }), amount: amountOut() }))
      .meta({ description: 'By account number, then month' }),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Budget' });

export type BudgetInput = z.output<typeof budgetCreate>;
export type BudgetUpdate = z.output<typeof budgetUpdate>;
export type BudgetLineInput = z.output<typeof budgetLineInput>;
export type BudgetView = z.input<typeof budgetResource>;
