import { Decimal } from '../money.ts';
import { describe, expect, it } from 'vitest';
import { type DomainError } from '../errors.ts';
import { assertPostable, lineField, lineOfField, reversingLines, totalsByAccount, type PostingLine } from './rules.ts';

const line = (accountId: string, debit: string, credit: string): PostingLine => ({
  accountId,
  debit: new Decimal(debit),
  credit: new Decimal(credit),
  description: '',
  vatCode: '',
});

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as DomainError).code;
  }
  return 'none';
};

describe('posting rules', () => {
  it('balances exactly in decimal arithmetic (0.1 + 0.2 = 0.3)', () => {
    expect(assertPostable([line('a', '0.1', '0'), line('a', '0.2', '0'), line('b', '0', '0.3')]).debit.toFixed(2)).toBe('0.30');
  });
  it('refuses a difference of one øre', () => {
    expect(codeOf(() => assertPostable([line('a', '100.00', '0'), line('b', '0', '99.99')]))).toBe('unbalanced_transaction');
  });
  it('refuses a line with both debit and credit, a zero line, a negative amount and a single line', () => {
    expect(codeOf(() => assertPostable([line('a', '1', '1'), line('b', '0', '0')]))).toBe('invalid_request');
    expect(codeOf(() => assertPostable([line('a', '0', '0'), line('b', '0', '0')]))).toBe('invalid_request');
    expect(codeOf(() => assertPostable([line('a', '-5', '0'), line('b', '0', '-5')]))).toBe('invalid_request');
    expect(codeOf(() => assertPostable([line('a', '5', '0')]))).toBe('invalid_request');
  });
  it('reverses by swapping debit and credit', () => {
    expect(reversingLines([line('a', '10', '0'), line('b', '0', '10')]).map((l) => [l.accountId, l.debit.toString(), l.credit.toString()])).toEqual([
      ['a', '0', '10'],
      ['b', '10', '0'],
    ]);
  });
  it('sums lines per account for the daily balances', () => {
    const t = totalsByAccount([line('a', '10', '0'), line('a', '2.5', '0'), line('b', '0', '12.5')]);
    expect(t.get('a')!.debit.toFixed(2)).toBe('12.50');
    expect(t.get('b')!.credit.toFixed(2)).toBe('12.50');
  });
  it('names a refused line so that a caller can read back which one (a SAF-T import names the line of its file)', () => {
    expect(lineOfField(lineField(12))).toBe(12);
    expect(lineOfField(`${lineField(3)}.debit`)).toBe(3);
    expect(lineOfField('lines')).toBeUndefined();
    expect(lineOfField(undefined)).toBeUndefined();
    try {
      assertPostable([line('a', '1', '0'), line('b', '0', '-1')]);
    } catch (e) {
      expect(lineOfField((e as DomainError).field)).toBe(1);
    }
    expect.assertions(5);
  });
});
