// Paying an expense (booked -> paid): the settlement posting, payables cleared at the booking's DKK and the
// bank at the payment's rate; a supplier's credit note is paid by the supplier's refund.
import type { Db } from '@tlr/db';
import { toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { paymentPosting, settlementAccount } from '../ledger/documents.ts';
import { postTransaction, type Posting } from '../ledger/post.ts';
import { Decimal } from '../money.ts';
import { documentCurrency } from '../currency/convert.ts';
import { toDkk } from '../currency/rules.ts';
import type { ExpenseStatusInput, ExpenseView } from './schema.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { announceExpense, type ExpenseRow } from './expense-rows.ts';

/** The accounts an expense's payment posts to: where the money went, payables, and the exchange difference. */
export interface ExpensePaymentAccounts {
  settlementId: string;
  payableId: string;
  differenceId: string;
}

/**
 * The posting of an expense's payment on `date` at the payment's `rate`, pure. Payables are cleared at
 * the booking's DKK; the bank pays at the payment's rate: the difference is the realised kursdifference.
 */
export function expensePaymentPosting(row: ExpenseRow, date: string, rate: Decimal, accounts: ExpensePaymentAccounts): Posting {
  const amount = new Decimal(row.amount.toString());
  const payables = { accountId: accounts.payableId, dkk: new Decimal(row.payable_dkk.toString()).abs(), rate: new Decimal(row.exchange_rate!.toString()) };
  const through = { accountId: accounts.settlementId, dkk: toDkk(amount.abs(), rate), rate };
  // A credit note is settled by the supplier's refund: the money comes in, so the bank is debited and
  // payables (a debit balance since booking) credited; the difference's side follows from the two.
  const refund = amount.isNegative();
  const [debit, credit] = refund ? [through, payables] : [payables, through];
  return paymentPosting({
    date,
    text: `${refund ? 'Refusion' : 'Betaling'}: ${row.description || 'udgift'}`,
    sourceId: row.id,
    debitAccountId: debit.accountId,
    creditAccountId: credit.accountId,
    debit: debit.dkk,
    credit: credit.dkk,
    differenceAccountId: accounts.differenceId,
    foreign: { currency: row.currency, amount: amount.abs(), debitRate: debit.rate, creditRate: credit.rate },
  });
}

/** Booked -> paid on `date`, through the bank account the status change names (or the default bank). */
export async function payExpense(db: Db, scope: CompanyScope, row: ExpenseRow, input: ExpenseStatusInput, date: string): Promise<ExpenseView> {
  const bank = await settlementAccount(db, scope, input, DEFAULT_ACCOUNTS.bank, [DEFAULT_ACCOUNTS.payable]);
  const account = (n: string) => db.account.findFirstOrThrow({ where: { company_id: scope.companyId, account_number: n } });
  const payable = await account(DEFAULT_ACCOUNTS.payable);
  const difference = await account(DEFAULT_ACCOUNTS.exchangeDifference);
  const fx = await documentCurrency(db, scope, row.currency, input.exchange_rate, date);
  const posted = await postTransaction(
    db,
    scope,
    expensePaymentPosting(row, date, fx.rate, { settlementId: bank.id, payableId: payable.id, differenceId: difference.id }),
  );
  const paid = await db.expense.update({ where: { id: row.id }, data: { status: 'paid', payment_transaction_id: posted.id, paid_date: toDate(date) } });
  return announceExpense(db, scope, 'expense.updated', paid);
}
