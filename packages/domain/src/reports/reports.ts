// The financial reports: profit and loss over a period and the balance sheet at a date. Each reads the
// monthly and daily account balances (kept by every posting) in one aggregate query, never the lines.
import { Prisma, type Db } from '@tlr/db';
import { BEGINNING, movements, yearEndLinesNegated } from './balances.ts';
import { invalidRequest } from '../errors.ts';
import { fromDate, today, toDate } from '../calendar.ts';
import { fiscalYearContaining, type DateRange } from '../ledger/fiscal-years.ts';
import { amountToJson, Decimal } from '../money.ts';
import {
  buildBalanceSheet,
  buildProfitAndLoss,
  profitLossTotals,
  type AccountTotals,
  type BalanceSection,
  type ProfitAndLoss,
  type ReportSection,
} from './statements.ts';
import { dimensionLines, resolveReportDimensions, type DimensionQuery, type ResolvedDimensions } from './dimension-figures.ts';
import { budgetAmounts } from '../budgets/budgets.ts';

export { BALANCE_GROUP_KEYS, BALANCE_SECTION_KEYS, PROFIT_LOSS_SECTION_KEYS } from './statements.ts';

/** The fiscal year containing `date`: the company's own, or computed from its start month before the first one. */
export async function fiscalYearOf(db: Db, companyId: string, date: string): Promise<DateRange> {
  const d = toDate(date);
  const fy = await db.fiscalYear.findFirst({ where: { company_id: companyId, start_date: { lte: d }, end_date: { gte: d } } });
  if (fy) return { start: fromDate(fy.start_date), end: fromDate(fy.end_date) };
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId }, select: { fiscal_year_start_month: true } });
  return fiscalYearContaining(date, company.fiscal_year_start_month);
}

interface Row {
  account_id: string;
  account_number: string;
  name: string;
  type: string;
  group_code: string;
  debit: { toString(): string };
  credit: { toString(): string };
}
const dec = (v: { toString(): string }) => new Decimal(v.toString());
const accountRow = (r: Row) => ({ ...r, debit: dec(r.debit), credit: dec(r.credit) });

const sectionJson = <K extends string>(s: ReportSection<K>) => ({
  key: s.key,
  name: s.name,
  accounts: s.accounts.map(({ budget, ...a }) => ({
    ...a,
    amount: amountToJson(a.amount),
    ...(budget === undefined ? {} : { budget: amountToJson(budget), variance: amountToJson(a.amount.minus(budget)) }),
  })),
  total: amountToJson(s.total),
});
const balanceSectionJson = (s: BalanceSection) => ({ key: s.key, name: s.name, groups: s.groups.map(sectionJson), total: amountToJson(s.total) });

export interface ProfitLossQuery extends DimensionQuery {
  from?: string | undefined;
  to?: string | undefined;
  /** A budget of the company: its amounts and the variance beside each line (decision 813). */
  budget?: string | undefined;
}

/** The profit and loss statement's one query (exported for the ledger bench's EXPLAIN). */
export function profitAndLossSql(companyId: string, from: string, to: string): Prisma.Sql {
  // The closing entries of fiscal years (and their reversals) are left out: a closed year's profit and loss
  // still shows its result (decision 551). Sum per account once (MATERIALIZED: with a low row estimate the planner otherwise re-sorted the
  // balances for every account in a nested loop, 44 ms at a million lines), then keep the revenue and
  // expense accounts.
  return Prisma.sql`
    WITH t AS MATERIALIZED (
      SELECT account_id, SUM(debit) AS debit, SUM(credit) AS credit
      FROM (${movements(companyId, from, to)} UNION ALL ${yearEndLinesNegated(companyId, from, to)}) m
      GROUP BY account_id
    )
    SELECT a.id AS account_id, a.account_number, a.name, a.type, a.group_code, t.debit, t.credit
    FROM t JOIN accounts a ON a.id = t.account_id AND a.company_id = ${companyId}::uuid
    WHERE a.type IN ('revenue', 'expense')`;
}

