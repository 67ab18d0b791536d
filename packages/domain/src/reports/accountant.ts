// The accountant's reports: the trial balance (saldobalance) with the same period of the year before,
// an account's general ledger (kontokort) with a running balance, receivables and payables by age, and
// a customer's statement (kontoudtog). The trial balance reads the monthly and daily balances (a few
// rows per account whatever the size of the books); the ledger reads one account's lines; the aged
// lists and the statement read the documents. docs/reports.md; decisions 540-548.
import { Prisma, type Db } from '@tlr/db';
import { BEGINNING, movements } from './balances.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { addDays, daysBetween, daysInMonth, fromDate, today } from '../calendar.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { amountToJson, Decimal } from '../money.ts';
import type { ListMeta, ListParams, ListSpec } from '../lists/list.ts';
import { fiscalYearOf } from './reports.ts';
import { dimensionLines, resolveReportDimensions, type DimensionQuery } from './dimension-figures.ts';

/** The list parameters of a report (decision 542); `all` (the CSV form) answers every row on one page. */
export interface ReportPage extends Omit<ListParams, 'status'> {
  all?: boolean | undefined;
}

/** How a report list held in memory is sorted and searched (the spec's sort names, a row's search texts). */
export interface MemoryList<T> {
  sort: Record<string, (row: T) => string | number>;
  defaultSort: string;
  search: (row: T) => string[];
}

type Num = { toString(): string };
const dec = (v: Num | null | undefined) => new Decimal(v == null ? 0 : v.toString());
const money = (v: Decimal) => amountToJson(v);

/** Searches, sorts (ties keep the report's order) and pages the rows of a report held in memory. */
export function listOf<T>(all: T[], p: ReportPage, how: MemoryList<T>): { data: T[]; meta: ListMeta; matched: T[] } {
  const term = p.search?.trim().toLocaleLowerCase('da');
  const key = how.sort[p.sort ?? how.defaultSort]!;
  const dir = p.order === 'asc' ? 1 : -1;
  const rows = (term ? all.filter((r) => how.search(r).some((t) => t.toLocaleLowerCase('da').includes(term))) : all)
    .map((row, i) => ({ row, i }))
    .sort((a, b) => {
      const x = key(a.row);
      const y = key(b.row);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), 'da');
      return c * dir || a.i - b.i;
    })
    .map((r) => r.row);
  return { ...pageOf(rows, p), matched: rows };
}

function pageOf<T>(rows: T[], p: ReportPage): { data: T[]; meta: ListMeta } {
  if (p.all) return { data: rows, meta: { page: 1, per_page: p.per_page, total: rows.length, total_pages: rows.length ? 1 : 0 } };
  const start = (p.page - 1) * p.per_page;
  return {
    data: rows.slice(start, start + p.per_page),
    meta: { page: p.page, per_page: p.per_page, total: rows.length, total_pages: Math.ceil(rows.length / p.per_page) },
  };
}

/** The same day one year earlier (29 February becomes 28 February). Pure. */
export function yearEarlier(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return `${String(y - 1).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(d, daysInMonth(y - 1, m))).padStart(2, '0')}`;
}

/**
 * A report's period: to defaults to today, from to the first day of the fiscal year containing to; the
 * list parameters since and until narrow it further (decision 542).
 */
async function period(
  db: Db,
  companyId: string,
  q: { from?: string | undefined; to?: string | undefined; since?: string | undefined; until?: string | undefined },
) {
  if (q.from && q.to && q.from > q.to) throw invalidRequest(`from (${q.from}) must be on or before to (${q.to}).`, 'from');
  let to = q.to ?? today();
  if (q.until && q.until < to) to = q.until;
  let from = q.from ?? (await fiscalYearOf(db, companyId, to)).start;
  if (q.since && q.since > from) from = q.since;
  if (from > to) throw invalidRequest(`The period is empty: it starts ${from} and ends ${to}.`, q.since && q.since === from ? 'since' : 'from');
  return { from, to };
}

const isResultType = (type: string) => type === 'revenue' || type === 'expense';

// ---- trial balance --------------------------------------------------------------------------------

interface Figures {
  opening_balance: Decimal;
  debit: Decimal;
  credit: Decimal;
  closing_balance: Decimal;
}
const ZERO = () => new Decimal(0);
const figuresJson = (f: Figures) => ({
  opening_balance: money(f.opening_balance),
  debit: money(f.debit),
  credit: money(f.credit),
  closing_balance: money(f.closing_balance),
});

/** SQL yielding rows (account_id, date, debit, credit, grp) whose sums are the movements from `from` to `to`. */
type Source = (from: string, to: string) => Prisma.Sql;
/** The group of the lines without one, as a key the joins compare with = (hash joins; IS NOT DISTINCT FROM has none). */
const NO_GROUP = '00000000-0000-0000-0000-000000000000';
const allLines =
  (companyId: string): Source =>
  (from, to) =>
    Prisma.sql`SELECT m.*, NULL::uuid AS grp FROM (${movements(companyId, from, to)}) m`;

