// An expense's lines in the database (expense_lines): made with the expense (a received e-invoice's),
// shown with it, re-accounted on a draft (PUT /expenses/{id}/lines/{line_id}), and, when the expense is
// booked, teaching each supplier's item its account (supplier_item_accounts). Decisions 681-686.
import { Prisma, type Db } from '@tlr/db';
import { checkDocumentDimensions } from '../dimensions/catalogue.ts';
import { someDimensions, type LineDimensions } from '../dimensions/schema.ts';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { amountToJson, Decimal, quantityToJson, rateToJson, sumAmounts } from '../money.ts';
import type { EinvoiceMessageView } from '../einvoice/schema.ts';
import { mainAccountOf, settleLineVat, type ExpenseLineKind, type LineAccountSource, type NewExpenseLine } from './line-rules.ts';
import type { ExpenseLineUpdate, ExpenseLineView, ExpenseView } from './schema.ts';
import { announceExpense, assertDraft, lockExpense, REVERSE_CHARGE_CODES, type ExpenseRow } from './expense-rows.ts';
import { expenseAccount } from './draft-checks.ts';
import { accrualColumns, rangeOf } from '../accruals/rules.ts';
import { accrualKey, accrualSchedules, accrualView } from '../accruals/accruals.ts';
import type { AccrualView } from '../accruals/schema.ts';

/**
 * Writes the lines of a new expense: their VAT settled to the expense's (settleLineVat), their accounts
 * by number (active expense accounts: a proposal is one, and a number that is not is refused by name).
 * The expense's amount must be their net amounts plus the VAT they carry (reverse charge: the nets):
 * the maker (the e-invoice import) keeps it so, and a mismatch is a programming error, not a 400.
 */
export async function insertExpenseLines(
  db: Db,
  scope: CompanyScope,
  e: Pick<ExpenseRow, 'id' | 'amount' | 'vat_amount' | 'vat_code'>,
  lines: readonly NewExpenseLine[],
): Promise<void> {
  if (!lines.length) return;
  const vat = settleLineVat(lines, new Decimal(e.vat_amount.toString()), e.vat_code);
  const carried = sumAmounts(lines.map((l, i) => (REVERSE_CHARGE_CODES.has(l.vat_code) ? l.net_amount : l.net_amount.plus(vat[i]!))));
  if (!carried.equals(e.amount.toString())) throw new Error(`expense ${e.id}: lines carry ${carried.toFixed(2)}, the amount is ${e.amount.toFixed(2)}`);
  const accounts = new Map<string, string>();
  for (const number of new Set(lines.map((l) => l.account_number))) accounts.set(number, (await expenseAccount(db, scope, number)).id);
  const rows = lines.map((l, i) => ({
    id: newId(),
    company_id: scope.companyId,
    expense_id: e.id,
    position: i + 1,
    kind: l.kind,
    description: l.description.slice(0, 500),
    item_id: l.item_id.slice(0, 200),
    item_key: l.item_key.slice(0, 500),
    quantity: l.quantity.toFixed(),
    unit: l.unit,
    unit_price: l.unit_price?.toFixed() ?? null,
    allowance_amount: l.allowance_amount.toFixed(2),
    charge_amount: l.charge_amount.toFixed(2),
    net_amount: l.net_amount.toFixed(2),
    vat_code: l.vat_code,
    vat_rate: l.vat_rate?.toFixed(2) ?? null,
    vat_amount: vat[i]!.toFixed(2),
    account_id: accounts.get(l.account_number)!,
    account_source: l.account_source,
  }));
  // 250 rows a statement (decisions 498, 688): Prisma's query compiler takes a call's whole arguments into its
  // WebAssembly memory, which grows to the largest call and never shrinks, and compiles them in one
  // stretch of the main thread (1,000 rows held it 170–240 ms).
  const n = expenseLineBounds.perInsert;
  for (let from = 0; from < rows.length; from += n) await db.expenseLine.createMany({ data: rows.slice(from, from + n) });
}

/** Rows per statement of insertExpenseLines (decisions 498, 688); a test lowers it to write a short document in parts. */
export const expenseLineBounds = { perInsert: 250 };

interface LineRow {
  id: string;
  expense_id: string;
  position: number;
  kind: string;
  description: string;
  item_id: string;
  quantity: Decimal;
  unit: string;
  unit_price: Decimal | null;
  allowance_amount: Decimal;
  charge_amount: Decimal;
  net_amount: Decimal;
  vat_code: string;
  vat_rate: Decimal | null;
  vat_amount: Decimal;
  account_id: string;
  account_number: string;
  account_source: string;
  dimensions: LineDimensions | null;
  accrual_from: Date | null;
  accrual_to: Date | null;
}

