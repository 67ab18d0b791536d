// The journal writer: the only code that writes journal rows (ledger_transactions, transaction_lines)
// and what they add to (account_daily_balances, account_monthly_balances, vat_monthly_bases, the number
// sequence). Every producer calls it inside its own database transaction: postTransaction for one
// posting (manual, reversals, documents, payments), a JournalBatch for many (a SAF-T import, seeds).
// Both check each posting with the same rules (journal-rows.ts: assertPostable, the lock date, an open
// fiscal year) and write with the same one statement, which, under the company's number-sequence row
// lock (so in order across servers), draws:
//   - document_number: the next number of the company's unified document number sequence, shared by
//     every numbered document; a posting that belongs to an already numbered document may pass that
//     number instead of drawing a new one;
//   - system_id: the next number in posting order (SAF-T SystemID), one per posted transaction.
// Both are gapless: a failed posting rolls back with its transaction, and its numbers with it.
// The lock is held from the first statement that takes it until commit, so everything that can be
// done before (checks, lookups, opening a fiscal year) is done before; under the lock there are two
// statements per posting or batch: the one that draws the numbers, checks the lock date and writes the
// transactions, their lines, the balances and VAT bases, and the one that records the events.
import { type Company, type Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent, recordEvents } from '../events/outbox.ts';
import { companyAndYear, openFiscalYearFor } from './books.ts';
import { fromDate, toDate } from '../calendar.ts';
import { JournalRows, preparePosting, type Posting, type PreparedPosting } from './journal-rows.ts';
import { lineField, STORED_LINE_DIMENSIONS } from './rules.ts';
import { lineDimensionRefs, needsCatalogue, readCatalogue, type DimensionCatalogue, type LineDimensionRef } from '../dimensions/catalogue.ts';
import { transactionView, type TransactionView } from './views.ts';

export { POSTING_SOURCES, type Posting, type PostingSource } from './journal-rows.ts';

const periodLocked = (date: string, lock: string) =>
  new DomainError('period_locked', `The books are locked up to and including ${lock}; ${date} cannot be posted.`, 'date');

/** The early answer for a date on or before the lock date as read before the lock; the statement checks again under it. */
function assertAfterLock(date: string, lock: Date | null) {
  if (lock && toDate(date) <= lock) throw periodLocked(date, fromDate(lock));
}

type AccountName = { account_number: string; name: string };

/** Fills `known` with the accounts of `lines` it lacks, read in the company; an account of no company's chart here is refused. */
async function readAccounts(db: Db, companyId: string, postings: readonly Posting[], known: Map<string, AccountName>): Promise<void> {
  for (const p of postings) for (const l of p.lines) if (l.account && !known.has(l.accountId)) known.set(l.accountId, l.account);
  const missing = [...new Set(postings.flatMap((p) => p.lines.filter((l) => !known.has(l.accountId)).map((l) => l.accountId)))];
  if (!missing.length) return;
  const read = await db.account.findMany({ where: { company_id: companyId, id: { in: missing } }, select: { id: true, account_number: true, name: true } });
  for (const a of read) known.set(a.id, a);
  for (const p of postings)
    p.lines.forEach((l, i) => {
      if (!known.has(l.accountId)) throw invalidRequest(`No account ${l.accountId} in the company's chart of accounts.`, `${lineField(i)}.account_id`);
    });
}

interface Written {
  last_document_number: bigint;
  last_system_id: bigint;
  created_at: Date;
  lock_date: Date | null;
  posted: boolean;
  /** Per transaction in posting order, set by the control trail's trigger (null when nothing was posted). */
  registered_at: Date[] | null;
  registered_by: unknown;
}