/**
 * One period's figures per account (and per group value grp, null without group_by): the movements
 * from..to, and the balance before from (a balance account: everything before; a revenue or expense
 * account: only what lies in from's fiscal year, as its balance starts again each year; decision 541).
 * `source`: where the movements come from, every line (the balance tables) or a dimension's (decision 582).
 */
async function periodFigures(
  db: Db,
  companyId: string,
  from: string,
  to: string,
  source: Source = allLines(companyId),
): Promise<Map<string, { type: string } & Figures>> {
  const yearStart = (await fiscalYearOf(db, companyId, from)).start;
  const before = addDays(from, -1);
  const rows = await db.$queryRaw<{ account_id: string; grp: string | null; type: string; od: Num; oc: Num; oyd: Num; oyc: Num; d: Num; c: Num }[]>`
    WITH o AS MATERIALIZED (
      SELECT account_id, COALESCE(grp, ${NO_GROUP}::uuid) AS grp, SUM(debit) AS d, SUM(credit) AS c,
             COALESCE(SUM(debit) FILTER (WHERE date >= ${yearStart}::date), 0) AS yd,
             COALESCE(SUM(credit) FILTER (WHERE date >= ${yearStart}::date), 0) AS yc
      FROM (${from > BEGINNING ? source(BEGINNING, before) : Prisma.sql`SELECT NULL::uuid AS account_id, NULL::date AS date, 0::numeric AS debit, 0::numeric AS credit, NULL::uuid AS grp WHERE false`}) m
      GROUP BY 1, 2
    ), p AS MATERIALIZED (
      SELECT account_id, COALESCE(grp, ${NO_GROUP}::uuid) AS grp, SUM(debit) AS d, SUM(credit) AS c FROM (${source(from, to)}) m GROUP BY 1, 2
    ), k AS (SELECT account_id, grp FROM o UNION SELECT account_id, grp FROM p)
    SELECT a.id AS account_id, NULLIF(k.grp, ${NO_GROUP}::uuid) AS grp, a.type,
           COALESCE(o.d, 0) AS od, COALESCE(o.c, 0) AS oc, COALESCE(o.yd, 0) AS oyd, COALESCE(o.yc, 0) AS oyc,
           COALESCE(p.d, 0) AS d, COALESCE(p.c, 0) AS c
    FROM k JOIN accounts a ON a.id = k.account_id AND a.company_id = ${companyId}::uuid
    LEFT JOIN o ON o.account_id = k.account_id AND o.grp = k.grp
    LEFT JOIN p ON p.account_id = k.account_id AND p.grp = k.grp`;
  const out = new Map<string, { type: string } & Figures>();
  for (const r of rows) {
    const opening = isResultType(r.type) ? dec(r.oyd).minus(dec(r.oyc)) : dec(r.od).minus(dec(r.oc));
    const debit = dec(r.d);
    const credit = dec(r.c);
    out.set(r.grp ? `${r.account_id} ${r.grp}` : r.account_id, {
      type: r.type,
      opening_balance: opening,
      debit,
      credit,
      closing_balance: opening.plus(debit).minus(credit),
    });
  }
  return out;
}

const empty = (f: Figures | undefined) => !f || (f.opening_balance.isZero() && f.debit.isZero() && f.credit.isZero() && f.closing_balance.isZero());

export const TRIAL_BALANCE_LIST = {
  sort: { account_number: 'account_number', name: 'name' },
  defaultSort: 'account_number',
  search: ['account_number', 'name'],
  dateColumn: 'date',
  dateDescription: 'posting date: since and until narrow the period from..to',
} satisfies ListSpec;

export interface TrialBalanceQuery extends ReportPage, DimensionQuery {
  from?: string | undefined;
  to?: string | undefined;
}

const minus = (a: Figures, b: Figures): Figures => ({
  opening_balance: a.opening_balance.minus(b.opening_balance),
  debit: a.debit.minus(b.debit),
  credit: a.credit.minus(b.credit),
  closing_balance: a.closing_balance.minus(b.closing_balance),
});

/**
 * The trial balance: every account with a figure in the period or in the same period a year earlier,
 * by account number. Balances are signed debit-positive (a credit balance is negative; decision 540).
 * dimension[...] keeps the lines that carry those values; group_by=dimension:X gives a row per account
 * and value of X (dimension_value), and one for the account's lines without a value (null) (decision 582).
 */