/** The profit and loss figures of the lines that carry dimension values, per account and per group (decision 582). */
function profitAndLossByDimensionSql(companyId: string, from: string, to: string, valueIds: readonly string[], groupId?: string): Prisma.Sql {
  return Prisma.sql`
    WITH t AS MATERIALIZED (
      SELECT account_id, grp, SUM(debit) AS debit, SUM(credit) AS credit
      FROM (${dimensionLines(companyId, from, to, valueIds, groupId)}) m
      GROUP BY account_id, grp
    )
    SELECT a.id AS account_id, a.account_number, a.name, a.type, a.group_code, t.grp, t.debit, t.credit
    FROM t JOIN accounts a ON a.id = t.account_id AND a.company_id = ${companyId}::uuid
    WHERE a.type IN ('revenue', 'expense')`;
}

const totalsJson = (t: ProfitAndLoss['totals']) => ({
  gross_profit: amountToJson(t.gross_profit),
  operating_profit: amountToJson(t.operating_profit),
  profit_before_tax: amountToJson(t.profit_before_tax),
  result: amountToJson(t.result),
});

/** A built statement as the API answers it; with a budget, each section and the totals carry it and the variance. */
function statementJson(report: ProfitAndLoss, withBudget: boolean) {
  const zero = new Decimal(0);
  const budgetTotals = withBudget ? profitLossTotals((k) => report.sections.find((s) => s.key === k)?.budget ?? zero) : undefined;
  return {
    sections: report.sections.map((s) => ({
      ...sectionJson(s),
      ...(withBudget ? { budget: amountToJson(s.budget ?? zero), variance: amountToJson(s.total.minus(s.budget ?? zero)) } : {}),
    })),
    totals: totalsJson(report.totals),
    ...(budgetTotals
      ? {
          budget_totals: totalsJson(budgetTotals),
          variance_totals: totalsJson(
            profitLossTotals((k) => {
              const s = report.sections.find((x) => x.key === k)!;
              return s.total.minus(s.budget ?? zero);
            }),
          ),
        }
      : {}),
  };
}

/**
 * Profit and loss from `from` to `to` inclusive; defaults: to = today, from = start of the fiscal year containing to.
 * dimension[...] keeps the lines that carry those values; group_by=dimension:X adds the statement of each
 * value of X (and of the lines without one); budget adds the budget and the variance (actual − budget).
 */
export async function profitAndLoss(db: Db, companyId: string, query: ProfitLossQuery) {
  const to = query.to ?? today();
  const from = query.from ?? (await fiscalYearOf(db, companyId, to)).start;
  if (from > to) throw invalidRequest(`from (${from}) must be on or before to (${to}).`, 'from');
  const dims = await resolveReportDimensions(db, companyId, query);
  if (query.budget && dims?.valueIds.length)
    throw invalidRequest('A budget is for the whole company: it is not compared with the figures of a dimension filter (decision 814).', 'budget');
  const budget = query.budget ? await budgetAmounts(db, companyId, query.budget, from, to) : undefined;

  // The figures of the statement as a whole: the balance tables, or the dimension filter's lines.
  let rows: AccountTotals[];
  let grouped: (AccountTotals & { grp: string | null })[] = [];
  if (dims?.valueIds.length) {
    rows = (await db.$queryRaw<Row[]>(profitAndLossByDimensionSql(companyId, from, to, dims.valueIds))).map(accountRow);
  } else {
    rows = (await db.$queryRaw<Row[]>(profitAndLossSql(companyId, from, to))).map(accountRow);
  }
  if (dims?.group)
    grouped = (await db.$queryRaw<(Row & { grp: string })[]>(profitAndLossByDimensionSql(companyId, from, to, dims.valueIds, dims.group.id))).map((r) => ({
      ...accountRow(r),
      grp: r.grp,
    }));
  if (budget) {
    const amounts = new Map(budget.map((b) => [b.account_id, dec(b.amount)]));
    const seen = new Set(rows.map((r) => r.account_id));
    rows = [
      ...rows.map((r) => ({ ...r, budget: amounts.get(r.account_id) ?? new Decimal(0) })),
      ...budget.filter((b) => !seen.has(b.account_id)).map((b) => ({ ...accountRow({ ...b, debit: 0, credit: 0 }), budget: dec(b.amount) })),
    ];
  }
  const report = buildProfitAndLoss(rows);
  return {
    from,
    to,
    currency: 'DKK' as const,
    ...(dims?.valueIds.length ? { dimensions: dims.filter } : {}),
    ...(budget ? { budget_id: query.budget } : {}),
    ...statementJson(report, budget !== undefined),
    ...(dims?.group ? { groups: groupsOf(rows, grouped, dims.group) } : {}),
  };
}

