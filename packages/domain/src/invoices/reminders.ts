// Payment reminder (rykker) rules, pure: renteloven § 9 b (at most three reminders giving a fee of at
// most 100 DKK each, at least 10 days apart) and § 5 (interest at the reference rate + 8 percentage points,
// pro rata by day). send-reminders.ts applies them to the books; reminders.test.ts checks them by hand.
import { addDays, daysBetween } from '../calendar.ts';
import { DomainError } from '../errors.ts';
import { Decimal, roundOere } from '../money.ts';
import { OPEN_STATUSES, type InvoiceStatus } from './rules.ts';

/** Renteloven § 9 b, stk. 1: fees for at most three reminders of one claim (decision 286: no fourth reminder). */
export const MAX_REMINDERS = 3;
/** Renteloven § 9 b, stk. 1: at least 10 days between reminders. */
export const REMINDER_SPACING_DAYS = 10;
/** Renteloven § 9 b, stk. 1: a fee of at most 100 kr. per reminder. */
export const MAX_REMINDER_FEE = new Decimal(100);
/** Renteloven § 5, stk. 1: the reference rate plus 8 percentage points a year. */
export const INTEREST_MARGIN = new Decimal(8);
/** Interest per day is the yearly rate / 365, in leap years too (decision 289). */
const DAYS_PER_YEAR = 365;

/** Why a fee cannot be charged, in the field rule's words; undefined when it can. */
export function reminderFeeProblem(fee: Decimal): string | undefined {
  if (fee.lessThanOrEqualTo(0)) return 'must be greater than 0';
  if (fee.greaterThan(MAX_REMINDER_FEE)) return `must be at most ${MAX_REMINDER_FEE.toFixed(2)} (renteloven § 9 b: at most 100 kr. per reminder)`;
  return undefined;
}

export interface PreviousReminder {
  number: number;
  date: string;
  /** Whether it charged interest: the next reminder charges the days after it (decision 289). */
  charged_interest: boolean;
}

/** The first day a reminder may be dated: the day after the due date, then 10 days after the last reminder. */
export const earliestReminderDate = (dueDate: string, last: Pick<PreviousReminder, 'date'> | undefined) =>
  last ? addDays(last.date, REMINDER_SPACING_DAYS) : addDays(dueDate, 1);

/**
 * The number of the reminder an invoice may get on `date`, or the refusal: an invoice that is not an open
 * receivable (draft, paid, cancelled), a fourth reminder, or a date before the earliest allowed one
 * (not yet due, or within 10 days of the last reminder). `previous` in number order.
 */
export function nextReminderNumber(
  invoice: { status: string; invoice_number: string; due_date: string },
  previous: readonly PreviousReminder[],
  date: string,
): number {
  if (!OPEN_STATUSES.includes(invoice.status as InvoiceStatus)) {
    throw new DomainError(
      'invoice_not_remindable',
      `Invoice ${invoice.invoice_number || '(draft)'} is ${invoice.status}; only an approved, sent or overdue invoice that is unpaid gets a reminder.`,
      undefined,
      { current_status: invoice.status },
    );
  }
  const last = previous.at(-1);
  if (previous.length >= MAX_REMINDERS) {
    throw new DomainError(
      'reminder_limit_reached',
      `Invoice ${invoice.invoice_number} has had its ${MAX_REMINDERS} reminders (renteloven § 9 b), the last on ${last!.date}; a fourth is not sent.`,
    );
  }
  const earliest = earliestReminderDate(invoice.due_date, last);
  if (date < earliest) {
    throw new DomainError(
      'reminder_too_early',
      last
        ? `Reminder ${last.number} of invoice ${invoice.invoice_number} is dated ${last.date}; the next may be dated ${earliest} at the earliest (10 days apart, renteloven § 9 b).`
        : `Invoice ${invoice.invoice_number} falls due on ${invoice.due_date}; the first reminder may be dated ${earliest} at the earliest.`,
      'date',
      { next_allowed_date: earliest },
    );
  }
  return previous.length + 1;
}

/** The yearly interest rate of renteloven § 5: the reference rate + 8 percentage points. */
export const interestRate = (referenceRate: Decimal) => referenceRate.plus(INTEREST_MARGIN);

/**
 * The days a reminder charges interest for: from the date of the last reminder that charged interest,
 * else from the due date, to the reminder's date (interest runs from the due date, renteloven § 3, stk. 1).
 */
export function interestDays(dueDate: string, previous: readonly PreviousReminder[], date: string): number {
  const from = previous.filter((r) => r.charged_interest).at(-1)?.date ?? dueDate;
  return Math.max(0, daysBetween(from, date));
}

/** balance × rate / 100 × days / 365, rounded half up to øre once (the balance in DKK, the rate in percent a year). */
export const reminderInterest = (balance: Decimal, yearlyRate: Decimal, days: number) =>
  roundOere(
    balance
      .times(yearlyRate)
      .times(days)
      .dividedBy(100 * DAYS_PER_YEAR),
  );

/**
 * A business buyer (B2B): the invoice names a CVR number, an EU VAT number or an EAN (a public
 * authority), as frozen at approval. Only these are charged interest here (decision 287).
 */
export const isBusinessBuyer = (invoice: { customer_cvr: string; customer_vat_number: string; customer_ean: string }) =>
  Boolean(invoice.customer_cvr || invoice.customer_vat_number || invoice.customer_ean);
