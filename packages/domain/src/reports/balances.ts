// Where reports get their numbers: per account and date, from the monthly balances for every whole
// calendar month inside the range and from the daily balances for the partial months at its edges.
// So a year costs about 12 rows per account, not 365, however many journal lines it holds.
import { Prisma } from '@tlr/db';
import { dayAfter } from '../calendar.ts';

const firstOfMonth = (d: string) => `${d.slice(0, 7)}-01`;
const firstOfNextMonth = (d: string) => {
  const [y, m] = d.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
};

/** The whole months [start, endExclusive) inside [from, to], or none. Pure, exported for tests. */
export function wholeMonths(from: string, to: string): { start: string; endExclusive: string } | undefined {
  const start = from === firstOfMonth(from) ? from : firstOfNextMonth(from);
  const endExclusive = dayAfter(to) === firstOfNextMonth(to) ? firstOfNextMonth(to) : firstOfMonth(to);
  return start < endExclusive ? { start, endExclusive } : undefined;
}

/** SQL yielding rows (account_id, date, debit, credit) whose sums are the movements from `from` to `to`. */
export function movements(companyId: string, from: string, to: string): Prisma.Sql {
  const months = wholeMonths(from, to);
  if (!months) {
    return Prisma.sql`SELECT account_id, date, debit, credit FROM account_daily_balances
      WHERE company_id = ${companyId}::uuid AND date BETWEEN ${from}::date AND ${to}::date`;
  }
  return Prisma.sql`
    SELECT account_id, month AS date, debit, credit FROM account_monthly_balances
      WHERE company_id = ${companyId}::uuid AND month >= ${months.start}::date AND month < ${months.endExclusive}::date
    UNION ALL
    SELECT account_id, date, debit, credit FROM account_daily_balances
      WHERE company_id = ${companyId}::uuid
        AND ((date >= ${from}::date AND date < ${months.start}::date) OR (date >= ${months.endExclusive}::date AND date <= ${to}::date))`;
}

/** The earliest date a ledger can hold: the balance sheet sums everything from here. */
export const BEGINNING = '1900-01-01';

/** The source of the closing entries of fiscal years and of their reversals (ledger/year-end.ts). */
export const YEAR_END_SOURCE = 'year_end';

/**
 * Rows (account_id, date, debit, credit) that take the closing entries and their reversals dated from..to
 * back out of the balances: what the profit and loss adds to the balance tables (decision 551).
 */
export function yearEndLinesNegated(companyId: string, from: string, to: string): Prisma.Sql {
  return Prisma.sql`
    SELECT l.account_id, t.date, -l.debit AS debit, -l.credit AS credit
    FROM ledger_transactions t JOIN transaction_lines l ON l.transaction_id = t.id
    WHERE t.company_id = ${companyId}::uuid AND t.source = ${YEAR_END_SOURCE} AND t.date BETWEEN ${from}::date AND ${to}::date`;
}
