// GET /invoices: the invoices of the caller's company with the contract's list parameters; the common
// unfiltered count comes from the kept counts (lists/kept-counts.ts).
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { countInvoices } from '../lists/kept-counts.ts';
import { listPage, unfiltered, type CurrencyFilter, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { INVOICE_STATUSES } from './rules.ts';
import type { InvoiceView } from './schema.ts';
import { invoiceInclude, invoiceView } from './views.ts';

export const INVOICE_LIST = {
  // Invoice numbers sort as numbers (the document number behind them); drafts have none.
  sort: { created_at: 'created_at', issue_date: 'issue_date', due_date: 'due_date', total: 'total', invoice_number: 'document_number', currency: 'currency' },
  defaultSort: 'created_at',
  search: ['invoice_number', 'payment_id', 'notes'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  statuses: INVOICE_STATUSES,
} satisfies ListSpec;

export function listInvoices(db: Db, scope: CompanyScope, params: ListParams & CurrencyFilter): Promise<Page<InvoiceView>> {
  const delegate = {
    findMany: (args: object) => db.invoice.findMany({ ...args, include: invoiceInclude }),
    // Filtered by nothing or by status only (the common list): the kept counts, exact and O(1).
    count: (args: { where: object }) =>
      unfiltered(params, INVOICE_LIST) && !params.currency ? countInvoices(db, scope.companyId, params.status) : db.invoice.count(args),
  };
  return listPage(delegate, { company_id: scope.companyId, ...(params.currency ? { currency: params.currency } : {}) }, params, INVOICE_LIST, invoiceView);
}
