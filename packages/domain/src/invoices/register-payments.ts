// Many invoices' payments at once (automatic bank matching): the same payment as registerPayment's, each
// checked and planned by the same pure rules, written with one statement each for the journal, the
// payments, the invoices and their events.
import type { Db } from '@tlr/db';
import { toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import type { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { openPaymentBatch, refusal } from '../ledger/documents.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import type { Decimal } from '../money.ts';
import { accountsByNumber } from './posting-accounts.ts';
import { planPayment, type PayableInvoice } from './register-payment.ts';
import { invoiceEventData, invoiceInclude, invoiceView } from './views.ts';

/** A payment to register: the invoice's row read under its lock (the caller holds it), like registerPayment's input. */
export interface BatchPayment {
  invoice: PayableInvoice;
  amount: Decimal;
  date: string;
  account_number: string;
}

/** A payment registered (its posting, whose first line is the money received), or why it was refused. */
export type BatchPaymentOutcome = { transactionId: string; receivedLineId: string } | { refused: DomainError };

/**
 * Registers each payment as registerPayment would, the invoices locked by the caller. A payment its rules
 * refuse (the invoice no longer open, an overpayment, a closed period, no exchange rate) is left out with
 * its refusal; the others are written together. A refusal only the writing finds (the lock date moved
 * under the posting) throws, as registerPayment does, and the caller retries without the batch.
 */
export async function registerPayments(db: Db, scope: CompanyScope, payments: readonly BatchPayment[]): Promise<BatchPaymentOutcome[]> {
  // One payment per invoice: the invoices' update adds each row's payment once.
  if (new Set(payments.map((p) => p.invoice.id)).size !== payments.length) throw new Error('registerPayments takes one payment per invoice');
  const outcomes: BatchPaymentOutcome[] = [];
  const batch = await openPaymentBatch(db, scope, { defaultAccount: DEFAULT_ACCOUNTS.bank, excluded: [DEFAULT_ACCOUNTS.receivable] });
  const accounts = await accountsByNumber(db, scope, [DEFAULT_ACCOUNTS.receivable, DEFAULT_ACCOUNTS.exchangeDifference]);
  const planned: { payment: BatchPayment; paidInFull: boolean; cleared: Decimal; rate: Decimal; accountId: string; id: string }[] = [];
  for (const [i, payment] of payments.entries()) {
    const outcome = await refusal(async () => {
      const { invoice, amount, date } = payment;
      const account = await batch.settlement(payment.account_number);
      const rate = await batch.rate(invoice.currency, date);
      const plan = planPayment(invoice, amount, date, rate, {
        settlementId: account.id,
        receivableId: accounts(DEFAULT_ACCOUNTS.receivable).id,
        differenceId: accounts(DEFAULT_ACCOUNTS.exchangeDifference).id,
      });
      const added = await batch.journal.add(plan.posting);
      planned.push({ payment, paidInFull: plan.paidInFull, cleared: plan.cleared, rate, accountId: account.id, id: added.id });
      return { transactionId: added.id, receivedLineId: added.lineIds[0]! };
    });
    outcomes[i] = outcome;
  }
  if (!planned.length) return outcomes;
  await batch.journal.flush();
  await db.$executeRaw`
    INSERT INTO invoice_payments (id, company_id, invoice_id, amount, exchange_rate, date, account_id, transaction_id)
    SELECT u.id, ${scope.companyId}::uuid, u.invoice_id, u.amount, u.rate, u.date, u.account_id, u.transaction_id
      FROM unnest(${planned.map(() => newId())}::uuid[], ${planned.map((p) => p.payment.invoice.id)}::uuid[], ${planned.map((p) => p.payment.amount.toFixed(2))}::numeric[],
                  ${planned.map((p) => p.rate.toFixed(6))}::numeric[], ${planned.map((p) => toDate(p.payment.date))}::date[],
                  ${planned.map((p) => p.accountId)}::uuid[], ${planned.map((p) => p.id)}::uuid[])
        AS u(id, invoice_id, amount, rate, date, account_id, transaction_id)`;
  // As registerPayment's update: the amounts added, paid when covered (paid_at and updated_at as the client stamps them).
  const now = new Date();
  await db.$executeRaw`
    UPDATE invoices i
       SET paid_amount = i.paid_amount + u.amount, paid_dkk = i.paid_dkk + u.cleared,
           status = CASE WHEN u.paid_in_full THEN 'paid' ELSE i.status END, paid_at = CASE WHEN u.paid_in_full THEN ${now} ELSE i.paid_at END, updated_at = ${now}
      FROM unnest(${planned.map((p) => p.payment.invoice.id)}::uuid[], ${planned.map((p) => p.payment.amount.toFixed(2))}::numeric[],
                  ${planned.map((p) => p.cleared.toFixed(2))}::numeric[], ${planned.map((p) => p.paidInFull)}::boolean[]) AS u(id, amount, cleared, paid_in_full)
     WHERE i.id = u.id AND i.company_id = ${scope.companyId}::uuid`;
  const rows = new Map(
    (await db.invoice.findMany({ where: { company_id: scope.companyId, id: { in: planned.map((p) => p.payment.invoice.id) } }, include: invoiceInclude })).map(
      (r) => [r.id, r],
    ),
  );
  const data = (full: boolean) => planned.filter((p) => p.paidInFull === full).map((p) => invoiceEventData(invoiceView(rows.get(p.payment.invoice.id)!)));
  await recordEvents(db, scope, 'invoice.paid', data(true));
  await recordEvents(db, scope, 'invoice.updated', data(false));
  return outcomes;
}
