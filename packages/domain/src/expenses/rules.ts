// The VAT of an expense, pure: how much VAT a bill carries under its code, and the lines its booking
// posts (the cost, the VAT lines of vat/codes.ts, the payable). The expense functions rely on these.
import { invalidRequest } from '../errors.ts';
import { Decimal, roundOere } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { vatFromGross } from '../vat.ts';
import { isReverseCharge, vatLines, type VatTreatment } from '../vat/codes.ts';

/** The treatment of a bill that names no code, as before codes: K25 when it carries VAT, else none. */
export const LEGACY_EXPENSE_CODE = 'K25';

/**
 * The VAT of an expense of `amount` under a code, checking what the client sent:
 *   input (K25, KREP, KDELVIS): amount includes the VAT; default the VAT it contains at the code's
 *     rate, and never more than that;
 *   exempt_purchase (K0): no VAT;
 *   reverse charge (EUV, EUY, IMPV, UY, KOMV): the bill carries none, the buyer computes it on the
 *     amount (default amount × rate, rounded half up; import VAT may be stated as the customs bill has it).
 */
export function expenseVat(t: Pick<VatTreatment, 'code' | 'kind' | 'rate'>, amount: Decimal, given: Decimal | undefined): Decimal {
  if (amount.lessThanOrEqualTo(0)) throw invalidRequest('amount: must be greater than 0.', 'amount');
  if (given?.isNegative()) throw invalidRequest('vat_amount: must not be negative.', 'vat_amount');
  if (isReverseCharge(t.kind)) return given ?? roundOere(amount.times(t.rate).dividedBy(100));
  const most = vatFromGross(amount, t.rate).vat;
  if (given && given.greaterThan(most)) {
    throw invalidRequest(
      `vat_amount: ${given.toFixed(2)} is more than the ${t.rate.toString()} % VAT (code ${t.code}) an amount of ${amount.toFixed(2)} including VAT can contain (${most.toFixed(2)}).`,
      'vat_amount',
    );
  }
  return given ?? most;
}

/**
 * The booking of an expense, in its own currency: debit the cost account with the base under the code
 * (a base in the VAT return), the VAT lines of the code, the VAT that is not deductible as a cost of its
 * own (uncoded: it is no base), and credit payables (last) with what the supplier is owed.
 */
export function bookingLines(
  e: { costAccountId: string; payableAccountId: string; amount: Decimal; vat: Decimal; text: string },
  t: VatTreatment | undefined,
  deductible?: Decimal,
): PostingLine[] {
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
