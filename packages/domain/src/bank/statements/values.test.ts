import { describe, expect, it } from 'vitest';
import { Decimal } from '../../money.ts';
import { canonicalLine, LineIdentities } from './identity.ts';
import type { BankFileLine } from './types.ts';
import { isProblem, readAmount, readDate, readIsoAmount, readIsoDate } from './values.ts';

const amount = (text: string, decimal?: ',' | '.') => {
  const a = readAmount(text, decimal);
  return isProblem(a) ? a.problem : a.toFixed(2);
};

describe('readAmount', () => {
  it('reads Danish amounts: decimal comma, thousands dots or spaces, a leading or trailing sign', () => {
    expect(amount('1.234,50')).toBe('1234.50');
    expect(amount('-1.234.567,5')).toBe('-1234567.50');
    expect(amount('1 234,00')).toBe('1234.00');
    expect(amount('\u2212 45,00')).toBe('-45.00');
    expect(amount('45,00-')).toBe('-45.00');
    expect(amount('+7')).toBe('7.00');
    expect(amount('1,234.50', '.')).toBe('1234.50');
  });
  it('refuses what is not an amount, more than 2 decimals and misplaced thousands', () => {
    expect(amount('1,005')).toMatch(/at most 2 decimals/);
    expect(amount('12.34')).toMatch(/is not an amount/);
    expect(amount('1,2,3')).toMatch(/is not an amount/);
    expect(amount('')).toMatch(/is not an amount/);
    expect(amount('abc')).toMatch(/is not an amount/);
    expect(amount('1234567890123456,00')).toMatch(/at most/);
  });
  it('reads ISO 20022 amounts only as written there', () => {
    expect(readIsoAmount('1500.5')).toEqual(new Decimal('1500.5'));
    expect(readIsoAmount('10.500')).toEqual(new Decimal('10.5'));
    expect(isProblem(readIsoAmount('-1.00'))).toBe(true);
    expect(isProblem(readIsoAmount('1,00'))).toBe(true);
    expect(isProblem(readIsoAmount('12.345'))).toBe(true);
  });
});

describe('readDate', () => {
  it('reads day-first and year-first dates, and holds to a format when given', () => {
    expect(readDate('31-01-2026')).toBe('2026-01-31');
    expect(readDate('1.2.2026')).toBe('2026-02-01');
    expect(readDate('2026/03/04')).toBe('2026-03-04');
    expect(readDate('2026-03-04', 'yyyy-mm-dd')).toBe('2026-03-04');
    expect(isProblem(readDate('04-03-2026', 'yyyy-mm-dd'))).toBe(true);
    expect(isProblem(readDate('04.03.2026', 'dd-mm-yyyy'))).toBe(true);
    expect(isProblem(readDate('30-02-2026'))).toBe(true);
    expect(isProblem(readDate('04-03-26'))).toBe(true);
    expect(isProblem(readDate('04-03.2026'))).toBe(true);
  });
  it('reads compact dates: yyyymmdd, ddmmyyyy and ddmmyy (day first, this century), each valid by the calendar', () => {
    expect(readDate('20261127')).toBe('2026-11-27');
    expect(readDate('27112026')).toBe('2026-11-27');
    expect(readDate('271126')).toBe('2026-11-27');
    expect(readDate('290224')).toBe('2024-02-29');
    expect(readDate('20261127', 'yyyymmdd')).toBe('2026-11-27');
    expect(readDate('271126', 'ddmmyy')).toBe('2026-11-27');
    expect(isProblem(readDate('27112026', 'yyyymmdd'))).toBe(true);
    expect(isProblem(readDate('20261127', 'ddmmyy'))).toBe(true);
    expect(isProblem(readDate('27-11-2026', 'ddmmyy'))).toBe(true);
    expect(isProblem(readDate('290225'))).toBe(true);
    expect(isProblem(readDate('20261301'))).toBe(true);
    expect(isProblem(readDate('2026112'))).toBe(true);
  });
  it('takes the date of a camt DtTm as written, whatever its offset', () => {
    expect(readIsoDate('2026-03-01T23:30:00-05:00')).toBe('2026-03-01');
    expect(readIsoDate('2026-03-01')).toBe('2026-03-01');
    expect(isProblem(readIsoDate('01-03-2026'))).toBe(true);
  });
});

describe('line identity', () => {
  const line = (o: Partial<BankFileLine> = {}): BankFileLine => ({
    n: 1,
    booking_date: '2026-03-01',
    value_date: null,
    amount: new Decimal('-45'),
    text: 'Dankort  Bager ',
    counterparty_name: '',
    counterparty_iban: '',
    reference: '',
    bank_reference: '',
    ...o,
  });
  it('is the bank reference where there is one', () => {
    expect(new LineIdentities().of(line({ bank_reference: 'ABC-1' }))).toBe('ref:ABC-1');
  });
  it('is the hash of the canonical string with the occurrence among identical lines of the file', () => {
    expect(canonicalLine(line())).toBe('2026-03-01|-45.00|Dankort Bager||');
    const ids = new LineIdentities();
    const [a, b, c] = [ids.of(line()), ids.of(line({ value_date: '2026-03-02' })), ids.of(line({ amount: new Decimal('-45.01') }))];
    expect(a).toMatch(/^sha256:[0-9a-f]{64}#1$/);
    // The value date is not part of it: the same line again is its second occurrence.
    expect(b).toBe(a.replace('#1', '#2'));
    expect(c).toMatch(/#1$/);
    expect(new LineIdentities().of(line())).toBe(a);
  });
});