export async function trialBalance(db: Db, companyId: string, q: TrialBalanceQuery) {
  const { from, to } = await period(db, companyId, q);
  const prior = { from: yearEarlier(from), to: yearEarlier(to) };
  const dims = await resolveReportDimensions(db, companyId, q);
  const whole: Source | undefined = dims?.valueIds.length ? (f, t) => dimensionLines(companyId, f, t, dims.valueIds) : undefined;
  const group = dims?.group;
  const byGroup: Source | undefined = group ? (f, t) => dimensionLines(companyId, f, t, dims.valueIds, group.id) : undefined;
  const [current, previous, currentGroups, previousGroups, accounts] = await Promise.all([
    periodFigures(db, companyId, from, to, whole),
    periodFigures(db, companyId, prior.from, prior.to, whole),
    byGroup ? periodFigures(db, companyId, from, to, byGroup) : undefined,
    byGroup ? periodFigures(db, companyId, prior.from, prior.to, byGroup) : undefined,
    db.account.findMany({
      where: { company_id: companyId },
      select: { id: true, account_number: true, name: true, type: true },
      orderBy: { account_number: 'asc' },
    }),
  ]);
  // With a grouping: each value's figures by code, then the rest of the account's (its whole less the values').
  const values = group ? [...group.values.entries()].sort(([, a], [, b]) => a.code.localeCompare(b.code, 'da')) : [];
  const rows = [];
  for (const a of accounts) {
    const c = current.get(a.id);
    const p = previous.get(a.id);
    if (empty(c) && empty(p)) continue;
    const cf = c ?? blank();
    const pf = p ?? blank();
    if (!currentGroups || !previousGroups) {
      rows.push({ account_id: a.id, account_number: a.account_number, name: a.name, type: a.type, current: cf, prior: pf });
      continue;
    }
    const restC = { ...cf };
    const restP = { ...pf };
    for (const [id, v] of values) {
      const gc = currentGroups.get(`${a.id} ${id}`);
      const gp = previousGroups.get(`${a.id} ${id}`);
      if (empty(gc) && empty(gp)) continue;
      Object.assign(restC, minus(restC, gc ?? blank()));
      Object.assign(restP, minus(restP, gp ?? blank()));
      rows.push({
        account_id: a.id,
        account_number: a.account_number,
        name: a.name,
        type: a.type,
        dimension_value: v.code,
        current: gc ?? blank(),
        prior: gp ?? blank(),
      });
    }
    if (!empty(restC) || !empty(restP))
      rows.push({ account_id: a.id, account_number: a.account_number, name: a.name, type: a.type, dimension_value: null, current: restC, prior: restP });
  }
  const page = listOf(rows, q, {
    sort: { account_number: (r) => r.account_number, name: (r) => r.name },
    defaultSort: TRIAL_BALANCE_LIST.defaultSort,
    search: (r) => [r.account_number, r.name],
  });
  // The totals are those of every account the query selects, on every page.
  const totals = { current: blank(), prior: blank() };
  for (const r of page.matched) {
    add(totals.current, r.current);
    add(totals.prior, r.prior);
  }
  return {
    data: page.data.map(({ current: c, prior: p, ...a }) => ({ ...a, ...figuresJson(c), prior_year: figuresJson(p) })),
    meta: {
      ...page.meta,
      from,
      to,
      prior_from: prior.from,
      prior_to: prior.to,
      ...(dims?.valueIds.length ? { dimensions: dims.filter } : {}),
      ...(group ? { group_by: `dimension:${group.name}` } : {}),
      totals: { ...figuresJson(totals.current), prior_year: figuresJson(totals.prior) },
    },
  };
}
function blank(): Figures {
  return { opening_balance: ZERO(), debit: ZERO(), credit: ZERO(), closing_balance: ZERO() };
}
function add(sum: Figures, f: Figures) {
  sum.opening_balance = sum.opening_balance.plus(f.opening_balance);
  sum.debit = sum.debit.plus(f.debit);
  sum.credit = sum.credit.plus(f.credit);
  sum.closing_balance = sum.closing_balance.plus(f.closing_balance);
}

// ---- general ledger -------------------------------------------------------------------------------

export const GENERAL_LEDGER_LIST = {
  sort: { date: 'date' },
  defaultSort: 'date',
  search: ['description'],
  dateColumn: 'date',
  dateDescription: 'posting date: since and until narrow the period from..to',
} satisfies ListSpec;

export interface GeneralLedgerQuery extends ReportPage {
  account: string;
  from?: string | undefined;
  to?: string | undefined;
}

