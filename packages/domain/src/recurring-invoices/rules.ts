// The calendar of a recurring invoice, pure: the date of each period, the next period not yet made
// (after the last made, from a resumption on, within the end date or count), and the periods due by a day.
import { addDays, daysInMonth, ymd } from '../calendar.ts';

export const RECURRING_INTERVALS = ['month', 'quarter', 'year'] as const;
export type RecurringInterval = (typeof RECURRING_INTERVALS)[number];
export const RECURRING_ACTIONS = ['draft', 'approve', 'send'] as const;
export type RecurringAction = (typeof RECURRING_ACTIONS)[number];
export const RECURRING_STATUSES = ['active', 'paused', 'ended'] as const;
export type RecurringStatus = (typeof RECURRING_STATUSES)[number];

/** A day of the month 1 to 31 (29 to 31 fall on the last day of a shorter month), or the last day. */
export type DayOfMonth = number | 'last';

const MONTHS: Record<RecurringInterval, number> = { month: 1, quarter: 3, year: 12 };

export interface Schedule {
  interval: RecurringInterval;
  every: number;
  start_date: string;
  end_date: string | null;
  count: number | null;
  day_of_month: DayOfMonth;
}

/** Where the template stands: how many periods it has made, the last one's date, and the day it was last resumed. */
export interface Progress {
  made: number;
  last: string | null;
  resumed_on: string | null;
}

/** Months since year 0 of a date's month: months between two dates are a subtraction. */
const monthIndex = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;

/** The day a period of the month count `index` falls on: the day of the month, or the month's last day when it is shorter. */
function onDay(index: number, day: DayOfMonth): string {
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = daysInMonth(year, month);
  return ymd(year, month, day === 'last' ? last : Math.min(day, last));
}

/** The date of the schedule's k-th step (0: the start's month), before the start date is considered. */
export function stepDate(s: Schedule, k: number): string {
  return onDay(monthIndex(s.start_date) + k * MONTHS[s.interval] * s.every, s.day_of_month);
}

/** The first date of the schedule on or after `from` (and never before the start date). */
export function firstOnOrAfter(s: Schedule, from: string): string {
  const lower = from < s.start_date ? s.start_date : from;
  const step = MONTHS[s.interval] * s.every;
  // The step whose month is at or before lower's month; one or two more reach it.
  let k = Math.max(0, Math.floor((monthIndex(lower) - monthIndex(s.start_date)) / step));
  while (stepDate(s, k) < lower) k++;
  return stepDate(s, k);
}

/**
 * The next period to make: the first date of the schedule after the last one made and not before the
 * last resumption (periods that passed while paused are skipped), or null when the template has ended:
 * `count` invoices made, or the date past `end_date`.
 */
export function nextPeriod(s: Schedule, p: Progress): string | null {
  if (s.count !== null && p.made >= s.count) return null;
  let from = p.last ? addDays(p.last, 1) : s.start_date;
  if (p.resumed_on && p.resumed_on > from) from = p.resumed_on;
  const date = firstOnOrAfter(s, from);
  return s.end_date !== null && date > s.end_date ? null : date;
}

/** The periods due by `day`, in order: what a run on that day makes (catching up any it missed). */
export function duePeriods(s: Schedule, p: Progress, day: string): string[] {
  const due: string[] = [];
  for (let at = p; ;) {
    const next = nextPeriod(s, at);
    if (next === null || next > day) return due;
    due.push(next);
    at = { ...at, made: at.made + 1, last: next };
  }
}

/** Ended (no period left) wins over paused: resuming an ended template would make nothing. */
export const statusOf = (paused: boolean, next: string | null): RecurringStatus => (next === null ? 'ended' : paused ? 'paused' : 'active');

/** Why a schedule cannot be, naming the field, or undefined when it can. */
export function scheduleProblem(s: Schedule): { field: string; detail: string } | undefined {
  if (s.end_date !== null && s.count !== null) return { field: 'count', detail: 'give end_date or count, not both' };
  if (s.end_date !== null && s.end_date < s.start_date) return { field: 'end_date', detail: `is before start_date ${s.start_date}` };
  return undefined;
}
