// The shape of a job that posts months in order, each exactly once (the depreciation of fixed assets, the
// accruals): candidates read in batches by id across companies, each one's due months posted one month per
// transaction under its row lock (SKIP LOCKED: a row another run holds is that run's), a unique key per
// row and month, and a refusal of the journal writer stopping that row for this run (tried again on the
// next, the months behind it waiting in order). Decisions 570 and 823.
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { isUniqueViolation, type Db, type InTransaction } from '@tlr/db';

export interface MonthlyRun {
  posted: number;
  /** Months the journal writer refused (e.g. no open fiscal year for the date): tried again on the next run, in order. */
  failed: { id: string; month: string; code: string; detail: string }[];
}

export interface MonthlyJob {
  /** Rows after `after` (by id) with a month due, at most `batch`, with their company and mode. */
  candidates: (tx: Db, after: string, batch: number) => Promise<{ id: string; company_id: string; livemode: boolean }[]>;
  /** Posts the row's next month when it is due (under its row lock, SKIP LOCKED); the month posted, or null. */
  next: (tx: Db, scope: CompanyScope, id: string) => Promise<string | null>;
  /** The month the row would post next, for the log of a refusal. */
  pending: (tx: Db, id: string) => Promise<string | undefined>;
  /** Keeps a refusal on the row (in a transaction of its own, the month's rolled back), e.g. for GET to show it. */
  refused?: (tx: Db, id: string, failure: { month: string; code: string; detail: string }) => Promise<void>;
}

export async function runMonthly(run: InTransaction, job: MonthlyJob, batch = 200): Promise<MonthlyRun> {
  const result: MonthlyRun = { posted: 0, failed: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const candidates = await run((tx: Db) => job.candidates(tx, after, batch));
    for (const c of candidates) {
      const scope = { companyId: c.company_id, livemode: c.livemode };
      for (;;) {
        let month: string | null;
        try {
          month = await run((tx) => job.next(tx, scope, c.id));
        } catch (e) {
          // The month's row exists: another run posted it between our reads. Nothing is lost.
          if (isUniqueViolation(e)) break;
          if (!(e instanceof DomainError)) throw e;
          const failure = await run(async (tx) => {
            const f = { month: (await job.pending(tx, c.id)) ?? fromDate(new Date()), code: e.code, detail: e.message };
            await job.refused?.(tx, c.id, f);
            return f;
          });
          result.failed.push({ id: c.id, ...failure });
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