/** The SQL of one page of an account's ledger lines (exported for the bench). */
export function generalLedgerSql(
  companyId: string,
  accountId: string,
  from: string,
  to: string,
  p: { order: 'asc' | 'desc'; search?: string | undefined; offset: number; limit: number | null; periodNet: string },
): Prisma.Sql {
  const dir = p.order === 'asc' ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  const term = p.search?.trim() || null;
  const limit = p.limit === null ? Prisma.empty : Prisma.sql`LIMIT ${p.limit}`;
  const counterparts = Prisma.sql`COALESCE((SELECT json_agg(json_build_object('account_number', x.account_number, 'name', x.name) ORDER BY x.account_number)
                       FROM (SELECT DISTINCT a.account_number, a.name
                               FROM transaction_lines o JOIN accounts a ON a.id = o.account_id
                              WHERE o.transaction_id = page.transaction_id AND o.account_id <> ${accountId}::uuid) x), '[]'::json) AS counterparts`;
  if (term) {
    // A search reads the text of the lines and their postings: every line of the period is joined, and
    // the running sum is taken over all of them, in posting order, before the search and the page.
    return Prisma.sql`
      WITH lines AS MATERIALIZED (
        SELECT t.id AS transaction_id, t.date, t.document_number, t.system_id, t.voucher_id, t.source,
               l.line_number, COALESCE(NULLIF(l.description, ''), t.description) AS description, l.debit, l.credit,
               SUM(l.debit - l.credit) OVER (ORDER BY t.date, t.system_id, l.line_number) AS running
        FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id
        WHERE l.company_id = ${companyId}::uuid AND l.account_id = ${accountId}::uuid AND l.date BETWEEN ${from}::date AND ${to}::date
      ), page AS MATERIALIZED (
        SELECT lines.*, COUNT(*) OVER () AS total FROM lines
        WHERE description ILIKE '%' || ${term} || '%'
        ORDER BY date ${dir}, system_id ${dir}, line_number ${dir}
        OFFSET ${p.offset} ${limit}
      )
      SELECT page.*, ${counterparts}
      FROM page ORDER BY date ${dir}, system_id ${dir}, line_number ${dir}`;
  }
  // Without a search a page is one range of the account's index in posting order (decision 453): its own
  // rows, the lines skipped before it summed through the same index, the postings joined for the page
  // only, and the count of the period's lines from the daily balances.
  // The balance after a line is the sum of the period's lines up to it: on an ascending page the skipped
  // lines plus the page so far; on a descending one, the period's net less every line after it.
  const range = Prisma.sql`l.company_id = ${companyId}::uuid AND l.account_id = ${accountId}::uuid AND l.date BETWEEN ${from}::date AND ${to}::date`;
  const order = Prisma.sql`date ${dir}, system_id ${dir}, line_number ${dir}`;
  const running =
    p.order === 'asc'
      ? Prisma.sql`skipped.net + SUM(page.debit - page.credit) OVER w`
      : Prisma.sql`${p.periodNet}::numeric - skipped.net - SUM(page.debit - page.credit) OVER w + (page.debit - page.credit)`;
  return Prisma.sql`
    WITH page AS MATERIALIZED (
      SELECT l.transaction_id, l.date, l.system_id, l.line_number, l.description, l.debit, l.credit
      FROM transaction_lines l WHERE ${range}
      ORDER BY ${order} OFFSET ${p.offset} ${limit}
    ), skipped AS (
      SELECT COALESCE(SUM(s.debit - s.credit), 0) AS net
      FROM (SELECT l.debit, l.credit FROM transaction_lines l WHERE ${range} ORDER BY ${order} LIMIT ${p.offset}) s
    )
    SELECT page.transaction_id, page.date, t.document_number, page.system_id, t.voucher_id, t.source, page.line_number,
           COALESCE(NULLIF(page.description, ''), t.description) AS description, page.debit, page.credit,
           ${running} AS running,
           (SELECT COALESCE(SUM(b.lines), 0) FROM account_daily_balances b
             WHERE b.company_id = ${companyId}::uuid AND b.account_id = ${accountId}::uuid AND b.date BETWEEN ${from}::date AND ${to}::date) AS total,
           ${counterparts}
    FROM page JOIN ledger_transactions t ON t.id = page.transaction_id, skipped
    WINDOW w AS (ORDER BY page.date ${dir}, page.system_id ${dir}, page.line_number ${dir} ROWS UNBOUNDED PRECEDING)
    ORDER BY page.date ${dir}, page.system_id ${dir}, page.line_number ${dir}`;
}

