import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import { accrualSchedule, rangeMonths, reversalWithMoved } from './rules.ts';
import type { PostingLine } from '../ledger/rules.ts';

const amounts = (from: string, months: number, amount: string) => accrualSchedule(from, months, new Decimal(amount)).map((m) => [m.month, m.amount.toFixed(2)]);

describe('the accrual schedule', () => {
  it('spreads evenly when the amount divides: 12,000.00 over July to June is 1,000.00 a month', () => {
    const s = amounts('2026-07-01', 12, '12000');
    expect(s).toHaveLength(12);
    expect(s[0]).toEqual(['2026-07-01', '1000.00']);
    expect(s[11]).toEqual(['2027-06-01', '1000.00']);
    expect(new Set(s.map((m) => m[1]))).toEqual(new Set(['1000.00']));
  });

  it('gives the rounding to the last month: 100.00 / 3 = 33.33, 33.33 and 33.34', () => {
    expect(amounts('2026-03-01', 3, '100')).toEqual([
      ['2026-03-01', '33.33'],
      ['2026-04-01', '33.33'],
      ['2026-05-01', '33.34'],
    ]);
  });

  it('1,000.00 over 7 months: 142.857… is 142.86 six times (857.16), the last 1,000.00 − 857.16 = 142.84', () => {
    const s = amounts('2026-11-01', 7, '1000');
    expect(s.slice(0, 6).map((m) => m[1])).toEqual(Array(6).fill('142.86'));
    expect(s[6]).toEqual(['2027-05-01', '142.84']);
  });

  it('1,000.00 over 12 months: 83.333… is 83.33 eleven times (916.63), the last 1,000.00 − 916.63 = 83.37, summing exactly', () => {
    const s = accrualSchedule('2026-01-01', 12, new Decimal('1000'));
    expect(s.slice(0, 11).every((m) => m.amount.equals('83.33'))).toBe(true);
    expect(s[11]!.amount.toFixed(2)).toBe('83.37');
    expect(s.reduce((t, m) => t.plus(m.amount), new Decimal(0)).toFixed(2)).toBe('1000.00');
  });

  it('one month is the whole amount', () => {
    expect(amounts('2026-12-01', 1, '99.99')).toEqual([['2026-12-01', '99.99']]);
  });

  it('a negative amount (a credit note) moves back, its last month taking the rounding too', () => {
    expect(amounts('2026-01-01', 3, '-100')).toEqual([
      ['2026-01-01', '-33.33'],
      ['2026-02-01', '-33.33'],
      ['2026-03-01', '-33.34'],
    ]);
  });

  it('a tiny amount over many months rounds down so that the last month keeps the sign: 0.10 over 12 is 0.00 eleven times and 0.10', () => {
    const s = amounts('2026-01-01', 12, '0.10');
    expect(s[0]![1]).toBe('0.00');
    expect(s[11]![1]).toBe('0.10');
  });

  it('counts the months of a range, both ends included', () => {
    expect(rangeMonths({ from: '2026-07', to: '2027-06' })).toBe(12);
    expect(rangeMonths({ from: '2026-07', to: '2026-07' })).toBe(1);
    expect(rangeMonths({ from: '2026-01', to: '2030-12' })).toBe(60);
  });
});

describe('the reversal of a booking with moved months', () => {
  const d = (n: string) => new Decimal(n);
  const line = (accountId: string, debit: string, credit: string, vatCode = ''): PostingLine => ({
    accountId,
    debit: d(debit),
    credit: d(credit),
    description: 'x',
    vatCode,
  });

  it('takes what moved back from the result account and only the rest from the holding account', () => {
    // An invoice of 100.00 + 25.00 VAT deferred over three months, two moved (66.66): the credit note
    // debits deferred income 33.34, revenue 66.66 (under the line's code) and output VAT 25.00.
    const reversing = [line('receivable', '0', '125'), line('deferred', '100', '0', 'S25'), line('vat', '25', '0')];
    const out = reversalWithMoved(reversing, [{ holdingAccountId: 'deferred', resultAccountId: 'revenue', moved: d('-66.66') }]);
    expect(out.map((l) => [l.accountId, l.debit.toFixed(2), l.credit.toFixed(2), l.vatCode])).toEqual([
      ['receivable', '0.00', '125.00', ''],
      ['deferred', '33.34', '0.00', 'S25'],
      ['vat', '25.00', '0.00', ''],
      ['revenue', '66.66', '0.00', 'S25'],
    ]);
  });

  it('drops the holding line when everything has moved', () => {
    const out = reversalWithMoved(
      [line('payable', '120', '0'), line('prepaid', '0', '120')],
      [{ holdingAccountId: 'prepaid', resultAccountId: 'insurance', moved: d('120') }],
    );
    expect(out.map((l) => [l.accountId, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['payable', '120.00', '0.00'],
      ['insurance', '0.00', '120.00'],
    ]);
  });
});
