import { describe, expect, it } from 'vitest';
import { duePeriods, firstOnOrAfter, nextPeriod, scheduleProblem, statusOf, type Schedule } from './rules.ts';

const monthly = (over: Partial<Schedule> = {}): Schedule => ({
  interval: 'month',
  every: 1,
  start_date: '2026-01-31',
  end_date: null,
  count: null,
  day_of_month: 31,
  ...over,
});
const fresh = { made: 0, last: null, resumed_on: null };

describe('recurring invoice periods', () => {
  it('clamp day 29-31 to a shorter month and keep the day in the longer ones', () => {
    expect(duePeriods(monthly(), fresh, '2026-05-31')).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31']);
    expect(duePeriods(monthly({ start_date: '2028-01-30', day_of_month: 30 }), fresh, '2028-03-30')).toEqual(['2028-01-30', '2028-02-29', '2028-03-30']);
  });

  it("'last' is the month's last day, leap years included", () => {
    expect(duePeriods(monthly({ start_date: '2028-01-01', day_of_month: 'last' }), fresh, '2028-04-30')).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
    ]);
  });

  it('start on the first schedule date on or after start_date', () => {
    // Day 10 before the start's 15th: the first period is the next month's.
    expect(nextPeriod(monthly({ start_date: '2026-03-15', day_of_month: 10 }), fresh)).toBe('2026-04-10');
    expect(nextPeriod(monthly({ start_date: '2026-03-15', day_of_month: 15 }), fresh)).toBe('2026-03-15');
    // Yearly: a whole step later.
    expect(nextPeriod(monthly({ interval: 'year', start_date: '2026-03-15', day_of_month: 1 }), fresh)).toBe('2027-03-01');
  });

  it('step by quarters and by every n intervals', () => {
    expect(duePeriods(monthly({ interval: 'quarter', start_date: '2026-01-01', day_of_month: 1 }), fresh, '2026-12-31')).toEqual([
      '2026-01-01',
      '2026-04-01',
      '2026-07-01',
      '2026-10-01',
    ]);
    expect(duePeriods(monthly({ every: 2, start_date: '2026-01-05', day_of_month: 5 }), fresh, '2026-07-04')).toEqual([
      '2026-01-05',
      '2026-03-05',
      '2026-05-05',
    ]);
    expect(duePeriods(monthly({ interval: 'year', start_date: '2024-02-29', day_of_month: 29 }), fresh, '2028-03-01')).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
  });

  it('catch up after the last made period, in order, and nothing twice', () => {
    const s = monthly({ start_date: '2026-01-01', day_of_month: 1 });
    expect(duePeriods(s, { made: 2, last: '2026-02-01', resumed_on: null }, '2026-05-15')).toEqual(['2026-03-01', '2026-04-01', '2026-05-01']);
    expect(duePeriods(s, { made: 5, last: '2026-05-01', resumed_on: null }, '2026-05-15')).toEqual([]);
  });

  it('skip the periods that passed while paused', () => {
    const s = monthly({ start_date: '2026-01-01', day_of_month: 1 });
    expect(nextPeriod(s, { made: 1, last: '2026-01-01', resumed_on: '2026-03-20' })).toBe('2026-04-01');
    expect(nextPeriod(s, { made: 1, last: '2026-01-01', resumed_on: '2026-04-01' })).toBe('2026-04-01');
  });

  it('end after count invoices, or after end_date', () => {
    const s = monthly({ start_date: '2026-01-01', day_of_month: 1, count: 3 });
    expect(duePeriods(s, fresh, '2027-01-01')).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(nextPeriod(s, { made: 3, last: '2026-03-01', resumed_on: null })).toBeNull();
    expect(duePeriods(monthly({ start_date: '2026-01-01', day_of_month: 1, end_date: '2026-02-01' }), fresh, '2027-01-01')).toEqual([
      '2026-01-01',
      '2026-02-01',
    ]);
    expect(statusOf(false, null)).toBe('ended');
    expect(statusOf(true, null)).toBe('ended');
    expect(statusOf(true, '2026-01-01')).toBe('paused');
  });

  it('find a far date without stepping from the start', () => {
    expect(firstOnOrAfter(monthly({ start_date: '1990-01-31' }), '2026-02-01')).toBe('2026-02-28');
  });

  it('refuse end_date with count, and an end before the start', () => {
    expect(scheduleProblem(monthly({ end_date: '2026-12-31', count: 2 }))).toMatchObject({ field: 'count' });
    expect(scheduleProblem(monthly({ end_date: '2026-01-30' }))).toMatchObject({ field: 'end_date' });
    expect(scheduleProblem(monthly({ end_date: '2026-01-31' }))).toBeUndefined();
  });
});
