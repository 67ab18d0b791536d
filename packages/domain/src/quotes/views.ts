// The API shapes of quotes: the list shape, the quote with its lines, and the data of quote events.
import type { Prisma } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import { amountToJson } from '../money.ts';
import { lineView } from '../invoices/views.ts';
import { registrationView } from '../trail/actor.ts';
import { documentDeliveriesInclude, emailDeliveryView } from '../email/views.ts';
import type { QuoteStatus } from './rules.ts';
import type { FullQuoteView, QuoteView } from './schema.ts';

export const fullQuoteInclude = {
  lines: { orderBy: { line_number: 'asc' } },
  email_deliveries: documentDeliveriesInclude,
} satisfies Prisma.QuoteInclude;
export type QuoteRow = Prisma.QuoteGetPayload<object>;
export type FullQuoteRow = Prisma.QuoteGetPayload<{ include: typeof fullQuoteInclude }>;

const at = (d: Date | null) => d?.toISOString() ?? null;

export function quoteView(q: QuoteRow): QuoteView {
  return {
    id: q.id,
    quote_number: q.quote_number,
    customer_id: q.customer_id,
    customer_name: q.customer_name,
    // The column holds only these (every write goes through rules.ts).
    status: q.status as QuoteStatus,
    issue_date: fromDate(q.issue_date),
    valid_until: fromDate(q.valid_until),
    currency: q.currency,
    notes: q.notes,
    subtotal: amountToJson(q.subtotal),
    vat_amount: amountToJson(q.vat_amount),
    total: amountToJson(q.total),
    invoice_id: q.invoice_id,
    sent_at: at(q.sent_at),
    accepted_at: at(q.accepted_at),
    declined_at: at(q.declined_at),
    expired_at: at(q.expired_at),
    created_at: q.created_at.toISOString(),
    updated_at: q.updated_at.toISOString(),
    ...registrationView(q),
  };
}

export const fullQuoteView = (q: FullQuoteRow): FullQuoteView => ({
  ...quoteView(q),
  lines: q.lines.map(lineView),
  deliveries: q.email_deliveries.map(emailDeliveryView),
});
