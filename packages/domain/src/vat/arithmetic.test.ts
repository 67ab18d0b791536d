import { describe, expect, it } from 'vitest';
import { Decimal, roundOere, sumAmounts } from '../money.ts';
import { computeVat, parseVatRate, vatByGroup, vatFromGross } from './arithmetic.ts';

const d = (v: string | number) => new Decimal(v);
const lines = (rate: string | number, ...nets: string[]) => nets.map((n) => ({ net: d(n), rate: d(rate) }));
const fx = (x: Decimal) => x.toFixed(2);
const summary = (r: ReturnType<typeof computeVat>) => ({
  subtotal: fx(r.subtotal),
  vat: fx(r.vat),
  total: fx(r.total),
  byRate: r.byRate.map((g) => [g.rate.toString(), fx(g.net), fx(g.vat)]),
});

describe('computeVat: VAT per rate group on the summed net, rounded half up once', () => {
  it('3 lines of 33.33 at 25%: group VAT 24.9975 -> 25.00, not 3 × 8.33 = 24.99', () => {
    const l = lines(25, '33.33', '33.33', '33.33');
    expect(summary(computeVat(l))).toEqual({
      subtotal: '99.99',
      vat: '25.00',
      total: '124.99',
      byRate: [['25', '99.99', '25.00']],
    });
    const perLine = sumAmounts(l.map((x) => roundOere(x.net.times(x.rate).div(100))));
    expect(fx(perLine)).toBe('24.99'); // the rule we did not choose
  });

  it('100 lines of 0.01 at 25%: group VAT 0.25, where per-line rounding would give 0.00', () => {
    const l = lines(25, ...Array.from({ length: 100 }, () => '0.01'));
    const perLine = sumAmounts(l.map((x) => roundOere(x.net.times(x.rate).div(100))));
    expect(fx(perLine)).toBe('0.00');
    const r = computeVat(l);
    expect([fx(r.subtotal), fx(r.vat), fx(r.total)]).toEqual(['1.00', '0.25', '1.25']);
  });

  it('half-up boundary: net 0.02 at 25% = 0.005 -> 0.01', () => {
    expect(fx(computeVat(lines(25, '0.02')).vat)).toBe('0.01');
  });

  it('half-up is symmetric: net -0.02 at 25% = -0.005 -> -0.01', () => {
    const r = computeVat(lines(25, '-0.02'));
    expect([fx(r.subtotal), fx(r.vat), fx(r.total)]).toEqual(['-0.02', '-0.01', '-0.03']);
  });

  it('credit lines are netted inside the group before rounding (100.00 - 100.02 -> VAT -0.01)', () => {
    expect(fx(computeVat(lines(25, '100.00', '-100.02')).vat)).toBe('-0.01');
  });

  it('a credit note with every line negated gives exactly the negated totals', () => {
    const inv = [...lines(25, '33.33', '0.02', '19.99'), ...lines('12.5', '100.04')];
    const credit = inv.map((x) => ({ net: x.net.neg(), rate: x.rate }));
    const a = computeVat(inv);
    const b = computeVat(credit);
    expect(b.vat.eq(a.vat.neg()) && b.total.eq(a.total.neg()) && b.subtotal.eq(a.subtotal.neg())).toBe(true);
  });

  it('12.5%: net 100.04 -> 12.505 -> 12.51', () => {
    expect(summary(computeVat(lines('12.5', '100.04')))).toEqual({
      subtotal: '100.04',
      vat: '12.51',
      total: '112.55',
      byRate: [['12.5', '100.04', '12.51']],
    });
  });

  it('mixed rates 25 and 0: groups ordered by rate descending, 0% group has VAT 0.00', () => {
    const r = computeVat([...lines(0, '50.00'), ...lines(25, '10.00'), ...lines('12.5', '8.00'), ...lines(25, '30.00')]);
    expect(summary(r)).toEqual({
      subtotal: '98.00',
      vat: '11.00',
      total: '109.00',
      byRate: [
        ['25', '40.00', '10.00'],
        ['12.5', '8.00', '1.00'],
        ['0', '50.00', '0.00'],
      ],
    });
  });

  it('rates 25, "25.0" and 25.00 are one group', () => {
    const r = computeVat([
      { net: d('0.01'), rate: d(25) },
      { net: d('0.01'), rate: d('25.0') },
    ]);
    expect(r.byRate).toHaveLength(1);
    expect(fx(r.vat)).toBe('0.01'); // 0.005 once, not 0.0025 rounded twice
  });

  it('huge amounts stay exact: 999,999,999,999.99 at 25%', () => {
    const r = computeVat(lines(25, '999999999999.99'));
    // 249,999,999,999.9975 -> 250,000,000,000.00
    expect([fx(r.subtotal), fx(r.vat), fx(r.total)]).toEqual(['999999999999.99', '250000000000.00', '1249999999999.99']);
  });

  it('no lines give zero totals and no groups', () => {
    expect(summary(computeVat([]))).toEqual({ subtotal: '0.00', vat: '0.00', total: '0.00', byRate: [] });
  });

  it('refuses rates outside 0..100 or with more than 2 decimals (a programming error)', () => {
    expect(() => computeVat(lines(101, '1.00'))).toThrow(RangeError);
    expect(() => computeVat(lines(-1, '1.00'))).toThrow(RangeError);
    expect(() => computeVat(lines('12.345', '1.00'))).toThrow(RangeError);
  });
});