/** An account's lines from..to with the balance after each, the voucher and the other accounts of the posting. */
export async function generalLedger(db: Db, companyId: string, q: GeneralLedgerQuery) {
  const account = await db.account.findFirst({
    where: { company_id: companyId, account_number: q.account },
    select: { id: true, account_number: true, name: true, type: true },
  });
  if (!account) throw invalidRequest(`There is no account ${q.account} in the chart of accounts.`, 'account');
  const { from, to } = await period(db, companyId, q);
  const openFrom = isResultType(account.type) ? (await fiscalYearOf(db, companyId, from)).start : BEGINNING;
  const [opening] = await db.$queryRaw<{ d: Num | null; c: Num | null }[]>`
    SELECT SUM(debit) AS d, SUM(credit) AS c FROM (${from > openFrom ? movements(companyId, openFrom, addDays(from, -1)) : Prisma.sql`SELECT NULL::uuid AS account_id, 0::numeric AS debit, 0::numeric AS credit WHERE false`}) m
    WHERE account_id = ${account.id}::uuid`;
  const [period_] = await db.$queryRaw<{ d: Num | null; c: Num | null }[]>`
    SELECT SUM(debit) AS d, SUM(credit) AS c FROM (${movements(companyId, from, to)}) m WHERE account_id = ${account.id}::uuid`;
  const openingBalance = dec(opening?.d).minus(dec(opening?.c));
  const debit = dec(period_?.d);
  const credit = dec(period_?.c);
  const periodNet = debit.minus(credit).toFixed(2);
  const offset = q.all ? 0 : (q.page - 1) * q.per_page;
  const rows = await db.$queryRaw<
    {
      transaction_id: string;
      date: Date;
      document_number: bigint;
      system_id: bigint;
      voucher_id: string | null;
      source: string;
      line_number: number;
      description: string;
      debit: Num;
      credit: Num;
      running: Num;
      total: bigint;
      counterparts: { account_number: string; name: string }[];
    }[]
  >(generalLedgerSql(companyId, account.id, from, to, { order: q.order, search: q.search, offset, limit: q.all ? null : q.per_page, periodNet }));
  // Past the last page the window's count is not seen: the page before the first then tells it.
  const total = rows.length
    ? Number(rows[0]!.total)
    : offset === 0
      ? 0
      : Number(
          (
            await db.$queryRaw<{ total: bigint }[]>(
              generalLedgerSql(companyId, account.id, from, to, { order: q.order, search: q.search, offset: 0, limit: 1, periodNet }),
            )
          )[0]?.total ?? 0,
        );
  const data = rows.map((r) => ({
    date: fromDate(r.date),
    transaction_id: r.transaction_id,
    document_number: Number(r.document_number),
    system_id: Number(r.system_id),
    voucher_id: r.voucher_id ?? '',
    source: r.source,
    line_number: r.line_number,
    description: r.description,
    debit: money(dec(r.debit)),
    credit: money(dec(r.credit)),
    balance: money(openingBalance.plus(dec(r.running))),
    counterparts: r.counterparts,
  }));
  const meta: ListMeta = q.all
    ? { page: 1, per_page: q.per_page, total, total_pages: total ? 1 : 0 }
    : { page: q.page, per_page: q.per_page, total, total_pages: Math.ceil(total / q.per_page) };
  return {
    data,
    meta: {
      ...meta,
      account: account,
      from,
      to,
      opening_balance: money(openingBalance),
      debit: money(debit),
      credit: money(credit),
      closing_balance: money(openingBalance.plus(debit).minus(credit)),
    },
  };
}

// ---- aged receivables and payables ----------------------------------------------------------------

export const AGE_BUCKETS = ['not_due', 'days_1_30', 'days_31_60', 'days_61_90', 'days_over_90'] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

/** The bucket of a document `daysOverdue` days past its due date (0 or less: not due). Pure. */
export function ageBucket(daysOverdue: number): AgeBucket {
  if (daysOverdue <= 0) return 'not_due';
  if (daysOverdue <= 30) return 'days_1_30';
  if (daysOverdue <= 60) return 'days_31_60';
  if (daysOverdue <= 90) return 'days_61_90';
  return 'days_over_90';
}

export const AGED_LIST = {
  sort: { name: 'name', total: 'total' },
  defaultSort: 'name',
  search: ['name', 'document_number'],
  dateColumn: 'due_date',
  dateDescription: "documents' due date",
} satisfies ListSpec;

/** What an open item of the aged lists is: a document, or a line of the opening balances (decision 851). */
export const AGED_RECEIVABLE_KINDS = ['invoice', 'opening_balance'] as const;
export const AGED_PAYABLE_KINDS = ['expense', 'opening_balance'] as const;

interface OpenDocument<K extends string = string> {
  party_id: string | null;
  party_name: string;
  kind: K;
  /** null for an opening balance */
  document_id: string | null;
  document_number: string;
  date: Date;
  due_date: Date;
  open: Num;
}

type Buckets = Record<AgeBucket | 'total', Decimal>;
const noBuckets = (): Buckets => ({ not_due: ZERO(), days_1_30: ZERO(), days_31_60: ZERO(), days_61_90: ZERO(), days_over_90: ZERO(), total: ZERO() });
const bucketsJson = (b: Buckets) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, money(v)])) as Record<AgeBucket | 'total', number>;

interface AgedDocumentView<K extends string> {
  kind: K;
  document_number: string;
  date: string;
  due_date: string;
  days_overdue: number;
  bucket: AgeBucket;
  open_amount: number;
}

