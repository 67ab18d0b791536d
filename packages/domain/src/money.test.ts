import DecimalJs from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Decimal, amountToJson, exactJsonNumber, isJsonAmount, lineNet, parseAmount, parseJsonExact, rateToJson, roundOere, sumAmounts } from './money.ts';

const d = (v: string | number) => new Decimal(v);
const parsed = (v: unknown, max?: number) => {
  const r = parseAmount(v, max);
  if (typeof r === 'string') throw new Error(r);
  return r;
};

describe('parseAmount (unchanged behaviour)', () => {
  it('accepts JSON numbers and decimal strings with at most 2 decimals', () => {
    expect(parsed(12.5).toFixed(2)).toBe('12.50');
    expect(parsed(' -10.05 ').toFixed(2)).toBe('-10.05');
    expect(parsed(1e-2).toFixed(2)).toBe('0.01');
  });
  it('refuses more decimals instead of rounding, and refuses non-numbers and |x| >= 10^15', () => {
    expect(parseAmount(12.345)).toBe('must have at most 2 decimals');
    expect(parseAmount('0.001')).toBe('must have at most 2 decimals');
    expect(parseAmount(1e-7)).toBe('must have at most 2 decimals');
    expect(parseAmount('1e3')).toBe('must be a decimal number');
    expect(parseAmount(Number.NaN)).toBe('must be a finite number');
    expect(parseAmount('1000000000000000')).toBe('must be at most 999999999999999.99 in absolute value');
    expect(parseAmount('-999999999999999.99')?.toString()).toBe('-999999999999999.99');
    expect(parsed('999999999999999.99').toFixed(2)).toBe('999999999999999.99');
  });
  it('takes a larger maxDecimals for quantities (4)', () => {
    expect(parsed('1.2345', 4).toString()).toBe('1.2345');
    expect(parseAmount('1.23456', 4)).toBe('must have at most 4 decimals');
  });
  it('writes JSON numbers with 2 decimals for responses', () => {
    expect(amountToJson(d('10.5'))).toBe(10.5);
    expect(amountToJson(null)).toBe(0);
    expect(rateToJson(d('12.50'))).toBe(12.5);
  });
});

describe('Decimal clone', () => {
  it('interoperates with decimal.js default instances both ways', () => {
    const mine = d('0.1');
    const theirs = new DecimalJs('0.2');
    expect(mine.plus(theirs).toString()).toBe('0.3');
    expect(theirs.plus(mine).toString()).toBe('0.3');
    expect(mine instanceof DecimalJs && theirs instanceof Decimal).toBe(true);
    expect(Decimal.isDecimal(theirs) && DecimalJs.isDecimal(mine)).toBe(true);
  });
  it('has 40-digit precision without changing the global decimal.js settings', () => {
    expect(Decimal.precision).toBe(40);
    expect(DecimalJs.precision).toBe(20);
  });
});

describe('sumAmounts', () => {
  it('sums exactly where floats drift: 0.1 + 0.2 = 0.3', () => {
    expect(0.1 + 0.2).not.toBe(0.3); // the reason no float takes part in arithmetic
    expect(sumAmounts([parsed(0.1), parsed(0.2)]).toString()).toBe('0.3');
  });
  it('sums ten times 0.10 to exactly 1.00 and an empty list to 0', () => {
    expect(sumAmounts(Array.from({ length: 10 }, () => parsed(0.1))).eq(1)).toBe(true);
    expect(sumAmounts([]).toString()).toBe('0');
  });
  it('keeps huge amounts exact: 999,999,999,999.99 + 0.01', () => {
    expect(sumAmounts([d('999999999999.99'), d('0.01')]).toFixed(2)).toBe('1000000000000.00');
  });
});

describe('roundOere: half up, away from zero, to 2 decimals', () => {
  it('rounds 0.005 up to 0.01 and 0.00499 down to 0.00', () => {
    expect(roundOere(d('0.005')).toFixed(2)).toBe('0.01');
    expect(roundOere(d('0.00499')).toFixed(2)).toBe('0.00');
  });
  it('rounds -0.005 to -0.01 (symmetric, away from zero)', () => {
    expect(roundOere(d('-0.005')).toFixed(2)).toBe('-0.01');
    expect(roundOere(d('-0.00499')).toFixed(2)).toBe('0.00');
  });
  it('rounds 2.675 to 2.68 where a float toFixed gives 2.67', () => {
    expect((2.675).toFixed(2)).toBe('2.67');
    expect(roundOere(d('2.675')).toFixed(2)).toBe('2.68');
  });
  it('never returns a signed zero (JSON "-0")', () => {
    const z = roundOere(d('-0.002'));
    expect(z.isNegative()).toBe(false);
    expect(JSON.stringify(z)).toBe('"0"');
  });
});

describe('lineNet: quantity × unit price exactly, then rounded half up to øre once', () => {
  it('3 × 33.333 = 99.999 rounds to 100.00', () => {
    expect(lineNet(d(3), d('33.333')).toFixed(2)).toBe('100.00');
  });
  it('1.5 × 0.05 = 0.075 rounds up to 0.08, and -1.5 × 0.05 to -0.08', () => {
    expect(lineNet(d('1.5'), d('0.05')).toFixed(2)).toBe('0.08');
    expect(lineNet(d('-1.5'), d('0.05')).toFixed(2)).toBe('-0.08');
  });
  it('multiplies a 4-decimal quantity by a huge price exactly before rounding', () => {
    // 1.2345 × 999,999,999,999.99 = 1,234,499,999,999.987655 exactly
    expect(d('1.2345').times('999999999999.99').toString()).toBe('1234499999999.987655');
    expect(lineNet(d('1.2345'), d('999999999999.99')).toFixed(2)).toBe('1234499999999.99');
  });
  it('multiplies the largest operands (19 significant digits each) without precision loss', () => {
    const q = d('999999999999999.9999');
    const p = d('999999999999999.99');
    // 36 significant digits, all kept (checked against Python's decimal at 60 digits)
    expect(q.times(p).toFixed()).toBe('999999999999999989900000000000.000001');
  });
});

describe('amounts beyond double precision', () => {
  it('amountToJson is a plain number while a double holds it, and the exact digits beyond', () => {
    expect(amountToJson('1234567890123.45')).toBe(1234567890123.45);
    expect(JSON.stringify({ a: amountToJson('999999999999999.99') })).toBe('{"a":999999999999999.99}');
    expect(JSON.stringify({ a: amountToJson('-12345678901234567.5') })).toBe('{"a":-12345678901234567.50}');
    expect(isJsonAmount(amountToJson('999999999999999.99'))).toBe(true);
  });

  it('exactJsonNumber hands a request number a double cannot hold to the schema as its text', () => {
    expect(exactJsonNumber(12.5, '12.5')).toBe(12.5);
    expect(exactJsonNumber(999999999999999.9, '999999999999999.99')).toBe('999999999999999.99');
    expect(exactJsonNumber(1e21, '1e21')).toBe(1e21);
  });

  it('parseJsonExact keeps stored digits', () => {
    expect(JSON.stringify(parseJsonExact('{"a":999999999999999.99,"b":[1.5]}'))).toBe('{"a":999999999999999.99,"b":[1.5]}');
  });
});
