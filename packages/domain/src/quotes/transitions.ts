// POST /quotes/{id}/send, /accept and /decline, and the daily expiry: the moves of the transition table
// (rules.ts). Sending draws the quote's number; accepting makes the invoice of its lines through the one
// invoice creation (invoices/create-invoice.ts) and links the two. Each move under the quote's row lock;
// repeating the move the quote has already made changes nothing.
import type { Db, InTransaction } from '@tlr/db';
import { addDays, fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { decimalOf } from '../money.ts';
import { nextQuoteNumber } from '../ledger/post.ts';
import { liveCustomer } from '../invoices/invoice-rows.ts';
import { createInvoice } from '../invoices/create-invoice.ts';
import { assertQuoteTransition, type QuoteStatus } from './rules.ts';
import type { FullQuoteView, QuoteAcceptInput } from './schema.ts';
import { fullQuoteInclude, fullQuoteView, type FullQuoteRow, type QuoteRow } from './views.ts';
import { lockQuote, recordQuoteEvent } from './quote-rows.ts';

const now = () => new Date();

/** The quote locked, and whether `to` is where it already is (then nothing is done). */
async function moving(db: Db, scope: CompanyScope, id: string, to: QuoteStatus): Promise<{ row: FullQuoteRow; done: boolean }> {
  const row = await lockQuote(db, scope, id);
  if (row.status === to) return { row, done: true };
  assertQuoteTransition(row.status as QuoteStatus, to);
  return { row, done: false };
}

async function customerOfQuote(db: Db, scope: CompanyScope, row: FullQuoteRow, action: string) {
  if (!row.customer_id) throw new DomainError('quote_incomplete', `A quote is ${action} for a customer; set customer_id first.`, 'customer_id');
  const customer = await liveCustomer(db, scope, row.customer_id);
  if (!customer) throw new DomainError('quote_incomplete', `The quote's customer ${row.customer_id} was deleted; choose another customer.`, 'customer_id');
  return customer;
}

export async function sendQuote(db: Db, scope: CompanyScope, id: string): Promise<FullQuoteView> {
  const { row, done } = await moving(db, scope, id, 'sent');
  if (done) return fullQuoteView(row);
  const customer = await customerOfQuote(db, scope, row, 'sent');
  // Drawn last, after every check: the number row stays locked only for the rest of this transaction.
  const number = await nextQuoteNumber(db, scope.companyId);
  const sent = await db.quote.update({
    where: { id },
    data: { status: 'sent', quote_number: String(number), number, customer_name: customer.name, sent_at: now() },
    include: fullQuoteInclude,
  });
  await recordQuoteEvent(db, scope, 'quote.sent', sent);
  return fullQuoteView(sent);
}

/**
 * Sent -> accepted: the invoice of the quote's lines (a draft, or approved when asked), linked both ways.
 * Two acceptances at once queue on the quote's row lock; the second finds it accepted and answers it,
 * with the one invoice.
 */
export async function acceptQuote(db: Db, scope: CompanyScope, id: string, input: QuoteAcceptInput): Promise<FullQuoteView> {
  const { row, done } = await moving(db, scope, id, 'accepted');
  if (done) return fullQuoteView(row);
  const day = today();
  const validUntil = fromDate(row.valid_until);
  if (validUntil < day) {
    throw new DomainError('invalid_transition', `Quote ${row.quote_number} was valid until ${validUntil}; it can no longer be accepted.`, 'status', {
      current_status: row.status,
      allowed_statuses: ['declined', 'expired'],
    });
  }
  const customer = await customerOfQuote(db, scope, row, 'accepted');
  const issue = input.issue_date ?? day;
  const invoice = await createInvoice(db, scope, {
    customer_id: customer.id,
    issue_date: issue,
    due_date: input.due_date ?? addDays(issue, customer.payment_terms_days),
    currency: row.currency,
    notes: row.notes,
    // As stored: the quote's amounts are the invoice's (the same rules resolve them again).
    lines: row.lines.map((l) => ({
      product_id: l.product_id,
      description: l.description,
      quantity: decimalOf(l.quantity),
      unit_price: decimalOf(l.unit_price),
      vat_code: l.vat_code,
      unit: l.unit,
      discount_percent: decimalOf(l.discount_percent),
    })),
    auto_approve: input.approve ?? false,
  });
  await db.$executeRaw`UPDATE invoices SET quote_id = ${id}::uuid WHERE id = ${invoice.id}::uuid AND company_id = ${scope.companyId}::uuid`;
  const accepted = await db.quote.update({
    where: { id },
    data: { status: 'accepted', accepted_at: now(), invoice_id: invoice.id },
    include: fullQuoteInclude,
  });
  await recordQuoteEvent(db, scope, 'quote.accepted', accepted);
  return fullQuoteView(accepted);
}

export async function declineQuote(db: Db, scope: CompanyScope, id: string): Promise<FullQuoteView> {
  const { row, done } = await moving(db, scope, id, 'declined');
  if (done) return fullQuoteView(row);
  const declined = await db.quote.update({ where: { id }, data: { status: 'declined', declined_at: now() }, include: fullQuoteInclude });
  await recordQuoteEvent(db, scope, 'quote.declined', declined);
  return fullQuoteView(declined);
}

/**
 * The expiry sweep (the daily expire-quotes job): sent quotes whose valid_until has passed (the Danish
 * calendar day) become expired, each announced once. As the overdue sweep: rows another worker is
 * moving are skipped (SKIP LOCKED), and each batch is its own short transaction.
 */
export async function expireQuotes(run: InTransaction, day = today(), batch = 500): Promise<number> {
  let moved = 0;
  for (;;) {
    const n = await run(async (tx) => {
      const rows = await tx.$queryRaw<(QuoteRow & { livemode: boolean })[]>`
        UPDATE quotes AS q SET status = 'expired', expired_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
        FROM companies AS c
        WHERE c.id = q.company_id AND q.id IN (
          SELECT id FROM quotes WHERE status = 'sent' AND valid_until < ${day}::date
          ORDER BY valid_until, id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
        RETURNING q.*, c.sandbox_of_id IS NULL AS livemode`;
      for (const { livemode, ...q } of rows) await recordQuoteEvent(tx, { companyId: q.company_id, livemode }, 'quote.expired', q);
      return rows.length;
    });
    moved += n;
    if (n < batch) return moved;
  }
}
