// The overdue sweep (the daily sweep-overdue-invoices job): approved and sent invoices past their due date
// become overdue, each announced once.
import type { InTransaction } from '@tlr/db';
import { today } from '../calendar.ts';
import { invoiceInclude, invoiceView } from './views.ts';
import { recordInvoiceEvent } from './invoice-rows.ts';

/**
 * The overdue sweep: approved and sent invoices whose due date has passed (the Danish calendar day)
 * become overdue, each announced once. Rows another worker is moving are skipped (SKIP LOCKED), so two
 * sweeps at once split the work; batches keep each transaction short. `db` is the pool client (not a
 * transaction); each batch is its own transaction.
 */
export async function sweepOverdue(run: InTransaction, day = today(), batch = 500): Promise<number> {
  let moved = 0;
  for (;;) {
    const n = await run(async (tx) => {
      const rows = await tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        UPDATE invoices AS i SET status = 'overdue', updated_at = now()
        FROM companies AS c
        WHERE c.id = i.company_id AND i.id IN (
          SELECT id FROM invoices WHERE status IN ('approved', 'sent') AND due_date < ${day}::date
          ORDER BY due_date, id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
        RETURNING i.id, i.company_id, c.sandbox_of_id IS NULL AS livemode`;
      const invoices = await tx.invoice.findMany({ where: { id: { in: rows.map((r) => r.id) } }, include: invoiceInclude });
      const scopeOf = new Map(rows.map((r) => [r.id, { companyId: r.company_id, livemode: r.livemode }]));
      for (const inv of invoices) await recordInvoiceEvent(tx, scopeOf.get(inv.id)!, 'invoice.overdue', invoiceView(inv));
      return rows.length;
    });
    moved += n;
    if (n < batch) return moved;
  }
}
