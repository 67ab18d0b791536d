// Expenses (a supplier's bill or a receipt): drafts that can be edited and deleted; booking posts them
// through the posting function (debit the expense account and input VAT, credit payables) with a number
// from the unified sequence; paying posts the settlement; cancelling a booked expense posts the
// reversal. A negative expense is a credit note from the supplier: its booking is the mirror of a bill's
// and paying it is the supplier's refund. A booked expense is never edited or deleted. A voucher
// attached to it documents the posting and is then kept for the retention period.
import type { Db, Prisma } from '@tlr/db';
import { isReverseCharge, VAT_CODES } from '../vat/codes.ts';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { postPayment, postReversalOf, settlementAccount } from '../ledger/documents.ts';
import { postTransaction } from '../ledger/post.ts';
import { listPage, type CurrencyFilter, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { amountToJson, Decimal, rateToJson } from '../money.ts';
import { exchangeRateToJson } from '../currency/rules.ts';
import { codeFor, postableCode, vatCodesOf } from '../vat/treatments.ts';
import { documentCurrency, givenRate, netOn, postingInDkk } from '../currency/convert.ts';
import { toDkk } from '../currency/rules.ts';
import { bookingLines, expenseVat, LEGACY_EXPENSE_CODE, LEGACY_EXPENSE_TREATMENT } from './rules.ts';
import { attachVoucherToExpense, detachVoucherFromExpense, markVoucherPosted } from '../vouchers/vouchers.ts';
// Types only: the schema reads EXPENSE_STATUSES from here.
import type { ExpenseInput, ExpenseStatusInput, ExpenseUpdate, ExpenseView } from './schema.ts';
import { registrationView } from '../trail/actor.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

export const EXPENSE_STATUSES = ['draft', 'booked', 'paid', 'cancelled'] as const;
export type ExpenseStatus = (typeof EXPENSE_STATUSES)[number];

/** draft -> booked (or deleted); booked -> paid or cancelled; paid and cancelled are final. */
export const EXPENSE_TRANSITIONS: Record<ExpenseStatus, readonly ExpenseStatus[]> = {
  draft: ['booked'],
  booked: ['paid', 'cancelled'],
  paid: [],
  cancelled: [],
};

export const EXPENSE_LIST = {
  sort: { created_at: 'created_at', date: 'date', amount: 'amount', currency: 'currency' },
  defaultSort: 'created_at',
  search: ['description'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  statuses: EXPENSE_STATUSES,
} satisfies ListSpec;

type ExpenseRow = Prisma.ExpenseGetPayload<object>;

function expenseView(e: ExpenseRow, accountNumber: string): ExpenseView {
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

/**
 * The VAT of a bill and its code's checks (expenseVat, rules.ts): with a code, under its treatment;
 * without one, as before codes (K25's rule, the VAT default 0). A stated deductible share needs a code.
 */
async function checkVat(
  db: Db,
  scope: CompanyScope,
  e: { amount: Decimal; vat: Decimal | undefined; code: string; deductible: Decimal | null | undefined },
): Promise<Decimal> {
  if (!e.code) {
    if (e.deductible) throw invalidRequest('vat_deductible_percent: states the deductible share of a vat_code; send one.', 'vat_deductible_percent');
    return expenseVat(LEGACY_EXPENSE_TREATMENT, e.amount, e.vat ?? new Decimal(0));
  }
  const code = codeFor(await vatCodesOf(db, scope, [e.code]), e.code, 'purchase', 'vat_code');
  return expenseVat(code, e.amount, e.vat);
}

/** The codes whose amount excludes the VAT (the seeded reverse charges). */
const REVERSE_CHARGE_CODES: ReadonlySet<string> = new Set(VAT_CODES.filter((c) => isReverseCharge(c.kind)).map((c) => c.code));

async function expenseAccount(db: Db, scope: CompanyScope, number: string = DEFAULT_ACCOUNTS.expense) {
  const account = await db.account.findFirst({ where: { company_id: scope.companyId, account_number: number } });
  if (!account) throw invalidRequest(`account_number: no account ${number} in the company's chart of accounts.`, 'account_number');
  if (!account.active) throw new DomainError('account_inactive', `Account ${number} is deactivated.`, 'account_number');
  if (account.type !== 'expense') throw invalidRequest(`account_number: ${number} ${account.name} is not an expense account.`, 'account_number');
  return account;
}

async function checkSupplier(db: Db, scope: CompanyScope, id: string | null | undefined) {
  if (!id) return;
  const supplier = await db.supplier.findFirst({ where: { id, company_id: scope.companyId, deleted_at: null }, select: { id: true } });
  if (!supplier) throw invalidRequest(`supplier_id: no supplier ${id} in this company.`, 'supplier_id');
}

function checkDates(date: string, due: string) {
  if (due < date) throw invalidRequest(`due_date: ${due} is before the expense date ${date}.`, 'due_date');
}

async function lockExpense(db: Db, scope: CompanyScope, id: string): Promise<ExpenseRow> {
  const [row] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM expenses WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!row) throw notFound('expense', id);
  return db.expense.findUniqueOrThrow({ where: { id } });
}

async function view(db: Db, row: ExpenseRow): Promise<ExpenseView> {
  const account = await db.account.findUniqueOrThrow({ where: { id: row.account_id }, select: { account_number: true } });
  return expenseView(row, account.account_number);
}

async function announce(db: Db, scope: CompanyScope, type: 'expense.created' | 'expense.updated', row: ExpenseRow) {
  const v = await view(db, row);
  await recordEvent(db, scope, type, v);
  return v;
}

export async function createExpense(db: Db, scope: CompanyScope, input: ExpenseInput): Promise<ExpenseView> {
  const vat = await checkVat(db, scope, { amount: input.amount, vat: input.vat_amount, code: input.vat_code ?? '', deductible: input.vat_deductible_percent });
  const currency = input.currency ?? 'DKK';
  const rate = givenRate(currency, input.exchange_rate);
  const due = input.due_date ?? input.date;
  checkDates(input.date, due);
  await checkSupplier(db, scope, input.supplier_id);
  const account = await expenseAccount(db, scope, input.account_number);
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
      status: 'draft',
    },
  });
  await announce(db, scope, 'expense.created', row);
  if (input.book) row = await book(db, scope, row);
  return view(db, row);
}

