// The reconciliation's arithmetic (pure): exact decimals, the opening balance on the bank side only.
import { describe, expect, it } from 'vitest';
import { reconcile } from './reconciliation.ts';

describe('reconcile', () => {
  it('adds the bank lines to the agreed opening and takes the ledger as it stands, exactly', () => {
    const r = reconcile({ opening: '1000.00', bankLines: '1455.25', ledger: '1600.00' });
    expect([r.opening, r.bank, r.ledger, r.difference].map((d) => d.toFixed(2))).toEqual(['1000.00', '2455.25', '1600.00', '855.25']);
  });

  it('never rounds through a float: 0.10 + 0.20 against 0.30 is no difference, and sums beyond 2^53 stay exact', () => {
    expect(reconcile({ opening: '0.10', bankLines: '0.20', ledger: '0.30' }).difference.isZero()).toBe(true);
    const big = reconcile({ opening: '99999999999999999.99', bankLines: '0.01', ledger: '99999999999999999.99' });
    expect(big.bank.toFixed(2)).toBe('100000000000000000.00');
    expect(big.difference.toFixed(2)).toBe('0.01');
  });

  it('a negative difference: the books hold more than the bank', () => {
    expect(reconcile({ opening: '0', bankLines: '-45.50', ledger: '300' }).difference.toFixed(2)).toBe('-345.50');
  });
});
