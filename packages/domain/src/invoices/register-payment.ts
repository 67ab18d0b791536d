// An invoice's payments (POST /invoices/{id}/payments, status paid, a matched bank line): received at the
// payment's rate, receivables cleared at the invoice's; the invoice is paid when its total is covered.
import type { Db } from '@tlr/db';
import { toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { paymentPosting, settlementAccount } from '../ledger/documents.ts';
import { postTransaction } from '../ledger/post.ts';
import { amountToJson, decimalOf, type Decimal } from '../money.ts';
import { OPEN_STATUSES, type InvoiceStatus } from './rules.ts';
import { documentCurrency } from '../currency/convert.ts';
import { toDkk } from '../currency/rules.ts';
import type { PaymentInput } from './schema.ts';
import { invoiceInclude, invoiceView, paymentView, type FullInvoiceRow } from './views.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { lockInvoice, recordInvoiceEvent } from './invoice-rows.ts';
import { accountsByNumber } from './posting-accounts.ts';

export async function registerPayment(db: Db, scope: CompanyScope, id: string, input: PaymentInput) {
  const row = await lockInvoice(db, scope, id);
  return paymentView(await payInvoice(db, scope, row, input));
}

/** What a payment needs of an invoice's row: its state and amounts as read under its lock. */
export type PayableInvoice = Pick<
  FullInvoiceRow,
  'id' | 'invoice_number' | 'status' | 'currency' | 'total' | 'paid_amount' | 'total_dkk' | 'paid_dkk' | 'exchange_rate'
>;

/** The accounts a payment posts to: where the money went, receivables, and the exchange difference. */
export interface PaymentAccounts {
  settlementId: string;
  receivableId: string;
  differenceId: string;
}

/** The refusals of a payment on an invoice (open, positive, within the balance due), pure: the balance due. */
export function assertPayable(row: PayableInvoice, amount: Decimal): Decimal {
  if (!OPEN_STATUSES.includes(row.status as InvoiceStatus)) {
    throw new DomainError('invalid_transition', `A payment is registered on an approved, sent or overdue invoice; this invoice is ${row.status}.`, undefined, {
      current_status: row.status,
    });
  }
  const balance = decimalOf(row.total).minus(decimalOf(row.paid_amount));
  if (amount.lessThanOrEqualTo(0)) throw invalidRequest('A payment amount must be greater than 0.', 'amount');
  if (amount.greaterThan(balance)) {
    throw new DomainError(
      'overpayment',
      `The payment ${amount.toFixed(2)} exceeds the balance due ${balance.toFixed(2)} of invoice ${row.invoice_number}.`,
      'amount',
      {
        balance_due: amountToJson(balance),
      },
    );
  }
  return balance;
}

/**
 * A payment of `amount` on `date` at the payment's `rate`, pure: whether it pays the invoice in full,
 * the DKK of receivables it clears and its posting. Received at the payment's rate; receivables are
 * cleared at the invoice's (the last payment clears what is left of them, so no øre stays open). The
 * difference is the realised kursdifference.
 */
export function planPayment(row: PayableInvoice, amount: Decimal, date: string, rate: Decimal, accounts: PaymentAccounts) {
  const paidInFull = amount.equals(assertPayable(row, amount));
  const cleared = paidInFull ? decimalOf(row.total_dkk).minus(decimalOf(row.paid_dkk)) : toDkk(amount, decimalOf(row.exchange_rate!));
  const posting = paymentPosting({
    date,
    text: `Betaling af faktura ${row.invoice_number}`,
    sourceId: row.id,
    debitAccountId: accounts.settlementId,
    creditAccountId: accounts.receivableId,
    debit: toDkk(amount, rate),
    credit: cleared,
    differenceAccountId: accounts.differenceId,
    foreign: { currency: row.currency, amount, debitRate: rate, creditRate: decimalOf(row.exchange_rate!) },
  });
  return { paidInFull, cleared, posting };
}

/** Registers a payment on a locked, open invoice; the invoice becomes paid when its total is covered. */
export async function payInvoice(db: Db, scope: CompanyScope, row: FullInvoiceRow, input: PaymentInput) {
  assertPayable(row, input.amount);
  const account = await settlementAccount(db, scope, input, DEFAULT_ACCOUNTS.bank, [DEFAULT_ACCOUNTS.receivable]);
  const accounts = await accountsByNumber(db, scope, [DEFAULT_ACCOUNTS.receivable, DEFAULT_ACCOUNTS.exchangeDifference]);
  const date = input.date ?? today();
  const fx = await documentCurrency(db, scope, row.currency, input.exchange_rate, date);
  const { paidInFull, cleared, posting } = planPayment(row, input.amount, date, fx.rate, {
    settlementId: account.id,
    receivableId: accounts(DEFAULT_ACCOUNTS.receivable).id,
    differenceId: accounts(DEFAULT_ACCOUNTS.exchangeDifference).id,
  });
  const posted = await postTransaction(db, scope, posting);
  const payment = await db.invoicePayment.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      invoice_id: row.id,
      amount: input.amount.toFixed(2),
      exchange_rate: fx.rate.toFixed(6),
      date: toDate(date),
      account_id: account.id,
      transaction_id: posted.id,
    },
  });
  const updated = await db.invoice.update({
    where: { id: row.id },
    data: {
      paid_amount: decimalOf(row.paid_amount).plus(input.amount).toFixed(2),
      paid_dkk: decimalOf(row.paid_dkk).plus(cleared).toFixed(2),
      ...(paidInFull ? { status: 'paid', paid_at: new Date() } : {}),
    },
    include: invoiceInclude,
  });
  await recordInvoiceEvent(db, scope, paidInFull ? 'invoice.paid' : 'invoice.updated', invoiceView(updated));
  return payment;
}
