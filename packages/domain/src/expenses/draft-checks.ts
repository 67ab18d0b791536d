// What creating and changing a draft expense checks: the VAT under its code, the expense account, the
// supplier and the dates.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { Decimal } from '../money.ts';
import { codeFor, vatCodesOf } from '../vat/treatments.ts';
import { expenseVat, LEGACY_EXPENSE_TREATMENT } from './rules.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

/**
 * The VAT of a bill and its code's checks (expenseVat, rules.ts): with a code, under its treatment;
 * without one, as before codes (K25's rule, the VAT default 0). A stated deductible share needs a code.
 */
export async function checkVat(
  db: Db,
  scope: CompanyScope,
  e: { amount: Decimal; vat: Decimal | undefined; code: string; deductible: Decimal | null | undefined },
  stated?: (warning: string) => void,
): Promise<Decimal> {
  if (!e.code) {
    if (e.deductible) throw invalidRequest('vat_deductible_percent: states the deductible share of a vat_code; send one.', 'vat_deductible_percent');
    return expenseVat(LEGACY_EXPENSE_TREATMENT, e.amount, e.vat ?? new Decimal(0), stated);
  }
  const code = codeFor(await vatCodesOf(db, scope, [e.code]), e.code, 'purchase', 'vat_code');
  return expenseVat(code, e.amount, e.vat, stated);
}

/** An active expense account of the company's chart, by number; `field` is the body's field that names it (a supplier's default too). */
export async function expenseAccount(db: Db, scope: CompanyScope, number: string = DEFAULT_ACCOUNTS.expense, field = 'account_number') {
  const account = await db.account.findFirst({ where: { company_id: scope.companyId, account_number: number } });
  if (!account) throw invalidRequest(`${field}: no account ${number} in the company's chart of accounts.`, field);
  if (!account.active) throw new DomainError('account_inactive', `Account ${number} is deactivated.`, field);
  if (account.type !== 'expense') throw invalidRequest(`${field}: ${number} ${account.name} is not an expense account.`, field);
  return account;
}

export async function checkSupplier(db: Db, scope: CompanyScope, id: string | null | undefined) {
  if (!id) return;
  const supplier = await db.supplier.findFirst({ where: { id, company_id: scope.companyId, deleted_at: null }, select: { id: true } });
  if (!supplier) throw invalidRequest(`supplier_id: no supplier ${id} in this company.`, 'supplier_id');
}

export function checkDates(date: string, due: string) {
  if (due < date) throw invalidRequest(`due_date: ${due} is before the expense date ${date}.`, 'due_date');
}
