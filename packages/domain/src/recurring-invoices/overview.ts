// What the owner's recurring invoices pages show (docs/owner-pages.md): the API's resources, with the
// customer's name beside its id and, on the detail page, each invoice made with its number, status and
// total. Read in one query per kind of row (never one per template or per invoice), scoped to the company.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import type { ListParams, Page } from '../lists/list.ts';
import { amountToJson } from '../money.ts';
import { getRecurringInvoice, listRecurringInvoices } from './recurring-invoices.ts';
import type { FullRecurringInvoiceView, RecurringInvoiceView } from './schema.ts';

export type RecurringInvoiceRow = RecurringInvoiceView & { customer_name: string };
export type RecurringInvoiceDetail = Omit<FullRecurringInvoiceView, 'invoices'> & {
  customer_name: string;
  invoices: (FullRecurringInvoiceView['invoices'][number] & {
    /** null when the invoice (a draft) was deleted since. */
    invoice: { invoice_number: string; status: string; total: number; currency: string } | null;
  })[];
};

/** The customers' names by id; a customer deleted since still has its name (the template names it). */
async function customerNames(db: Db, scope: CompanyScope, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.customer.findMany({ where: { company_id: scope.companyId, id: { in: [...new Set(ids)] } }, select: { id: true, name: true } });
  return new Map(rows.map((c) => [c.id, c.name]));
}

export async function recurringInvoiceOverview(db: Db, scope: CompanyScope, q: ListParams): Promise<Page<RecurringInvoiceRow>> {
  const page = await listRecurringInvoices(db, scope, q);
  const names = await customerNames(
    db,
    scope,
    page.data.map((r) => r.customer_id),
  );
  return { ...page, data: page.data.map((r) => ({ ...r, customer_name: names.get(r.customer_id) ?? '' })) };
}

export async function recurringInvoiceDetail(db: Db, scope: CompanyScope, id: string): Promise<RecurringInvoiceDetail> {
  const r = await getRecurringInvoice(db, scope, id);
  const ids = r.invoices.flatMap((i) => (i.invoice_id ? [i.invoice_id] : []));
  const [names, invoices] = await Promise.all([
    customerNames(db, scope, [r.customer_id]),
    ids.length
      ? db.invoice.findMany({
          where: { company_id: scope.companyId, id: { in: ids } },
          select: { id: true, invoice_number: true, status: true, total: true, currency: true },
        })
      : [],
  ]);
  const byId = new Map(invoices.map((i) => [i.id, i]));
  return {
    ...r,
    customer_name: names.get(r.customer_id) ?? '',
    invoices: r.invoices.map((p) => {
      const i = p.invoice_id ? byId.get(p.invoice_id) : undefined;
      return { ...p, invoice: i ? { invoice_number: i.invoice_number, status: i.status, total: amountToJson(i.total), currency: i.currency } : null };
    }),
  };
}
