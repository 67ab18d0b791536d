// An expense's lines, pure: what a line is, where its account comes from, how the expense's VAT is shared
// over its lines, and which account the expense as a whole shows (decisions 681-686).
import { Decimal, shareOut, sumAmounts } from '../money.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

/** item: a document's line; allowance, charge: the document's own (not a line's); duty: a tax other than VAT; difference: the total beyond the lines. */
export const EXPENSE_LINE_KINDS = ['item', 'allowance', 'charge', 'duty', 'difference'] as const;
export type ExpenseLineKind = (typeof EXPENSE_LINE_KINDS)[number];

/** Where a received line's proposed account comes from, the first that applies (decision 682). */
export const ACCOUNT_SOURCES = ['supplier_item', 'supplier_default', 'vat_category'] as const;
export type AccountSource = (typeof ACCOUNT_SOURCES)[number];
/** A line's account: proposed, or chosen by a person (manual). */
export const LINE_ACCOUNT_SOURCES = [...ACCOUNT_SOURCES, 'manual'] as const;
export type LineAccountSource = (typeof LINE_ACCOUNT_SOURCES)[number];

/** A line to make, amounts signed as the expense (negative on a credit note, and for an allowance). */
export interface NewExpenseLine {
  kind: ExpenseLineKind;
  description: string;
  item_id: string;
  /** What "the same item" of the supplier is (supplier_item_accounts' key); "" learns nothing. */
  item_key: string;
  quantity: Decimal;
  unit: string;
  unit_price: Decimal | null;
  allowance_amount: Decimal;
  charge_amount: Decimal;
  net_amount: Decimal;
  vat_code: string;
  vat_rate: Decimal | null;
  /** Its share of the VAT when the maker knows it (a document's VAT group); null: shared out (settleLineVat). */
  vat_amount: Decimal | null;
  account_number: string;
  account_source: LineAccountSource;
}

/**
 * Each line's VAT, summing to the expense's `total` exactly: a share the maker gave is kept, and what is
 * left (all of it under reverse charge, where the buyer computes the VAT; an øre of rounding otherwise)
 * is shared out over the lines without one in proportion to their net amounts (money.ts shareOut), else
 * over the lines under `code` (the expense's), else over all.
 */
export function settleLineVat(lines: readonly Pick<NewExpenseLine, 'net_amount' | 'vat_amount' | 'vat_code'>[], total: Decimal, code: string): Decimal[] {
  const zero = new Decimal(0);
  const vat = lines.map((l) => l.vat_amount ?? zero);
  const left = total.minus(sumAmounts(vat));
  if (left.isZero() || !lines.length) return vat;
  const open = lines.map((l, i) => (l.vat_amount === null ? i : -1)).filter((i) => i >= 0);
  const coded = lines.map((l, i) => (l.vat_code === code ? i : -1)).filter((i) => i >= 0);
  const over = open.length ? open : coded.length ? coded : lines.map((_, i) => i);
  const shares = shareOut(
    left,
    over.map((i) => lines[i]!.net_amount),
  );
  over.forEach((i, k) => (vat[i] = vat[i]!.plus(shares[k]!)));
  return vat;
}

/**
 * The one account an expense with lines shows (its account_number): the account of the largest part of
 * its lines, by the sum of their net amounts (either sign); the default expense account without lines.
 */
export function mainAccountOf<A>(lines: readonly { account: A; net: Decimal }[], fallback: A): A {
  const share = new Map<A, Decimal>();
  for (const l of lines) share.set(l.account, (share.get(l.account) ?? new Decimal(0)).plus(l.net.abs()));
  let best: [A, Decimal] | undefined;
  for (const entry of share) if (!best || entry[1].greaterThan(best[1])) best = entry;
  return best?.[0] ?? fallback;
}

/** The default of a line's VAT category (the last step of a proposal): every category's purchases cost on the expense account until a person picks another. */
export const vatCategoryAccount = (_category: string) => DEFAULT_ACCOUNTS.expense;
