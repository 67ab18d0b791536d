// PUT /expenses/{id}/status: draft -> booked -> paid or cancelled (EXPENSE_TRANSITIONS, rules.ts), each
// move by its use case; repeating the current status changes nothing.
import type { Db } from '@tlr/db';
import { fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import type { ExpenseStatusInput, ExpenseView } from './schema.ts';
import { EXPENSE_TRANSITIONS, type ExpenseStatus } from './rules.ts';
import { lockExpense, readExpenseView } from './expense-rows.ts';
import { bookExpense } from './book-expense.ts';
import { payExpense } from './pay-expense.ts';
import { cancelExpense } from './cancel-expense.ts';

export async function setExpenseStatus(db: Db, scope: CompanyScope, id: string, input: ExpenseStatusInput): Promise<ExpenseView> {
  const row = await lockExpense(db, scope, id);
  const from = row.status as ExpenseStatus;
  if (from === input.status) return readExpenseView(db, row);
  if (!EXPENSE_TRANSITIONS[from].includes(input.status)) {
    const allowed = EXPENSE_TRANSITIONS[from];
    throw new DomainError(
      'invalid_transition',
      `An expense that is ${from} cannot become ${input.status}; ${allowed.length ? `allowed next: ${allowed.join(', ')}` : `${from} is final`}.`,
      'status',
      {
        current_status: from,
        allowed_statuses: [...allowed],
      },
    );
  }
  const date = input.date ?? today();
  if (input.status === 'booked') return readExpenseView(db, await bookExpense(db, scope, row));
  if (date < fromDate(row.date)) throw invalidRequest(`date: ${date} is before the expense date ${fromDate(row.date)}.`, 'date');
  if (input.status === 'paid') return payExpense(db, scope, row, input, date);
  return cancelExpense(db, scope, row, date);
}
