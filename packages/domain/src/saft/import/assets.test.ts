// The SAF-T import's pure asset rules: the residual value a file's monthly depreciation implies, and the
// months of the schedule the accumulated depreciation covers (saft/import/assets.ts; decision 862).
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../money.ts';
import { depreciationSchedule } from '../../assets/rules.ts';
import { impliedResidual, monthsCovered } from './assets.ts';

const d = (v: string | number) => new Decimal(v);

describe('impliedResidual', () => {
  it("is cost less the file's monthly amount times the life: exact when the month divides evenly", () => {
    // (12,000 − 1,200) / 36 = 300 a month: 12,000 − 300 × 36 = 1,200.
    expect(impliedResidual(d(12000), 36, d(3000), d(300)).toFixed(2)).toBe('1200.00');
  });
  it('never goes below 0 (a month rounded up over the life), and the schedule then gives back the same month', () => {
    // 10,000 / 36 = 277.777… → 277.78; 277.78 × 36 = 10,000.08 > 10,000: residual 0.
    const residual = impliedResidual(d(10000), 36, d(2777.8), d('277.78'));
    expect(residual.toFixed(2)).toBe('0.00');
    const s = depreciationSchedule({ acquisition_date: '2026-01-10', cost: d(10000), residual_value: residual, useful_life_months: 36 });
    expect(s[0]!.amount.toFixed(2)).toBe('277.78');
  });
  it('without a month in the file: the book value when something was depreciated, else 0', () => {
    expect(impliedResidual(d(5000), 12, d(4000), undefined).toFixed(2)).toBe('1000.00');
    expect(impliedResidual(d(5000), 12, d(0), undefined).toFixed(2)).toBe('0.00');
  });
});

describe('monthsCovered', () => {
  const s = depreciationSchedule({ acquisition_date: '2026-01-10', cost: d(12000), residual_value: d(1200), useful_life_months: 36 });
  it('counts the months whose running sum is at most the accumulated depreciation', () => {
    expect(monthsCovered(s, d(3000))).toBe(10); // 10 × 300
    expect(monthsCovered(s, d(3150))).toBe(10); // half a month more: still 10
    expect(monthsCovered(s, d(0))).toBe(0);
    expect(monthsCovered(s, d(10800))).toBe(36); // everything
  });
});
