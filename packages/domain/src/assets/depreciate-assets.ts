// The depreciation job: every active asset's months whose last day has come are posted, in order, each
// exactly once (decision 570). One month per transaction, under the asset's row lock (SKIP LOCKED: an
// asset another run holds is that run's), and the month's row is unique per asset and month, so two runs
// at once, or a run after downtime, post every month once and never skip one.
import { fromDate, today } from '../calendar.ts';
import { DomainError } from '../errors.ts';
import { isUniqueViolation, type Db, type InTransaction } from '@tlr/db';
import { depreciateNextMonth, assetSchedule, recordDepreciationFailure } from './assets.ts';

export interface DepreciationRun {
  posted: number;
  /** Months the journal writer refused (e.g. no open fiscal year for the date): tried again on the next run, in order. */
  failed: { asset_id: string; month: string; code: string; detail: string }[];
}

/**
 * The job: every active asset whose next month has ended by `day` (default today in Denmark) posts its
 * due months in order, catching up any a downtime missed. Candidates are read in batches by id; `run`
 * opens each month's transaction. A month the journal writer refuses stops its asset for this run.
 */
export async function depreciateAssets(run: InTransaction, day = today(), batch = 200): Promise<DepreciationRun> {
  const result: DepreciationRun = { posted: 0, failed: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const candidates = await run(
      (tx: Db) =>
        tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        SELECT a.id, a.company_id, c.sandbox_of_id IS NULL AS livemode
        FROM fixed_assets AS a JOIN companies AS c ON c.id = a.company_id
        WHERE a.status = 'active' AND a.id > ${after}::uuid
          AND (date_trunc('month', a.acquisition_date) + make_interval(months => a.months_posted + 1) - interval '1 day')::date <= ${day}::date
        ORDER BY a.id LIMIT ${batch}`,
    );
    for (const c of candidates) {
      const scope = { companyId: c.company_id, livemode: c.livemode };
      for (;;) {
        let month: string | null;
        try {
          month = await run((tx) => depreciateNextMonth(tx, scope, c.id, { day, skipLocked: true }));
        } catch (e) {
          // The month's row exists: another run posted it between our reads. Nothing is lost.
          if (isUniqueViolation(e)) break;
          if (!(e instanceof DomainError)) throw e;
          // Kept on the asset (GET /assets/{id}: depreciation_failure), the run going on with the others;
          // the next run tries it again (decision 875).
          const failure = await run(async (tx) => {
            const row = await tx.fixedAsset.findUnique({ where: { id: c.id } });
            const f = { month: (row && assetSchedule(row)[row.months_posted]?.month) ?? fromDate(new Date()), code: e.code, detail: e.message };
            if (row) await recordDepreciationFailure(tx, c.id, f);
            return f;
          });
          result.failed.push({ asset_id: c.id, ...failure });
          break;
        }
        if (!month) break;
        result.posted++;
      }
    }
    if (candidates.length < batch) return result;
    after = candidates.at(-1)!.id;
  }
}
