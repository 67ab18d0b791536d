// Budgets: an amount per account per month for one fiscal year, put in bulk (PUT /budgets/{id}/lines
// replaces them all in one statement). The profit and loss statement shows them beside the actuals
// (GET /reports/profit-loss?budget={id}; reports/reports.ts). Decisions 810 to 814.
import type { Db, Prisma } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { amountToJson, Decimal } from '../money.ts';
import { fromDate, toDate } from '../calendar.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { fiscalYearOf } from '../reports/reports.ts';
import type { BudgetInput, BudgetLineInput, BudgetUpdate, BudgetView } from './schema.ts';

export const BUDGET_LIST = {
  sort: { name: 'name', created_at: 'created_at' },
  defaultSort: 'created_at',
  search: ['name'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
} satisfies ListSpec;

const include = { lines: { orderBy: [{ account_id: 'asc' as const }, { month: 'asc' as const }] } };
type BudgetRow = Prisma.BudgetGetPayload<{ include: typeof include }>;

async function view(db: Db, scope: CompanyScope, rows: BudgetRow[]): Promise<BudgetView[]> {
  const ids = [...new Set(rows.flatMap((r) => r.lines.map((l) => l.account_id)))];
  const accounts = ids.length
    ? await db.account.findMany({ where: { company_id: scope.companyId, id: { in: ids } }, select: { id: true, account_number: true } })
    : [];
  const numbers = new Map(accounts.map((a) => [a.id, a.account_number]));
  return rows.map((r) => {
    const lines = r.lines
      .map((l) => ({ account_number: numbers.get(l.account_id) ?? '', month: fromDate(l.month).slice(0, 7), amount: l.amount }))
      .sort((a, b) => a.account_number.localeCompare(b.account_number) || a.month.localeCompare(b.month));
    return {
      id: r.id,
      name: r.name,
      fiscal_year: { start_date: fromDate(r.start_date), end_date: fromDate(r.end_date) },
      total: amountToJson(lines.reduce((s, l) => s.plus(l.amount.toString()), new Decimal(0))),
      lines: lines.map((l) => ({ ...l, amount: amountToJson(l.amount) })),
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
    };
  });
}

/**
 * The rows of `lines` for the budget of the year start..end: each account a revenue or expense account of
 * the company, each month in the year, each (account, month) once; refusals name the line.
 */
async function lineRows(db: Db, scope: CompanyScope, budget: { id: string; start: string; end: string }, lines: readonly BudgetLineInput[]) {
  const numbers = [...new Set(lines.map((l) => l.account_number))];
  const accounts = numbers.length
    ? await db.account.findMany({
        where: { company_id: scope.companyId, account_number: { in: numbers } },
        select: { id: true, account_number: true, type: true, name: true },
      })
    : [];
  const byNumber = new Map(accounts.map((a) => [a.account_number, a]));
  const seen = new Set<string>();
  return lines.map((l, i) => {
    const a = byNumber.get(l.account_number);
    if (!a) throw invalidRequest(`No account ${l.account_number} in the company's chart of accounts.`, `lines[${i}].account_number`);
    if (a.type !== 'revenue' && a.type !== 'expense')
      throw invalidRequest(
        `Account ${a.account_number} (${a.name}) is a ${a.type} account; a budget holds revenue and expense accounts.`,
        `lines[${i}].account_number`,
      );
    const first = `${l.month}-01`;
    if (first < budget.start || first > budget.end)
      throw invalidRequest(`${l.month} is not a month of the fiscal year ${budget.start} to ${budget.end}.`, `lines[${i}].month`);
    const key = `${a.id} ${l.month}`;
    if (seen.has(key)) throw invalidRequest(`Account ${l.account_number} in ${l.month} is given twice.`, `lines[${i}]`);
    seen.add(key);
    return { accountId: a.id, month: first, amount: l.amount.toFixed(2) };
  });
}

/** Replaces the budget's lines with `rows` (two statements: the budget row is locked by the caller). */
async function replaceLines(db: Db, scope: CompanyScope, budgetId: string, rows: { accountId: string; month: string; amount: string }[]): Promise<void> {
  await db.$executeRaw`DELETE FROM budget_lines WHERE budget_id = ${budgetId}::uuid`;
  if (!rows.length) return;
  await db.$executeRaw`
    INSERT INTO budget_lines (budget_id, company_id, account_id, month, amount)
    SELECT ${budgetId}::uuid, ${scope.companyId}::uuid, a, m, v
    FROM unnest(${rows.map((r) => r.accountId)}::uuid[], ${rows.map((r) => r.month)}::date[], ${rows.map((r) => r.amount)}::numeric[]) AS x(a, m, v)`;
}

export async function createBudget(db: Db, scope: CompanyScope, input: BudgetInput): Promise<BudgetView> {
  const year = await fiscalYearOf(db, scope.companyId, input.fiscal_year);
  if (year.start !== input.fiscal_year)
    throw invalidRequest(`${input.fiscal_year} is not the first day of a fiscal year; the year containing it starts ${year.start}.`, 'fiscal_year');
  const id = newId();
  const rows = await lineRows(db, scope, { id, ...year }, input.lines ?? []);
  await db.budget.create({ data: { id, company_id: scope.companyId, name: input.name, start_date: toDate(year.start), end_date: toDate(year.end) } });
  await replaceLines(db, scope, id, rows);
  return getBudget(db, scope, id);
}

export async function getBudget(db: Db, scope: CompanyScope, id: string): Promise<BudgetView> {
  const row = await db.budget.findFirst({ where: { id, company_id: scope.companyId }, include });
  if (!row) throw notFound('budget', id);
  return (await view(db, scope, [row]))[0]!;
}

export async function listBudgets(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<BudgetView>> {
  const page = await listPage(
    { findMany: (args: object) => db.budget.findMany({ ...args, include }), count: (args: { where: object }) => db.budget.count(args) },
    { company_id: scope.companyId },
    params,
    BUDGET_LIST,
    (r: BudgetRow) => r,
  );
  return { ...page, data: await view(db, scope, page.data) };
}

/** The budget row, locked for this transaction: two puts of one budget's lines run one after the other. */
async function lockBudget(db: Db, scope: CompanyScope, id: string) {
  const [row] = await db.$queryRaw<{ id: string; start_date: Date; end_date: Date }[]>`
    SELECT id, start_date, end_date FROM budgets WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!row) throw notFound('budget', id);
  return { id: row.id, start: fromDate(row.start_date), end: fromDate(row.end_date) };
}

export async function updateBudget(db: Db, scope: CompanyScope, id: string, input: BudgetUpdate): Promise<BudgetView> {
  await lockBudget(db, scope, id);
  await db.budget.update({ where: { id }, data: { ...(input.name === undefined ? {} : { name: input.name }), updated_at: new Date() } });
  return getBudget(db, scope, id);
}

export async function putBudgetLines(db: Db, scope: CompanyScope, id: string, input: { lines: BudgetLineInput[] }): Promise<BudgetView> {
  const budget = await lockBudget(db, scope, id);
  await replaceLines(db, scope, id, await lineRows(db, scope, budget, input.lines));
  await db.budget.update({ where: { id }, data: { updated_at: new Date() } });
  return getBudget(db, scope, id);
}

/**
 * Per revenue or expense account: the budget's amounts for the months from..to touches (a month counts
 * whole when the period takes part of it; decision 813), with the account as the report places it.
 */
export async function budgetAmounts(db: Db, companyId: string, budgetId: string, from: string, to: string) {
  const budget = await db.budget.findFirst({ where: { id: budgetId, company_id: companyId }, select: { id: true } });
  if (!budget) throw invalidRequest(`No budget ${budgetId} in this company.`, 'budget');
  return db.$queryRaw<{ account_id: string; account_number: string; name: string; type: string; group_code: string; amount: Prisma.Decimal }[]>`
    SELECT a.id AS account_id, a.account_number, a.name, a.type, a.group_code, SUM(b.amount) AS amount
    FROM budget_lines b JOIN accounts a ON a.id = b.account_id
    WHERE b.budget_id = ${budgetId}::uuid AND b.month >= date_trunc('month', ${from}::date)::date AND b.month <= ${to}::date
    GROUP BY a.id, a.account_number, a.name, a.type, a.group_code`;
}
