import { describe, expect, it } from 'vitest';
import { filingDeadline, isBankHoliday, parseVatPeriod, periodContaining, previousPeriod, type VatPeriod } from './periods.ts';

const p = (text: string) => parseVatPeriod(text) as VatPeriod;

describe('VAT periods', () => {
  it('reads months, quarters and half-years as calendar periods', () => {
    expect(p('2026-10')).toEqual({ period: '2026-10', frequency: 'monthly', start: '2026-10-01', end: '2026-10-31' });
    expect(p('2026-Q3')).toEqual({ period: '2026-Q3', frequency: 'quarterly', start: '2026-07-01', end: '2026-09-30' });
    expect(p('2028-02').end).toBe('2028-02-29');
    expect(p('2026-H2')).toEqual({ period: '2026-H2', frequency: 'half_yearly', start: '2026-07-01', end: '2026-12-31' });
  });

  it('refuses what is not a period, saying what one is', () => {
    for (const bad of ['2026-13', '2026-00', '2026-Q5', '2026-H3', '26-Q1', '2026Q1', '2026-q1', '']) {
      expect(parseVatPeriod(bad), bad).toMatch(/^must be a VAT period/);
    }
  });

  it('finds the period of a date and the one before', () => {
    expect(periodContaining('2026-08-15', 'quarterly').period).toBe('2026-Q3');
    expect(previousPeriod(p('2026-Q1')).period).toBe('2025-Q4');
    expect(previousPeriod(p('2026-01')).period).toBe('2025-12');
    expect(previousPeriod(p('2026-H1')).period).toBe('2025-H2');
  });
});

describe('filing deadlines (angivelsesfrister)', () => {
  it('quarterly: the 1st of the third month after; moved to the next banking day', () => {
    // 2026-12-01 is a Tuesday; 2026-06-01 is a Monday; 2026-03-01 is a Sunday -> Monday 2 March.
    expect(filingDeadline(p('2026-Q3'))).toBe('2026-12-01');
    expect(filingDeadline(p('2026-Q1'))).toBe('2026-06-01');
    expect(filingDeadline(p('2025-Q4'))).toBe('2026-03-02');
  });

  it('monthly: the 25th of the next month, June on 17 August', () => {
    // 2026-11-25 is a Wednesday; 2026-08-17 a Monday; 2026-10-25 a Sunday -> 26 October.
    expect(filingDeadline(p('2026-10'))).toBe('2026-11-25');
    expect(filingDeadline(p('2026-06'))).toBe('2026-08-17');
    expect(filingDeadline(p('2026-09'))).toBe('2026-10-26');
  });

  it('half-yearly: 1 September and 1 March', () => {
    // 2026-09-01 is a Tuesday; 2027-03-01 is a Monday.
    expect(filingDeadline(p('2026-H1'))).toBe('2026-09-01');
    expect(filingDeadline(p('2026-H2'))).toBe('2027-03-01');
  });

  it('knows the Danish bank holidays, Easter included', () => {
    // Easter 2026 is 5 April: Maundy Thursday 2 April, Good Friday 3 April, Easter Monday 6 April,
    // Ascension 14 May and the Friday after, Whit Monday 25 May; Grundlovsdag 5 June.
    for (const d of ['2026-04-02', '2026-04-03', '2026-04-06', '2026-05-14', '2026-05-15', '2026-05-25', '2026-06-05', '2026-12-24', '2026-12-31']) {
      expect(isBankHoliday(d), d).toBe(true);
    }
    // Store Bededag (the 4th Friday after Easter) was abolished from 2024: 1 May 2026 is a banking day.
    expect(isBankHoliday('2026-05-01')).toBe(false);
    expect(isBankHoliday('2023-05-05')).toBe(true);
  });
});
