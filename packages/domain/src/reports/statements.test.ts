import { describe, expect, it } from 'vitest';
import { seedAccounts, standardChart } from '../ledger/standard-chart.ts';
import { Decimal } from '../money.ts';
import { buildBalanceSheet, buildProfitAndLoss, LAYOUT_GROUP_CODES, type AccountTotals, type BalanceAccountTotals } from './statements.ts';

const groupOf = (n: string) => seedAccounts().find((a) => a.account_number === n);

/** An account's totals; type and group from the seeded chart unless given. */
function acc(number: string, debit: string, credit: string, extra: Partial<AccountTotals> = {}): AccountTotals {
  const seeded = groupOf(number);
  return {
    account_id: `id-${number}`,
    account_number: number,
    name: seeded?.name ?? `Konto ${number}`,
    type: seeded?.type ?? 'expense',
    group_code: seeded?.group_code ?? '',
    debit: new Decimal(debit),
    credit: new Decimal(credit),
    ...extra,
  };
}
const bal = (
  number: string,
  debit: string,
  credit: string,
  before: [string, string] = ['0', '0'],
  extra: Partial<AccountTotals> = {},
): BalanceAccountTotals => ({
  ...acc(number, debit, credit, extra),
  debit_before_year: new Decimal(before[0]),
  credit_before_year: new Decimal(before[1]),
});

const fixed = (d: Decimal) => d.toFixed(2);

describe('the layout', () => {
  it('names every group of the standard chart exactly once, in one statement', () => {
    const named = [...LAYOUT_GROUP_CODES.profitLoss, ...LAYOUT_GROUP_CODES.balance];
    expect(new Set(named).size).toBe(named.length);
    expect([...named].sort()).toEqual(
      standardChart()
        .groups.map((g) => g.code)
        .sort(),
    );
  });

  it('places every seeded revenue and expense account in a named section, except 3180 (no group) in other_expenses', () => {
    const rows = seedAccounts().map((a) => acc(a.account_number, a.type === 'expense' ? '1' : '0', a.type === 'revenue' ? '1' : '0'));
    const pl = buildProfitAndLoss(rows);
    const other = pl.sections.filter((s) => s.key === 'other_income' || s.key === 'other_expenses');
    expect(other.flatMap((s) => s.accounts.map((a) => a.account_number))).toEqual(['3180']);
    // every revenue and expense account, each counted once
    expect(pl.sections.reduce((n, s) => n + s.accounts.length, 0)).toBe(seedAccounts().filter((a) => a.type === 'revenue' || a.type === 'expense').length);
  });
});

describe('profit and loss', () => {
  // Hand-checked:
  //   revenue 10000 + 0.10 + 0.20 = 10000.30; other operating income 500
  //   cost of sales 4000; other external 1200 + (300 − 50) = 1450          gross profit 5050.30
  //   staff 3000; depreciation 800; other operating expenses 100; other income 30; other expenses 20
  //                                                                         operating profit 1160.30
  //   financial income 45.55; financial expenses 10.10                      profit before tax 1195.75
  //   tax 900                                                               result 295.75
  //   check: revenues 10575.85 − costs 10280.10 = 295.75
  const rows = [
    acc('1010', '0', '10000'),
    acc('1100', '0', '0.10'),
    acc('1200', '0', '0.20'),
    acc('1050', '100', '100'), // nets to zero: not listed
    acc('1550', '0', '500'),
    acc('1610', '4000', '0'),
    acc('2030', '1200', '0'),
    acc('1850', '300', '50'),
    acc('2850', '3000', '0'),
    acc('3050', '800', '0'),
    acc('3170', '100', '0'),
    acc('3180', '20', '0'),
    acc('4000', '0', '30', { type: 'revenue', group_code: '' }),
    acc('3470', '0', '45.55'),
    acc('3670', '10.10', '0'),
    acc('3740', '900', '0'),
    acc('6470', '99999', '0'), // a balance-sheet account: ignored
  ];
  const pl = buildProfitAndLoss(rows);
  const section = (key: string) => pl.sections.find((s) => s.key === key)!;

  it('has every section in order, with totals signed as the section', () => {
    expect(pl.sections.map((s) => [s.key, fixed(s.total)])).toEqual([
      ['revenue', '10000.30'],
      ['other_operating_income', '500.00'],
      ['cost_of_sales', '4000.00'],
      ['other_external_expenses', '1450.00'],
      ['staff', '3000.00'],
      ['depreciation', '800.00'],
      ['other_operating_expenses', '100.00'],
      ['other_income', '30.00'],
      ['other_expenses', '20.00'],
      ['financial_income', '45.55'],
      ['financial_expenses', '10.10'],
      ['tax', '900.00'],
    ]);
  });

  it('lists non-zero accounts by number', () => {
    expect(section('revenue').accounts.map((a) => [a.account_number, fixed(a.amount)])).toEqual([
      ['1010', '10000.00'],
      ['1100', '0.10'],
      ['1200', '0.20'],
    ]);
    expect(section('other_external_expenses').accounts.map((a) => [a.account_number, fixed(a.amount)])).toEqual([
      ['1850', '250.00'],
      ['2030', '1200.00'],
    ]);
    expect(section('revenue').accounts[0]).toMatchObject({ account_id: 'id-1010', name: 'Salg af varer og ydelser' });
  });

  it('computes the subtotals', () => {
    expect(Object.fromEntries(Object.entries(pl.totals).map(([k, v]) => [k, fixed(v)]))).toEqual({
      gross_profit: '5050.30',
      operating_profit: '1160.30',
      profit_before_tax: '1195.75',
      result: '295.75',
    });
  });

  it('shows a loss and a negative section as negative numbers', () => {
    const loss = buildProfitAndLoss([acc('1010', '50', '0'), acc('2850', '100', '0')]);
    expect(fixed(loss.sections[0]!.total)).toBe('-50.00');
    expect(fixed(loss.totals.result)).toBe('-150.00');
  });

  it('is empty for no postings', () => {
    const empty = buildProfitAndLoss([]);
    expect(empty.sections.every((s) => s.accounts.length === 0 && s.total.isZero())).toBe(true);
    expect(fixed(empty.totals.result)).toBe('0.00');
  });
});