export async function getExpense(db: Db, scope: CompanyScope, id: string): Promise<ExpenseView> {
  const row = await db.expense.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('expense', id);
  return view(db, row);
}

export async function listExpenses(db: Db, scope: CompanyScope, params: ListParams & CurrencyFilter): Promise<Page<ExpenseView>> {
  const page = await listPage(
    db.expense,
    { company_id: scope.companyId, ...(params.currency ? { currency: params.currency } : {}) },
    params,
    EXPENSE_LIST,
    (e) => e,
  );
  const accounts = new Map(
    (await db.account.findMany({ where: { id: { in: [...new Set(page.data.map((e) => e.account_id))] } }, select: { id: true, account_number: true } })).map(
      (a) => [a.id, a.account_number],
    ),
  );
  return { ...page, data: page.data.map((e) => expenseView(e, accounts.get(e.account_id) ?? '')) };
}

function assertDraft(row: ExpenseRow, action: string) {
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

export async function updateExpense(db: Db, scope: CompanyScope, id: string, input: ExpenseUpdate): Promise<ExpenseView> {
  const row = await lockExpense(db, scope, id);
  assertDraft(row, 'changed');
  const amount = input.amount ?? new Decimal(row.amount.toString());
  const code = input.vat_code ?? row.vat_code;
  const deductible = input.vat_deductible_percent ?? (row.vat_deductible_percent && new Decimal(row.vat_deductible_percent.toString()));
  // A changed amount or code recomputes the VAT unless it is sent too.
  const keepVat = input.amount === undefined && input.vat_code === undefined;
  const vat = await checkVat(db, scope, {
    amount,
    vat: input.vat_amount ?? (keepVat ? new Decimal(row.vat_amount.toString()) : undefined),
    code,
    deductible,
  });
  const currency = input.currency ?? row.currency;
  const rate = givenRate(currency, input.exchange_rate === undefined ? row.exchange_rate && new Decimal(row.exchange_rate.toString()) : input.exchange_rate);
  const date = input.date ?? fromDate(row.date);
  const due = input.due_date ?? fromDate(row.due_date);
  checkDates(date, due);
  if (input.supplier_id !== undefined) await checkSupplier(db, scope, input.supplier_id);
  const account = input.account_number ? await expenseAccount(db, scope, input.account_number) : null;
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
    },
  });
  return announce(db, scope, 'expense.updated', updated);
}

