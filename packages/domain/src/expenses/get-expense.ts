// GET /expenses/{id}: one expense of the caller's company.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';
import type { ExpenseView } from './schema.ts';
import { readExpenseView } from './expense-rows.ts';

export async function getExpense(db: Db, scope: CompanyScope, id: string): Promise<ExpenseView> {
  const row = await db.expense.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('expense', id);
  return readExpenseView(db, row);
}
