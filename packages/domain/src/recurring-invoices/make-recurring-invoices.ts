// The recurring-invoices job: each active template's due periods become invoices, in period order,
// each exactly once. One period per transaction, under the template's row lock (SKIP LOCKED: a template
// another run holds is that run's), and the period's row is unique per template and period, so two runs
// at once, or a run after downtime, make every period once and never skip one.
import type { Db, InTransaction } from '@tlr/db';
import { addDays, fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';
import { createInvoice } from '../invoices/create-invoice.ts';
import { liveCustomer } from '../invoices/invoice-rows.ts';
import { receiverOf, sendInvoice } from '../einvoice/outbound.ts';
import { emailInvoice } from '../email/outbound.ts';
import { nextPeriod, statusOf } from './rules.ts';
import { invoiceLinesOf, isUniqueViolation, progressOf, scheduleOf } from './recurring-invoices.ts';

/** When neither the template nor the customer says: the customers' own default. */
const DEFAULT_PAYMENT_TERMS_DAYS = 14;

export interface RecurringRun {
  made: number;
  /** Periods an invoice rule refused (a deleted customer or product, a locked period): tried again on the next run, in order. */
  failed: { recurring_invoice_id: string; period: string; code: string; detail: string }[];
}

/**
 * Makes the template's next period if it is due by `day`: the invoice through the invoice commands
 * (createInvoice, approval with auto_approve, sendInvoice), the period's row, the next date. Answers the
 * period made, or null when there is none to make here (not due, paused, ended, or another run holds it).
 */
async function makeNext(tx: Db, scope: CompanyScope, id: string, day: string): Promise<string | null> {
  const [locked] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM recurring_invoices WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE SKIP LOCKED`;
  if (!locked) return null;
  const row = (await tx.recurringInvoice.findUnique({ where: { id } }))!;
  if (row.status !== 'active' || row.deleted_at || !row.next_date || fromDate(row.next_date) > day) return null;
  const period = fromDate(row.next_date);
  const terms = row.payment_terms_days ?? (await liveCustomer(tx, scope, row.customer_id))?.payment_terms_days ?? DEFAULT_PAYMENT_TERMS_DAYS;
  const invoice = await createInvoice(tx, scope, {
    customer_id: row.customer_id,
    issue_date: period,
    due_date: addDays(period, terms),
    notes: row.notes,
    currency: row.currency,
    lines: invoiceLinesOf(row),
    auto_approve: row.action !== 'draft',
  });
  // Approval has queued it already when the company sends on approval (einvoice_auto_send).
  const queued = await tx.einvoiceMessage.findFirst({ where: { company_id: scope.companyId, invoice_id: invoice.id, document_kind: 'invoice' } });
  if (row.action === 'send' && !queued) {
    // The customer's channel (decision 619): its peppol_id, else its e-mail (a delivery the e-mail sweep wakes).
    const customer = await liveCustomer(tx, scope, row.customer_id);
    if (!receiverOf(customer) && customer?.email) await emailInvoice(tx, scope, invoice.id, { document: 'invoice' });
    else await sendInvoice(tx, scope, invoice.id, { channel: 'peppol', document: 'invoice' });
  }
  await tx.recurringInvoicePeriod.create({
    data: { id: newId(), company_id: scope.companyId, recurring_invoice_id: id, period: toDate(period), invoice_id: invoice.id },
  });
  const progress = { ...progressOf(row), made: row.made + 1, last: period };
  const next = nextPeriod(scheduleOf(row), progress);
  await tx.recurringInvoice.update({
    where: { id },
    data: { made: progress.made, last_period: toDate(period), next_date: next && toDate(next), status: statusOf(false, next) },
  });
  return period;
}

/**
 * The job: every active template with a period due by `day` (default today in Denmark) makes its due
 * periods in order, catching up any a downtime missed. Candidates are read in batches by id; `run`
 * opens each period's transaction. A period an invoice rule refuses stops its template for this run
 * (the next periods wait behind it) and is reported in `failed`.
 */
export async function makeRecurringInvoices(run: InTransaction, day = today(), batch = 200): Promise<RecurringRun> {
  const result: RecurringRun = { made: 0, failed: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const candidates = await run(
      (tx) =>
        tx.$queryRaw<{ id: string; company_id: string; livemode: boolean; next_date: Date }[]>`
        SELECT r.id, r.company_id, c.sandbox_of_id IS NULL AS livemode, r.next_date
        FROM recurring_invoices AS r JOIN companies AS c ON c.id = r.company_id
        WHERE r.status = 'active' AND r.deleted_at IS NULL AND r.next_date <= ${day}::date AND r.id > ${after}::uuid
        ORDER BY r.id LIMIT ${batch}`,
    );
    for (const c of candidates) {
      const scope = { companyId: c.company_id, livemode: c.livemode };
      for (;;) {
        let made: string | null;
        try {
          made = await run((tx) => makeNext(tx, scope, c.id, day));
        } catch (e) {
          // The period's row exists: another run made it between our reads. Nothing is lost.
          if (isUniqueViolation(e)) break;
          if (!(e instanceof DomainError)) throw e;
          // The period refused: the template's next date, which the rolled-back transaction left as it was.
          const at = await run((tx) => tx.recurringInvoice.findUnique({ where: { id: c.id }, select: { next_date: true } }));
          result.failed.push({ recurring_invoice_id: c.id, period: fromDate(at?.next_date ?? c.next_date), code: e.code, detail: e.message });
          break;
        }
        if (!made) break;
        result.made++;
      }
    }
    if (candidates.length < batch) return result;
    after = candidates.at(-1)!.id;
  }
}
