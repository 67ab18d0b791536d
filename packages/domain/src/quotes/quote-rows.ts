// A quote's row as this folder's use cases take it: locked until the transaction ends, checked to be a
// draft, announced to the outbox; and its lines as stored (an invoice's lines, checked the same way).
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent, type EventType } from '../events/outbox.ts';
import { lineRows, type ResolvedLines } from '../invoices/draft-lines.ts';
import { fullQuoteInclude, quoteView, type FullQuoteRow, type QuoteRow } from './views.ts';

/**
 * Reads a quote of the caller's company and locks its row until the transaction ends: two requests
 * moving one quote at once queue, and the second sees the first's outcome (one acceptance, one invoice).
 */
export async function lockQuote(db: Db, scope: CompanyScope, id: string): Promise<FullQuoteRow> {
  const [locked] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM quotes WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) throw notFound('quote', id);
  return db.quote.findUniqueOrThrow({ where: { id }, include: fullQuoteInclude });
}

export function assertQuoteDraft(row: QuoteRow, action: string): void {
  if (row.status !== 'draft') {
    throw new DomainError('quote_not_draft', `Quote ${row.quote_number} is ${row.status}; only a draft may be ${action}.`, undefined, {
      current_status: row.status,
    });
  }
}

export const recordQuoteEvent = (db: Db, scope: CompanyScope, type: EventType & `quote.${string}`, row: QuoteRow) =>
  recordEvent(db, scope, type, quoteView(row));

/** The stored rows of a quote's lines: an invoice's line rows under the quote (a quote's lines take no dimensions). */
export const quoteLineRows = (scope: CompanyScope, quoteId: string, resolved: ResolvedLines) =>
  lineRows(scope, quoteId, resolved).map(({ invoice_id, dimensions: _none, accrual_from: _from, accrual_to: _to, ...l }) => ({ ...l, quote_id: invoice_id }));

export function checkValidity(issue: string, validUntil: string) {
  if (validUntil < issue) throw invalidRequest(`valid_until ${validUntil} is before the issue date ${issue}.`, 'valid_until');
}
