// The financial reports: profit and loss over a period and the balance sheet at a date. Each reads the
// monthly and daily account balances (kept by every posting) in one aggregate query, never the lines.
import { Prisma, type Db } from '@tlr/db';
import { BEGINNING, movements, yearEndLinesNegated } from './balances.ts';
import { invalidRequest } from '../errors.ts';
import { fromDate, today, toDate } from '../calendar.ts';
import { fiscalYearContaining, type DateRange } from '../ledger/fiscal-years.ts';
import { amountToJson, Decimal } from '../money.ts';
import { buildBalanceSheet, buildProfitAndLoss, type BalanceSection, type ReportSection } from './statements.ts';

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
  accounts: s.accounts.map((a) => ({ ...a, amount: amountToJson(a.amount) })),
  total: amountToJson(s.total),
});
const balanceSectionJson = (s: BalanceSection) => ({ key: s.key, name: s.name, groups: s.groups.map(sectionJson), total: amountToJson(s.total) });

export interface ProfitLossQuery {
  from?: string | undefined;
  to?: string | undefined;
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

/** Profit and loss from `from` to `to` inclusive; defaults: to = today, from = start of the fiscal year containing `to`. */
export async function profitAndLoss(db: Db, companyId: string, query: ProfitLossQuery) {
  const to = query.to ?? today();
  const from = query.from ?? (await fiscalYearOf(db, companyId, to)).start;
  if (from > to) throw invalidRequest(`from (${from}) must be on or before to (${to}).`, 'from');
  const rows = await db.$queryRaw<Row[]>(profitAndLossSql(companyId, from, to));
  const report = buildProfitAndLoss(rows.map(accountRow));
  return {
    from,
    to,
    currency: 'DKK' as const,
    sections: report.sections.map(sectionJson),
    totals: {
      gross_profit: amountToJson(report.totals.gross_profit),
      operating_profit: amountToJson(report.totals.operating_profit),
      profit_before_tax: amountToJson(report.totals.profit_before_tax),
      result: amountToJson(report.totals.result),
    },
  };
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
