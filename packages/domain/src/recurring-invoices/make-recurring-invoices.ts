// The recurring-invoices job: each active template's due periods become invoices, in period order,
// each exactly once. Templates are claimed a batch at a time: one transaction locks up to PER_TRANSACTION
// due templates of one company in one statement (SKIP LOCKED: a template another run or a request holds
// is theirs) and makes their periods, each in a savepoint of its own, so a refused period rolls back
// alone. The period's row is unique per template and period, so two runs at once, or a run after
// downtime, make every period once and never skip one (decisions 612 and 803).
import { isUniqueViolation, type Db, type InTransaction, type RecurringInvoice } from '@tlr/db';
import { addDays, fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { flushEvents, heldEvents, holdEvents } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { createInvoice } from '../invoices/create-invoice.ts';
import { liveCustomer } from '../invoices/invoice-rows.ts';
import { receiverOf, sendInvoice } from '../einvoice/outbound.ts';
import { emailInvoice } from '../email/outbound.ts';
import { nextPeriod, statusOf } from './rules.ts';
import { invoiceLinesOf, progressOf, scheduleOf } from './recurring-invoices.ts';

/** When neither the template nor the customer says: the customers' own default. */
const DEFAULT_PAYMENT_TERMS_DAYS = 14;

/**
 * Templates per transaction: a transaction's commit costs more than a period's statements, but approval
 * holds the company's document number lock from the batch's first invoice to its commit, so a batch
 * stays well under a second (docs/perf.md, recurring invoices).
 */
const PER_TRANSACTION = 25;

export interface RecurringRun {
  made: number;
  /** Periods an invoice rule refused (a deleted customer or product, a locked period): tried again on the next run, in order. */
  failed: { recurring_invoice_id: string; period: string; code: string; detail: string }[];
}

/**
 * Makes the locked template's next period, due by `day`: the invoice through the invoice commands
 * (createInvoice, approval with auto_approve, sendInvoice), the period's row, the next date. Answers the
 * template as it now is.
 */
async function makePeriod(tx: Db, scope: CompanyScope, row: RecurringInvoice): Promise<RecurringInvoice> {
  const period = fromDate(row.next_date!);
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
  if (row.action === 'send') {
    // Approval has queued it already when the company sends on approval (einvoice_auto_send).
    const queued = await tx.einvoiceMessage.findFirst({ where: { company_id: scope.companyId, invoice_id: invoice.id, document_kind: 'invoice' } });
    if (!queued) {
      // The customer's channel (decision 619): its peppol_id, else its e-mail (a delivery the e-mail sweep wakes).
      const customer = await liveCustomer(tx, scope, row.customer_id);
      if (!receiverOf(customer) && customer?.email) await emailInvoice(tx, scope, invoice.id, { document: 'invoice' });
      else await sendInvoice(tx, scope, invoice.id, { channel: 'peppol', document: 'invoice' });
    }
  }
  const progress = { ...progressOf(row), made: row.made + 1, last: period };
  const next = nextPeriod(scheduleOf(row), progress);
  // The period's row and the template moved on, in one statement.
  const [moved] = await tx.$queryRaw<RecurringInvoice[]>`
    WITH made AS (
      INSERT INTO recurring_invoice_periods (id, company_id, recurring_invoice_id, period, invoice_id)
      VALUES (${newId()}::uuid, ${scope.companyId}::uuid, ${row.id}::uuid, ${period}::date, ${invoice.id}::uuid)
    )
    UPDATE recurring_invoices
       SET made = ${progress.made}, last_period = ${period}::date, next_date = ${next}::date, status = ${statusOf(false, next)}, updated_at = now()
     WHERE id = ${row.id}::uuid
    RETURNING *`;
  return moved!;
}

const isDue = (row: RecurringInvoice, day: string) => row.status === 'active' && !row.deleted_at && row.next_date !== null && fromDate(row.next_date) <= day;

/**
 * One batch of one company's templates, in the caller's transaction: those still due locked and read
 * in one statement (SKIP LOCKED), then each one's due periods in order, each in its own savepoint. A
 * period an invoice rule refuses is rolled back to its savepoint (its number and posting with it) and
 * stops its template: the next periods wait behind it.
 */
async function makeBatch(tx: Db, scope: CompanyScope, ids: string[], day: string): Promise<RecurringRun> {
  const result: RecurringRun = { made: 0, failed: [] };
  // The batch's events (each invoice's created, approved, transaction.created) in one statement at its end.
  holdEvents(tx);
  const locked = await tx.$queryRaw<RecurringInvoice[]>`
    SELECT * FROM recurring_invoices
     WHERE id = ANY(${ids}::uuid[]) AND company_id = ${scope.companyId}::uuid AND status = 'active' AND deleted_at IS NULL AND next_date <= ${day}::date
     ORDER BY id FOR UPDATE SKIP LOCKED`;
  for (let row of locked) {
    while (isDue(row, day)) {
      await tx.$executeRaw`SAVEPOINT recurring_period`;
      const events = heldEvents.mark(tx);
      let refused: unknown;
      try {
        row = await makePeriod(tx, scope, row);
      } catch (e) {
        // Anything but a refusal (the database gone, a deadlock) ends the batch's transaction as it is.
        if (!isUniqueViolation(e) && !(e instanceof DomainError)) throw e;
        refused = e;
        await tx.$executeRaw`ROLLBACK TO SAVEPOINT recurring_period`;
        heldEvents.forget(tx, events);
      }
      await tx.$executeRaw`RELEASE SAVEPOINT recurring_period`;
      // The period's row exists (were the lock ever bypassed): it was made, nothing is lost. A refusal is reported.
      if (refused instanceof DomainError)
        result.failed.push({ recurring_invoice_id: row.id, period: fromDate(row.next_date!), code: refused.code, detail: refused.message });
      if (refused) break;
      result.made++;
    }
  }
  await flushEvents(tx);
  return result;
}

/**
 * The job: every active template with a period due by `day` (default today in Denmark) makes its due
 * periods in order, catching up any a downtime missed. Candidates are read in batches by company and
 * id; `run` opens each batch's transaction (`perTransaction` templates of one company at most). A period
 * an invoice rule refuses stops its template for this run and is reported in `failed`.
 */
export async function makeRecurringInvoices(run: InTransaction, day = today(), batch = 200, perTransaction = PER_TRANSACTION): Promise<RecurringRun> {
  const result: RecurringRun = { made: 0, failed: [] };
  let after = { company: '00000000-0000-0000-0000-000000000000', id: '00000000-0000-0000-0000-000000000000' };
  for (;;) {
    const candidates = await run(
      (tx) =>
        tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        SELECT r.id, r.company_id, c.sandbox_of_id IS NULL AS livemode
        FROM recurring_invoices AS r JOIN companies AS c ON c.id = r.company_id
        WHERE r.status = 'active' AND r.deleted_at IS NULL AND r.next_date <= ${day}::date
          AND (r.company_id, r.id) > (${after.company}::uuid, ${after.id}::uuid)
        ORDER BY r.company_id, r.id LIMIT ${batch}`,
    );
    // Consecutive candidates of one company, perTransaction at a time.
    for (let i = 0; i < candidates.length;) {
      const first = candidates[i]!;
      let end = i + 1;
      while (end < candidates.length && end - i < perTransaction && candidates[end]!.company_id === first.company_id) end++;
      const scope = { companyId: first.company_id, livemode: first.livemode };
      const ids = candidates.slice(i, end).map((c) => c.id);
      // Counted once the batch has committed.
      const done = await run((tx) => makeBatch(tx, scope, ids, day));
      result.made += done.made;
      result.failed.push(...done.failed);
      i = end;
    }
    if (candidates.length < batch) return result;
    const last = candidates.at(-1)!;
    after = { company: last.company_id, id: last.id };
  }
}
