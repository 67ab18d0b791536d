// POST /bank-lines/{id}/unmatch: a matched line unmatched again; what the match posted is reversed by a new
// entry, and the machine does not match the line again.
import type { BankLine, Db } from '@tlr/db';
import { fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { reverseExpensePayment } from '../expenses/reverse-expense-payment.ts';
import { reversePayment } from '../invoices/reverse-payment.ts';
import { postReversalOf } from '../ledger/documents.ts';
import { lockLine } from './bank-line-match.ts';

/**
 * POST /bank-lines/{id}/unmatch: the line is unmatched again. What the match posted is reversed by a new
 * entry (the invoice's or expense's payment, the line's own posting, an opening balance's payment made from
 * it); a posting that was only found is
 * left as it was, no longer reconciled.
 */
export async function unmatchBankLine(db: Db, scope: CompanyScope, id: string): Promise<BankLine> {
  const { line } = (await lockLine(db, scope, id))!;
  if (line.status !== 'matched') {
    throw new DomainError('bank_line_not_matched', `Bank line ${line.id} is not matched.`, undefined, { current_status: line.status });
  }
  const date = today();
  if (line.match_type === 'invoice') await reversePayment(db, scope, line.transaction_id!, date);
  if (line.match_type === 'expense') await reverseExpensePayment(db, scope, line.expense_id!, date);
  if (line.match_type === 'posting') {
    const reversal = await postReversalOf(db, scope, line.transaction_id!, {
      date: date < fromDate(line.booking_date) ? fromDate(line.booking_date) : date,
      description: `Tilbageført bankpostering: ${line.text}`.slice(0, 500),
      source: 'reversal',
      sourceId: line.id,
    });
    // An opening balance's payment made from the line no longer counts (decision 878); the row and both postings stay.
    await db.openingBalancePayment.updateMany({
      where: { company_id: scope.companyId, transaction_id: line.transaction_id!, reversed_transaction_id: null },
      data: { reversed_transaction_id: reversal.id },
    });
  }
  return db.bankLine.update({
    where: { id },
    data: {
      status: 'unmatched',
      match_type: null,
      invoice_id: null,
      expense_id: null,
      transaction_id: null,
      journal_line_id: null,
      matched_by: null,
      matched_at: null,
      // A line unmatched by hand is not matched again by the machine: it was wrong once.
      checked_at: new Date(),
    },
  });
}
