// PUT /invoices/{id}/status: the moves of the transition table (rules.ts), each by its use case (approve,
// pay what is left, cancel with a credit note); repeating the current status changes nothing.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest } from '../errors.ts';
import { decimalOf } from '../money.ts';
import { assertTransition, type InvoiceStatus } from './rules.ts';
import type { FullInvoiceView, InvoiceStatusInput } from './schema.ts';
import { fullInvoiceInclude, fullInvoiceView, invoiceView } from './views.ts';
import { lockInvoice, recordInvoiceEvent } from './invoice-rows.ts';
import { approveInvoice } from './approve-invoice.ts';
import { payInvoice } from './register-payment.ts';
import { cancelInvoice } from './cancel-invoice.ts';
import { getInvoice } from './get-invoice.ts';
import { accrualSchedules } from '../accruals/accruals.ts';
import type { FullInvoiceRow } from './views.ts';

/**
 * PUT /invoices/{id}/status. Repeating the current status changes and posts nothing (PUT semantics);
 * any other move must be in the transition table (rules.ts).
 */
export async function setInvoiceStatus(db: Db, scope: CompanyScope, id: string, input: InvoiceStatusInput): Promise<FullInvoiceView> {
  // With the months of its accrued lines (decision 826).
  const fullView = async (r: FullInvoiceRow) => fullInvoiceView(r, await accrualSchedules(db, [r.id]));
  const row = await lockInvoice(db, scope, id);
  const from = row.status as InvoiceStatus;
  if (input.status !== 'paid' && (input.account_id || input.account_number || input.exchange_rate)) {
    throw invalidRequest(
      'account_id, account_number and exchange_rate belong to status paid (the account the payment went to, the rate it was received at).',
      input.account_id ? 'account_id' : input.account_number ? 'account_number' : 'exchange_rate',
    );
  }
  if (input.date && input.status !== 'paid' && input.status !== 'cancelled') {
    throw invalidRequest('date belongs to status paid (payment date) or cancelled (credit note date).', 'date');
  }
  if (input.status === from) return fullView(row);
  assertTransition(from, input.status);
  switch (input.status) {
    case 'approved':
      return fullView(await approveInvoice(db, scope, row));
    case 'sent':
    case 'overdue': {
      const updated = await db.invoice.update({
        where: { id },
        data: { status: input.status, ...(input.status === 'sent' ? { sent_at: new Date() } : {}) },
        include: fullInvoiceInclude,
      });
      await recordInvoiceEvent(db, scope, `invoice.${input.status}`, invoiceView(updated));
      return fullView(updated);
    }
    case 'paid': {
      const remaining = decimalOf(row.total).minus(decimalOf(row.paid_amount));
      await payInvoice(db, scope, row, {
        amount: remaining,
        date: input.date,
        account_id: input.account_id,
        account_number: input.account_number,
        exchange_rate: input.exchange_rate,
      });
      return getInvoice(db, scope, id);
    }
    case 'cancelled':
      return fullView(await cancelInvoice(db, scope, row, input.date));
    case 'draft':
      // Unreachable: no transition leads back to draft (assertTransition refused it).
      throw new Error('no transition to draft');
  }
}
