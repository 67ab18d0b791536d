// The accruals job: every active accrual's months whose last day has come move to the result account, in
// order, each exactly once (decision 823): one month per transaction under the accrual's row lock (SKIP
// LOCKED), the month's row unique per accrual and month, so two runs at once or a run after downtime post
// every month once and never skip one. The depreciation job's shape (ledger/monthly-runs.ts).
import { today } from '../calendar.ts';
import type { Db, InTransaction } from '@tlr/db';
import { runMonthly, type MonthlyRun } from '../ledger/monthly-runs.ts';
import { accrueNextMonth, pendingAccrualMonth } from './accruals.ts';

/** The job on `day` (default today in Denmark): each accrual whose next month has ended posts its due months in order. */
export function runAccruals(run: InTransaction, day = today(), batch = 200): Promise<MonthlyRun> {
  return runMonthly(
    run,
    {
      candidates: (tx: Db, after, limit) =>
        tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        SELECT a.id, a.company_id, c.sandbox_of_id IS NULL AS livemode
        FROM accruals AS a JOIN companies AS c ON c.id = a.company_id
        WHERE a.status = 'active' AND a.id > ${after}::uuid
          AND (a.from_month + make_interval(months => a.months_posted + 1) - interval '1 day')::date <= ${day}::date
        ORDER BY a.id LIMIT ${limit}`,
      next: (tx, scope, id) => accrueNextMonth(tx, scope, id, { day, skipLocked: true }),
      pending: pendingAccrualMonth,
    },
    batch,
  );
}