/**
 * The statement of each value of the grouping dimension (by code), then that of the lines carrying none
 * of its values (value null): the whole less the values' sums, so that the groups add up to the whole.
 */
function groupsOf(
  whole: readonly AccountTotals[],
  grouped: readonly (AccountTotals & { grp: string | null })[],
  group: NonNullable<ResolvedDimensions['group']>,
) {
  const rest = new Map(whole.map((r) => [r.account_id, { ...r, budget: undefined }]));
  const byValue = new Map<string, AccountTotals[]>();
  for (const r of grouped) {
    byValue.set(r.grp!, [...(byValue.get(r.grp!) ?? []), r]);
    const w = rest.get(r.account_id);
    if (w) rest.set(r.account_id, { ...w, debit: w.debit.minus(r.debit), credit: w.credit.minus(r.credit) });
  }
  const values = [...byValue.keys()].map((id) => ({ id, ...group.values.get(id)! })).sort((a, b) => a.code.localeCompare(b.code, 'da'));
  const none = [...rest.values()];
  return [
    ...values.map((v) => ({ dimension: group.name, value: v.code, name: v.name, ...statementJson(buildProfitAndLoss(byValue.get(v.id)!), false) })),
    { dimension: group.name, value: null, name: `Uden ${group.name}`, ...statementJson(buildProfitAndLoss(none), false) },
  ];
}

/** The balance sheet at the end of `as_of` (default today). */
export async function balanceSheet(db: Db, companyId: string, query: { as_of?: string | undefined }) {
  const asOf = query.as_of ?? today();
  const year = await fiscalYearOf(db, companyId, asOf);
  const rows = await db.$queryRaw<(Row & { debit_before_year: { toString(): string }; credit_before_year: { toString(): string } })[]>`
    WITH t AS MATERIALIZED (
      SELECT account_id, SUM(debit) AS debit, SUM(credit) AS credit,
             COALESCE(SUM(debit) FILTER (WHERE date < ${year.start}::date), 0) AS debit_before_year,
             COALESCE(SUM(credit) FILTER (WHERE date < ${year.start}::date), 0) AS credit_before_year
      FROM (${movements(companyId, BEGINNING, asOf)}) m
      GROUP BY account_id
    )
    SELECT a.id AS account_id, a.account_number, a.name, a.type, a.group_code,
           t.debit, t.credit, t.debit_before_year, t.credit_before_year
    FROM t JOIN accounts a ON a.id = t.account_id AND a.company_id = ${companyId}::uuid`;
  const report = buildBalanceSheet(
    rows.map((r) => ({ ...accountRow(r), debit_before_year: dec(r.debit_before_year), credit_before_year: dec(r.credit_before_year) })),
  );
  return {
    as_of: asOf,
    currency: 'DKK' as const,
    fiscal_year: { start_date: year.start, end_date: year.end },
    assets: report.assets.map(balanceSectionJson),
    total_assets: amountToJson(report.total_assets),
    liabilities_and_equity: report.liabilities_and_equity.map(balanceSectionJson),
    total_liabilities_and_equity: amountToJson(report.total_liabilities_and_equity),
    balanced: report.balanced,
  };
}