export async function deleteExpense(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await lockExpense(db, scope, id);
  assertDraft(row, 'deleted');
  // Its voucher is free again (a draft has no posting, so nothing is under retention).
  await detachVoucherFromExpense(db, scope, id);
  await db.expense.delete({ where: { id } });
  await recordEvent(db, scope, 'expense.deleted', { id });
  return { id, deleted: true };
}

/** Draft -> booked: post (bookingLines, in DKK at the bill's rate) and mark the voucher posted. */
async function book(db: Db, scope: CompanyScope, row: ExpenseRow): Promise<ExpenseRow> {
  const payable = await db.account.findFirst({ where: { company_id: scope.companyId, account_number: DEFAULT_ACCOUNTS.payable } });
  if (!payable) throw new DomainError('chart_incomplete', `The chart of accounts has no account ${DEFAULT_ACCOUNTS.payable}, which an expense posts to.`);
  const dec = (v: { toString(): string }) => new Decimal(v.toString());
  const amount = dec(row.amount);
  const vat = dec(row.vat_amount);
  const code = row.vat_code || (vat.isZero() ? '' : LEGACY_EXPENSE_CODE);
  const treatment = code ? postableCode(codeFor(await vatCodesOf(db, scope, [code]), code, 'purchase', 'vat_code'), 'vat_code') : undefined;
  const text = (row.description || 'Udgift').slice(0, 500);
  const date = fromDate(row.date);
  const fx = await documentCurrency(db, scope, row.currency, row.exchange_rate && dec(row.exchange_rate), date);
  const made = bookingLines(
    { costAccountId: row.account_id, payableAccountId: payable.id, amount, vat, text },
    treatment,
    row.vat_deductible_percent ? dec(row.vat_deductible_percent) : undefined,
  );
  // Payables (the last line) balances the DKK posting.
  const lines = postingInDkk(made, fx, made.length - 1);
  const posted = await postTransaction(db, scope, {
    date,
    description: text,
    source: 'expense',
    sourceId: row.id,
    voucherId: row.voucher_id ?? undefined,
    lines,
  });
  if (row.voucher_id) await markVoucherPosted(db, scope, row.voucher_id, { id: posted.id, date }, { expenseId: row.id });
  const booked = await db.expense.update({
    where: { id: row.id },
    data: {
      status: 'booked',
      posted_transaction_id: posted.id,
      posted_system_id: posted.system_id,
      exchange_rate: fx.rate.toFixed(6),
      payable_dkk: netOn(lines, payable.id).negated().toFixed(2),
    },
  });
  await announce(db, scope, 'expense.updated', booked);
  return booked;
}

