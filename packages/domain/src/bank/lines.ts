// A bank line's view.
import type { BankLine } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import { amountToJson } from '../money.ts';
import type { BankLineView } from './schema.ts';

export function bankLineView(l: BankLine): BankLineView {
  return {
    id: l.id,
    bank_account_id: l.bank_account_id,
    statement_id: l.statement_id,
    booking_date: fromDate(l.booking_date),
    value_date: l.value_date ? fromDate(l.value_date) : null,
    amount: amountToJson(l.amount),
    currency: l.currency,
    text: l.text,
    counterparty_name: l.counterparty_name,
    counterparty_iban: l.counterparty_iban,
    reference: l.reference,
    bank_reference: l.bank_reference,
    status: l.status as BankLineView['status'],
    match:
      l.status === 'matched'
        ? {
            type: l.match_type as NonNullable<BankLineView['match']>['type'],
            invoice_id: l.invoice_id,
            expense_id: l.expense_id,
            transaction_id: l.transaction_id!,
            matched_by: l.matched_by as 'auto' | 'manual',
            matched_at: l.matched_at!.toISOString(),
          }
        : null,
    suggestions: l.suggestions as BankLineView['suggestions'],
    created_at: l.created_at.toISOString(),
  };
}
