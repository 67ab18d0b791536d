// Exact list totals without counting the company's rows on every list call: count(*) over a million
// invoices takes 140 ms here whatever the index, and over 10,000 customers it was most of the list's
// database time (docs/history/perf-log.md). Statement triggers append signed rows per company (migrations
// invoice_counts and master_data_counts): for invoices per status, for customers, products and
// suppliers per table (their live rows, deleted_at IS NULL). A list filtered by nothing (or invoices by
// status only) sums a company's few rows; a job folds them.
import { Prisma, type Db } from '@tlr/db';

/** Invoices of a company, of one status or all: exact, as of the reading statement's snapshot. */
export async function countInvoices(db: Db, companyId: string, status?: string): Promise<number> {
  const [row] = status
    ? await db.$queryRaw<{ n: bigint | null }[]>`
        SELECT sum(delta)::bigint AS n FROM invoice_count_deltas WHERE company_id = ${companyId}::uuid AND status = ${status}`
    : await db.$queryRaw<{ n: bigint | null }[]>`SELECT sum(delta)::bigint AS n FROM invoice_count_deltas WHERE company_id = ${companyId}::uuid`;
  return Number(row?.n ?? 0n);
}

export type MasterDataKind = 'customers' | 'products' | 'suppliers';

/** A company's live (not deleted) customers, products or suppliers: exact, as of the statement's snapshot. */
export async function countLive(db: Db, companyId: string, kind: MasterDataKind): Promise<number> {
  const [row] = await db.$queryRaw<{ n: bigint | null }[]>`
    SELECT sum(delta)::bigint AS n FROM master_data_count_deltas WHERE company_id = ${companyId}::uuid AND kind = ${kind}`;
  return Number(row?.n ?? 0n);
}

/** Companies with more signed rows than this are folded by the job. */
export const FOLD_ABOVE = 12;

/** Each table of kept counts, with the column its counts are kept per (besides the company). */
const KEPT = [
  { table: 'invoice_count_deltas', key: 'status' },
  { table: 'master_data_count_deltas', key: 'kind' },
] as const;

/**
 * Folds the signed rows of busy companies into one per key, table by table. One statement each: the rows
 * it deletes are those committed when it starts, and their sums are inserted in the same transaction, so
 * a reader sees either the rows or their sum, and rows appended meanwhile are left for the next run. Two
 * runs at once are safe: a row deleted by the other is skipped. Returns the rows removed.
 */
export async function foldKeptCounts(db: Db): Promise<number> {
  let removed = 0;
  for (const { table, key } of KEPT) {
    const [t, k] = [Prisma.raw(table), Prisma.raw(key)];
    const [row] = await db.$queryRaw<{ removed: bigint }[]>`
      WITH busy AS (
        SELECT company_id FROM ${t} GROUP BY company_id HAVING count(*) > ${FOLD_ABOVE}
      ), gone AS (
        DELETE FROM ${t} d USING busy WHERE d.company_id = busy.company_id
        RETURNING d.company_id, d.${k}, d.delta
      ), kept AS (
        INSERT INTO ${t} (company_id, ${k}, delta)
        SELECT company_id, ${k}, sum(delta) FROM gone GROUP BY company_id, ${k} HAVING sum(delta) <> 0
      )
      SELECT count(*)::bigint AS removed FROM gone`;
    removed += Number(row?.removed ?? 0n);
  }
  return removed;
}