const lineView = (l: LineRow, schedules: ReadonlyMap<string, AccrualView['schedule']>): ExpenseLineView => ({
  id: l.id,
  position: l.position,
  kind: l.kind as ExpenseLineKind,
  description: l.description,
  item_id: l.item_id,
  quantity: quantityToJson(l.quantity),
  unit: l.unit,
  unit_price: l.unit_price === null ? null : quantityToJson(l.unit_price),
  allowance_amount: amountToJson(l.allowance_amount),
  charge_amount: amountToJson(l.charge_amount),
  net_amount: amountToJson(l.net_amount),
  vat_code: l.vat_code,
  vat_rate: l.vat_rate === null ? null : rateToJson(l.vat_rate),
  vat_amount: amountToJson(l.vat_amount),
  account_number: l.account_number,
  account_source: l.account_source as LineAccountSource,
  dimensions: l.dimensions ?? {},
  accrual: accrualView(rangeOf(l.accrual_from, l.accrual_to), schedules, accrualKey(l.expense_id, l.id)),
});

/** The rows of the expenses' lines, in order, with their accounts' numbers. */
async function lineRows(db: Db, expenseIds: readonly string[]): Promise<LineRow[]> {
  if (!expenseIds.length) return [];
  return db.$queryRaw<LineRow[]>`
    SELECT l.id, l.expense_id, l.position, l.kind, l.description, l.item_id, l.quantity, l.unit, l.unit_price, l.allowance_amount, l.charge_amount,
           l.net_amount, l.vat_code, l.vat_rate, l.vat_amount, l.account_id, a.account_number, l.account_source, l.dimensions, l.accrual_from, l.accrual_to
    FROM expense_lines l JOIN accounts a ON a.id = l.account_id
    WHERE l.expense_id = ANY(${expenseIds}::uuid[])
    ORDER BY l.expense_id, l.position`;
}

/** What an expense shows besides its own row: its lines, the e-invoice it was made from and its own accrual's months. */
export type ExpenseExtras = Pick<ExpenseView, 'lines' | 'einvoice'> & { schedule?: AccrualView['schedule'] };

/** The lines, the e-invoice and the accruals' months of each expense (three statements however many expenses: a list page's too). */
export async function expenseExtras(db: Db, expenseIds: readonly string[]): Promise<Map<string, ExpenseExtras>> {
  const [lines, messages, schedules] = await Promise.all([
    lineRows(db, expenseIds),
    expenseIds.length
      ? db.einvoiceMessage.findMany({
          where: { expense_id: { in: [...expenseIds] }, direction: 'inbound' },
          select: { id: true, expense_id: true, payment_means: true, attachment_voucher_ids: true },
        })
      : [],
    accrualSchedules(db, expenseIds),
  ]);
  const extras = new Map<string, ExpenseExtras>(
    expenseIds.map((id) => {
      const schedule = schedules.get(accrualKey(id, null));
      return [id, { lines: [], einvoice: null, ...(schedule ? { schedule } : {}) }];
    }),
  );
  for (const l of lines) extras.get(l.expense_id)?.lines.push(lineView(l, schedules));
  for (const m of messages) {
    const x = extras.get(m.expense_id!);
    if (x) {
      x.einvoice = {
        message_id: m.id,
        payment_means: Array.isArray(m.payment_means) ? (m.payment_means as unknown as EinvoiceMessageView['payment_means']) : [],
        attachments: m.attachment_voucher_ids,
      };
    }
  }
  return extras;
}

/**
 * An expense's lines as booking takes them: account, VAT code, net, VAT and dimensions (expenses/rules.ts
 * linesBookingLines), and what an accrual needs. A line's dimensions are the expense's with the line's own
 * over them, dimension by dimension (decision 855).
 */
export async function linesToBook(db: Db, expenseId: string, expenseDimensions: LineDimensions | undefined) {
  const rows = await db.expenseLine.findMany({
    where: { expense_id: expenseId },
    select: {
      id: true,
      position: true,
      description: true,
      account_id: true,
      vat_code: true,
      net_amount: true,
      vat_amount: true,
      dimensions: true,
      accrual_from: true,
      accrual_to: true,
    },
    orderBy: { position: 'asc' },
  });
  return rows.map((l) => ({
    id: l.id,
    position: l.position,
    description: l.description,
    accountId: l.account_id,
    code: l.vat_code,
    net: new Decimal(l.net_amount.toString()),
    vat: new Decimal(l.vat_amount.toString()),
    dimensions: someDimensions({ ...expenseDimensions, ...(l.dimensions as LineDimensions | null) }),
    accrual: rangeOf(l.accrual_from, l.accrual_to),
  }));
}

