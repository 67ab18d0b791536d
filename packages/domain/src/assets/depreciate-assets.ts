// The depreciation job: every active asset's months whose last day has come are posted, in order, each
// exactly once (decision 570). One month per transaction, under the asset's row lock (SKIP LOCKED: an
// asset another run holds is that run's), and the month's row is unique per asset and month, so two runs
// at once, or a run after downtime, post every month once and never skip one (ledger/monthly-runs.ts).
import { today } from '../calendar.ts';
import type { Db, InTransaction } from '@tlr/db';
import { runMonthly } from '../ledger/monthly-runs.ts';
import { depreciateNextMonth, assetSchedule, recordDepreciationFailure } from './assets.ts';

export interface DepreciationRun {
  posted: number;
  /** Months the journal writer refused (e.g. no open fiscal year for the date): tried again on the next run, in order. */
  failed: { asset_id: string; month: string; code: string; detail: string }[];
}

/**
 * The job: every active asset whose next month has ended by `day` (default today in Denmark) posts its
 * due months in order, catching up any a downtime missed. Candidates are read in batches by id; `run`
 * opens each month's transaction. A month the journal writer refuses stops its asset for this run, the reason kept on it.
 */
export async function depreciateAssets(run: InTransaction, day = today(), batch = 200): Promise<DepreciationRun> {
  const { posted, failed } = await runMonthly(
    run,
    {
      candidates: (tx: Db, after, limit) =>
        tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        SELECT a.id, a.company_id, c.sandbox_of_id IS NULL AS livemode
        FROM fixed_assets AS a JOIN companies AS c ON c.id = a.company_id
        WHERE a.status = 'active' AND a.id > ${after}::uuid
          AND (date_trunc('month', a.acquisition_date) + make_interval(months => a.months_posted + 1) - interval '1 day')::date <= ${day}::date
        ORDER BY a.id LIMIT ${limit}`,
      next: (tx, scope, id) => depreciateNextMonth(tx, scope, id, { day, skipLocked: true }),
      pending: async (tx, id) => {
        const row = await tx.fixedAsset.findUnique({ where: { id } });
        return row ? assetSchedule(row)[row.months_posted]?.month : undefined;
      },
      // Kept on the asset (GET /assets/{id}: depreciation_failure), the run going on with the others;
      // the next run tries it again (decision 875).
      refused: (tx, id, failure) => recordDepreciationFailure(tx, id, failure),
    },
    batch,
  );
  return { posted, failed: failed.map(({ id, ...f }) => ({ asset_id: id, ...f })) };
}