// The statement's columns go as PostgreSQL array literals built here, one text parameter each, rather
// than as JavaScript arrays that the client and the driver walk element by element (a SAF-T import
// sends thousands of lines per statement). Ids, dates and numbers need no quoting; text is quoted.
const plainArray = (values: readonly (string | number | null)[]) => `{${values.map((v) => v ?? 'NULL').join(',')}}`;
const textArray = (values: readonly (string | null)[]) => `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;

/**
 * Writes `rows` in one statement. It takes the company's row lock (held until commit); the lock date is
 * read under it, so a lock set by the operator can never be slipped past: a posting dated on or before
 * it inserts nothing and is refused here.
 */
async function writeRows(db: Db, companyId: string, rows: JournalRows): Promise<Written> {
  const c = companyId;
  const t = rows.transactions;
  const l = rows.lines;
  const d = rows.dailyColumns();
  const v = rows.vatBaseColumns();
  const ld = rows.lineDimensions;
  const [written] = await db.$queryRaw<Written[]>`
    WITH seq AS (
      UPDATE number_sequences
      SET last_document_number = last_document_number + ${rows.draws}::bigint, last_system_id = last_system_id + ${rows.count}::bigint
      WHERE company_id = ${c}::uuid
      RETURNING last_document_number, last_system_id, date_trunc('milliseconds', clock_timestamp()) AS at
    ),
    co AS (SELECT lock_date FROM companies WHERE id = ${c}::uuid),
    ok AS (SELECT seq.* FROM seq, co WHERE co.lock_date IS NULL OR ${rows.minDate}::date > co.lock_date),
    tx AS (
      INSERT INTO ledger_transactions (id, company_id, document_number, system_id, date, description, source, source_id, source_journal_id,
                                       source_transaction_id, reverses_id, voucher_id, created_at)
      SELECT u.id, ${c}::uuid, COALESCE(u.document_number, ok.last_document_number - ${rows.draws}::bigint + u.draw), ok.last_system_id - ${rows.count}::bigint + u.n,
             u.date, u.description, u.source, u.source_id, u.source_journal_id, u.source_transaction_id, u.reverses_id, u.voucher_id, ok.at
      FROM ok, unnest(${plainArray(t.id)}::uuid[], ${plainArray(t.documentNumber)}::bigint[], ${plainArray(t.draw)}::int[], ${plainArray(t.date)}::date[], ${textArray(t.description)}::text[], ${textArray(t.source)}::text[],
                      ${plainArray(t.sourceId)}::uuid[], ${textArray(t.sourceJournalId)}::text[], ${textArray(t.sourceTransactionId)}::text[], ${plainArray(t.reversesId)}::uuid[], ${plainArray(t.voucherId)}::uuid[])
        WITH ORDINALITY AS u(id, document_number, draw, date, description, source, source_id, source_journal_id, source_transaction_id, reverses_id, voucher_id, n)
      RETURNING id, date, system_id, registered_at, registered_by
    ),
    lines AS (
      INSERT INTO transaction_lines (id, company_id, transaction_id, line_number, account_id, debit, credit, description, vat_code,
                                     currency, currency_amount, exchange_rate, date, system_id)
      SELECT l.id, ${c}::uuid, l.transaction_id, l.n, l.account_id, l.debit, l.credit, l.description, l.vat_code, l.currency, l.currency_amount, l.exchange_rate,
             tx.date, tx.system_id
      FROM tx JOIN unnest(${plainArray(l.id)}::uuid[], ${plainArray(l.transactionId)}::uuid[], ${plainArray(l.lineNumber)}::int2[], ${plainArray(l.accountId)}::uuid[], ${plainArray(l.debit)}::numeric[], ${plainArray(l.credit)}::numeric[],
                      ${textArray(l.description)}::text[], ${textArray(l.vatCode)}::text[], ${textArray(l.currency)}::text[], ${plainArray(l.currencyAmount)}::numeric[], ${plainArray(l.exchangeRate)}::numeric[])
        AS l(id, transaction_id, n, account_id, debit, credit, description, vat_code, currency, currency_amount, exchange_rate)
        ON l.transaction_id = tx.id
    ),
    dims AS (
      INSERT INTO journal_line_dimensions (line_id, dimension_id, value_id, company_id, transaction_id, account_id, date, debit, credit)
      SELECT x.line_id, x.dimension_id, x.value_id, ${c}::uuid, x.transaction_id, x.account_id, x.date, x.debit, x.credit
      FROM ok, unnest(${plainArray(ld.lineId)}::uuid[], ${plainArray(ld.dimensionId)}::uuid[], ${plainArray(ld.valueId)}::uuid[], ${plainArray(ld.transactionId)}::uuid[],
                      ${plainArray(ld.accountId)}::uuid[], ${plainArray(ld.date)}::date[], ${plainArray(ld.debit)}::numeric[], ${plainArray(ld.credit)}::numeric[])
        AS x(line_id, dimension_id, value_id, transaction_id, account_id, date, debit, credit)
    ),
    d AS (
      SELECT d.* FROM ok, unnest(${plainArray(d.date)}::date[], ${plainArray(d.accountId)}::uuid[], ${plainArray(d.debit)}::numeric[], ${plainArray(d.credit)}::numeric[], ${plainArray(d.lines)}::int[])
        AS d(date, account_id, debit, credit, lines)
    ),
    daily AS (
      INSERT INTO account_daily_balances AS b (company_id, account_id, date, debit, credit, lines)
      SELECT ${c}::uuid, account_id, date, debit, credit, lines FROM d
      ON CONFLICT (company_id, account_id, date) DO UPDATE SET debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit, lines = b.lines + EXCLUDED.lines
    ),
    monthly AS (
      INSERT INTO account_monthly_balances AS m (company_id, account_id, month, debit, credit)
      SELECT ${c}::uuid, account_id, date_trunc('month', date)::date, sum(debit), sum(credit) FROM d GROUP BY account_id, date_trunc('month', date)
      ON CONFLICT (company_id, account_id, month) DO UPDATE SET debit = m.debit + EXCLUDED.debit, credit = m.credit + EXCLUDED.credit
    ),
    vat_bases AS (
      INSERT INTO vat_monthly_bases AS v (company_id, month, vat_code, debit, credit)
      SELECT ${c}::uuid, b.month, b.vat_code, b.debit, b.credit
      FROM ok, unnest(${plainArray(v.month)}::date[], ${textArray(v.vatCode)}::text[], ${plainArray(v.debit)}::numeric[], ${plainArray(v.credit)}::numeric[]) AS b(month, vat_code, debit, credit)
      ON CONFLICT (company_id, month, vat_code) DO UPDATE SET debit = v.debit + EXCLUDED.debit, credit = v.credit + EXCLUDED.credit
    )
    SELECT seq.last_document_number, seq.last_system_id, seq.at AS created_at, co.lock_date, EXISTS (SELECT 1 FROM ok) AS posted,
           (SELECT array_agg(registered_at ORDER BY system_id) FROM tx) AS registered_at, (SELECT registered_by FROM tx LIMIT 1) AS registered_by
    FROM seq, co`;
  // The number row is gone only when a sandbox reset deleted the books while this posting waited for it.
  if (!written) throw new DomainError('conflict', 'The books were reset while this posting waited; retry it.');
  if (!written.posted) throw periodLocked(rows.minDate, fromDate(written.lock_date!));
  return written;
}

/** The document number and system id the statement gave the `i`th posting of `rows` (as its SQL computes them). */
function numbersOf(rows: JournalRows, written: Written, i: number) {
  const given = rows.transactions.documentNumber[i];
  return {
    documentNumber:
      given !== null && given !== undefined ? BigInt(given) : written.last_document_number - BigInt(rows.draws) + BigInt(rows.transactions.draw[i]!),
    systemId: written.last_system_id - BigInt(rows.count) + BigInt(i + 1),
  };
}

/** The transaction as GET /transactions/{id} shows it, from what was written (no read back). */
function postedView(
  companyId: string,
  p: PreparedPosting,
  numbers: { documentNumber: bigint; systemId: bigint },
  written: Written,
  registeredAt: Date,
  accounts: Map<string, AccountName>,
): TransactionView {
  const { posting, id } = p;
  return transactionView({
    id,
    company_id: companyId,
    document_number: numbers.documentNumber,
    system_id: numbers.systemId,
    date: toDate(posting.date),
    description: posting.description,
    source: posting.source,
    source_id: posting.sourceId ?? null,
    source_journal_id: posting.sourceJournalId ?? null,
    source_transaction_id: posting.sourceTransactionId ?? null,
    reverses_id: posting.reversesId ?? null,
    voucher_id: posting.voucherId ?? null,
    created_at: written.created_at,
    registered_at: registeredAt,
    registered_by: written.registered_by as Prisma.JsonValue,
    reversed_by: null,
    lines: posting.lines.map((l, i) => ({
      id: p.lineIds[i]!,
      company_id: companyId,
      transaction_id: id,
      line_number: i + 1,
      account_id: l.accountId,
      debit: l.debit as unknown as Prisma.Decimal,
      credit: l.credit as unknown as Prisma.Decimal,
      description: l.description,
      vat_code: l.vatCode,
      currency: l.foreign?.currency ?? '',
      currency_amount: (l.foreign?.amount ?? null) as unknown as Prisma.Decimal | null,
      exchange_rate: (l.foreign?.rate ?? null) as unknown as Prisma.Decimal | null,
      date: toDate(posting.date),
      system_id: numbers.systemId,
      account: accounts.get(l.accountId) ?? { account_number: '', name: '' },
      dimensions: Object.entries(l.dimensions ?? {}).map(([name, code]) => ({ value: { code, dimension: { name } } })),
    })),
  });
}

/** The transaction.created event's data: the transaction without its lines. */
const eventData = (view: TransactionView) => {
  const { lines: _lines, ...compact } = view;
  return compact;
};

/**
 * Posts one transaction (see the top of this file); the transaction as GET /transactions/{id} shows it.
 * `beforeYears`: the opening balances, dated before the first fiscal year, so in none of the years (the
 * caller checked, under the company's row lock, that the date precedes them all).
 */
export async function postTransaction(db: Db, scope: CompanyScope, posting: Posting, opts: { beforeYears?: boolean } = {}): Promise<TransactionView> {
  const prepared = preparePosting(posting);
  const { company, year, dimensionsRequired } = await companyAndYear(db, scope.companyId, posting.date);
  assertAfterLock(posting.date, company.lock_date);
  if (!opts.beforeYears) await openFiscalYearFor(db, company, posting.date, year);
  else if (year) throw invalidRequest(`${posting.date} lies in the fiscal year ${fromDate(year.start_date)} to ${fromDate(year.end_date)}.`, 'date');
  // The number and name the view shows: as the caller read them, or read here.
  const accounts = new Map<string, AccountName>();
  await readAccounts(db, scope.companyId, [posting], accounts);
  const numberOf = (id: string) => accounts.get(id)!.account_number;
  const dimensions = needsCatalogue([posting], dimensionsRequired) ? lineDimensionRefs(await readCatalogue(db, scope.companyId), posting, numberOf) : undefined;
  const rows = new JournalRows();
  rows.add(prepared, numberOf, dimensions);
  const written = await writeRows(db, scope.companyId, rows);
  const view = postedView(scope.companyId, prepared, numbersOf(rows, written, 0), written, written.registered_at![0]!, accounts);
  await recordEvent(db, scope, 'transaction.created', eventData(view));
  return view;
}

export interface JournalBatchOptions {
  /** Record transaction.created for each posting (one statement per flush), as postTransaction does. */
  events: boolean;
  /**
   * A date in none of the company's fiscal years: 'following' (as postTransaction) opens only the year
   * right after the last one; 'history' (an import of the books kept before) opens the year containing it.
   */
  years?: 'following' | 'history';
}

/** A posting as a flush wrote it. */
export interface PostedRef {
  id: string;
  documentNumber: bigint;
  systemId: bigint;
}

/**
 * Many postings of one company in its caller's transaction, written set-based: add() checks each one
 * as postTransaction does and holds it; flush() writes everything held with the one statement (and the
 * events with one more). A caller flushes every few thousand lines (JOURNAL_BATCH_LINES), or once: a
 * matcher that posts a payment per bank line in one transaction. Ids are known at add(), numbers at
 * flush(), so a caller can link its own rows (bank lines, documents) to the postings either way.
 * send() is flush() without the wait: a reader of a long file overlaps its parsing with the writes.
 */
export class JournalBatch {
  private pending: PreparedPosting[] = [];
  private pendingLines = 0;
  private checkedDates = new Set<string>();
  private accounts = new Map<string, AccountName>();
  /** The company's dimensions, read at the first add() (a required dimension applies to lines naming none). */
  private catalogue: DimensionCatalogue | undefined;
  /** Per posting held: its lines' dimension values, checked at add(). */
  private dimensions = new Map<string, LineDimensionRef[][]>();
  /** The write send() started, not yet awaited. */
  private writing: Promise<unknown> | undefined;

  private readonly db: Db;
  private readonly scope: CompanyScope;
  private readonly options: JournalBatchOptions;
  private readonly company: Company;
  private readonly years: { start_date: Date; end_date: Date; id: string; closed: boolean }[];
  constructor(
    db: Db,
    scope: CompanyScope,
    options: JournalBatchOptions,
    company: Company,
    years: { start_date: Date; end_date: Date; id: string; closed: boolean }[],
  ) {
    this.db = db;
    this.scope = scope;
    this.options = options;
    this.company = company;
    this.years = years;
  }

  /** Lines held for the next flush. */
  get lines(): number {
    return this.pendingLines;
  }

  /**
   * Checks a posting (the posting rules; the lock date as read when the batch opened, checked again
   * under the lock at flush; an open fiscal year, opening one when allowed) and holds it; its ids.
   */
  async add(posting: Posting): Promise<{ id: string; lineIds: string[] }> {
    const prepared = preparePosting(posting);
    if (!this.checkedDates.has(posting.date)) {
      assertAfterLock(posting.date, this.company.lock_date);
      const year = this.years.find((y) => posting.date >= fromDate(y.start_date) && posting.date <= fromDate(y.end_date)) ?? null;
      const open = await openFiscalYearFor(this.db, this.company, posting.date, year, { history: this.options.years === 'history' });
      if (!year) this.years.push(open);
      this.checkedDates.add(posting.date);
    }
    this.catalogue ??= await readCatalogue(this.db, this.scope.companyId);
    const refs = lineDimensionRefs(this.catalogue, posting, (id) => posting.lines.find((l) => l.accountId === id)?.account?.account_number ?? id);
    if (refs.some((r) => r.length)) this.dimensions.set(prepared.id, refs);
    this.pending.push(prepared);
    this.pendingLines += posting.lines.length;
    return { id: prepared.id, lineIds: prepared.lineIds };
  }

  /** Writes the postings held, in the order added (after the write send() started, if any); their numbers. */
  async flush(): Promise<PostedRef[]> {
    await this.sent();
    return this.write(this.take());
  }

  /**
   * Starts writing the postings held and returns without waiting for the database, so that the caller
   * reads and checks the next postings meanwhile (a SAF-T import parses on while its last batch is
   * written). One write at a time: the next send() or flush() waits for this one and throws its error.
   */
  async send(): Promise<void> {
    await this.sent();
    const writing = this.write(this.take());
    // Its outcome is the next send()'s or flush()'s to report; until then it must not go unheard.
    writing.catch(() => {});
    this.writing = writing;
  }

  private async sent(): Promise<void> {
    const writing = this.writing;
    this.writing = undefined;
    await writing;
  }

  private take(): PreparedPosting[] {
    const pending = this.pending;
    this.pending = [];
    this.pendingLines = 0;
    return pending;
  }

  private async write(pending: PreparedPosting[]): Promise<PostedRef[]> {
    if (!pending.length) return [];
    await readAccounts(
      this.db,
      this.scope.companyId,
      pending.map((p) => p.posting),
      this.accounts,
    );
    const rows = new JournalRows();
    for (const p of pending) {
      rows.add(p, (id) => this.accounts.get(id)!.account_number, this.dimensions.get(p.id));
      this.dimensions.delete(p.id);
    }
    const written = await writeRows(this.db, this.scope.companyId, rows);
    const numbers = pending.map((_, i) => numbersOf(rows, written, i));
    if (this.options.events) {
      const views = pending.map((p, i) => postedView(this.scope.companyId, p, numbers[i]!, written, written.registered_at![i]!, this.accounts));
      await recordEvents(this.db, this.scope, 'transaction.created', views.map(eventData));
    }
    return pending.map((p, i) => ({ id: p.id, ...numbers[i]! }));
  }
}

/** Opens a batch of postings into the scope's company (see JournalBatch). */
export async function openJournalBatch(db: Db, scope: CompanyScope, options: JournalBatchOptions): Promise<JournalBatch> {
  const company = await db.company.findUnique({ where: { id: scope.companyId } });
  if (!company) throw notFound('company', scope.companyId);
  const years = await db.fiscalYear.findMany({ where: { company_id: scope.companyId }, select: { id: true, start_date: true, end_date: true, closed: true } });
  return new JournalBatch(db, scope, options, company, years);
}

/** Journal lines per flush of postBatch (and of the SAF-T import): a few MB of parameters per statement. */
export const JOURNAL_BATCH_LINES = 5_000;

/** Posts `postings` in order through one JournalBatch, flushing every JOURNAL_BATCH_LINES lines; their numbers. */
export async function postBatch(db: Db, scope: CompanyScope, postings: Iterable<Posting>, options: JournalBatchOptions): Promise<PostedRef[]> {
  const batch = await openJournalBatch(db, scope, options);
  const out: PostedRef[] = [];
  const flush = async () => {
    for (const r of await batch.flush()) out.push(r);
  };
  for (const p of postings) {
    await batch.add(p);
    if (batch.lines >= JOURNAL_BATCH_LINES) await flush();
  }
  await flush();
  return out;
}

export const transactionInclude = {
  lines: {
    orderBy: { line_number: 'asc' as const },
    include: { account: { select: { account_number: true, name: true } }, dimensions: STORED_LINE_DIMENSIONS },
  },
  reversed_by: { select: { id: true } },
};

/**
 * The next number of the company's quote series (tilbud), drawn from the same number-sequence row as
 * the document numbers, under the same row lock and so just as gapless and ordered: a quote's transaction
 * that fails rolls its number back. The series is its own: a quote is an offer, not a bookkeeping document.
 */
export async function nextQuoteNumber(db: Db, companyId: string): Promise<bigint> {
  const [seq] = await db.$queryRaw<{ n: bigint }[]>`
    UPDATE number_sequences SET last_quote_number = last_quote_number + 1 WHERE company_id = ${companyId}::uuid RETURNING last_quote_number AS n`;
  // As for a posting: the row is gone only when a sandbox reset deleted the books meanwhile.
  if (!seq) throw new DomainError('conflict', 'The books were reset while this quote waited; retry it.');
  return seq.n;
}
