// Fixed assets (anlægskartotek): create (also from a booked expense or one of its lines, in one call),
// read, update while nothing is depreciated, delete while nothing is posted, dispose (the gain or loss),
// each scoped to the caller's company; and the one function that posts an asset's next month of
// depreciation, which the daily job (depreciate-assets.ts) and a disposal's catch-up both call. Every
// posting goes through the journal writer, carrying the asset's dimensions. docs/assets.md; decisions
// 567-579, 841, 870-875.
import { isUniqueViolation, Prisma, type AssetDepreciation, type Db, type FixedAsset } from '@tlr/db';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { amountToJson, decimalOf, Decimal } from '../money.ts';
import { postTransaction } from '../ledger/post.ts';
import { postReversalOf } from '../ledger/documents.ts';
import { firstOpenDay } from '../ledger/books.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { dimensionsOf as storedDimensions, STORED_LINE_DIMENSIONS, type PostingLine, type StoredLineDimension } from '../ledger/rules.ts';
import { someDimensions, type LineDimensions } from '../dimensions/schema.ts';
import { checkDocumentDimensions, missingRequired, readCatalogue } from '../dimensions/catalogue.ts';
import { toDkk } from '../currency/rules.ts';
import { codeFor, postableCode, vatCodesOf } from '../vat/treatments.ts';
import { vatLines } from '../vat/codes.ts';
import { mainAccountOf } from '../expenses/line-rules.ts';
import {
  ASSET_GROUPS,
  ASSET_STATUSES,
  depreciationSchedule,
  disposalLines,
  monthEnd,
  monthsBetween,
  monthStart,
  SMALL_ASSET_LIMITS,
  type AssetGroup,
  type AssetStatus,
  type ScheduleMonth,
} from './rules.ts';
import type { AssetDisposeInput, AssetInput, AssetUpdate, AssetView, FullAssetView } from './schema.ts';

export const ASSET_LIST = {
  sort: { created_at: 'created_at', acquisition_date: 'acquisition_date', cost: 'cost', name: 'name' },
  defaultSort: 'created_at',
  search: ['name'],
  dateColumn: 'acquisition_date',
  dateDescription: 'acquisition date',
  statuses: ASSET_STATUSES,
} satisfies ListSpec;

type Account = { id: string; account_number: string; name: string; type: string };
const zero = () => new Decimal(0);

/** Dimensions as stored (jsonb, null for none) or given ({} for none): undefined when there are none. */
const dimensionsOf = (d: unknown): LineDimensions | undefined => someDimensions(d as LineDimensions | null | undefined);
/** A posting line carrying `dimensions`, when there are any. */
const tagged = (l: PostingLine, dimensions: LineDimensions | undefined): PostingLine => (dimensions ? { ...l, dimensions } : l);

/** What the job could not post, kept on the asset (decision 875). */
export interface DepreciationFailure {
  month: string;
  code: string;
  detail: string;
}

export const assetSchedule = (a: Pick<FixedAsset, 'acquisition_date' | 'cost' | 'residual_value' | 'useful_life_months'>): ScheduleMonth[] =>
  depreciationSchedule({
    acquisition_date: fromDate(a.acquisition_date),
    cost: decimalOf(a.cost),
    residual_value: decimalOf(a.residual_value),
    useful_life_months: a.useful_life_months,
  });

/** The account numbers of the accounts the rows name, read once for a page of assets. */
async function accountNumbers(db: Db, companyId: string, rows: FixedAsset[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.flatMap((r) => [r.asset_account_id, r.accumulated_account_id, r.depreciation_account_id]))];
  const accounts = ids.length
    ? await db.account.findMany({ where: { company_id: companyId, id: { in: ids } }, select: { id: true, account_number: true } })
    : [];
  return new Map(accounts.map((a) => [a.id, a.account_number]));
}

