// Bank lines as the API shows them (GET /bank-accounts/{id}/lines): the view of a row, which the
// matching and reconciliation code use too, and the list with the contract's parameters.
import type { BankLine, Db } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import { amountToJson } from '../money.ts';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { viewOf } from '../master-data.ts';
import { BANK_LINE_STATUSES, bankLineResource, type BankLineView } from './schema.ts';

type MatchView = NonNullable<BankLineView['match']>;
type SuggestionView = BankLineView['suggestions'][number];

/** A row of bank_lines as the `BankLine` resource: the match columns as one object (null while unmatched), amounts as JSON numbers. */
export const bankLineView: (row: BankLine) => BankLineView = viewOf<typeof bankLineResource, BankLine>(bankLineResource, {
  booking_date: (r) => fromDate(r.booking_date),
  value_date: (r) => (r.value_date ? fromDate(r.value_date) : null),
  amount: (r) => amountToJson(r.amount),
  match: (r) =>
    r.match_type
      ? {
          type: r.match_type as MatchView['type'],
          invoice_id: r.invoice_id,
          expense_id: r.expense_id,
          transaction_id: r.transaction_id,
          matched_by: (r.matched_by ?? 'auto') as MatchView['matched_by'],
          matched_at: (r.matched_at ?? r.created_at).toISOString(),
        }
      : null,
  status: (r) => r.status as BankLineView['status'],
  suggestions: (r) => (Array.isArray(r.suggestions) ? (r.suggestions as unknown as SuggestionView[]) : []),
});

export const BANK_LINE_LIST = {
  sort: { booking_date: 'booking_date', amount: 'amount', created_at: 'created_at' },
  defaultSort: 'booking_date',
  search: ['text', 'counterparty_name', 'reference'],
  dateColumn: 'booking_date',
  dateDescription: 'booking date',
  statuses: BANK_LINE_STATUSES,
} satisfies ListSpec;

/** The company's bank account, or 404 (another company's included). */
export async function bankAccountOf(db: Db, scope: CompanyScope, id: string) {
  const account = await db.bankAccount.findFirst({ where: { id, company_id: scope.companyId } });
  if (!account) throw notFound('bank account', id);
  return account;
}

export async function listBankLines(db: Db, scope: CompanyScope, bankAccountId: string, params: ListParams): Promise<Page<BankLineView>> {
  await bankAccountOf(db, scope, bankAccountId);
  return listPage(db.bankLine, { company_id: scope.companyId, bank_account_id: bankAccountId }, params, BANK_LINE_LIST, bankLineView);
}
