// POST /expenses: a draft (a supplier's bill, a receipt, or a supplier's credit note when negative), its
// voucher attached; booked at once when the body says book.
import { checkDocumentDimensions } from '../dimensions/catalogue.ts';
import { accrualColumns } from '../accruals/rules.ts';
import type { Db } from '@tlr/db';
import { toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { newId } from '../ids.ts';
import { givenRate } from '../currency/convert.ts';
import { attachVoucherToExpense } from '../vouchers/vouchers.ts';
import type { ExpenseInput, ExpenseView } from './schema.ts';
import { announceExpense, readExpenseView } from './expense-rows.ts';
import { checkDates, checkSupplier, checkVat, expenseAccount } from './draft-checks.ts';
import { bookExpense } from './book-expense.ts';
import { insertExpenseLines } from './lines.ts';
import type { NewExpenseLine } from './line-rules.ts';

/**
 * `statedVat`: the VAT is a received document's, which its official rules accepted: tlr's cap warns through it, never refuses (expenseVat).
 * `lines`: the expense's lines (a received document's, einvoice/inbound.ts), which its amount and VAT are the sum of (decision 681).
 */
export async function createExpense(
  db: Db,
  scope: CompanyScope,
  input: ExpenseInput,
  statedVat?: (warning: string) => void,
  lines: readonly NewExpenseLine[] = [],
): Promise<ExpenseView> {
  const vat = await checkVat(
    db,
    scope,
    { amount: input.amount, vat: input.vat_amount, code: input.vat_code ?? '', deductible: input.vat_deductible_percent },
    statedVat,
  );
  const currency = input.currency ?? 'DKK';
  const rate = givenRate(currency, input.exchange_rate);
  const due = input.due_date ?? input.date;
  checkDates(input.date, due);
  await checkSupplier(db, scope, input.supplier_id);
  const account = await expenseAccount(db, scope, input.account_number);
  await checkDocumentDimensions(db, scope.companyId, [{ dimensions: input.dimensions ?? undefined, field: 'dimensions' }]);
  const id = newId();
  // Attached first: a voucher of another company (or mode) is refused before anything is created.
  if (input.voucher_id) await attachVoucherToExpense(db, scope, input.voucher_id, id);
  let row = await db.expense.create({
    data: {
      id,
      company_id: scope.companyId,
      supplier_id: input.supplier_id ?? null,
      voucher_id: input.voucher_id ?? null,
      date: toDate(input.date),
      due_date: toDate(due),
      description: input.description ?? '',
      amount: input.amount.toFixed(2),
      vat_amount: vat.toFixed(2),
      vat_code: input.vat_code ?? '',
      vat_deductible_percent: input.vat_deductible_percent?.toFixed(2) ?? null,
      currency,
      exchange_rate: rate?.toFixed(6) ?? null,
      account_id: account.id,
      ...(input.dimensions && Object.keys(input.dimensions).length ? { dimensions: input.dimensions } : {}),
      ...accrualColumns(input.accrual),
      status: 'draft',
    },
  });
  await insertExpenseLines(db, scope, row, lines);
  await announceExpense(db, scope, 'expense.created', row);
  if (input.book) row = await bookExpense(db, scope, row);
  return readExpenseView(db, row);
}
