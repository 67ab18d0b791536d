// POST, PUT and DELETE /quotes: a draft is created, changed freely (its lines replaced whole) and deleted
// until it is sent; its lines are resolved, checked and summed as an invoice's (invoices/draft-lines.ts).
import type { Db } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { newId } from '../ids.ts';
import { recordEvent } from '../events/outbox.ts';
import { customerOf, draftAmounts, resolveLines } from '../invoices/draft-lines.ts';
import type { FullQuoteView, QuoteInput, QuoteUpdate } from './schema.ts';
import { fullQuoteInclude, fullQuoteView } from './views.ts';
import { assertQuoteDraft, checkValidity, lockQuote, quoteLineRows, recordQuoteEvent } from './quote-rows.ts';

export async function createQuote(db: Db, scope: CompanyScope, input: QuoteInput): Promise<FullQuoteView> {
  checkValidity(input.issue_date, input.valid_until);
  const { fields: customer } = await customerOf(db, scope, input.customer_id);
  const resolved = await resolveLines(db, scope, input.lines);
  const id = newId();
  const created = await db.quote.create({
    data: {
      id,
      company_id: scope.companyId,
      ...customer,
      status: 'draft',
      issue_date: toDate(input.issue_date),
      valid_until: toDate(input.valid_until),
      currency: input.currency ?? 'DKK',
      notes: input.notes ?? '',
      ...draftAmounts(resolved),
      lines: { createMany: { data: quoteLineRows(scope, id, resolved).map(({ quote_id: _, ...l }) => l) } },
    },
    include: fullQuoteInclude,
  });
  await recordQuoteEvent(db, scope, 'quote.created', created);
  return fullQuoteView(created);
}

export async function updateQuote(db: Db, scope: CompanyScope, id: string, input: QuoteUpdate): Promise<FullQuoteView> {
  const row = await lockQuote(db, scope, id);
  assertQuoteDraft(row, 'updated');
  const issue = input.issue_date ?? fromDate(row.issue_date);
  const validUntil = input.valid_until ?? fromDate(row.valid_until);
  checkValidity(issue, validUntil);
  const customer = input.customer_id === undefined ? {} : (await customerOf(db, scope, input.customer_id)).fields;
  const resolved = input.lines ? await resolveLines(db, scope, input.lines) : undefined;
  if (resolved) {
    await db.quoteLine.deleteMany({ where: { quote_id: id } });
    await db.quoteLine.createMany({ data: quoteLineRows(scope, id, resolved) });
  }
  const updated = await db.quote.update({
    where: { id },
    data: {
      ...customer,
      issue_date: toDate(issue),
      valid_until: toDate(validUntil),
      ...(input.currency === undefined ? {} : { currency: input.currency }),
      ...(input.notes === undefined ? {} : { notes: input.notes }),
      ...(resolved ? draftAmounts(resolved) : {}),
    },
    include: fullQuoteInclude,
  });
  await recordQuoteEvent(db, scope, 'quote.updated', updated);
  return fullQuoteView(updated);
}

export async function deleteQuote(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await lockQuote(db, scope, id);
  assertQuoteDraft(row, 'deleted');
  // A draft has no number: it goes entirely, and the series keeps no gap.
  await db.quote.delete({ where: { id } });
  await recordEvent(db, scope, 'quote.deleted', { id, quote_number: '', status: 'draft' });
  return { id, deleted: true };
}
