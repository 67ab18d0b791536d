// An expense's row as this folder's use cases take it: locked until the transaction ends, checked to be a
// draft, shown as the API answers it, announced to the outbox.
import type { Db, Prisma } from '@tlr/db';
import { isReverseCharge, VAT_CODES } from '../vat/codes.ts';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { amountToJson, rateToJson } from '../money.ts';
import { exchangeRateToJson } from '../currency/rules.ts';
import { LEGACY_EXPENSE_CODE, type ExpenseStatus } from './rules.ts';
import type { ExpenseView } from './schema.ts';
import { registrationView } from '../trail/actor.ts';
import { expenseExtras, type ExpenseExtras } from './lines.ts';
import { rangeOf } from '../accruals/rules.ts';
import type { AccrualView } from '../accruals/schema.ts';

/** The expense's own accrual: its range and, once booked, its months. */
function accrualOf(e: ExpenseRow, schedule: AccrualView['schedule'] = []): AccrualView | null {
  const range = rangeOf(e.accrual_from, e.accrual_to);
  return range ? { ...range, schedule } : null;
}

export type ExpenseRow = Prisma.ExpenseGetPayload<object>;

export function expenseView(e: ExpenseRow, accountNumber: string, extras: ExpenseExtras = { lines: [], einvoice: null }): ExpenseView {
  return {
    id: e.id,
    supplier_id: e.supplier_id,
    voucher_id: e.voucher_id,
    date: fromDate(e.date),
    due_date: fromDate(e.due_date),
    description: e.description,
    amount: amountToJson(e.amount),
    vat_amount: amountToJson(e.vat_amount),
    net_amount: amountToJson(REVERSE_CHARGE_CODES.has(e.vat_code) ? e.amount : e.amount.minus(e.vat_amount)),
    vat_code: e.vat_code || (e.vat_amount.isZero() ? '' : LEGACY_EXPENSE_CODE),
    vat_deductible_percent: e.vat_deductible_percent === null ? null : rateToJson(e.vat_deductible_percent),
    currency: e.currency,
    exchange_rate: e.exchange_rate === null ? null : exchangeRateToJson(e.exchange_rate),
    account_number: accountNumber,
    dimensions: (e.dimensions as Record<string, string> | null) ?? {},
    accrual: accrualOf(e, extras.schedule),
    lines: extras.lines,
    einvoice: extras.einvoice,
    status: e.status as ExpenseStatus,
    posted_transaction_id: e.posted_transaction_id,
    posted_system_id: e.posted_system_id === null ? null : Number(e.posted_system_id),
    payment_transaction_id: e.payment_transaction_id,
    paid_date: e.paid_date ? fromDate(e.paid_date) : null,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
    ...registrationView(e),
  };
}

/** The codes whose amount excludes the VAT (the seeded reverse charges). */
export const REVERSE_CHARGE_CODES: ReadonlySet<string> = new Set(VAT_CODES.filter((c) => isReverseCharge(c.kind)).map((c) => c.code));

export async function lockExpense(db: Db, scope: CompanyScope, id: string): Promise<ExpenseRow> {
  const [row] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM expenses WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!row) throw notFound('expense', id);
  return db.expense.findUniqueOrThrow({ where: { id } });
}

export async function readExpenseView(db: Db, row: ExpenseRow): Promise<ExpenseView> {
  const [account, extras] = await Promise.all([
    db.account.findUniqueOrThrow({ where: { id: row.account_id }, select: { account_number: true } }),
    expenseExtras(db, [row.id]),
  ]);
  return expenseView(row, account.account_number, extras.get(row.id));
}

export async function announceExpense(db: Db, scope: CompanyScope, type: 'expense.created' | 'expense.updated', row: ExpenseRow) {
  const v = await readExpenseView(db, row);
  await recordEvent(db, scope, type, v);
  return v;
}

export function assertDraft(row: ExpenseRow, action: string) {
  if (row.status !== 'draft') {
    throw new DomainError(
      'expense_not_draft',
      `Expense ${row.id} is ${row.status}; only a draft may be ${action}.${row.status === 'booked' ? ' Cancel it (PUT /expenses/{id}/status {"status":"cancelled"}) to reverse its posting.' : ''}`,
      undefined,
      {
        current_status: row.status,
      },
    );
  }
}
