import DecimalJs from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  Decimal,
  amountToJson,
  exactJsonNumber,
  fromOere,
  isJsonAmount,
  lineNet,
  parseAmount,
  parseDecimalText,
  parseJsonExact,
  rateToJson,
  roundKroner,
  roundOere,
  shareOut,
  sumAmounts,
  toOere,
  toOereFixed2,
} from './money.ts';

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

// Moved here from saft/rules.test.ts with the øre conversions themselves.
describe('øre as bigint', () => {
  it('converts between decimal text and øre exactly', () => {
    expect(toOere('1250.00')).toBe(125000n);
    expect(toOere('-0.05')).toBe(-5n);
    expect(toOere('3.5')).toBe(350n);
    expect(toOere('9999999999999999.99')).toBe(999999999999999999n);
    expect(fromOere(999999999999999999n)).toBe('9999999999999999.99');
    expect(fromOere(-5n)).toBe('-0.05');
    expect(fromOere(0n)).toBe('0.00');
    expect(() => toOere('1.005')).toThrow();
    expect(() => toOere('1e3')).toThrow();
  });

  it('reads numeric(n,2) text as toOere does, and anything else through toOere', () => {
    for (const text of ['1250.00', '-0.05', '0.00', '-1250.75', '9999999999999999.99', '3.5', '7']) expect(toOereFixed2(text)).toBe(toOere(text));
    for (const text of ['1.005', '1e3', '0x.00', '+1.00', '1 .00', '']) expect(() => toOereFixed2(text)).toThrow();
  });

  it('takes a Decimal as well, refusing one with more than 2 decimals', () => {
    expect(toOere(d('-12.5'))).toBe(-1250n);
    expect(() => toOere(d('0.001'))).toThrow();
  });
});

describe('parseDecimalText: the one rule of an amount written as text', () => {
  it('reads decimal text, by value, within the bounds every amount has', () => {
    expect((parseDecimalText('1250.5') as Decimal).toFixed(2)).toBe('1250.50');
    expect((parseDecimalText('-0.05') as Decimal).toFixed(2)).toBe('-0.05');
    expect((parseDecimalText('10.500') as Decimal).toFixed(2)).toBe('10.50');
    expect(parseDecimalText('1000.005')).toBe('must have at most 2 decimals');
    expect(parseDecimalText('1000000000000000')).toBe('must be at most 999999999999999.99 in absolute value');
    for (const text of ['', 'abc', '1e3', '+1', '1,00', ' 1', '.5', '1.']) expect(parseDecimalText(text), text).toBe('must be a decimal number');
  });
  it('takes more decimals where the field has them (a rate)', () => {
    expect((parseDecimalText('746.1234', 4) as Decimal).toString()).toBe('746.1234');
    expect(parseDecimalText('746.12345', 4)).toBe('must have at most 4 decimals');
  });
});

describe('roundKroner: half up, away from zero, to whole kroner', () => {
  it('rounds 0.50 to 1, -0.50 to -1 and 0.49 to 0, never to a signed zero', () => {
    expect(roundKroner(d('0.50')).toFixed()).toBe('1');
    expect(roundKroner(d('-0.50')).toFixed()).toBe('-1');
    expect(roundKroner(d('1234.49')).toFixed()).toBe('1234');
    expect(JSON.stringify(roundKroner(d('-0.4')))).toBe('"0"');
  });
});

describe('shareOut: a total over weights to the øre, summing exactly', () => {
  const text = (xs: Decimal[]) => xs.map((x) => x.toFixed(2));
  it('shares in proportion, the øre left over to the largest remainders', () => {
    expect(text(shareOut(d('1262.50'), [d(5000), d(50)]))).toEqual(['1250.00', '12.50']);
    expect(text(shareOut(d('0.10'), [d(1), d(1), d(1)]))).toEqual(['0.04', '0.03', '0.03']);
    expect(text(shareOut(d('100'), [d(1), d(2)]))).toEqual(['33.33', '66.67']);
  });
  it('shares signed: a discount line gets its negative part; weights that cancel out share by size, all zero equally', () => {
    expect(text(shareOut(d('1225'), [d(4000), d(900), d(200), d(-200)]))).toEqual(['1000.00', '225.00', '50.00', '-50.00']);
    expect(text(shareOut(d('-0.10'), [d(-1), d(-1), d(-1)]))).toEqual(['-0.04', '-0.03', '-0.03']);
    expect(text(shareOut(d('0.10'), [d(-1), d(1)]))).toEqual(['0.05', '0.05']);
    expect(text(shareOut(d('1.00'), [d(0), d(0)]))).toEqual(['0.50', '0.50']);
    expect(shareOut(d('5'), [])).toEqual([]);
    const many = shareOut(d('365.28'), [d('1000'), d('-200'), d('436.50'), d('0')]);
    expect(sumAmounts(many).toFixed(2)).toBe('365.28');
    expect(many[3]!.toFixed(2)).toBe('0.00');
  });
});
