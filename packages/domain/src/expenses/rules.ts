// An expense's rules, pure: its statuses and their moves, how much VAT a bill carries under its code, and
// the lines its booking posts (the cost, the VAT lines of vat/codes.ts, the payable).
import { invalidRequest } from '../errors.ts';
import { Decimal } from '../money.ts';
import { reversingLines, type PostingLine } from '../ledger/rules.ts';
import { groupVat, vatFromGross } from '../vat/arithmetic.ts';
import { isReverseCharge, vatLines, type VatTreatment } from '../vat/codes.ts';
import { dimensionsKey, someDimensions, type LineDimensions } from '../dimensions/schema.ts';

export const EXPENSE_STATUSES = ['draft', 'booked', 'paid', 'cancelled'] as const;
export type ExpenseStatus = (typeof EXPENSE_STATUSES)[number];

/** draft -> booked (or deleted); booked -> paid or cancelled; paid and cancelled are final. */
export const EXPENSE_TRANSITIONS: Record<ExpenseStatus, readonly ExpenseStatus[]> = {
  draft: ['booked'],
  booked: ['paid', 'cancelled'],
  paid: [],
  cancelled: [],
};

/** The treatment of a bill that names no code, as before codes: K25 when it carries VAT, else none. */
export const LEGACY_EXPENSE_CODE = 'K25';

/**
 * The rule of a bill without a code (the rule of before codes): the amount includes the VAT, at most the
 * 25 % it can contain. It is K25's rule, so expenseVat checks it too and there is one rule, not two.
 */
export const LEGACY_EXPENSE_TREATMENT: Pick<VatTreatment, 'code' | 'kind' | 'rate'> = { code: LEGACY_EXPENSE_CODE, kind: 'input', rate: new Decimal(25) };

/**
 * The VAT of an expense of `amount` under a code, checking what the client sent:
 *   input (K25, KREP, KDELVIS): amount includes the VAT; default the VAT it contains at the code's
 *     rate, and never more than that;
 *   exempt_purchase (K0): no VAT;
 *   reverse charge (EUV, EUY, IMPV, UY, KOMV): the bill carries none, the buyer computes it on the
 *     amount (default amount × rate, rounded half up; import VAT may be stated as the customs bill has it).
 * A negative amount is a credit note from the supplier (kreditnota): its VAT has the amount's sign, and
 * the rules above run on the sizes with the sign applied after, so a credit note is bounded exactly as
 * the bill of its size (rounding half up is away from zero, so the two mirror each other to the øre).
 * `stated`: the VAT is as a document that passed its official rules states it (a received e-invoice,
 * whose lines may mix rates, or carry a negative zero-rated line): more than the rate's share is then
 * reported to `stated` (a warning), not refused.
 */
export function expenseVat(
  t: Pick<VatTreatment, 'code' | 'kind' | 'rate'>,
  amount: Decimal,
  given: Decimal | undefined,
  stated?: (warning: string) => void,
): Decimal {
  if (amount.isZero()) throw invalidRequest('amount: must not be 0 (a bill is positive, a credit note from the supplier negative).', 'amount');
  const credit = amount.isNegative();
  if (given && !given.isZero() && given.isNegative() !== credit) {
    throw invalidRequest(
      `vat_amount: ${given.toFixed(2)} has the other sign than amount ${amount.toFixed(2)}; the VAT of ${credit ? 'a credit note is negative' : 'a bill is positive'}, as its amount.`,
      'vat_amount',
    );
  }
  // The sign goes back on the size; a zero stays unsigned (-0 would be written "-0.00").
  const signed = (size: Decimal) => (credit && !size.isZero() ? size.negated() : size);
  const size = amount.abs();
  if (isReverseCharge(t.kind)) return signed(given?.abs() ?? groupVat(size, t.rate));
  const most = vatFromGross(size, t.rate).vat;
  if (given && given.abs().greaterThan(most)) {
    const why = `vat_amount: ${given.toFixed(2)} is more${credit ? ' in size' : ''} than the ${t.rate.toString()} % VAT (code ${t.code}) an amount of ${amount.toFixed(2)} including VAT can contain (${signed(most).toFixed(2)}).`;
    if (!stated) throw invalidRequest(why, 'vat_amount');
    stated(why);
  }
  return given ? signed(given.abs()) : signed(most);
}

/**
 * The booking of an expense, in its own currency: debit the cost account with the base under the code
 * (a base in the VAT return), the VAT lines of the code, the VAT that is not deductible as a cost of its
 * own (uncoded: it is no base), and credit payables (last) with what the supplier is owed. A credit note
 * (negative amount and VAT) posts the mirror of the bill of its size, debit and credit swapped: a posting
 * never carries a negative amount, and the VAT return, which reads the lines, sees the VAT reduced.
 */
