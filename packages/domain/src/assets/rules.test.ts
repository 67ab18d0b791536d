// The fixed assets' pure rules: the straight-line schedule (the last month takes the rounding), the
// disposal's gain or loss, the statutory small-asset limit by year and one year of the saldo method.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import { depreciationSchedule, disposalLines, monthEnd, monthsBetween, monthStart, saldoYear, statutorySmallAssetLimit } from './rules.ts';

const d = (v: string | number) => new Decimal(v);
const sum = (xs: { amount: Decimal }[]) => xs.reduce((s, x) => s.plus(x.amount), d(0));

describe('the straight-line schedule', () => {
  it('rounds each month half up and lets the last take the rest, so the months sum to cost − residual', () => {
    // (120,000 − 10,000) / 60 = 1,833.333...: 59 × 1,833.33 = 108,166.47, the last 1,833.53.
    const s = depreciationSchedule({ acquisition_date: '2026-03-15', cost: d(120000), residual_value: d(10000), useful_life_months: 60 });
    expect(s).toHaveLength(60);
    expect(s[0]).toEqual({ month: '2026-03-01', amount: d('1833.33') });
    expect(s[9]!.month).toBe('2026-12-01');
    expect(s[10]!.month).toBe('2027-01-01');
    expect(s.at(-1)).toEqual({ month: '2031-02-01', amount: d('1833.53') });
    expect(sum(s).toFixed(2)).toBe('110000.00');
    // 0.05 / 3 = 0.0166... rounds up to 0.02: twice 0.02, the last 0.01.
    expect(
      depreciationSchedule({ acquisition_date: '2026-01-31', cost: d('0.05'), residual_value: d(0), useful_life_months: 3 }).map((m) => m.amount.toFixed(2)),
    ).toEqual(['0.02', '0.02', '0.01']);
  });

  it('rounds down instead when rounding up would leave the last month negative', () => {
    // 0.35 / 6 = 0.0583 → 0.06 × 5 = 0.30, the last 0.05.
    expect(
      depreciationSchedule({ acquisition_date: '2026-01-01', cost: d('0.35'), residual_value: d(0), useful_life_months: 6 })
        .at(-1)!
        .amount.toFixed(2),
    ).toBe('0.05');
    // 0.13 / 12 = 0.0108 → 0.01 × 11 = 0.11, last 0.02 (half up gives 0.01 too: no overshoot).
    const tiny = depreciationSchedule({ acquisition_date: '2026-01-01', cost: d('0.13'), residual_value: d(0), useful_life_months: 12 });
    expect(sum(tiny).toFixed(2)).toBe('0.13');
    // 0.17 / 11 = 0.01545 → 0.02 × 10 = 0.20 > 0.17: rounded down to 0.01, the last 0.07.
    const down = depreciationSchedule({ acquisition_date: '2026-01-01', cost: d('0.17'), residual_value: d(0), useful_life_months: 11 });
    expect([down[0]!.amount.toFixed(2), down.at(-1)!.amount.toFixed(2), sum(down).toFixed(2)]).toEqual(['0.01', '0.07', '0.17']);
  });

  it('counts months across years', () => {
    expect([monthStart('2026-11-30', 3), monthEnd('2028-02-10'), monthEnd('2026-02-01'), monthsBetween('2026-03-15', '2027-02-01')]).toEqual([
      '2027-02-01',
      '2028-02-29',
      '2026-02-28',
      11,
    ]);
  });
});

describe('the disposal', () => {
  it('a gain when proceeds + depreciation exceed the cost, a loss otherwise', () => {
    expect(disposalLines({ cost: d(80000), depreciated: d(12000), proceeds: d(75000) })).toMatchObject({ gain: d(7000), loss: d(0) });
    expect(disposalLines({ cost: d(10000), depreciated: d(4000), proceeds: d(0) })).toMatchObject({ gain: d(0), loss: d(6000) });
    expect(disposalLines({ cost: d(10000), depreciated: d(4000), proceeds: d(6000) })).toMatchObject({ gain: d(0), loss: d(0) });
  });
});

describe('the tax view', () => {
  it("uses Skatteministeriet's småaktivgrænse of the year, the last known after it", () => {
    expect([2024, 2025, 2026, 2030, 2010].map((y) => statutorySmallAssetLimit(y).toFixed(0))).toEqual(['33100', '34400', '36000', '36000', '32000']);
  });

  it('depreciates 25 % of the basis, all of it at or below the limit, and taxes a negative basis', () => {
    expect(saldoYear(d(0), d(200000), d(75000), d(36000))).toMatchObject({ basis: d(125000), depreciation: d(31250), closing: d(93750), written_off: false });
    expect(saldoYear(d(30000), d(0), d(0), d(36000))).toMatchObject({ depreciation: d(30000), closing: d(0), written_off: true });
    expect(saldoYear(d(10000), d(0), d(25000), d(36000))).toMatchObject({ depreciation: d(0), income: d(15000), closing: d(0) });
    // 93,750 × 25 % = 23,437.50.
    expect(saldoYear(d(93750), d(0), d(0), d(36000)).closing.toFixed(2)).toBe('70312.50');
  });
});
