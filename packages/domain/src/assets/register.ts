// The asset register at a date (GET /reports/assets) and the tax view of an income year (GET /assets/tax):
// read from the assets and their posted months, nothing posted. docs/assets.md; decisions 574-576.
import type { Db, FixedAsset } from '@tlr/db';
import { fromDate, toDate, today, ymd } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { amountToJson, decimalOf, Decimal } from '../money.ts';
import { listOf, type ReportPage } from '../reports/accountant.ts';
import type { ListSpec } from '../lists/list.ts';
import { fiscalYearStarting } from '../ledger/fiscal-years.ts';
import { ASSET_GROUPS, saldoYear, SALDO_RATE, statutorySmallAssetLimit, type AssetGroup } from './rules.ts';

export const ASSET_REGISTER_LIST = {
  sort: { name: 'name', acquisition_date: 'acquisition_date', cost: 'cost', book_value: 'book_value' },
  defaultSort: 'acquisition_date',
  search: ['name'],
  dateColumn: 'acquisition_date',
  dateDescription: 'acquisition date',
} satisfies ListSpec;

const zero = () => new Decimal(0);

/**
 * The register at the end of `as_of` (default today): every asset acquired by then and not disposed of by
 * then, with its cost, the depreciation posted on or before as_of and the book value, so that the sums
 * match the balances of the asset and accumulated-depreciation accounts that day.
 */
export async function assetRegister(db: Db, scope: CompanyScope, q: ReportPage & { as_of?: string | undefined }) {
  const asOf = q.as_of ?? today();
  const rows = await db.$queryRaw<
    {
      id: string;
      name: string;
      group: string;
      acquisition_date: Date;
      cost: { toString(): string };
      accumulated: { toString(): string };
      asset_account_number: string;
      accumulated_account_number: string;
    }[]
  >`
    SELECT a.id, a.name, a."group", a.acquisition_date, a.cost,
           COALESCE((SELECT SUM(d.amount) FROM asset_depreciations d WHERE d.asset_id = a.id AND d.date <= ${asOf}::date), 0) AS accumulated,
           aa.account_number AS asset_account_number, ac.account_number AS accumulated_account_number
    FROM fixed_assets a
    JOIN accounts aa ON aa.id = a.asset_account_id
    JOIN accounts ac ON ac.id = a.accumulated_account_id
    WHERE a.company_id = ${scope.companyId}::uuid AND a.acquisition_date <= ${asOf}::date
      AND (a.disposed_date IS NULL OR a.disposed_date > ${asOf}::date)
    ORDER BY a.acquisition_date, a.id`;
  const all = rows.map((r) => {
    const cost = decimalOf(r.cost);
    const accumulated = decimalOf(r.accumulated);
    return {
      asset_id: r.id,
      name: r.name,
      group: r.group as AssetGroup,
      acquisition_date: fromDate(r.acquisition_date),
      asset_account_number: r.asset_account_number,
      accumulated_account_number: r.accumulated_account_number,
      cost,
      accumulated,
      book: cost.minus(accumulated),
    };
  });
  const since = q.since;
  const until = q.until;
  const dated = all.filter((r) => (!since || r.acquisition_date >= since) && (!until || r.acquisition_date <= until));
  const page = listOf(dated, q, {
    sort: { name: (r) => r.name, acquisition_date: (r) => r.acquisition_date, cost: (r) => r.cost.toNumber(), book_value: (r) => r.book.toNumber() },
    defaultSort: ASSET_REGISTER_LIST.defaultSort,
    search: (r) => [r.name],
  });
  const totals = { cost: zero(), accumulated: zero(), book: zero() };
  for (const r of page.matched) {
    totals.cost = totals.cost.plus(r.cost);
    totals.accumulated = totals.accumulated.plus(r.accumulated);
    totals.book = totals.book.plus(r.book);
  }
  return {
    data: page.data.map(({ cost, accumulated, book, ...r }) => ({
      ...r,
      cost: amountToJson(cost),
      accumulated_depreciation: amountToJson(accumulated),
      book_value: amountToJson(book),
    })),
    meta: {
      ...page.meta,
      as_of: asOf,
      totals: { cost: amountToJson(totals.cost), accumulated_depreciation: amountToJson(totals.accumulated), book_value: amountToJson(totals.book) },
    },
  };
}

type Treatment = 'pool' | 'expensed' | 'not_in_pool';

/**
 * The tax view of the income year that starts in `year` (the fiscal year starting in it), decision 574:
 * operating equipment (the groups in the saldo pool) by the saldo method, year by year from the first
 * asset: the opening balance, additions above the small-asset limit, disposal proceeds, the basis, the
 * largest depreciation (25 %, or the whole basis at or below the limit) and the closing balance; assets at
 * or below the limit are expensed in their year. Beside it, each asset's accounting depreciation of the year.
 */