function aged<I extends string, D extends string, K extends string>(docs: OpenDocument<K>[], asOf: string, p: ReportPage, idField: I, docField: D) {
  // The documents come by due date: each party's list keeps that order.
  const parties = new Map<string, { id: string | null; name: string; buckets: Buckets; documents: (AgedDocumentView<K> & Record<D, string | null>)[] }>();
  for (const d of docs) {
    const open = dec(d.open);
    if (open.isZero()) continue;
    const due = fromDate(d.due_date);
    if ((p.since && due < p.since) || (p.until && due > p.until)) continue;
    const key = d.party_id ?? '';
    let party = parties.get(key);
    if (!party) parties.set(key, (party = { id: d.party_id, name: d.party_name, buckets: noBuckets(), documents: [] }));
    const days = daysBetween(due, asOf);
    const bucket = ageBucket(days);
    party.buckets[bucket] = party.buckets[bucket].plus(open);
    party.buckets.total = party.buckets.total.plus(open);
    party.documents.push({
      ...({ [docField]: d.document_id } as Record<D, string | null>),
      kind: d.kind,
      document_number: d.document_number,
      date: fromDate(d.date),
      due_date: due,
      days_overdue: Math.max(0, days),
      bucket,
      open_amount: money(open),
    });
  }
  const rows = [...parties.values()].sort((a, b) => a.name.localeCompare(b.name, 'da') || (a.id ?? '').localeCompare(b.id ?? ''));
  // A search finds a party by its name or by the number of one of its documents.
  const page = listOf(rows, p, {
    sort: { name: (r) => r.name, total: (r) => r.buckets.total.toNumber() },
    defaultSort: AGED_LIST.defaultSort,
    search: (r) => [r.name, ...r.documents.map((d) => d.document_number)],
  });
  // The totals are those of every party the query selects, on every page.
  const totals = noBuckets();
  for (const party of page.matched) for (const b of [...AGE_BUCKETS, 'total'] as const) totals[b] = totals[b].plus(party.buckets[b]);
  return {
    data: page.data.map((party) => ({
      ...({ [idField]: party.id } as Record<I, string | null>),
      name: party.name,
      ...bucketsJson(party.buckets),
      documents: party.documents,
    })),
    meta: { ...page.meta, as_of: asOf, currency: 'DKK' as const, totals: bucketsJson(totals) },
  };
}

export interface AgedQuery extends ReportPage {
  as_of?: string | undefined;
}

/**
 * The lines of the opening balances of a customer (`party` customer_id) or supplier (supplier_id) dated
 * by as_of: open items of kind opening_balance, numbered by the entry's voucher (decision 851).
 */
const openingItems = (companyId: string, asOf: string, party: 'customer_id' | 'supplier_id') => {
  const [column, table] = party === 'customer_id' ? [Prisma.sql`o.customer_id`, Prisma.sql`customers`] : [Prisma.sql`o.supplier_id`, Prisma.sql`suppliers`];
  return Prisma.sql`
    SELECT ${column} AS party_id, p.name AS party_name, 'opening_balance' AS kind, NULL::uuid AS document_id,
           t.document_number::text AS document_number, o.date, o.due_date, o.amount AS open, t.document_number AS seq, o.line_number AS ln
    FROM opening_balance_items o
    JOIN ledger_transactions t ON t.id = o.transaction_id
    JOIN ${table} p ON p.id = ${column}
    WHERE o.company_id = ${companyId}::uuid AND ${column} IS NOT NULL AND o.date <= ${asOf}::date`;
};

/**
 * The opening items less the party's payments of its opening balances (decision 853): each party's
 * payments cover its opening items in the order given (by due date), oldest first; an item they cover
 * is open for nothing. Documents of another kind are left as they are. Pure.
 */
export function settleOpeningItems<T extends { party_id: string | null; kind: string; open: Num }>(docs: T[], paid: ReadonlyMap<string, Decimal>): T[] {
  const left = new Map(paid);
  return docs.map((d) => {
    const rest = d.kind === 'opening_balance' && d.party_id ? left.get(d.party_id) : undefined;
    const open = dec(d.open);
    if (!rest || !rest.isPositive() || !open.isPositive()) return d;
    const covered = Decimal.min(rest, open);
    left.set(d.party_id!, rest.minus(covered));
    return { ...d, open: open.minus(covered) };
  });
}

/** What each customer (`party` customer_id) or supplier paid of its opening balances by as_of. */
async function openingPayments(db: Db, companyId: string, asOf: string, party: 'customer_id' | 'supplier_id'): Promise<Map<string, Decimal>> {
  // A payment undone by as_of (its bank line unmatched, decision 878) does not count.
  const rows = await db.$queryRaw<{ party: string; amount: Prisma.Decimal }[]>`
    SELECT p.${Prisma.raw(party)}::text AS party, SUM(p.amount) AS amount FROM opening_balance_payments p
     WHERE p.company_id = ${companyId}::uuid AND p.date <= ${asOf}::date AND p.${Prisma.raw(party)} IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger_transactions r WHERE r.id = p.reversed_transaction_id AND r.date <= ${asOf}::date)
     GROUP BY 1`;
  return new Map(rows.map((r) => [r.party, dec(r.amount)]));
}