export function bookingLines(
  e: { costAccountId: string; payableAccountId: string; amount: Decimal; vat: Decimal; text: string },
  t: VatTreatment | undefined,
  deductible?: Decimal,
): PostingLine[] {
  if (e.amount.isNegative()) return reversingLines(bookingLines({ ...e, amount: e.amount.negated(), vat: e.vat.negated() }, t, deductible));
  const zero = new Decimal(0);
  const debit = (accountId: string, amount: Decimal, vatCode: string, description = e.text): PostingLine => ({
    accountId,
    debit: amount,
    credit: zero,
    description,
    vatCode,
  });
  const payable: PostingLine = { accountId: e.payableAccountId, debit: zero, credit: e.amount, description: e.text, vatCode: '' };
  if (!t) return [debit(e.costAccountId, e.amount, ''), payable];
  const base = isReverseCharge(t.kind) ? e.amount : e.amount.minus(e.vat);
  const { lines, nonDeductible } = vatLines(t, e.vat, e.text, deductible);
  return [
    debit(e.costAccountId, base, t.code),
    ...lines,
    ...(nonDeductible.isZero() ? [] : [debit(e.costAccountId, nonDeductible, '', `Ikke fradragsberettiget moms: ${e.text}`.slice(0, 500))]),
    payable,
  ];
}

/** An expense line as booking groups it: its account, its VAT code, its net amount and its share of the VAT (signed as the expense). */
export interface BookedLine {
  accountId: string;
  code: string;
  net: Decimal;
  vat: Decimal;
  /** The dimensions its cost line carries (the line's over the expense's; decision 855). */
  dimensions?: LineDimensions | undefined;
}

/**
 * The booking of an expense with lines, in its own currency (decision 683): one cost line per account,
 * VAT code and dimensions (decision 856), its base the lines' net amounts summed (a base in the VAT return under the code); per code the
 * VAT lines of its VAT summed (vat/codes.ts's vatLines, the same as a bill of one amount), the VAT that is
 * not deductible a cost of its own on the code's largest account (uncoded: it is no base); and payables
 * credited (last) with the amount. A group that sums negative (a credit note, an allowance, a negative
 * line) posts on the other side: a posting never carries a negative amount. `amount` must be the lines'
 * nets plus the VAT they carry (reverse charge: the nets), as insertExpenseLines keeps it.
 */
export function linesBookingLines(
  e: { payableAccountId: string; amount: Decimal; text: string },
  lines: readonly BookedLine[],
  treatments: ReadonlyMap<string, VatTreatment>,
  deductible?: Decimal,
): PostingLine[] {
  const zero = new Decimal(0);
  const signed = (accountId: string, amount: Decimal, vatCode: string, description = e.text, dimensions?: LineDimensions): PostingLine => ({
    accountId,
    debit: amount.isNegative() ? zero : amount,
    credit: amount.isNegative() ? amount.negated() : zero,
    description,
    vatCode,
    ...(dimensions ? { dimensions } : {}),
  });
  const groups = new Map<string, BookedLine>();
  const codes = new Map<string, { vat: Decimal; largest: BookedLine }>();
  for (const l of lines) {
    const key = `${l.accountId}\u0000${l.code}\u0000${dimensionsKey(someDimensions(l.dimensions))}`;
    const g = groups.get(key);
    groups.set(key, g ? { ...g, net: g.net.plus(l.net), vat: g.vat.plus(l.vat) } : { ...l });
  }
  for (const g of groups.values()) {
    const c = codes.get(g.code);
    codes.set(g.code, c ? { vat: c.vat.plus(g.vat), largest: g.net.abs().greaterThan(c.largest.net.abs()) ? g : c.largest } : { vat: g.vat, largest: g });
  }
  const made: PostingLine[] = [];
  const dims = (l: BookedLine) => someDimensions(l.dimensions);
  for (const g of groups.values()) if (!g.net.isZero()) made.push(signed(g.accountId, g.net, g.code, e.text, dims(g)));
  for (const [code, c] of codes) {
    const t = treatments.get(code);
    if (!t) {
      // Without a code there is no VAT to post separately: whatever the lines carry is cost.
      if (!c.vat.isZero()) made.push(signed(c.largest.accountId, c.vat, '', e.text, dims(c.largest)));
      continue;
    }
    const { lines: vat, nonDeductible } = vatLines(t, c.vat, e.text, deductible);
    made.push(...vat);
    if (!nonDeductible.isZero())
      made.push(signed(c.largest.accountId, nonDeductible, '', `Ikke fradragsberettiget moms: ${e.text}`.slice(0, 500), dims(c.largest)));
  }
  made.push(signed(e.payableAccountId, e.amount.negated(), ''));
  const off = made.reduce((sum, l) => sum.plus(l.debit).minus(l.credit), zero);
  if (!off.isZero()) throw new Error(`expense lines do not add up to the amount ${e.amount.toFixed(2)} (off by ${off.toFixed(2)})`);
  return made;
}
