// The aged lists' pure rule for the opening balances: a party's payments of its opening balances cover its
// opening items oldest due first, and documents of another kind are left as they are (decision 853).
import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import { settleOpeningItems } from './accountant.ts';

const doc = (party_id: string, kind: string, open: string) => ({ party_id, kind, open: new Decimal(open) });
const opens = (docs: { open: { toString(): string } }[]) => docs.map((d) => new Decimal(d.open.toString()).toFixed(2));

describe('settleOpeningItems', () => {
  it("covers a party's opening items in order, oldest due first, and leaves its invoices and other parties alone", () => {
    const docs = [doc('a', 'opening_balance', '1000'), doc('a', 'invoice', '500'), doc('a', 'opening_balance', '2000'), doc('b', 'opening_balance', '700')];
    // a paid 1,500: the first item (1,000) in full, 500 of the second; b paid nothing.
    expect(opens(settleOpeningItems(docs, new Map([['a', new Decimal(1500)]])))).toEqual(['0.00', '500.00', '1500.00', '700.00']);
  });
  it('passes over a credit balance (a negative item) and pays nothing beyond what is open', () => {
    const docs = [doc('a', 'opening_balance', '-300'), doc('a', 'opening_balance', '400')];
    expect(opens(settleOpeningItems(docs, new Map([['a', new Decimal(1000)]])))).toEqual(['-300.00', '0.00']);
  });
});