export async function assetTaxView(db: Db, scope: CompanyScope, year: number) {
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId }, select: { fiscal_year_start_month: true, small_asset_limit: true } });
  const yearOf = (y: number) => fiscalYearStarting(ymd(y, company.fiscal_year_start_month, 1));
  const limitOf = (y: number) => (company.small_asset_limit === null ? statutorySmallAssetLimit(y) : decimalOf(company.small_asset_limit));
  const assets = await db.fixedAsset.findMany({ where: { company_id: scope.companyId }, orderBy: [{ acquisition_date: 'asc' }, { id: 'asc' }] });
  const pooled = (a: FixedAsset) => ASSET_GROUPS[a.group as AssetGroup].saldo;
  /** The income year (the fiscal year, named by the calendar year it starts in) a date falls in. */
  const incomeYearOf = (d: Date) => Number(fromDate(d).slice(0, 4)) - (Number(fromDate(d).slice(5, 7)) < company.fiscal_year_start_month ? 1 : 0);
  const within = (d: Date | null, r: { start: string; end: string }) => d !== null && fromDate(d) >= r.start && fromDate(d) <= r.end;
  /** An asset's treatment: its own year's limit decides whether it is expensed or pooled. */
  const treatment = (a: FixedAsset): Treatment => {
    if (!pooled(a)) return 'not_in_pool';
    return decimalOf(a.cost).lessThanOrEqualTo(limitOf(incomeYearOf(a.acquisition_date))) ? 'expensed' : 'pool';
  };
  const first = assets.filter(pooled)[0];
  const firstYear = first ? incomeYearOf(first.acquisition_date) : year;
  let opening = zero();
  let pool = saldoYear(zero(), zero(), zero(), limitOf(year));
  for (let y = Math.min(firstYear, year); y <= year; y++) {
    const r = yearOf(y);
    const inPool = assets.filter((a) => treatment(a) === 'pool');
    const additions = inPool.filter((a) => within(a.acquisition_date, r)).reduce((s, a) => s.plus(decimalOf(a.cost)), zero());
    const disposals = inPool.filter((a) => within(a.disposed_date, r)).reduce((s, a) => s.plus(decimalOf(a.disposal_proceeds ?? 0)), zero());
    pool = saldoYear(opening, additions, disposals, limitOf(y));
    opening = pool.closing;
  }
  const range = yearOf(year);
  const depreciations = await db.assetDepreciation.findMany({
    where: { company_id: scope.companyId, month: { gte: toDate(range.start), lte: toDate(range.end) } },
    select: { asset_id: true, amount: true },
  });
  const accounting = new Map<string, Decimal>();
  for (const d of depreciations) accounting.set(d.asset_id, (accounting.get(d.asset_id) ?? zero()).plus(decimalOf(d.amount)));
  // The assets held at some time in the year: acquired by its end, not disposed of before its start.
  const held = assets.filter((a) => fromDate(a.acquisition_date) <= range.end && (!a.disposed_date || fromDate(a.disposed_date) >= range.start));
  let expensed = zero();
  let smallProceeds = zero();
  let accountingTotal = zero();
  const rows = held.map((a) => {
    const t = treatment(a);
    const acquiredInYear = within(a.acquisition_date, range);
    const disposedInYear = within(a.disposed_date, range);
    if (t === 'expensed' && acquiredInYear) expensed = expensed.plus(decimalOf(a.cost));
    // An asset expensed when bought is taxed on what it is sold for.
    if (t === 'expensed' && disposedInYear) smallProceeds = smallProceeds.plus(decimalOf(a.disposal_proceeds ?? 0));
    const acc = accounting.get(a.id) ?? zero();
    accountingTotal = accountingTotal.plus(acc);
    return {
      asset_id: a.id,
      name: a.name,
      group: a.group as AssetGroup,
      acquisition_date: fromDate(a.acquisition_date),
      cost: amountToJson(a.cost),
      tax_treatment: t,
      tax_expensed: amountToJson(t === 'expensed' && acquiredInYear ? decimalOf(a.cost) : zero()),
      disposed_date: a.disposed_date ? fromDate(a.disposed_date) : null,
      disposal_proceeds: disposedInYear ? amountToJson(a.disposal_proceeds ?? 0) : null,
      accounting_depreciation: amountToJson(acc),
    };
  });
  const taxTotal = pool.depreciation.plus(expensed);
  return {
    year,
    from: range.start,
    to: range.end,
    small_asset_limit: amountToJson(limitOf(year)),
    saldo_rate: amountToJson(SALDO_RATE.times(100)),
    pool: {
      opening_balance: amountToJson(pool.opening),
      additions: amountToJson(pool.additions),
      disposals: amountToJson(pool.disposals),
      basis: amountToJson(pool.basis),
      depreciation: amountToJson(pool.depreciation),
      income: amountToJson(pool.income),
      closing_balance: amountToJson(pool.closing),
      written_off: pool.written_off,
    },
    small_assets_expensed: amountToJson(expensed),
    small_asset_proceeds: amountToJson(smallProceeds),
    tax_depreciation: amountToJson(taxTotal),
    accounting_depreciation: amountToJson(accountingTotal),
    difference: amountToJson(taxTotal.minus(accountingTotal)),
    assets: rows,
  };
}