export async function setExpenseStatus(db: Db, scope: CompanyScope, id: string, input: ExpenseStatusInput): Promise<ExpenseView> {
  const row = await lockExpense(db, scope, id);
  const from = row.status as ExpenseStatus;
  if (from === input.status) return view(db, row);
  if (!EXPENSE_TRANSITIONS[from].includes(input.status)) {
    const allowed = EXPENSE_TRANSITIONS[from];
    throw new DomainError(
      'invalid_transition',
      `An expense that is ${from} cannot become ${input.status}; ${allowed.length ? `allowed next: ${allowed.join(', ')}` : `${from} is final`}.`,
      'status',
      {
        current_status: from,
        allowed_statuses: [...allowed],
      },
    );
  }
  const date = input.date ?? today();
  if (input.status === 'booked') return view(db, await book(db, scope, row));
  if (date < fromDate(row.date)) throw invalidRequest(`date: ${date} is before the expense date ${fromDate(row.date)}.`, 'date');
  if (input.status === 'paid') {
    const bank = await settlementAccount(db, scope, input, DEFAULT_ACCOUNTS.bank, [DEFAULT_ACCOUNTS.payable]);
    const account = (n: string) => db.account.findFirstOrThrow({ where: { company_id: scope.companyId, account_number: n } });
    const payable = await account(DEFAULT_ACCOUNTS.payable);
    const difference = await account(DEFAULT_ACCOUNTS.exchangeDifference);
    // Payables are cleared at the booking's DKK; the bank pays at the payment's rate: the difference is the realised kursdifference.
    const amount = new Decimal(row.amount.toString());
    const fx = await documentCurrency(db, scope, row.currency, input.exchange_rate, date);
    const payables = { accountId: payable.id, dkk: new Decimal(row.payable_dkk.toString()).abs(), rate: new Decimal(row.exchange_rate!.toString()) };
    const through = { accountId: bank.id, dkk: toDkk(amount.abs(), fx.rate), rate: fx.rate };
    // A credit note is settled by the supplier's refund: the money comes in, so the bank is debited and
    // payables (a debit balance since booking) credited; the difference's side follows from the two.
    const refund = amount.isNegative();
    const [debit, credit] = refund ? [through, payables] : [payables, through];
    const posted = await postPayment(db, scope, {
      date,
      text: `${refund ? 'Refusion' : 'Betaling'}: ${row.description || 'udgift'}`,
      sourceId: row.id,
      debitAccountId: debit.accountId,
      creditAccountId: credit.accountId,
      debit: debit.dkk,
      credit: credit.dkk,
      differenceAccountId: difference.id,
      foreign: { currency: row.currency, amount: amount.abs(), debitRate: debit.rate, creditRate: credit.rate },
    });
    const paid = await db.expense.update({ where: { id }, data: { status: 'paid', payment_transaction_id: posted.id, paid_date: toDate(date) } });
    return announce(db, scope, 'expense.updated', paid);
  }
  const reversal = await postReversalOf(db, scope, row.posted_transaction_id!, {
    date,
    description: `Annulleret udgift: ${row.description}`.slice(0, 500),
    source: 'expense',
    sourceId: row.id,
  });
  const cancelled = await db.expense.update({ where: { id }, data: { status: 'cancelled', reversal_transaction_id: reversal.id } });
  return announce(db, scope, 'expense.updated', cancelled);
}

/**
 * Undoes an expense's payment (its bank line was unmatched): the reversal of the payment's posting is
 * posted and the expense is booked (unpaid) again. The payment's posting stays, linked by its reversal.
 */
export async function reverseExpensePayment(db: Db, scope: CompanyScope, id: string, date = today()): Promise<ExpenseView> {
  const row = await lockExpense(db, scope, id);
  if (row.status !== 'paid' || !row.payment_transaction_id) return view(db, row);
  const paid = fromDate(row.paid_date ?? row.date);
  await postReversalOf(db, scope, row.payment_transaction_id, {
    date: date < paid ? paid : date,
    description: `Tilbageført ${row.amount.isNegative() ? 'refusion' : 'betaling'}: ${row.description || 'udgift'}`.slice(0, 500),
    source: 'reversal',
    sourceId: row.id,
  });
  const booked = await db.expense.update({ where: { id }, data: { status: 'booked', payment_transaction_id: null, paid_date: null } });
  return announce(db, scope, 'expense.updated', booked);
}
