import { describe, expect, it } from 'vitest';
import { wholeMonths } from './balances.ts';

describe('whole months of a range', () => {
  it('takes the calendar months fully inside the range', () => {
    expect(wholeMonths('2026-01-01', '2026-12-31')).toEqual({ start: '2026-01-01', endExclusive: '2027-01-01' });
    expect(wholeMonths('2026-01-15', '2026-04-10')).toEqual({ start: '2026-02-01', endExclusive: '2026-04-01' });
    expect(wholeMonths('2026-02-01', '2026-02-28')).toEqual({ start: '2026-02-01', endExclusive: '2026-03-01' });
  });
  it('has none when the range lies inside one month or straddles two partially', () => {
    expect(wholeMonths('2026-03-02', '2026-03-30')).toBeUndefined();
    expect(wholeMonths('2026-03-15', '2026-04-14')).toBeUndefined();
  });
  it('handles leap years and the balance-sheet beginning', () => {
    expect(wholeMonths('2028-02-01', '2028-02-29')).toEqual({ start: '2028-02-01', endExclusive: '2028-03-01' });
    expect(wholeMonths('1900-01-01', '2026-11-22')).toEqual({ start: '1900-01-01', endExclusive: '2026-11-01' });
  });
});
