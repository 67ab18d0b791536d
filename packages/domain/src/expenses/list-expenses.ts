// GET /expenses: the expenses of the caller's company with the contract's list parameters, each with its
// account's number.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { listPage, type CurrencyFilter, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { EXPENSE_STATUSES } from './rules.ts';
import type { ExpenseView } from './schema.ts';
import { expenseView } from './expense-rows.ts';
import { expenseExtras } from './lines.ts';

export const EXPENSE_LIST = {
  sort: { created_at: 'created_at', date: 'date', amount: 'amount', currency: 'currency' },
  defaultSort: 'created_at',
  search: ['description'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  statuses: EXPENSE_STATUSES,
} satisfies ListSpec;

export async function listExpenses(db: Db, scope: CompanyScope, params: ListParams & CurrencyFilter): Promise<Page<ExpenseView>> {
  const page = await listPage(
    db.expense,
    { company_id: scope.companyId, ...(params.currency ? { currency: params.currency } : {}) },
    params,
    EXPENSE_LIST,
    (e) => e,
  );
  const [rows, extras] = await Promise.all([
    db.account.findMany({ where: { id: { in: [...new Set(page.data.map((e) => e.account_id))] } }, select: { id: true, account_number: true } }),
    expenseExtras(
      db,
      page.data.map((e) => e.id),
    ),
  ]);
  const accounts = new Map(rows.map((a) => [a.id, a.account_number]));
  return { ...page, data: page.data.map((e) => expenseView(e, accounts.get(e.account_id) ?? '', extras.get(e.id))) };
}
