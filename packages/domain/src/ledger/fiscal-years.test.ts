import { describe, expect, it } from 'vitest';
import { dayAfter } from '../calendar.ts';
import { fiscalYearContaining, vatPeriods } from './fiscal-years.ts';

describe('fiscal years', () => {
  it('finds the calendar year for start month 1 and a split year otherwise', () => {
    expect(fiscalYearContaining('2026-11-22', 1)).toEqual({ start: '2026-01-01', end: '2026-12-31' });
    expect(fiscalYearContaining('2026-03-15', 7)).toEqual({ start: '2025-07-01', end: '2026-06-30' });
    expect(fiscalYearContaining('2026-07-01', 7)).toEqual({ start: '2026-07-01', end: '2027-06-30' });
    expect(fiscalYearContaining('2027-02-28', 3)).toEqual({ start: '2026-03-01', end: '2027-02-28' });
    expect(fiscalYearContaining('2028-02-29', 3)).toEqual({ start: '2027-03-01', end: '2028-02-29' });
  });

  it('splits a year into 12, 4 or 2 VAT periods', () => {
    const y = { start: '2026-01-01', end: '2026-12-31' };
    expect(vatPeriods(y, 'monthly')).toHaveLength(12);
    expect(vatPeriods(y, 'quarterly')).toEqual([
      { start: '2026-01-01', end: '2026-03-31' },
      { start: '2026-04-01', end: '2026-06-30' },
      { start: '2026-07-01', end: '2026-09-30' },
      { start: '2026-10-01', end: '2026-12-31' },
    ]);
    expect(vatPeriods({ start: '2025-07-01', end: '2026-06-30' }, 'half_yearly')).toEqual([
      { start: '2025-07-01', end: '2025-12-31' },
      { start: '2026-01-01', end: '2026-06-30' },
    ]);
    expect(vatPeriods({ start: '2027-03-01', end: '2028-02-29' }, 'monthly').at(-1)).toEqual({ start: '2028-02-01', end: '2028-02-29' });
  });

  it('steps a day across month and year ends', () => {
    expect(dayAfter('2026-12-31')).toBe('2027-01-01');
    expect(dayAfter('2028-02-28')).toBe('2028-02-29');
  });
});