/**
 * Receivables by age at the end of as_of: each approved invoice issued by then, less the payments
 * registered by then (in DKK, as they cleared receivables; a payment undone by then does not count),
 * unless a credit note dated by then cancelled it (decision 546); and the customers' opening balances
 * (decision 851).
 */
export async function agedReceivables(db: Db, companyId: string, q: AgedQuery) {
  const asOf = q.as_of ?? today();
  const docs = await db.$queryRaw<OpenDocument<(typeof AGED_RECEIVABLE_KINDS)[number]>[]>`
    SELECT * FROM (
    SELECT i.customer_id AS party_id, COALESCE(c.name, i.customer_name) AS party_name, 'invoice' AS kind, i.id AS document_id,
           i.invoice_number AS document_number, i.issue_date AS date, i.due_date,
           i.total_dkk - COALESCE((
             SELECT SUM(pl.credit - pl.debit)
             FROM invoice_payments p
             JOIN transaction_lines pl ON pl.transaction_id = p.transaction_id
             JOIN accounts ra ON ra.id = pl.account_id AND ra.account_number = ${DEFAULT_ACCOUNTS.receivable}
             WHERE p.invoice_id = i.id AND p.company_id = ${companyId}::uuid AND p.date <= ${asOf}::date
               AND NOT EXISTS (SELECT 1 FROM ledger_transactions r WHERE r.id = p.reversed_transaction_id AND r.date <= ${asOf}::date)
           ), 0) AS open, i.document_number AS seq, 0 AS ln
    FROM invoices i
    LEFT JOIN customers c ON c.id = i.customer_id
    WHERE i.company_id = ${companyId}::uuid AND i.document_number IS NOT NULL AND i.issue_date <= ${asOf}::date
      AND NOT EXISTS (SELECT 1 FROM credit_notes cn WHERE cn.invoice_id = i.id AND cn.date <= ${asOf}::date)
    UNION ALL ${openingItems(companyId, asOf, 'customer_id')}
    ) d
    ORDER BY d.due_date, d.date, d.seq, d.ln, d.document_id`;
  return aged(settleOpeningItems(docs, await openingPayments(db, companyId, asOf, 'customer_id')), asOf, q, 'customer_id', 'invoice_id');
}

/**
 * Payables by age at the end of as_of: each booked expense dated by then (what booking credited
 * payables with, in DKK; an expense credit note is negative), unless paid or cancelled by then; and the
 * suppliers' opening balances (decision 851).
 */
export async function agedPayables(db: Db, companyId: string, q: AgedQuery) {
  const asOf = q.as_of ?? today();
  const docs = await db.$queryRaw<OpenDocument<(typeof AGED_PAYABLE_KINDS)[number]>[]>`
    SELECT * FROM (
    SELECT e.supplier_id AS party_id, COALESCE(s.name, '') AS party_name, 'expense' AS kind, e.id AS document_id,
           COALESCE(t.document_number::text, '') AS document_number, e.date, e.due_date, e.payable_dkk AS open, t.document_number AS seq, 0 AS ln
    FROM expenses e
    JOIN ledger_transactions t ON t.id = e.posted_transaction_id
    LEFT JOIN suppliers s ON s.id = e.supplier_id
    WHERE e.company_id = ${companyId}::uuid AND e.date <= ${asOf}::date
      AND (e.paid_date IS NULL OR e.paid_date > ${asOf}::date)
      AND NOT EXISTS (SELECT 1 FROM ledger_transactions r WHERE r.id = e.reversal_transaction_id AND r.date <= ${asOf}::date)
    UNION ALL ${openingItems(companyId, asOf, 'supplier_id')}
    ) d
    ORDER BY d.due_date, d.date, d.seq, d.ln, d.document_id`;
  return aged(settleOpeningItems(docs, await openingPayments(db, companyId, asOf, 'supplier_id')), asOf, q, 'supplier_id', 'expense_id');
}

// ---- customer statement ---------------------------------------------------------------------------

export const STATEMENT_ENTRY_TYPES = ['opening_entry', 'invoice', 'credit_note', 'payment', 'payment_reversal', 'reminder'] as const;

interface Entry {
  date: Date;
  type: (typeof STATEMENT_ENTRY_TYPES)[number];
  document_number: string;
  invoice_id: string | null;
  due_date: Date | null;
  amount: Num; // positive: the customer owes more
  seq: bigint;
}

