// Exact invoice totals for the list without counting the company's rows: count(*) over a million
// invoices takes 140 ms here whatever the index (docs/perf.md, Invoices). Statement triggers on
// `invoices` (migration invoice_counts) append signed rows per company and status; a list filtered by
// nothing or by status only sums them, and a job folds them so each company keeps a few rows.
import type { Db } from '@tlr/db';

/** Invoices of a company, of one status or all: exact, as of the reading statement's snapshot. */
export async function countInvoices(db: Db, companyId: string, status?: string): Promise<number> {
  const [row] = status
    ? await db.$queryRaw<{ n: bigint | null }[]>`
        SELECT sum(delta)::bigint AS n FROM invoice_count_deltas WHERE company_id = ${companyId}::uuid AND status = ${status}`
    : await db.$queryRaw<{ n: bigint | null }[]>`SELECT sum(delta)::bigint AS n FROM invoice_count_deltas WHERE company_id = ${companyId}::uuid`;
  return Number(row?.n ?? 0n);
}

/** Companies with more signed rows than this are folded by the job. */
const FOLD_ABOVE = 12;

/**
 * Folds the signed rows of busy companies into one per status. One statement: the rows it deletes are
 * those committed when it starts, and their sums are inserted in the same transaction, so a reader
 * sees either the rows or their sum, and rows appended meanwhile are left for the next run. Two runs
 * at once are safe: a row deleted by the other is skipped. Returns the rows removed.
 */
export async function foldInvoiceCounts(db: Db): Promise<number> {
  const [row] = await db.$queryRaw<{ removed: bigint }[]>`
    WITH busy AS (
      SELECT company_id FROM invoice_count_deltas GROUP BY company_id HAVING count(*) > ${FOLD_ABOVE}
    ), gone AS (
      DELETE FROM invoice_count_deltas d USING busy WHERE d.company_id = busy.company_id
      RETURNING d.company_id, d.status, d.delta
    ), kept AS (
      INSERT INTO invoice_count_deltas (company_id, status, delta)
      SELECT company_id, status, sum(delta) FROM gone GROUP BY company_id, status HAVING sum(delta) <> 0
    )
    SELECT count(*)::bigint AS removed FROM gone`;
  return Number(row?.removed ?? 0n);
}
