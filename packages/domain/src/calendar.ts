// Calendar dates (YYYY-MM-DD), in one place: what a valid date is, the accepted range, formatting and
// day arithmetic. Dates stay strings or UTC midnights, so no time zone ever shifts a day. The zod
// schema of every date field, the domain's own checks, every reader of a file or document and the CLI
// all call checkDate.
import { BUSINESS_TIME_ZONE } from '@tlr/config';

const DATE_FORMAT = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The accepted range. A bookkeeping date before 1900 is a typo, not a posting; the end leaves a year of
 * room, so every date derived from an accepted one (the end of its fiscal year, the day after) still has
 * four digits, which JavaScript dates and YYYY-MM-DD need.
 */
const MIN_DATE = '1900-01-01';
const MAX_DATE = '9998-12-31';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Formats year, month (1-12) and day; the year always has at least 4 digits ("0099", never "99"). */
export function ymd(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Why `text` is not an accepted date, or undefined when it is one. */
export function checkDate(text: string): string | undefined {
  const m = DATE_FORMAT.exec(text);
  if (!m) return 'must be a date YYYY-MM-DD';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return 'must be a valid calendar date';
  if (text < MIN_DATE || text > MAX_DATE) return `must be between ${MIN_DATE} and ${MAX_DATE}`;
  return undefined;
}

/**
 * The date of a date or an ISO 8601 date-time as a file writes it ("2026-01-31", "2026-01-31T10:15:00+01:00"):
 * the day the writer wrote, no zone applied; or why it is not one. Answers { date } or { problem }.
 */
export function readDateOrDateTime(text: string): { date: string } | { problem: string } {
  const date = text.length > 10 && text[10] === 'T' ? text.slice(0, 10) : text;
  const problem = checkDate(date);
  return problem ? { problem: date === text ? problem : `${problem} (or a date and time)` } : { date };
}

/** UTC midnight of a date, for date columns. */
export const toDate = (date: string) => new Date(`${date}T00:00:00.000Z`);
/** The date of a date column (a UTC midnight). */
export function fromDate(d: Date): string {
  return ymd(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

export function addDays(date: string, days: number): string {
  const d = toDate(date);
  d.setUTCDate(d.getUTCDate() + days);
  return fromDate(d);
}
export const dayAfter = (date: string) => addDays(date, 1);

/** Whole days from one date to another (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string) => Math.round((toDate(to).getTime() - toDate(from).getTime()) / 86_400_000);

/**
 * Today's date as the company counts its business days: in Denmark (Europe/Copenhagen), whatever the
 * server's zone. Every default date (a report's end, a payment, a reversal, the first fiscal year, the
 * overdue sweep) is this day: between 22:00 and midnight UTC it is already tomorrow in Denmark.
 */
export function today(now = new Date()): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone: BUSINESS_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}