describe('vatByGroup: the one computation of VAT per group, keyed as the caller needs', () => {
  it('sums per key and computes the VAT once per group, in the order of the first lines', () => {
    const lines = [
      ...Array.from({ length: 100 }, () => ({ net: new Decimal('0.01'), rate: new Decimal(25), category: 'S' })),
      { net: new Decimal('100'), rate: new Decimal(0), category: 'E' },
      { net: new Decimal('100'), rate: new Decimal(0), category: 'Z' },
    ];
    const groups = vatByGroup(lines, (l) => `${l.category}|${l.rate.toFixed(2)}`);
    expect(groups.map((g) => [g.first.category, g.net.toFixed(2), g.vat.toFixed(2)])).toEqual([
      ['S', '1.00', '0.25'],
      ['E', '100.00', '0.00'],
      ['Z', '100.00', '0.00'],
    ]);
    // computeVat is the same computation keyed by code or rate: the two never disagree.
    expect(computeVat(lines).vat.toFixed(2)).toBe('0.25');
  });
});

describe('parseVatRate: percent 0..100 with at most 2 decimals', () => {
  it('accepts 25, 12.5, "0" and 100 and refuses -1, 100.01 and 12.345', () => {
    expect([25, 12.5, '0', 100].map((v) => String(parseVatRate(v)))).toEqual(['25', '12.5', '0', '100']);
    expect(parseVatRate(-1)).toBe('must be between 0 and 100');
    expect(parseVatRate(100.01)).toBe('must be between 0 and 100');
    expect(parseVatRate(12.345)).toBe('must have at most 2 decimals');
  });
});

describe('vatFromGross: vat = round_half_up(gross × rate / (100 + rate)), net = gross − vat', () => {
  const split = (gross: string, rate: string | number) => {
    const r = vatFromGross(d(gross), d(rate));
    return [fx(r.net), fx(r.vat)];
  };

  it('125.00 at 25% -> net 100.00 + VAT 25.00', () => {
    expect(split('125.00', 25)).toEqual(['100.00', '25.00']);
  });
  it('100.00 at 25% -> net 80.00 + VAT 20.00', () => {
    expect(split('100.00', 25)).toEqual(['80.00', '20.00']);
  });
  it('0.01 at 25% -> VAT 0.002 rounds to 0.00, net keeps the whole 0.01', () => {
    expect(split('0.01', 25)).toEqual(['0.01', '0.00']);
  });
  it('half-up boundary: 0.01 at 100% -> VAT 0.005 -> 0.01, net 0.00; -0.01 -> VAT -0.01', () => {
    expect(split('0.01', 100)).toEqual(['0.00', '0.01']);
    expect(split('-0.01', 100)).toEqual(['0.00', '-0.01']);
  });
  it('a repeating quotient rounds correctly: 100.00 at 12.5% -> VAT 11.111… -> 11.11', () => {
    expect(split('100.00', '12.5')).toEqual(['88.89', '11.11']);
  });
  it('a refund is symmetric: -125.00 at 25% -> -100.00 + -25.00', () => {
    expect(split('-125.00', 25)).toEqual(['-100.00', '-25.00']);
  });
  it('0% -> all net', () => {
    expect(split('99.99', 0)).toEqual(['99.99', '0.00']);
  });
  it('huge gross 999,999,999,999.99 at 25% -> exact split', () => {
    expect(split('999999999999.99', 25)).toEqual(['799999999999.99', '200000000000.00']);
  });
  it('net + vat == gross exactly for every gross 0.01..20.00 at 25%, 12.5% and 0%', () => {
    for (const rate of ['25', '12.5', '0']) {
      for (let cents = 1; cents <= 2000; cents++) {
        const gross = d(cents).div(100);
        const { net, vat } = vatFromGross(gross, d(rate));
        expect(net.plus(vat).eq(gross)).toBe(true);
        expect(vat.decimalPlaces()).toBeLessThanOrEqual(2);
      }
    }
  });
});
