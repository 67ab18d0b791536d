// Imported statements as the API shows them: GET /bank-accounts/{id}/statements and .../{statement_id}.
import type { BankStatement, Db } from '@tlr/db';
import { fromDate } from '../../calendar.ts';
import { amountToJson } from '../../money.ts';
import type { CompanyScope } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../../lists/list.ts';
import { bankAccountOf } from '../lines.ts';
import type { BankStatementView } from '../schema.ts';

const money = (d: { toString(): string } | null) => (d === null ? null : amountToJson(d));

export function bankStatementView(r: BankStatement): BankStatementView {
  return {
    id: r.id,
    bank_account_id: r.bank_account_id,
    format: r.format,
    file_name: r.file_name,
    statement_ref: r.statement_ref,
    from_date: r.from_date ? fromDate(r.from_date) : null,
    to_date: r.to_date ? fromDate(r.to_date) : null,
    balance: {
      status: r.balance_status as BankStatementView['balance']['status'],
      opening: money(r.opening_balance),
      closing: money(r.closing_balance),
      difference: money(r.balance_difference),
    },
    lines: { total: r.line_count, new: r.new_count, duplicates: r.duplicate_count },
    created_at: r.created_at.toISOString(),
  };
}

export const BANK_STATEMENT_LIST = {
  sort: { created_at: 'created_at', from_date: 'from_date', to_date: 'to_date' },
  defaultSort: 'created_at',
  search: ['file_name', 'statement_ref'],
  dateColumn: 'created_at',
  dateDescription: 'import date',
} satisfies ListSpec;

export async function listBankStatements(db: Db, scope: CompanyScope, bankAccountId: string, params: ListParams): Promise<Page<BankStatementView>> {
  await bankAccountOf(db, scope, bankAccountId);
  return listPage(db.bankStatement, { company_id: scope.companyId, bank_account_id: bankAccountId }, params, BANK_STATEMENT_LIST, bankStatementView);
}

export async function getBankStatement(db: Db, scope: CompanyScope, bankAccountId: string, id: string): Promise<BankStatementView> {
  const row = await db.bankStatement.findFirst({ where: { id, bank_account_id: bankAccountId, company_id: scope.companyId } });
  if (!row) throw notFound('bank statement', id);
  return bankStatementView(row);
}
