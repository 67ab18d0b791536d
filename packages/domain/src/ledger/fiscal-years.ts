// Fiscal years and VAT periods as pure date arithmetic on calendar dates (calendar.ts).
import { daysInMonth as daysIn, ymd } from '../calendar.ts';

export const VAT_FREQUENCIES = ['monthly', 'quarterly', 'half_yearly'] as const;
export type VatFrequency = (typeof VAT_FREQUENCIES)[number];

export interface DateRange {
  start: string;
  end: string;
}

/** Adds months to the first day of a month. */
function addMonths(y: number, m: number, k: number): [number, number] {
  const idx = y * 12 + (m - 1) + k;
  return [Math.floor(idx / 12), (idx % 12) + 1];
}

/** The fiscal year (startMonth 1-12) that contains `date`. */
export function fiscalYearContaining(date: string, startMonth: number): DateRange {
  const [y, m] = date.split('-').map(Number) as [number, number];
  const startYear = m >= startMonth ? y : y - 1;
  return fiscalYearStarting(ymd(startYear, startMonth, 1));
}

export function fiscalYearStarting(start: string): DateRange {
  const [y, m] = start.split('-').map(Number) as [number, number];
  const [ey, em] = addMonths(y, m, 11);
  return { start, end: ymd(ey, em, daysIn(ey, em)) };
}

/** VAT periods of a fiscal year: 12, 4 or 2 consecutive periods from its first day. */
export function vatPeriods(year: DateRange, frequency: VatFrequency): DateRange[] {
  const months = frequency === 'monthly' ? 1 : frequency === 'quarterly' ? 3 : 6;
  const [y, m] = year.start.split('-').map(Number) as [number, number];
  const out: DateRange[] = [];
  for (let k = 0; k < 12; k += months) {
    const [sy, sm] = addMonths(y, m, k);
    const [ey, em] = addMonths(y, m, k + months - 1);
    out.push({ start: ymd(sy, sm, 1), end: ymd(ey, em, daysIn(ey, em)) });
  }
  return out;
}