/** The expense's account (account_id) when it has lines: the account of their largest part. */
async function followLines(db: Db, expenseId: string, fallback: string): Promise<string> {
  const lines = await db.expenseLine.findMany({ where: { expense_id: expenseId }, select: { account_id: true, net_amount: true } });
  return mainAccountOf(
    lines.map((l) => ({ account: l.account_id, net: new Decimal(l.net_amount.toString()) })),
    fallback,
  );
}

/**
 * PUT /expenses/{id}/lines/{line_id}: a draft's line to another active expense account, chosen by a
 * person (account_source manual), the expense's own account following its lines' largest part; and/or
 * the line's own dimensions (checked as saved, null or {} clears them; decision 855); and/or the line's
 * accrual set or cleared (null).
 */
export async function updateExpenseLine(db: Db, scope: CompanyScope, id: string, lineId: string, input: ExpenseLineUpdate): Promise<ExpenseView> {
  if (input.account_number === undefined && input.dimensions === undefined && input.accrual === undefined)
    throw invalidRequest('Send account_number, dimensions, accrual or any of them together.', 'account_number');
  const row = await lockExpense(db, scope, id);
  assertDraft(row, 'changed');
  const line = await db.expenseLine.findFirst({ where: { id: lineId, expense_id: id }, select: { id: true } });
  if (!line) throw notFound('expense line', lineId);
  if (input.dimensions) await checkDocumentDimensions(db, scope.companyId, [{ dimensions: input.dimensions, field: 'dimensions' }]);
  const account = input.account_number === undefined ? null : await expenseAccount(db, scope, input.account_number);
  await db.expenseLine.update({
    where: { id: lineId },
    data: {
      ...(account ? { account_id: account.id, account_source: 'manual' } : {}),
      ...(input.dimensions === undefined ? {} : { dimensions: someDimensions(input.dimensions) ?? Prisma.DbNull }),
      ...(input.accrual === undefined ? {} : accrualColumns(input.accrual)),
    },
  });
  const updated = account ? await db.expense.update({ where: { id }, data: { account_id: await followLines(db, id, row.account_id) } }) : row;
  return announceExpense(db, scope, 'expense.updated', updated);
}

/** PUT /expenses/{id} with account_number on a draft with lines: every line to that account, chosen by a person. Answers whether it has lines. */
export async function accountAllLines(db: Db, expenseId: string, accountId: string): Promise<boolean> {
  const n = await db.expenseLine.updateMany({ where: { expense_id: expenseId }, data: { account_id: accountId, account_source: 'manual' } });
  return n.count > 0;
}

/** Whether an expense has lines (its amount is then theirs). */
export async function hasLines(db: Db, expenseId: string): Promise<boolean> {
  return (await db.expenseLine.findFirst({ where: { expense_id: expenseId }, select: { id: true } })) !== null;
}

/**
 * Booking teaches the supplier's items their accounts (decision 682): one upsert per item key, the last
 * booking winning. Two bookings at once: the second waits on the first's rows and overwrites them; the
 * keys are written in one order (sorted), so two bookings of overlapping items never deadlock. Two lines
 * of one item in one expense: the account of the larger.
 */
export async function learnItemAccounts(db: Db, scope: CompanyScope, expenseId: string, supplierId: string | null): Promise<void> {
  if (!supplierId) return;
  await db.$executeRaw`
    INSERT INTO supplier_item_accounts AS s (company_id, supplier_id, item_key, account_id, expense_id, booked_at)
    SELECT company_id, ${supplierId}::uuid, item_key, account_id, expense_id, now()
    FROM (SELECT DISTINCT ON (item_key) company_id, item_key, account_id, expense_id
          FROM expense_lines WHERE expense_id = ${expenseId}::uuid AND company_id = ${scope.companyId}::uuid AND item_key <> ''
          ORDER BY item_key, abs(net_amount) DESC, position) l
    ORDER BY item_key
    ON CONFLICT (company_id, supplier_id, item_key) DO UPDATE SET account_id = EXCLUDED.account_id, expense_id = EXCLUDED.expense_id, booked_at = EXCLUDED.booked_at`;
}

/** The accounts a supplier's items were last booked to, by item key: active expense accounts only (one deactivated since is passed over). */
export async function learnedItemAccounts(db: Db, scope: CompanyScope, supplierId: string, keys: readonly string[]): Promise<Map<string, string>> {
  if (!keys.length) return new Map();
  const rows = await db.$queryRaw<{ item_key: string; account_number: string }[]>`
    SELECT s.item_key, a.account_number FROM supplier_item_accounts s
    JOIN accounts a ON a.id = s.account_id AND a.company_id = s.company_id AND a.active AND a.type = 'expense'
    WHERE s.company_id = ${scope.companyId}::uuid AND s.supplier_id = ${supplierId}::uuid AND s.item_key = ANY(${[...keys]}::text[])`;
  return new Map(rows.map((r) => [r.item_key, r.account_number]));
}
