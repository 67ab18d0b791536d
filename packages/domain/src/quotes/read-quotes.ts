// GET /quotes and GET /quotes/{id}: the quotes of the caller's company, by the one list engine.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { QUOTE_STATUSES } from './rules.ts';
import type { FullQuoteView, QuoteView } from './schema.ts';
import { fullQuoteInclude, fullQuoteView, quoteView } from './views.ts';

export const QUOTE_LIST = {
  // Quote numbers sort as numbers; drafts have none.
  sort: { created_at: 'created_at', issue_date: 'issue_date', valid_until: 'valid_until', total: 'total', quote_number: 'number' },
  defaultSort: 'created_at',
  search: ['quote_number', 'customer_name', 'notes'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  statuses: QUOTE_STATUSES,
} satisfies ListSpec;

export function listQuotes(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<QuoteView>> {
  return listPage(db.quote, { company_id: scope.companyId }, params, QUOTE_LIST, quoteView);
}

export async function getQuote(db: Db, scope: CompanyScope, id: string): Promise<FullQuoteView> {
  const row = await db.quote.findFirst({ where: { id, company_id: scope.companyId }, include: fullQuoteInclude });
  if (!row) throw notFound('quote', id);
  return fullQuoteView(row);
}
