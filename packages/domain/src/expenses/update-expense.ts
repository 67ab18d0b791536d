// PUT /expenses/{id}: a draft's changes; a changed amount or code recomputes the VAT. A booked expense is
// never edited (it is cancelled, which posts the reversal).
import { checkDocumentDimensions } from '../dimensions/catalogue.ts';
import { Prisma, type Db } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { Decimal } from '../money.ts';
import { givenRate } from '../currency/convert.ts';
import { attachVoucherToExpense, detachVoucherFromExpense } from '../vouchers/vouchers.ts';
import type { ExpenseUpdate, ExpenseView } from './schema.ts';
import { announceExpense, assertDraft, lockExpense } from './expense-rows.ts';
import { checkDates, checkSupplier, checkVat, expenseAccount } from './draft-checks.ts';
import { DomainError } from '../errors.ts';
import { accountAllLines, hasLines } from './lines.ts';
import { accrualColumns } from '../accruals/rules.ts';

export async function updateExpense(db: Db, scope: CompanyScope, id: string, input: ExpenseUpdate): Promise<ExpenseView> {
  const row = await lockExpense(db, scope, id);
  assertDraft(row, 'changed');
  // With lines the amount and VAT are theirs (decision 685): they are not set on the expense as a whole.
  const lined = await hasLines(db, id);
  if (lined) {
    const field = (['amount', 'vat_amount', 'vat_code', 'accrual'] as const).find((f) => (f === 'accrual' ? input.accrual : input[f] !== undefined));
    if (field) {
      throw new DomainError(
        'expense_has_lines',
        field === 'accrual'
          ? `accrual: expense ${id} is the sum of its lines; each line is accrued on its own with PUT /expenses/${id}/lines/{line_id}.`
          : `${field}: expense ${id} is the sum of its lines; its ${field === 'vat_code' ? 'VAT codes are' : `${field} is`} theirs. Change a line's account with PUT /expenses/${id}/lines/{line_id}, or delete the draft and enter the expense again.`,
        field,
      );
    }
  }
  const amount = input.amount ?? new Decimal(row.amount.toString());
  const code = input.vat_code ?? row.vat_code;
  const deductible = input.vat_deductible_percent ?? (row.vat_deductible_percent && new Decimal(row.vat_deductible_percent.toString()));
  // A changed amount or code recomputes the VAT unless it is sent too.
  const keepVat = input.amount === undefined && input.vat_code === undefined;
  // The VAT kept as it is was accepted already (a received e-invoice's may exceed the cap, decision 632):
  // changing the account or the text of such a draft does not refuse it now.
  const unchangedVat = keepVat && input.vat_amount === undefined;
  const vat = await checkVat(
    db,
    scope,
    {
      amount,
      vat: input.vat_amount ?? (keepVat ? new Decimal(row.vat_amount.toString()) : undefined),
      code,
      deductible,
    },
    unchangedVat ? () => {} : undefined,
  );
  const currency = input.currency ?? row.currency;
  const rate = givenRate(currency, input.exchange_rate === undefined ? row.exchange_rate && new Decimal(row.exchange_rate.toString()) : input.exchange_rate);
  const date = input.date ?? fromDate(row.date);
  const due = input.due_date ?? fromDate(row.due_date);
  checkDates(date, due);
  if (input.supplier_id !== undefined) await checkSupplier(db, scope, input.supplier_id);
  const account = input.account_number ? await expenseAccount(db, scope, input.account_number) : null;
  if (input.dimensions) await checkDocumentDimensions(db, scope.companyId, [{ dimensions: input.dimensions, field: 'dimensions' }]);
  // An account for the expense as a whole, with lines: every line to it, as a person chose.
  if (account && lined) await accountAllLines(db, id, account.id);
  if (input.voucher_id !== undefined && input.voucher_id !== row.voucher_id) {
    await detachVoucherFromExpense(db, scope, id);
    if (input.voucher_id) await attachVoucherToExpense(db, scope, input.voucher_id, id);
  }
  const updated = await db.expense.update({
    where: { id },
    data: {
      ...(input.supplier_id !== undefined ? { supplier_id: input.supplier_id } : {}),
      ...(input.voucher_id !== undefined ? { voucher_id: input.voucher_id } : {}),
      date: toDate(date),
      due_date: toDate(due),
      ...(input.description !== undefined ? { description: input.description } : {}),
      amount: amount.toFixed(2),
      vat_amount: vat.toFixed(2),
      vat_code: code,
      vat_deductible_percent: deductible?.toFixed(2) ?? null,
      currency,
      exchange_rate: rate?.toFixed(6) ?? null,
      ...(account ? { account_id: account.id } : {}),
      ...(input.accrual === undefined ? {} : accrualColumns(input.accrual)),
      ...(input.dimensions === undefined ? {} : { dimensions: input.dimensions && Object.keys(input.dimensions).length ? input.dimensions : Prisma.DbNull }),
    },
  });
  return announceExpense(db, scope, 'expense.updated', updated);
}
