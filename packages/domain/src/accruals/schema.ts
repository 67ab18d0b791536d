// An accrual's fields, once: the `accrual` an expense, an expense line or an invoice line takes, and the
// schedule a document shows for each accrued line. docs/accruals.md; decisions 820-827.
import { z } from 'zod';
import { checkDate } from '../calendar.ts';
import { amountOut, dateOut } from '../fields.ts';
import { firstDay, MAX_ACCRUAL_MONTHS, rangeMonths } from './rules.ts';

const MONTH = /^\d{4}-\d{2}$/;

/** A month YYYY-MM, checked as the first day of it is (calendar.ts). */
const month = () =>
  z
    .string()
    .superRefine((s, ctx) => {
      const problem = MONTH.test(s) ? checkDate(firstDay(s)) : 'must be a month YYYY-MM';
      if (problem) ctx.addIssue({ code: 'custom', message: problem.replace('a valid calendar date', 'a valid month (01 to 12)') });
    })
    .meta({ pattern: '^\\d{4}-\\d{2}$', example: '2026-07' });

/** `accrual` on an expense, an expense line or an invoice line: from ≤ to, at most MAX_ACCRUAL_MONTHS months (decision 821). */
export const accrualInput = () =>
  z
    .strictObject({
      from: month().meta({ description: 'The first month the amount is spread over, YYYY-MM' }),
      to: month().meta({ description: 'The last month, YYYY-MM (included); not before from' }),
    })
    .superRefine((a, ctx) => {
      if (!MONTH.test(a.from) || !MONTH.test(a.to) || checkDate(firstDay(a.from)) || checkDate(firstDay(a.to))) return;
      if (a.to < a.from) ctx.addIssue({ code: 'custom', path: ['to'], message: `must not be before from (${a.from})` });
      else if (rangeMonths(a) > MAX_ACCRUAL_MONTHS)
        ctx.addIssue({ code: 'custom', path: ['to'], message: `spreads over ${rangeMonths(a)} months; at most ${MAX_ACCRUAL_MONTHS}` });
    })
    .meta({
      description: `An accrual (periodisering): the amount without VAT is spread over the months from to to (both included, at most ${MAX_ACCRUAL_MONTHS}). Booking posts it to the prepaid expenses account 6390 (an expense) or the deferred income account 8070 (an invoice) instead of its own account, the VAT as usual; each month's share then moves to its own account, dated the month's last day, the last month taking the rounding. null: none`,
      example: { from: '2026-07', to: '2027-06' },
    });

export const ACCRUAL_MONTH_STATUSES = ['pending', 'posted', 'cancelled'] as const;

export const accrualResource = z
  .object({
    from: z.string().meta({ example: '2026-07' }),
    to: z.string().meta({ example: '2027-06' }),
    schedule: z
      .array(
        z.object({
          month: dateOut().meta({ description: "The month's first day" }),
          amount: amountOut("The month's share in DKK (debit − credit moved to the result account's side); the last month takes the rounding"),
          status: z.enum(ACCRUAL_MONTH_STATUSES).meta({
            description:
              'posted: moved to the result account; pending: not yet (its last day has not come, or the job has not run); cancelled: the document was cancelled first, and the share was reversed with it',
          }),
          date: dateOut().nullable().meta({ description: "The posting's date: the month's last day, or the first open day after a lock or a closed year" }),
          transaction_id: z.guid().nullable(),
        }),
      )
      .meta({ description: 'The months and their shares in DKK, once booked (the amount is fixed at booking); [] on a draft' }),
  })
  .meta({ id: 'Accrual' });

export type AccrualInput = z.output<ReturnType<typeof accrualInput>>;
export type AccrualView = z.input<typeof accrualResource>;
