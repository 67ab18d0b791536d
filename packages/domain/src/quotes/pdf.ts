// GET /quotes/{id}/pdf: the quote as a Danish tilbud, laid out by the invoice's renderer (invoices/pdf.ts):
// the seller, the customer as it is now, the lines and VAT as on an invoice, and how long it is valid.
import type { Db } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';
import { customerParty, documentLines, sellerParty, type InvoiceDocument } from '../invoices/pdf.ts';
import { fullQuoteInclude } from './views.ts';

export async function quoteDocument(db: Db, scope: CompanyScope, id: string): Promise<InvoiceDocument> {
  const row = await db.quote.findFirst({ where: { id, company_id: scope.companyId }, include: fullQuoteInclude });
  if (!row) throw notFound('quote', id);
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId } });
  const customer = row.customer_id ? await db.customer.findFirst({ where: { id: row.customer_id, company_id: scope.companyId } }) : null;
  return {
    kind: 'quote',
    draft: row.status === 'draft',
    number: row.quote_number,
    date: fromDate(row.issue_date),
    due_date: fromDate(row.valid_until),
    payment_terms_days: 0,
    credits: null,
    credited_by: null,
    seller: sellerParty(company),
    fi_payment_line: '',
    buyer: customer ? customerParty(customer) : { name: row.customer_name, address: [], cvr: '' },
    ...documentLines(row.lines),
    currency: row.currency,
    dkk: null,
    subtotal: row.subtotal.toFixed(2),
    vat_amount: row.vat_amount.toFixed(2),
    total: row.total.toFixed(2),
    paid_amount: '0.00',
    notes: row.notes,
    filename: `tilbud-${row.quote_number || `kladde-${row.id}`}.pdf`,
  };
}
