// A match made: the invoice's or expense's payment registered through their own use cases (or a posting
// linked), in the same transaction as the line's new state.
import { Prisma, type BankLine, type Db } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { setExpenseStatus } from '../expenses/set-expense-status.ts';
import { registerPayment } from '../invoices/register-payment.ts';
import { decimalOf } from '../money.ts';
import { markMatched, openLedgerLines, type Bank, type Target } from './bank-line-match.ts';
import { payTaxAccount } from '../vat/tax-account.ts';

/** Posts (or links) the target and marks the line matched; the caller holds the line's lock. */
export async function applyMatch(db: Db, scope: CompanyScope, line: BankLine, bank: Bank, target: Target, by: 'auto' | 'manual'): Promise<BankLine> {
  const amount = decimalOf(line.amount);
  const date = fromDate(line.booking_date);
  const settle = { date, account_number: bank.account.account_number };
  if (target.type === 'vat_filing') return payTaxAccount(db, scope, line, bank, target.id, by);
  let transactionId: string;
  switch (target.type) {
    case 'invoice': {
      if (!amount.greaterThan(0)) throw invalidRequest(`A bank line of ${amount.toFixed(2)} is money out; an invoice is paid by money in.`, 'invoice_id');
      // The line's amount is in the bank account's currency; registerPayment reads it in the invoice's.
      const invoice = await db.invoice.findFirst({ where: { id: target.id, company_id: scope.companyId }, select: { currency: true } });
      if (invoice && invoice.currency !== bank.account.currency) {
        throw invalidRequest(`The invoice is in ${invoice.currency}; the bank account is in ${bank.account.currency}.`, 'invoice_id');
      }
      transactionId = (await registerPayment(db, scope, target.id, { amount, ...settle })).transaction_id;
      break;
    }
    case 'expense': {
      const expense = await db.expense.findFirst({ where: { id: target.id, company_id: scope.companyId } });
      if (!expense) throw notFound('expense', target.id);
      if (!decimalOf(expense.amount).negated().equals(amount)) {
        throw invalidRequest(
          `The bank line of ${amount.toFixed(2)} does not pay expense ${target.id} of ${decimalOf(expense.amount).toFixed(2)}: an expense is paid in full, the bank line carrying minus its amount.`,
          'expense_id',
        );
      }
      if (expense.currency !== bank.account.currency) {
        throw invalidRequest(`The expense is in ${expense.currency}; the bank account is in ${bank.account.currency}.`, 'expense_id');
      }
      await setExpenseStatus(db, scope, target.id, { status: 'paid', ...settle });
      transactionId = (await db.expense.findUniqueOrThrow({ where: { id: target.id } })).payment_transaction_id!;
      break;
    }
    case 'transaction':
      transactionId = target.id;
      break;
  }
  const journalLineId = target.journalLineId ?? (await openLedgerLines(db, scope, bank, amount, Prisma.sql`l.transaction_id = ${transactionId}::uuid`))[0]?.id;
  if (!journalLineId) {
    throw invalidRequest(
      `Transaction ${transactionId} has no line of ${amount.toFixed(2)} ${bank.account.currency} on account ${bank.account.account_number} that no other bank line reconciles.`,
      'transaction_id',
    );
  }
  return markMatched(db, line.id, {
    match_type: target.type,
    invoice_id: target.type === 'invoice' ? target.id : null,
    expense_id: target.type === 'expense' ? target.id : null,
    transaction_id: transactionId,
    journal_line_id: journalLineId,
    matched_by: by,
  });
}
