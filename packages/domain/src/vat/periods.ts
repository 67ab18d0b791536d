// VAT periods (afgiftsperioder) and their filing deadlines, pure. A period is a calendar month, quarter
// or half-year, named 2026-10, 2026-Q3 or 2026-H2, whatever the company's fiscal year: Skattestyrelsen
// counts calendar periods (momsloven § 57). The deadline moves to the next banking day.
import { addDays, daysInMonth, ymd } from '../calendar.ts';
import type { VatFrequency } from '../ledger/fiscal-years.ts';

export interface VatPeriod {
  /** 2026-10, 2026-Q3 or 2026-H2. */
  period: string;
  frequency: VatFrequency;
  start: string;
  end: string;
}

const MONTHS: Record<VatFrequency, number> = { monthly: 1, quarterly: 3, half_yearly: 6 };
const NAME: Record<VatFrequency, (year: number, index: number) => string> = {
  monthly: (y, i) => `${y}-${String(i).padStart(2, '0')}`,
  quarterly: (y, i) => `${y}-Q${i}`,
  half_yearly: (y, i) => `${y}-H${i}`,
};

/** The index-th (1-based) period of `frequency` in `year`. */
function nth(year: number, index: number, frequency: VatFrequency): VatPeriod {
  const months = MONTHS[frequency];
  const first = (index - 1) * months + 1;
  const last = first + months - 1;
  return { period: NAME[frequency](year, index), frequency, start: ymd(year, first, 1), end: ymd(year, last, daysInMonth(year, last)) };
}

/** Reads 2026-10, 2026-Q3 or 2026-H2; a string says why the text is not a period. */
export function parseVatPeriod(text: string): VatPeriod | string {
  const m = /^(\d{4})-(?:(\d{2})|Q([1-4])|H([12]))$/.exec(text);
  const year = Number(m?.[1]);
  if (!m || year < 1900 || year > 9998) return 'must be a VAT period: a month (2026-10), a quarter (2026-Q3) or a half-year (2026-H2)';
  if (m[2]) {
    const month = Number(m[2]);
    if (month < 1 || month > 12) return 'must be a VAT period: the month is 01 to 12';
    return nth(year, month, 'monthly');
  }
  return m[3] ? nth(year, Number(m[3]), 'quarterly') : nth(year, Number(m[4]), 'half_yearly');
}

/** The period of `frequency` that contains `date`. */
export function periodContaining(date: string, frequency: VatFrequency): VatPeriod {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return nth(y, Math.floor((m - 1) / MONTHS[frequency]) + 1, frequency);
}

/** The period before `p`. */
export const previousPeriod = (p: VatPeriod): VatPeriod => periodContaining(addDays(p.start, -1), p.frequency);

/** Easter Sunday (the anonymous Gregorian algorithm). */
function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return ymd(year, month, ((h + l - 7 * m + 114) % 31) + 1);
}

/**
 * Whether Danish banks are closed: weekends, the public holidays (Store Bededag abolished from 2024),
 * Grundlovsdag, Christmas Eve, New Year's Eve and the Friday after Ascension.
 */
export function isBankHoliday(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return true;
  const [y] = date.split('-').map(Number) as [number];
  const e = easter(y);
  const movable = [-3, -2, 1, 39, 40, 50].map((d) => addDays(e, d));
  if (y < 2024) movable.push(addDays(e, 26));
  const fixed = ['01-01', '06-05', '12-24', '12-25', '12-26', '12-31'].map((md) => `${y}-${md}`);
  return movable.includes(date) || fixed.includes(date);
}

/**
 * The filing and payment deadline (angivelsesfrist): monthly the 25th of the next month (June: 17
 * August); quarterly the 1st of the third month after (Q1: 1 June, Q3: 1 December); half-yearly 1
 * September and 1 March. A deadline on a day the banks are closed moves to the next banking day.
 */
export function filingDeadline(p: VatPeriod): string {
  const [y, m] = p.end.split('-').map(Number) as [number, number];
  const after = (months: number, day: number) => {
    const idx = y * 12 + (m - 1) + months;
    return ymd(Math.floor(idx / 12), (idx % 12) + 1, day);
  };
  let deadline = p.frequency === 'monthly' ? (m === 6 ? ymd(y, 8, 17) : after(1, 25)) : after(3, 1);
  while (isBankHoliday(deadline)) deadline = addDays(deadline, 1);
  return deadline;
}
