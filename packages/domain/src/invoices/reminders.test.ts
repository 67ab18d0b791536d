// The reminder rules against renteloven and hand arithmetic: 10 days apart, at most three, the fee cap,
// interest pro rata by day from the due date (or the last reminder that charged interest).
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { Decimal } from '../money.ts';
import {
  earliestReminderDate,
  interestDays,
  interestRate,
  isBusinessBuyer,
  nextReminderNumber,
  reminderFeeProblem,
  reminderInterest,
  type PreviousReminder,
} from './reminders.ts';

const invoice = { status: 'overdue', invoice_number: '17', due_date: '2026-03-10' };
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return { code: e.code, field: e.field, ...e.extensions };
    throw e;
  }
  throw new Error('not refused');
};
const r = (number: number, date: string, charged_interest = true): PreviousReminder => ({ number, date, charged_interest });

describe('nextReminderNumber', () => {
  it('allows the first reminder from the day after the due date, and refuses the due date itself naming the first allowed date', () => {
    expect(nextReminderNumber(invoice, [], '2026-03-11')).toBe(1);
    expect(refusal(() => nextReminderNumber(invoice, [], '2026-03-10'))).toEqual({
      code: 'reminder_too_early',
      field: 'date',
      next_allowed_date: '2026-03-11',
    });
  });

  it('spaces reminders at least 10 days apart: day 10 is allowed, day 9 is refused naming day 10', () => {
    expect(nextReminderNumber(invoice, [r(1, '2026-03-11')], '2026-03-21')).toBe(2);
    expect(refusal(() => nextReminderNumber(invoice, [r(1, '2026-03-11')], '2026-03-20'))).toMatchObject({
      code: 'reminder_too_early',
      next_allowed_date: '2026-03-21',
    });
    expect(earliestReminderDate('2026-03-10', { date: '2026-03-25' })).toBe('2026-04-04');
  });

  it('refuses a fourth reminder by name, whatever the date', () => {
    const three = [r(1, '2026-03-11'), r(2, '2026-03-21'), r(3, '2026-03-31')];
    expect(nextReminderNumber(invoice, three.slice(0, 2), '2026-03-31')).toBe(3);
    expect(refusal(() => nextReminderNumber(invoice, three, '2027-01-01'))).toMatchObject({ code: 'reminder_limit_reached' });
  });

  it('refuses a draft, paid or cancelled invoice naming its status; approved, sent and overdue take reminders', () => {
    for (const status of ['draft', 'paid', 'cancelled']) {
      expect(refusal(() => nextReminderNumber({ ...invoice, status }, [], '2026-04-01'))).toMatchObject({
        code: 'invoice_not_remindable',
        current_status: status,
      });
    }
    for (const status of ['approved', 'sent', 'overdue']) expect(nextReminderNumber({ ...invoice, status }, [], '2026-04-01')).toBe(1);
  });
});

describe('fee', () => {
  it('is greater than 0 and at most 100.00 kr.', () => {
    expect(reminderFeeProblem(new Decimal('100.00'))).toBeUndefined();
    expect(reminderFeeProblem(new Decimal('0.01'))).toBeUndefined();
    expect(reminderFeeProblem(new Decimal('100.01'))).toMatch(/at most 100.00/);
    expect(reminderFeeProblem(new Decimal('0'))).toBe('must be greater than 0');
    expect(reminderFeeProblem(new Decimal('-5'))).toBe('must be greater than 0');
  });
});

describe('interest', () => {
  it('is the reference rate + 8 percentage points', () => {
    expect(interestRate(new Decimal('1.60')).toFixed(2)).toBe('9.60');
  });

  it('is balance × rate / 100 × days / 365, rounded half up to øre', () => {
    // 10,000.00 × 9.60 % × 10 / 365 = 26.3013... -> 26.30
    expect(reminderInterest(new Decimal('10000.00'), new Decimal('9.60'), 10).toFixed(2)).toBe('26.30');
    // 1,234.56 × 9.85 % × 31 / 365 = 10.32829... -> 10.33
    expect(reminderInterest(new Decimal('1234.56'), new Decimal('9.85'), 31).toFixed(2)).toBe('10.33');
    // 365.00 × 10 % × 1 / 365 = 0.10 exactly; 18.25 × 10 % × 1 / 365 = 0.005 -> 0.01 (half up)
    expect(reminderInterest(new Decimal('365.00'), new Decimal('10'), 1).toFixed(2)).toBe('0.10');
    expect(reminderInterest(new Decimal('18.25'), new Decimal('10'), 1).toFixed(2)).toBe('0.01');
    expect(reminderInterest(new Decimal('1000'), new Decimal('9.60'), 0).toFixed(2)).toBe('0.00');
  });

  it('counts the days from the due date, then from the last reminder that charged interest', () => {
    expect(interestDays('2026-03-10', [], '2026-03-21')).toBe(11);
    expect(interestDays('2026-03-10', [r(1, '2026-03-21')], '2026-03-31')).toBe(10);
    // A reminder sent while interest was off charged nothing: its days are charged by the next one.
    expect(interestDays('2026-03-10', [r(1, '2026-03-21', false)], '2026-03-31')).toBe(21);
    // Across the end of February in a leap year, by calendar days.
    expect(interestDays('2028-02-25', [], '2028-03-06')).toBe(10);
  });

  it('is for business buyers: a CVR number, an EU VAT number or an EAN on the invoice', () => {
    const none = { customer_cvr: '', customer_vat_number: '', customer_ean: '' };
    expect(isBusinessBuyer(none)).toBe(false);
    expect(isBusinessBuyer({ ...none, customer_cvr: '12345674' })).toBe(true);
    expect(isBusinessBuyer({ ...none, customer_vat_number: 'DE123456789' })).toBe(true);
    expect(isBusinessBuyer({ ...none, customer_ean: '5790000436101' })).toBe(true);
  });
});