export interface StatementQuery {
  id: string;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * A customer's statement (kontoudtog) from..to: the balance owed at the start, each invoice, credit
 * note, payment, undone payment and reminder charge in the period with the balance after it, and the
 * balance at the end; in DKK as the documents moved receivables (decision 547). The customer's lines of
 * the opening balances are entries of their own (opening_entry) on the entry's date (decision 852).
 */
export async function customerStatement(db: Db, companyId: string, q: StatementQuery) {
  const customer = await db.customer.findFirst({
    where: { id: q.id, company_id: companyId, deleted_at: null },
    select: { id: true, name: true, address_line1: true, address_line2: true, postal_code: true, city: true, country: true, cvr: true, email: true },
  });
  if (!customer) throw notFound('customer', q.id);
  const { from, to } = await period(db, companyId, q);
  const entries = await db.$queryRaw<Entry[]>`
    WITH inv AS (
      SELECT * FROM invoices WHERE company_id = ${companyId}::uuid AND customer_id = ${customer.id}::uuid AND document_number IS NOT NULL
    ), cleared AS (
      SELECT p.id, p.invoice_id, p.date, p.reversed_transaction_id, p.transaction_id, SUM(pl.credit - pl.debit) AS amount
      FROM invoice_payments p JOIN inv ON inv.id = p.invoice_id
      JOIN transaction_lines pl ON pl.transaction_id = p.transaction_id
      JOIN accounts ra ON ra.id = pl.account_id AND ra.account_number = ${DEFAULT_ACCOUNTS.receivable}
      GROUP BY p.id
    )
    SELECT * FROM (
      SELECT issue_date AS date, 'invoice' AS type, invoice_number AS document_number, id AS invoice_id, due_date, total_dkk AS amount, posted_system_id AS seq FROM inv
      UNION ALL
      SELECT cn.date, 'credit_note', cn.document_number::text, inv.id, NULL, -inv.total_dkk, t.system_id
        FROM credit_notes cn JOIN inv ON inv.id = cn.invoice_id JOIN ledger_transactions t ON t.id = cn.transaction_id
      UNION ALL
      SELECT c.date, 'payment', inv.invoice_number, inv.id, NULL, -c.amount, t.system_id
        FROM cleared c JOIN inv ON inv.id = c.invoice_id JOIN ledger_transactions t ON t.id = c.transaction_id
      UNION ALL
      SELECT r.date, 'payment_reversal', inv.invoice_number, inv.id, NULL, c.amount, r.system_id
        FROM cleared c JOIN inv ON inv.id = c.invoice_id JOIN ledger_transactions r ON r.id = c.reversed_transaction_id
      UNION ALL
      SELECT m.date, 'reminder', inv.invoice_number, inv.id, NULL, m.fee + m.interest, t.system_id
        FROM invoice_reminders m JOIN inv ON inv.id = m.invoice_id JOIN ledger_transactions t ON t.id = m.transaction_id
      UNION ALL
      SELECT o.date, 'opening_entry', t.document_number::text, NULL, o.due_date, o.amount, t.system_id
        FROM opening_balance_items o JOIN ledger_transactions t ON t.id = o.transaction_id
       WHERE o.company_id = ${companyId}::uuid AND o.customer_id = ${customer.id}::uuid
      UNION ALL
      SELECT p.date, 'payment', t.document_number::text, NULL, NULL, -p.amount, t.system_id
        FROM opening_balance_payments p JOIN ledger_transactions t ON t.id = p.transaction_id
       WHERE p.company_id = ${companyId}::uuid AND p.customer_id = ${customer.id}::uuid
      UNION ALL
      SELECT r.date, 'payment_reversal', r.document_number::text, NULL, NULL, p.amount, r.system_id
        FROM opening_balance_payments p JOIN ledger_transactions r ON r.id = p.reversed_transaction_id
       WHERE p.company_id = ${companyId}::uuid AND p.customer_id = ${customer.id}::uuid
    ) e
    WHERE e.date <= ${to}::date
    ORDER BY e.date, e.seq`;
  let balance = ZERO();
  let debit = ZERO();
  let credit = ZERO();
  const lines = [];
  for (const e of entries) {
    const amount = dec(e.amount);
    const date = fromDate(e.date);
    balance = balance.plus(amount);
    if (date < from) continue;
    if (amount.isPositive()) debit = debit.plus(amount);
    else credit = credit.minus(amount);
    lines.push({
      date,
      type: e.type,
      document_number: e.document_number,
      invoice_id: e.invoice_id,
      due_date: e.due_date ? fromDate(e.due_date) : null,
      debit: money(amount.isPositive() ? amount : ZERO()),
      credit: money(amount.isNegative() ? amount.negated() : ZERO()),
      balance: money(balance),
    });
  }
  const opening = balance.minus(debit).plus(credit);
  return {
    customer,
    from,
    to,
    currency: 'DKK' as const,
    opening_balance: money(opening),
    debit: money(debit),
    credit: money(credit),
    closing_balance: money(balance),
    lines,
  };
}
