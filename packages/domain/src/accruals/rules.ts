// Accruals (periodisering) without the database: the bound on a range of months, the months of a range,
// the schedule of an accrued amount (the last month takes the rounding: the fixed assets' straight line),
// and the reversal of a booking whose accrued amounts have partly moved on. docs/accruals.md; decisions 820-827.
import { Decimal } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { depreciationSchedule, monthsBetween, monthStart, type ScheduleMonth } from '../assets/rules.ts';

/** At most five years of months (decision 821). */
export const MAX_ACCRUAL_MONTHS = 60;

/** An accrual as a body gives it: the first and the last month, YYYY-MM, both included. */
export interface AccrualRange {
  from: string;
  to: string;
}

/** The first day of a month YYYY-MM. */
export const firstDay = (month: string) => `${month}-01`;

/** How many months a range holds (July to June: 12). */
export const rangeMonths = (r: AccrualRange) => monthsBetween(firstDay(r.from), firstDay(r.to)) + 1;

/** The columns a range is stored in (accrual_from, accrual_to: the months' first days); null clears them. */
export const accrualColumns = (r: AccrualRange | null | undefined) => ({
  accrual_from: r ? new Date(`${firstDay(r.from)}T00:00:00.000Z`) : null,
  accrual_to: r ? new Date(`${firstDay(r.to)}T00:00:00.000Z`) : null,
});

/** The range of stored months (first days), as a body gives it. */
export const rangeOf = (from: Date | null, to: Date | null): AccrualRange | null =>
  from && to ? { from: from.toISOString().slice(0, 7), to: to.toISOString().slice(0, 7) } : null;

/**
 * An accrued amount over its months (decision 822): amount / months rounded half up to øre each month,
 * the last month what remains, so that the months sum to the amount exactly; signed as the amount (a
 * credit note's accrual moves back). When rounding up would leave the last month on the other side,
 * every month but the last is rounded down instead (the fixed assets' schedule, decision 569).
 */
export function accrualSchedule(fromMonth: string, months: number, amount: Decimal): ScheduleMonth[] {
  const sized = depreciationSchedule({ acquisition_date: fromMonth, cost: amount.abs(), residual_value: new Decimal(0), useful_life_months: months });
  return amount.isNegative() ? sized.map((m) => ({ month: m.month, amount: m.amount.negated() })) : sized;
}

/** The first day of each month of a stored accrual, in order. */
export const accrualMonths = (fromMonth: string, months: number) => Array.from({ length: months }, (_, i) => monthStart(fromMonth, i));

/** What an accrual has moved from its holding account to its result account, signed as booking put it on the holding account. */
export interface MovedShare {
  holdingAccountId: string;
  resultAccountId: string;
  moved: Decimal;
}

/**
 * The reversal of a booking whose accruals have moved `moved` on (decision 825): the reversing lines,
 * with what each accrual has already moved taken back from its result account instead of from the
 * holding account, which so gives back only what is left on it. The result account's line keeps the
 * holding line's VAT code and dimensions (the VAT base reversed stays the booking's). A holding line
 * left at zero is dropped.
 */
export function reversalWithMoved(reversing: readonly PostingLine[], moved: readonly MovedShare[]): PostingLine[] {
  const lines = reversing.map((l) => ({ ...l }));
  const zero = new Decimal(0);
  const net = (l: PostingLine) => l.debit.minus(l.credit);
  const withNet = (l: PostingLine, n: Decimal): PostingLine => ({ ...l, debit: n.isNegative() ? zero : n, credit: n.isNegative() ? n.negated() : zero });
  for (const m of moved) {
    if (m.moved.isZero()) continue;
    // The reversal takes the holding account back by the booked amount: its net is minus the booked one.
    const i = lines.findIndex((l) => l.accountId === m.holdingAccountId && !net(l).isZero() && net(l).isNegative() === m.moved.isPositive());
    if (i < 0) throw new Error(`the reversal has no line on the holding account ${m.holdingAccountId}`);
    const holding = lines[i]!;
    lines[i] = withNet(holding, net(holding).plus(m.moved));
    const { account, ...bare } = holding;
    void account; // the holding account's number and name: the result line's are read by the writer
    lines.push(withNet({ ...bare, accountId: m.resultAccountId }, m.moved.negated()));
  }
  return lines.filter((l) => !net(l).isZero());
}
