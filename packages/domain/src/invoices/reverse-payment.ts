// Undoing an invoice's payment when its bank line is unmatched: the reversal of the payment's posting,
// and the invoice open again.
import type { Prisma, Db } from '@tlr/db';
import { fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';
import { postReversalOf } from '../ledger/documents.ts';
import { decimalOf } from '../money.ts';
import type { InvoiceStatus } from './rules.ts';
import { invoiceInclude, invoiceView } from './views.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { lockInvoice, recordInvoiceEvent } from './invoice-rows.ts';

/**
 * Undoes a payment (its bank line was unmatched): posts the reversal of its posting and takes it out of
 * the invoice's paid amounts. A paid invoice is open again, overdue when its due date has passed, else
 * sent or approved as it was; the payment row and both postings stay (corrections are new entries).
 */
export async function reversePayment(db: Db, scope: CompanyScope, transactionId: string, date = today()) {
  const payment = await db.invoicePayment.findFirst({ where: { company_id: scope.companyId, transaction_id: transactionId } });
  if (!payment) throw notFound('invoice payment of transaction', transactionId);
  const row = await lockInvoice(db, scope, payment.invoice_id);
  const current = await db.invoicePayment.findUniqueOrThrow({ where: { id: payment.id } });
  if (current.reversed_transaction_id) return row;
  // What the payment cleared of receivables (DKK), as its posting credited them.
  const [cleared] = await db.$queryRaw<{ dkk: Prisma.Decimal | null }[]>`
    SELECT sum(l.credit - l.debit) AS dkk FROM transaction_lines l JOIN accounts a ON a.id = l.account_id
     WHERE l.transaction_id = ${transactionId}::uuid AND a.account_number = ${DEFAULT_ACCOUNTS.receivable}`;
  const reversal = await postReversalOf(db, scope, transactionId, {
    date: date < fromDate(payment.date) ? fromDate(payment.date) : date,
    description: `Tilbageført betaling af faktura ${row.invoice_number}`,
    source: 'reversal',
    sourceId: row.id,
  });
  await db.invoicePayment.update({ where: { id: payment.id }, data: { reversed_transaction_id: reversal.id } });
  const reopened: InvoiceStatus = fromDate(row.due_date) < today() ? 'overdue' : row.sent_at ? 'sent' : 'approved';
  const updated = await db.invoice.update({
    where: { id: row.id },
    data: {
      paid_amount: decimalOf(row.paid_amount).minus(decimalOf(payment.amount)).toFixed(2),
      paid_dkk: decimalOf(row.paid_dkk)
        .minus(decimalOf(cleared?.dkk ?? 0))
        .toFixed(2),
      ...(row.status === 'paid' ? { status: reopened, paid_at: null } : {}),
    },
    include: invoiceInclude,
  });
  await recordInvoiceEvent(db, scope, 'invoice.updated', invoiceView(updated));
  return updated;
}
