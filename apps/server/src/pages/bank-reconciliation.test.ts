// How the reconciliation page writes an amount: the API's exact digits, two decimals, thousands separated.
import { describe, expect, it } from 'vitest';
import { amountToJson } from '@tlr/domain';
import { shownAmount } from './bank-reconciliation.ts';

describe('shownAmount', () => {
  it('writes two decimals with thousands separated, the sign kept', () => {
    expect(shownAmount(0)).toBe('0.00');
    expect(shownAmount(-345.5)).toBe('-345.50');
    expect(shownAmount(999.99)).toBe('999.99');
    expect(shownAmount(1000)).toBe('1,000.00');
    expect(shownAmount(-1234567.8)).toBe('-1,234,567.80');
  });

  it('keeps the digits of an amount beyond double precision (a raw JSON number)', () => {
    expect(shownAmount(amountToJson('123456789012345678.91'))).toBe('123,456,789,012,345,678.91');
  });
});