describe('balance sheet', () => {
  // Hand-checked (a balanced ledger: Σ debit − Σ credit = 0):
  //   assets: cash 20000 − 3150 = 16850, tangible 4000, other current (custom 9000, no group) 100  = 20950
  //   equity: 6520 10000; year (12000 − 2000) − (6000 − 1000) = 5000; prior 2000 − 1000 − 500 = 500 = 15500
  //   provisions 7010 500; long-term 7120 3000; short-term 7680 2500 − 7740 600 + 9100 50 = 1950  = 20950
  const rows = [
    bal('6470', '20000', '3150'),
    bal('5580', '4000', '0'),
    bal('6190', '1250', '1250'),
    bal('9000', '100', '0', undefined, { type: 'asset', group_code: '' }),
    bal('6520', '0', '10000'),
    bal('7010', '0', '500'),
    bal('7120', '0', '3000'),
    bal('7680', '0', '2500'),
    bal('7740', '600', '0'),
    bal('9100', '0', '50', undefined, { type: 'liability', group_code: '' }),
    bal('1010', '0', '12000', ['0', '2000']),
    bal('2850', '6000', '0', ['1000', '0']),
    bal('1610', '500', '0', ['500', '0']),
  ];
  const bs = buildBalanceSheet(rows);
  const groups = (sections: typeof bs.assets) =>
    sections.flatMap((s) => s.groups.map((g) => [s.key, g.key, fixed(g.total), g.accounts.map((a) => `${a.account_number}:${fixed(a.amount)}`).join(' ')]));

  it('places assets by group, falling back by type', () => {
    expect(groups(bs.assets)).toEqual([
      ['fixed_assets', 'intangible_fixed_assets', '0.00', ''],
      ['fixed_assets', 'tangible_fixed_assets', '4000.00', '5580:4000.00'],
      ['fixed_assets', 'financial_fixed_assets', '0.00', ''],
      ['fixed_assets', 'other_fixed_assets', '0.00', ''],
      ['current_assets', 'inventories', '0.00', ''],
      ['current_assets', 'receivables', '0.00', ''],
      ['current_assets', 'securities', '0.00', ''],
      ['current_assets', 'cash', '16850.00', '6470:16850.00'],
      ['current_assets', 'other_current_assets', '100.00', '9000:100.00'],
    ]);
    expect(bs.assets.map((s) => fixed(s.total))).toEqual(['4000.00', '16950.00']);
    expect(fixed(bs.total_assets)).toBe('20950.00');
  });

  it('puts the unclosed results in equity and balances', () => {
    expect(groups(bs.liabilities_and_equity)).toEqual([
      ['equity', 'posted_equity', '10000.00', '6520:10000.00'],
      ['equity', 'result_for_the_year', '5000.00', ''],
      ['equity', 'prior_years_result', '500.00', ''],
      ['provisions', 'provisions', '500.00', '7010:500.00'],
      ['long_term_liabilities', 'long_term_liabilities', '3000.00', '7120:3000.00'],
      ['short_term_liabilities', 'short_term_liabilities', '1950.00', '7680:2500.00 7740:-600.00 9100:50.00'],
    ]);
    expect(bs.liabilities_and_equity.map((s) => fixed(s.total))).toEqual(['15500.00', '500.00', '3000.00', '1950.00']);
    expect(fixed(bs.total_liabilities_and_equity)).toBe('20950.00');
    expect(bs.balanced).toBe(true);
  });

  it("the year's result equals the profit and loss result of the same rows within the year", () => {
    const within = rows.map((r) => ({ ...r, debit: r.debit.minus(r.debit_before_year), credit: r.credit.minus(r.credit_before_year) }));
    expect(fixed(buildProfitAndLoss(within).totals.result)).toBe('5000.00');
  });

  it('a balance-sheet account in a profit-and-loss group falls back by type; a revenue account in a balance group stays in profit and loss', () => {
    const odd = buildBalanceSheet([
      bal('1399', '70', '0', undefined, { type: 'asset', group_code: '1010-1389' }),
      bal('6999', '0', '70', ['0', '0'], { type: 'revenue', group_code: '6510-6969' }),
    ]);
    expect(odd.assets[1]!.groups.find((g) => g.key === 'other_current_assets')!.accounts.map((a) => a.account_number)).toEqual(['1399']);
    expect(fixed(odd.liabilities_and_equity[0]!.groups.find((g) => g.key === 'result_for_the_year')!.total)).toBe('70.00');
    expect(odd.balanced).toBe(true);
    const pl = buildProfitAndLoss([acc('6999', '0', '70', { type: 'revenue', group_code: '6510-6969' })]);
    expect(pl.sections.find((s) => s.key === 'other_income')!.accounts.map((a) => a.account_number)).toEqual(['6999']);
  });

  it('reports an unbalanced input as not balanced (compared exactly)', () => {
    expect(buildBalanceSheet([bal('6470', '0.01', '0')]).balanced).toBe(false);
    expect(buildBalanceSheet([]).balanced).toBe(true);
  });
});
