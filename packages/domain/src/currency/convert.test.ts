import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { assertPostable } from '../ledger/rules.ts';
import { givenRate, netOn, postingInDkk } from './convert.ts';

const d = (v: string) => new Decimal(v);
const line = (accountId: string, debit: string, credit: string): PostingLine => ({
  accountId,
  debit: d(debit),
  credit: d(credit),
  description: 'x',
  vatCode: '',
});
const shape = (lines: PostingLine[]) => lines.map((l) => [l.accountId, l.debit.toFixed(2), l.credit.toFixed(2), l.foreign?.amount.toFixed(2) ?? null]);

describe('postingInDkk', () => {
  it('converts every line on its own, half up, recording its currency amount and rate', () => {
    // 100.00 EUR + 25.00 VAT at 7.4612: 746.12 + 186.53 = 932.65 = round(125.00 × 7.4612).
    const lines = postingInDkk([line('ar', '125.00', '0'), line('sales', '0', '100.00'), line('vat', '0', '25.00')], { currency: 'EUR', rate: d('7.4612') }, 0);
    expect(shape(lines)).toEqual([
      ['ar', '932.65', '0.00', '125.00'],
      ['sales', '0.00', '746.12', '100.00'],
      ['vat', '0.00', '186.53', '25.00'],
    ]);
    expect(() => assertPostable(lines)).not.toThrow();
  });

  it('puts the øre the lines miss by on a DKK line of the balancing account', () => {
    // Three credits of 0.01 at 1.5 are 0.02 each (0.015 half up) = 0.06; the debit 0.03 × 1.5 = 0.05.
    const lines = postingInDkk(
      [line('ar', '0.03', '0'), line('a', '0', '0.01'), line('b', '0', '0.01'), line('c', '0', '0.01')],
      { currency: 'SEK', rate: d('1.5') },
      0,
    );
    expect(shape(lines).at(-1)).toEqual(['ar', '0.01', '0.00', null]);
    expect(netOn(lines, 'ar').toFixed(2)).toBe('0.06');
    expect(() => assertPostable(lines)).not.toThrow();
  });

  it('leaves a DKK posting as it is, and refuses a rate other than 1 on a DKK document', () => {
    const dkk = [line('ar', '10.00', '0'), line('sales', '0', '10.00')];
    expect(postingInDkk(dkk, { currency: 'DKK', rate: d('1') }, 0)).toEqual(dkk);
    expect(givenRate('DKK', d('1'))).toBeNull();
    expect(() => givenRate('DKK', d('7.46'))).toThrow(/DKK document has no exchange rate/);
    expect(givenRate('EUR', undefined)).toBeNull();
  });
});
