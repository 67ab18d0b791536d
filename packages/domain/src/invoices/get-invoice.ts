// GET /invoices/{id}: one invoice of the caller's company with its lines, payments, credit note and
// e-invoice messages.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';
import type { FullInvoiceView } from './schema.ts';
import { fullInvoiceInclude, fullInvoiceView } from './views.ts';
import { accrualSchedules } from '../accruals/accruals.ts';

export async function getInvoice(db: Db, scope: CompanyScope, id: string): Promise<FullInvoiceView> {
  const row = await db.invoice.findFirst({ where: { id, company_id: scope.companyId }, include: fullInvoiceInclude });
  if (!row) throw notFound('invoice', id);
  return fullInvoiceView(row, await accrualSchedules(db, [row.id]));
}