function view(row: FixedAsset, numbers: Map<string, string>): AssetView {
  const schedule = assetSchedule(row);
  const cost = decimalOf(row.cost);
  const depreciated = decimalOf(row.depreciated);
  const status = row.status as AssetStatus;
  return {
    id: row.id,
    name: row.name,
    group: row.group as AssetGroup,
    acquisition_date: fromDate(row.acquisition_date),
    cost: amountToJson(cost),
    useful_life_months: row.useful_life_months,
    residual_value: amountToJson(row.residual_value),
    asset_account_number: numbers.get(row.asset_account_id) ?? '',
    accumulated_account_number: numbers.get(row.accumulated_account_id) ?? '',
    depreciation_account_number: numbers.get(row.depreciation_account_id) ?? '',
    expense_id: row.expense_id,
    expense_line_id: row.expense_line_id,
    transaction_id: row.transaction_id,
    capitalisation_transaction_id: row.capitalisation_transaction_id,
    status,
    monthly_depreciation: amountToJson(schedule[0]!.amount),
    months_depreciated: row.months_posted,
    accumulated_depreciation: amountToJson(depreciated),
    book_value: amountToJson(status === 'disposed' ? zero() : cost.minus(depreciated)),
    next_depreciation_month: status === 'active' ? (schedule[row.months_posted]?.month ?? null) : null,
    disposed_date: row.disposed_date ? fromDate(row.disposed_date) : null,
    disposal_proceeds: row.disposal_proceeds === null ? null : amountToJson(row.disposal_proceeds),
    disposal_transaction_id: row.disposal_transaction_id,
    dimensions: dimensionsOf(row.dimensions) ?? {},
    depreciation_failure: (row.depreciation_failure as (DepreciationFailure & { failed_at: string }) | null) ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function fullView(db: Db, row: FixedAsset, numbers?: Map<string, string>): Promise<FullAssetView> {
  const base = view(row, numbers ?? (await accountNumbers(db, row.company_id, [row])));
  const posted = await db.assetDepreciation.findMany({ where: { asset_id: row.id }, orderBy: { month: 'asc' } });
  const byMonth = new Map<string, AssetDepreciation>(posted.map((p) => [fromDate(p.month), p]));
  const cost = decimalOf(row.cost);
  // After a disposal, the months not depreciated are left out: they never will be.
  const months = row.status === 'disposed' ? assetSchedule(row).slice(0, row.months_posted) : assetSchedule(row);
  let sum = zero();
  const schedule = months.map((m) => {
    sum = sum.plus(m.amount);
    const p = byMonth.get(m.month);
    return {
      month: m.month,
      amount: amountToJson(m.amount),
      accumulated_depreciation: amountToJson(sum),
      book_value: amountToJson(cost.minus(sum)),
      posted: Boolean(p),
      date: p ? fromDate(p.date) : null,
      transaction_id: p?.transaction_id ?? null,
    };
  });
  const others = [row.capitalisation_transaction_id, row.disposal_transaction_id].filter((id): id is string => Boolean(id));
  const dates = new Map(
    (others.length
      ? await db.ledgerTransaction.findMany({ where: { company_id: row.company_id, id: { in: others } }, select: { id: true, date: true } })
      : []
    ).map((t) => [t.id, fromDate(t.date)]),
  );
  const postings: FullAssetView['postings'] = [];
  if (row.capitalisation_transaction_id)
    postings.push({
      kind: 'capitalisation',
      date: dates.get(row.capitalisation_transaction_id)!,
      amount: amountToJson(cost),
      transaction_id: row.capitalisation_transaction_id,
    });
  for (const p of posted) postings.push({ kind: 'depreciation', date: fromDate(p.date), amount: amountToJson(p.amount), transaction_id: p.transaction_id });
  if (row.disposal_transaction_id)
    postings.push({ kind: 'disposal', date: dates.get(row.disposal_transaction_id)!, amount: amountToJson(cost), transaction_id: row.disposal_transaction_id });
  postings.sort((a, b) => a.date.localeCompare(b.date));
  return { ...base, schedule, postings };
}

/** The asset of the caller's company, its row locked until commit (SKIP LOCKED: null when another transaction holds it). */
async function lockAsset(db: Db, scope: CompanyScope, id: string, skipLocked = false): Promise<FixedAsset | null> {
  const [locked] = skipLocked
    ? await db.$queryRaw<{ id: string }[]>`SELECT id FROM fixed_assets WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE SKIP LOCKED`
    : await db.$queryRaw<{ id: string }[]>`SELECT id FROM fixed_assets WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) return null;
  return db.fixedAsset.findUnique({ where: { id } });
}

async function lockedAsset(db: Db, scope: CompanyScope, id: string): Promise<FixedAsset> {
  const row = await lockAsset(db, scope, id);
  if (!row) throw notFound('asset', id);
  return row;
}

const line = (account: Pick<Account, 'id' | 'account_number' | 'name'>, side: 'debit' | 'credit', amount: Decimal, description: string): PostingLine => ({
  accountId: account.id,
  account: { account_number: account.account_number, name: account.name },
  debit: side === 'debit' ? amount : zero(),
  credit: side === 'credit' ? amount : zero(),
  description,
  vatCode: '',
});

/**
 * Posts the asset's next month of depreciation when its last day is on or before `day` (and, for a
 * disposal, the month lies before `before`): on that day, or on the first open day after a lock or a
 * closed year when that is still on or before `day` (decision 571). One month per call, under the
 * asset's row lock, keyed by asset and month (decision 570). Answers the month posted, or null.
 */
export async function depreciateNextMonth(
  db: Db,
  scope: CompanyScope,
  id: string,
  opts: { day: string; before?: string; skipLocked?: boolean },
): Promise<string | null> {
  const row = await lockAsset(db, scope, id, opts.skipLocked);
  if (!row || row.status !== 'active') return null;
  const m = assetSchedule(row)[row.months_posted];
  if (!m) return null;
  const end = monthEnd(m.month);
  if (end > opts.day || (opts.before && m.month >= opts.before)) return null;
  const date = await firstOpenDay(db, scope.companyId, end);
  if (date > opts.day) return null;
  const accounts = await db.account.findMany({
    where: { company_id: scope.companyId, id: { in: [row.depreciation_account_id, row.accumulated_account_id] } },
    select: { id: true, account_number: true, name: true },
  });
  const expense = accounts.find((a) => a.id === row.depreciation_account_id)!;
  const accumulated = accounts.find((a) => a.id === row.accumulated_account_id)!;
  const text = `Afskrivning ${m.month.slice(0, 7)}: ${row.name}`.slice(0, 500);
  const posted = await postTransaction(db, scope, {
    date,
    description: text,
    source: 'depreciation',
    sourceId: row.id,
    // Both lines carry the asset's dimensions, a value retired since included (decisions 872, 873).
    lines: [line(expense, 'debit', m.amount, text), line(accumulated, 'credit', m.amount, text)].map((l) => tagged(l, dimensionsOf(row.dimensions))),
  });
  await db.assetDepreciation.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      asset_id: row.id,
      month: toDate(m.month),
      amount: m.amount.toFixed(2),
      transaction_id: posted.id,
      date: toDate(date),
    },
  });
  const months = row.months_posted + 1;
  const depreciated = decimalOf(row.depreciated).plus(m.amount);
  await db.fixedAsset.update({
    where: { id: row.id },
    data: {
      months_posted: months,
      depreciated: depreciated.toFixed(2),
      status: months >= row.useful_life_months ? 'fully_depreciated' : 'active',
      depreciation_failure: Prisma.DbNull,
    },
  });
  await recordEvent(db, scope, 'asset.depreciated', {
    asset_id: row.id,
    month: m.month,
    amount: amountToJson(m.amount),
    date,
    transaction_id: posted.id,
    accumulated_depreciation: amountToJson(depreciated),
    book_value: amountToJson(decimalOf(row.cost).minus(depreciated)),
  });
  return m.month;
}

/** The company's account by number, of the kind the field needs: 400 naming the field otherwise. */
async function accountFor(db: Db, scope: CompanyScope, number: string, field: string, kind: 'balance' | 'expense'): Promise<Account> {
  const a = await db.account.findFirst({
    where: { company_id: scope.companyId, account_number: number },
    select: { id: true, account_number: true, name: true, type: true },
  });
  if (!a) throw invalidRequest(`No account ${number} in the company's chart of accounts.`, field);
  if (kind === 'balance' && a.type !== 'asset')
    throw invalidRequest(`Account ${number} ${a.name} is a ${a.type} account; ${field} is a balance-sheet asset account.`, field);
  if (kind === 'expense' && a.type !== 'expense')
    throw invalidRequest(`Account ${number} ${a.name} is a ${a.type} account; ${field} is an expense account.`, field);
  return a;
}

interface Terms {
  group: AssetGroup;
  acquisition_date: string;
  cost: Decimal;
  residual_value: Decimal;
  useful_life_months: number;
}

/** The figures' own rules: the residual below the cost, and at least one øre a month to depreciate. */
function checkTerms(t: Terms) {
  if (t.residual_value.greaterThanOrEqualTo(t.cost))
    throw invalidRequest(`residual_value ${t.residual_value.toFixed(2)} must be less than cost ${t.cost.toFixed(2)}.`, 'residual_value');
  if (t.cost.minus(t.residual_value).lessThan(new Decimal('0.01').times(t.useful_life_months)))
    throw invalidRequest(`cost − residual_value must be at least 0.01 per month of useful_life_months (${t.useful_life_months}).`, 'useful_life_months');
}

/** The expense, booked or paid, under its row lock, as a status change takes it: a cancellation at the same moment waits and then sees the asset (decision 579). */
async function lockedBookedExpense(db: Db, scope: CompanyScope, expenseId: string, field: string) {
  const [locked] = await db.$queryRaw<
    { id: string }[]
  >`SELECT id FROM expenses WHERE id = ${expenseId}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  const expense = locked ? await db.expense.findUnique({ where: { id: expenseId } }) : null;
  if (!expense) throw invalidRequest(`No expense ${expenseId} in this company.`, field);
  if ((expense.status !== 'booked' && expense.status !== 'paid') || !expense.posted_transaction_id)
    throw invalidRequest(`The expense is ${expense.status}: only a booked or paid expense can become an asset.`, field);
  return expense;
}

/**
 * Where an asset made from an expense or one of its lines came from: its date, the credits that take its
 * cost off the expense's accounts (each with the dimensions the cost was posted with), and the asset's
 * default dimensions (decision 872).
 */
interface Origin {
  date: string;
  credits: { accountId: string; amount: Decimal; dimensions: LineDimensions | undefined }[];
  dimensions: LineDimensions | undefined;
}

/**
 * The expense's own account's lines in its posting, netted per set of dimensions (decision 876): the
 * expense-level dimensions when its lines carry none, one set per line's dimensions when they do
 * (decision 855), in the order first posted. A set that nets to nil is left out.
 */
function costBySet(
  lines: readonly { debit: { toString(): string }; credit: { toString(): string }; dimensions: readonly StoredLineDimension[] }[],
): { amount: Decimal; dimensions: LineDimensions | undefined }[] {
  const sets = new Map<string, { amount: Decimal; dimensions: LineDimensions | undefined }>();
  for (const l of lines) {
    const dimensions = l.dimensions.length ? storedDimensions(l.dimensions) : undefined;
    const key = JSON.stringify(dimensions ?? {});
    const set = sets.get(key) ?? { amount: zero(), dimensions };
    set.amount = set.amount.plus(l.debit.toString()).minus(l.credit.toString());
    sets.set(key, set);
  }
  return [...sets.values()].filter((s) => !s.amount.isZero());
}

/** What the expense posted to its own account (debit − credit, DKK): the asset's cost (decision 572). One asset per expense, none once a line of it is one. */
async function expenseCost(db: Db, scope: CompanyScope, expenseId: string) {
  const expense = await lockedBookedExpense(db, scope, expenseId, 'expense_id');
  if (await db.fixedAsset.findFirst({ where: { company_id: scope.companyId, expense_id: expenseId }, select: { id: true } }))
    throw new DomainError('asset_exists', `The expense ${expenseId}, or a line of it, is an asset already.`, 'expense_id');
  const lines = await db.transactionLine.findMany({
    where: { company_id: scope.companyId, transaction_id: expense.posted_transaction_id!, account_id: expense.account_id },
    orderBy: { line_number: 'asc' },
    include: { dimensions: STORED_LINE_DIMENSIONS },
  });
  const sets = costBySet(lines);
  const cost = sets.reduce((s, c) => s.plus(c.amount), zero());
  if (!cost.isPositive() || cost.isZero())
    throw invalidRequest('The expense posted no cost to its account (a credit note cannot become an asset).', 'expense_id');
  // One credit per set of dimensions booking posted the cost with, as booked (decisions 841, 876).
  const origin: Origin = {
    date: fromDate(expense.date),
    credits: sets.map((c) => ({ accountId: expense.account_id, ...c })),
    dimensions: dimensionsOf(expense.dimensions),
  };
  return { expense, cost, origin };
}

/**
 * What one line of a booked expense cost (decision 870): its net amount and its share of the VAT that is
 * not deductible, in DKK at the rate the expense was booked at; the credits take the net off the line's
 * account and the VAT share off the account booking charged it to (the largest account of the line's VAT
 * code, expenses/rules.ts linesBookingLines). One asset per line, none for a line of an expense that is
 * an asset as a whole; checked under the expense's row lock, and by the unique keys.
 */
async function expenseLineCost(db: Db, scope: CompanyScope, lineId: string, expenseId: string | undefined) {
  const l = await db.expenseLine.findFirst({ where: { id: lineId, company_id: scope.companyId } });
  if (!l) throw invalidRequest(`No expense line ${lineId} in this company.`, 'expense_line_id');
  if (expenseId && expenseId !== l.expense_id)
    throw invalidRequest(`The line ${lineId} is a line of the expense ${l.expense_id}, not of expense_id.`, 'expense_line_id');
  const expense = await lockedBookedExpense(db, scope, l.expense_id, 'expense_line_id');
  const taken = await db.fixedAsset.findFirst({
    where: { company_id: scope.companyId, expense_id: expense.id, OR: [{ expense_line_id: null }, { expense_line_id: lineId }] },
    select: { expense_line_id: true },
  });
  if (taken)
    throw new DomainError(
      'asset_exists',
      taken.expense_line_id ? `The line ${lineId} is an asset already.` : `The expense ${expense.id} is an asset as a whole already.`,
      'expense_line_id',
    );
  if (l.accrual_from) throw invalidRequest('The line is accrued over months: its cost went to prepaid expenses, not to its account.', 'expense_line_id');
  const net = decimalOf(l.net_amount);
  if (!net.isPositive() || net.isZero())
    throw invalidRequest(`The line's net amount is ${net.toFixed(2)}: an allowance or a credit cannot become an asset.`, 'expense_line_id');
  const vat = decimalOf(l.vat_amount);
  let nonDeductible = vat;
  if (l.vat_code && !vat.isZero()) {
    const t = postableCode(codeFor(await vatCodesOf(db, scope, [l.vat_code]), l.vat_code, 'purchase', 'vat_code'));
    nonDeductible = vatLines(t, vat, '', expense.vat_deductible_percent ? decimalOf(expense.vat_deductible_percent) : undefined).nonDeductible;
  }
  const rate = expense.exchange_rate ? decimalOf(expense.exchange_rate) : new Decimal(1);
  // The line's dimensions as booking posted them: the expense's, the line's own over them (decision 855).
  const dimensions = dimensionsOf({ ...(expense.dimensions as LineDimensions | null), ...(l.dimensions as LineDimensions | null) });
  const credits = [{ accountId: l.account_id, amount: toDkk(net, rate), dimensions }];
  if (!nonDeductible.isZero()) {
    const sameCode = await db.expenseLine.findMany({
      where: { expense_id: expense.id, vat_code: l.vat_code },
      select: { account_id: true, net_amount: true },
      orderBy: { position: 'asc' },
    });
    const accountId = mainAccountOf(
      sameCode.map((x) => ({ account: x.account_id, net: decimalOf(x.net_amount) })),
      l.account_id,
    );
    const amount = toDkk(nonDeductible, rate);
    if (accountId === l.account_id) credits[0]!.amount = credits[0]!.amount.plus(amount);
    else credits.push({ accountId, amount, dimensions });
  }
  const cost = credits.reduce((s, c) => s.plus(c.amount), zero());
  const origin: Origin = { date: fromDate(expense.date), credits, dimensions };
  return { expense, cost, origin };
}

/**
 * The asset's dimensions checked (decision 874): a value given is known and in use (one the asset holds
 * already may be retired since: it keeps it), and every dimension the company requires on one of the
 * asset's accounts has a value, else its postings would be refused (the job's every month).
 */
async function checkAssetDimensions(
  db: Db,
  scope: CompanyScope,
  o: { dimensions: LineDimensions | undefined; given: LineDimensions | null | undefined; kept?: LineDimensions | undefined; accountIds: string[] },
) {
  const fresh = Object.fromEntries(Object.entries(o.given ?? {}).filter(([name, code]) => o.kept?.[name] !== code));
  await checkDocumentDimensions(db, scope.companyId, [{ dimensions: fresh, field: 'dimensions' }]);
  const missing = missingRequired(await readCatalogue(db, scope.companyId), o.accountIds, o.dimensions);
  if (!missing) return;
  const account = await db.account.findUnique({ where: { id: missing.accountId }, select: { account_number: true } });
  throw new DomainError(
    'dimension_required',
    `The company requires a value of the dimension ${missing.dimension} on account ${account?.account_number}, which the asset posts to: give dimensions.${missing.dimension}.`,
    `dimensions.${missing.dimension}`,
  );
}

export async function createAsset(db: Db, scope: CompanyScope, input: AssetInput): Promise<FullAssetView> {
  const fromExpense = input.expense_id ?? input.expense_line_id;
  if (fromExpense && input.transaction_id) throw invalidRequest('An asset comes from an expense or from a posting, not both.', 'transaction_id');
  const group = input.group ?? 'operating_equipment';
  const defaults = ASSET_GROUPS[group];
  let terms: Terms;
  let from: Origin | null = null;
  let expenseId: string | null = null;
  let assetNumber = input.asset_account_number ?? defaults.asset;
  if (fromExpense) {
    const source = input.expense_line_id ? 'expense_line_id' : 'expense_id';
    for (const f of ['cost', 'acquisition_date'] as const)
      if (input[f] !== undefined) throw invalidRequest(`${f} is taken from the expense; leave it out with ${source}.`, f);
    const { expense, cost, origin } = input.expense_line_id
      ? await expenseLineCost(db, scope, input.expense_line_id, input.expense_id)
      : await expenseCost(db, scope, input.expense_id!);
    if (!input.expense_line_id) {
      const own = await db.account.findFirst({ where: { id: expense.account_id }, select: { account_number: true, type: true } });
      // An expense posted to a balance-sheet account was posted as an asset already: that account is its asset account.
      if (!input.asset_account_number && own?.type === 'asset') assetNumber = own.account_number;
    }
    terms = {
      group,
      acquisition_date: fromDate(expense.date),
      cost,
      residual_value: input.residual_value ?? zero(),
      useful_life_months: input.useful_life_months,
    };
    from = origin;
    expenseId = expense.id;
  } else {
    if (input.cost === undefined) throw invalidRequest('cost is required (or expense_id, to take it from a booked expense).', 'cost');
    if (input.acquisition_date === undefined)
      throw invalidRequest('acquisition_date is required (or expense_id, to take it from a booked expense).', 'acquisition_date');
    if (
      input.transaction_id &&
      !(await db.ledgerTransaction.findFirst({ where: { id: input.transaction_id, company_id: scope.companyId }, select: { id: true } }))
    )
      throw invalidRequest(`No transaction ${input.transaction_id} in this company.`, 'transaction_id');
    terms = {
      group,
      acquisition_date: input.acquisition_date,
      cost: input.cost,
      residual_value: input.residual_value ?? zero(),
      useful_life_months: input.useful_life_months,
    };
  }
  checkTerms(terms);
  const asset = await accountFor(db, scope, assetNumber, 'asset_account_number', 'balance');
  const accumulated = await accountFor(db, scope, input.accumulated_account_number ?? defaults.accumulated, 'accumulated_account_number', 'balance');
  const depreciation = await accountFor(db, scope, input.depreciation_account_number ?? defaults.depreciation, 'depreciation_account_number', 'expense');
  // Its own dimensions, by default those of the expense or line it came from (decision 872).
  const dimensions = input.dimensions !== undefined ? dimensionsOf(input.dimensions) : from?.dimensions;
  await checkAssetDimensions(db, scope, { dimensions, given: input.dimensions, accountIds: [asset.id, accumulated.id, depreciation.id] });
  const id = newId();
  let capitalisation: string | null = null;
  if (from && from.credits.some((c) => c.accountId !== asset.id)) {
    // The cost moves from the accounts the expense was posted to onto the asset account (decisions 572, 870), and
    // out of the expense's dimensions with it: the credits carry what its cost lines carried (decision 841),
    // the debit the asset's own (decision 872).
    const credited = await db.account.findMany({
      where: { company_id: scope.companyId, id: { in: from.credits.map((c) => c.accountId) } },
      select: { id: true, account_number: true, name: true },
    });
    const text = `Aktivering: ${input.name}`.slice(0, 500);
    const posted = await postTransaction(db, scope, {
      date: await firstOpenDay(db, scope.companyId, from.date),
      description: text,
      source: 'asset',
      sourceId: id,
      lines: [
        tagged(line(asset, 'debit', terms.cost, text), dimensions),
        // A set that booking netted to a credit (an allowance of its own project) is turned back by a debit.
        ...from.credits.map((c) =>
          tagged(
            line(
              credited.find((a) => a.id === c.accountId)!,
              c.amount.isNegative() ? 'debit' : 'credit',
              c.amount.abs(),
              text,
            ),
            c.dimensions,
          ),
        ),
      ],
    });
    capitalisation = posted.id;
  }
  let row: FixedAsset;
  try {
    row = await db.fixedAsset.create({
      data: {
        id,
        company_id: scope.companyId,
        name: input.name,
        group,
        acquisition_date: toDate(terms.acquisition_date),
        cost: terms.cost.toFixed(2),
        useful_life_months: terms.useful_life_months,
        residual_value: terms.residual_value.toFixed(2),
        asset_account_id: asset.id,
        accumulated_account_id: accumulated.id,
        depreciation_account_id: depreciation.id,
        expense_id: expenseId,
        expense_line_id: input.expense_line_id ?? null,
        transaction_id: input.transaction_id ?? null,
        capitalisation_transaction_id: capitalisation,
        dimensions: dimensions ?? Prisma.DbNull,
      },
    });
  } catch (e) {
    // Two creates from the same expense or line at once: the unique keys let one through.
    if (isUniqueViolation(e))
      throw new DomainError('asset_exists', 'The expense or line is an asset already.', input.expense_line_id ? 'expense_line_id' : 'expense_id');
    throw e;
  }
  const numbers = new Map([asset, accumulated, depreciation].map((a) => [a.id, a.account_number]));
  const result = await fullView(db, row, numbers);
  await recordEvent(db, scope, 'asset.created', view(row, numbers));
  return result;
}

export async function getAsset(db: Db, scope: CompanyScope, id: string): Promise<FullAssetView> {
  const row = await db.fixedAsset.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('asset', id);
  return fullView(db, row);
}

export async function listAssets(db: Db, scope: CompanyScope, q: ListParams): Promise<Page<AssetView>> {
  const page = await listPage(db.fixedAsset, { company_id: scope.companyId }, q, ASSET_LIST, (row: FixedAsset) => row);
  const numbers = await accountNumbers(db, scope.companyId, page.data);
  return { data: page.data.map((r) => view(r, numbers)), meta: page.meta };
}

const disposed = (row: FixedAsset) => new DomainError('asset_disposed', `The asset was disposed of on ${fromDate(row.disposed_date!)}; it changes no more.`);

/**
 * A partial update: the name and the dimensions always (decisions 567, 872); the figures, dates and
 * accounts only while no month is depreciated. The dimensions the company requires on the asset's
 * accounts are checked whatever changes (decision 874), and the job's last failure is cleared: the next
 * run tries again.
 */
export async function updateAsset(db: Db, scope: CompanyScope, id: string, input: AssetUpdate): Promise<FullAssetView> {
  const row = await lockedAsset(db, scope, id);
  if (row.status === 'disposed') throw disposed(row);
  const { name, dimensions: givenDimensions, ...figures } = input;
  const given = Object.entries(figures)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  if (given.length && row.months_posted > 0)
    throw new DomainError(
      'asset_depreciated',
      `${row.months_posted} month(s) of depreciation are posted; only name can change (dispose of the asset, or reverse nothing: the books keep what was posted).`,
      given[0],
    );
  if (row.expense_id)
    for (const f of ['cost', 'acquisition_date'] as const) if (input[f] !== undefined) throw invalidRequest(`${f} is the expense's; it cannot change.`, f);
  if (row.capitalisation_transaction_id && input.asset_account_number !== undefined)
    throw invalidRequest('The cost was posted to the asset account when the asset was created; the account cannot change.', 'asset_account_number');
  const group = input.group ?? (row.group as AssetGroup);
  const terms: Terms = {
    group,
    acquisition_date: input.acquisition_date ?? fromDate(row.acquisition_date),
    cost: input.cost ?? decimalOf(row.cost),
    residual_value: input.residual_value ?? decimalOf(row.residual_value),
    useful_life_months: input.useful_life_months ?? row.useful_life_months,
  };
  checkTerms(terms);
  const data: Prisma.FixedAssetUpdateInput = {
    ...(name !== undefined ? { name } : {}),
    group,
    acquisition_date: toDate(terms.acquisition_date),
    cost: terms.cost.toFixed(2),
    residual_value: terms.residual_value.toFixed(2),
    useful_life_months: terms.useful_life_months,
  };
  const accounts = {
    asset_account_id:
      input.asset_account_number === undefined
        ? row.asset_account_id
        : (await accountFor(db, scope, input.asset_account_number, 'asset_account_number', 'balance')).id,
    accumulated_account_id:
      input.accumulated_account_number === undefined
        ? row.accumulated_account_id
        : (await accountFor(db, scope, input.accumulated_account_number, 'accumulated_account_number', 'balance')).id,
    depreciation_account_id:
      input.depreciation_account_number === undefined
        ? row.depreciation_account_id
        : (await accountFor(db, scope, input.depreciation_account_number, 'depreciation_account_number', 'expense')).id,
  };
  const kept = dimensionsOf(row.dimensions);
  const dimensions = givenDimensions !== undefined ? dimensionsOf(givenDimensions) : kept;
  await checkAssetDimensions(db, scope, { dimensions, given: givenDimensions, kept, accountIds: Object.values(accounts) });
  Object.assign(data, accounts, { dimensions: dimensions ?? Prisma.DbNull, depreciation_failure: Prisma.DbNull });
  return fullView(db, await db.fixedAsset.update({ where: { id }, data }));
}

/** Deletes an asset nothing was depreciated or disposed of; the capitalisation, if any, is reversed (decision 567). */
export async function deleteAsset(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await lockedAsset(db, scope, id);
  if (row.status === 'disposed') throw disposed(row);
  if (row.months_posted > 0)
    throw new DomainError('asset_depreciated', `${row.months_posted} month(s) of depreciation are posted; dispose of the asset instead.`);
  // The capitalisation reversed line by line, its dimensions included (decision 585).
  if (row.capitalisation_transaction_id)
    await postReversalOf(db, scope, row.capitalisation_transaction_id, {
      date: await firstOpenDay(db, scope.companyId, today()),
      description: `Tilbageførsel af aktivering: ${row.name}`.slice(0, 500),
      source: 'reversal',
      sourceId: row.id,
    });
  await db.fixedAsset.delete({ where: { id } });
  return { id, deleted: true };
}

/**
 * Sells or scraps the asset on `date` (decision 573): the months before the disposal's month that are not
 * yet depreciated are posted first (the job's function), then one posting takes off the cost and the
 * accumulated depreciation, debits the proceeds, and puts the difference to the group's gain or loss
 * account. No depreciation after.
 */
export async function disposeAsset(db: Db, scope: CompanyScope, id: string, input: AssetDisposeInput): Promise<FullAssetView> {
  let row = await lockedAsset(db, scope, id);
  if (row.status === 'disposed') throw disposed(row);
  const acquired = fromDate(row.acquisition_date);
  if (input.date < acquired) throw invalidRequest(`The asset was acquired on ${acquired}; it cannot be disposed of before.`, 'date');
  if (input.date > today()) throw invalidRequest('A disposal is registered when it has happened: date is today or earlier.', 'date');
  const before = monthStart(input.date);
  if (row.months_posted > monthsBetween(acquired, input.date)) {
    const first = monthStart(acquired, monthsBetween(acquired, input.date));
    throw new DomainError(
      'asset_depreciated',
      `Depreciation is posted for ${first.slice(0, 7)} or later; a disposal on ${input.date} would come after it.`,
      'date',
    );
  }
  while (await depreciateNextMonth(db, scope, id, { day: input.date, before }));
  row = (await db.fixedAsset.findUnique({ where: { id } }))!;
  const group = ASSET_GROUPS[row.group as AssetGroup];
  const proceeds = input.proceeds ?? zero();
  const parts = disposalLines({ cost: decimalOf(row.cost), depreciated: decimalOf(row.depreciated), proceeds });
  const byId = async (accountId: string) =>
    (await db.account.findUniqueOrThrow({ where: { id: accountId }, select: { id: true, account_number: true, name: true, type: true } }))!;
  const text = `Afgang: ${row.name}`.slice(0, 500);
  const lines: PostingLine[] = [];
  if (!parts.proceeds.isZero())
    lines.push(
      line(
        await accountFor(db, scope, input.proceeds_account_number ?? DEFAULT_ACCOUNTS.bank, 'proceeds_account_number', 'balance'),
        'debit',
        parts.proceeds,
        text,
      ),
    );
  // The asset's lines carry its dimensions (the gain or loss is the project's); the proceeds, money received, none (decision 872).
  const dimensions = dimensionsOf(row.dimensions);
  if (!parts.accumulated.isZero()) lines.push(tagged(line(await byId(row.accumulated_account_id), 'debit', parts.accumulated, text), dimensions));
  if (!parts.loss.isZero()) lines.push(tagged(line(await accountByNumber(db, scope, group.loss), 'debit', parts.loss, text), dimensions));
  lines.push(tagged(line(await byId(row.asset_account_id), 'credit', parts.cost, text), dimensions));
  if (!parts.gain.isZero()) lines.push(tagged(line(await accountByNumber(db, scope, group.gain), 'credit', parts.gain, text), dimensions));
  const posted = await postTransaction(db, scope, { date: input.date, description: text, source: 'asset', sourceId: row.id, lines });
  const updated = await db.fixedAsset.update({
    where: { id },
    data: { status: 'disposed', disposed_date: toDate(input.date), disposal_proceeds: proceeds.toFixed(2), disposal_transaction_id: posted.id },
  });
  const numbers = await accountNumbers(db, scope.companyId, [updated]);
  await recordEvent(db, scope, 'asset.disposed', { ...view(updated, numbers), gain: amountToJson(parts.gain), loss: amountToJson(parts.loss) });
  return fullView(db, updated, numbers);
}

/** The job's record of a month it could not post, on the asset until a month posts or the asset is changed (decision 875). */
export async function recordDepreciationFailure(db: Db, id: string, failure: DepreciationFailure): Promise<void> {
  await db.fixedAsset.update({ where: { id }, data: { depreciation_failure: { ...failure, failed_at: new Date().toISOString() } } });
}

async function accountByNumber(db: Db, scope: CompanyScope, number: string) {
  const a = await db.account.findFirst({
    where: { company_id: scope.companyId, account_number: number },
    select: { id: true, account_number: true, name: true },
  });
  if (!a) throw new DomainError('chart_incomplete', `The chart of accounts has no account ${number}, which a disposal posts its gain or loss to.`);
  return a;
}

/** The tax view's setting: the company's small-asset limit, or null for the statutory one of each year. */
export async function getAssetSettings(db: Db, scope: CompanyScope) {
  const c = await db.company.findUniqueOrThrow({ where: { id: scope.companyId }, select: { small_asset_limit: true } });
  return {
    small_asset_limit: c.small_asset_limit === null ? null : amountToJson(c.small_asset_limit),
    statutory_limits: Object.fromEntries(Object.entries(SMALL_ASSET_LIMITS).map(([y, v]) => [y, amountToJson(v)])),
  };
}

export async function updateAssetSettings(db: Db, scope: CompanyScope, input: { small_asset_limit: Decimal | null }) {
  await db.company.update({
    where: { id: scope.companyId },
    data: { small_asset_limit: input.small_asset_limit === null ? null : input.small_asset_limit.toFixed(2) },
  });
  return getAssetSettings(db, scope);
}
