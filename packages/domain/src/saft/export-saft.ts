// The Danish SAF-T Financial export: reads a company's books inside one read-only snapshot and
// writes the XML to a sink as it goes, in keyset-paginated batches with backpressure, so memory stays
// flat whatever the size of the ledger. Knows nothing of HTTP: the caller supplies the sink.
import { Prisma, type Connectable, type PoolClient } from '@tlr/db';
import { notFound } from '../errors.ts';
import { addDays, dayAfter, today } from '../calendar.ts';
import { fromOere, toOereFixed2 } from '../money.ts';
import { fiscalYearContaining } from '../ledger/fiscal-years.ts';
import { BEGINNING, movements } from '../reports/balances.ts';
import {
  lineElement,
  lineShared,
  transactionStart,
  TRANSACTION_END,
  type AnalysisRef,
  type JournalLine,
  type JournalTransaction,
  type LineShared,
} from './journal.ts';
import {
  analysisTypes,
  analysisTypeTableXml,
  generalLedgerAccountsXml,
  headerXml,
  partiesXml,
  taxTableXml,
  type SaftAccount,
  type SaftCompany,
  type SaftParty,
  type SaftVatCode,
} from './master-files.ts';
import { writeSalesInvoices } from './source-documents.ts';
import { saftAssets } from './assets.ts';
import { escapeText, saftFilename, saftPeriod, type SaftPeriod } from './rules.ts';

const SAFT_NAMESPACE = 'urn:StandardAuditFile-Taxation-Financial:DK';

/** What the export writes to: a Node Writable or an http.ServerResponse. */
export interface XmlSink {
  write(chunk: string): boolean;
  readonly destroyed: boolean;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
}

/** The sink went away (the client disconnected, or stopped reading) before the export finished. */
export class SinkClosedError extends Error {
  constructor(reason = 'the output closed before the SAF-T export finished') {
    super(reason);
    this.name = 'SinkClosedError';
  }
}

export interface SaftExportParams {
  companyId: string;
  from?: string | undefined;
  to?: string | undefined;
}

/** Known before the first byte is written: the caller sets its headers from it. */
export interface SaftExportStart {
  company: SaftCompany;
  period: SaftPeriod;
  filename: string;
  transactions: number;
  lines: number;
}

export interface SaftExportResult extends SaftExportStart {
  /** Characters written (UTF-16 units; equal to bytes for ASCII text). */
  chars: number;
}

export interface SaftExportOptions {
  /** Called once, after every check that can refuse the export and before the first write. */
  onStart?: (start: SaftExportStart) => void;
  /** AuditFileDateCreated; default today (the business day, calendar.ts). */
  today?: string;
  /** Ledger lines per query and write (default 5,000). */
  lineBatch?: number;
  /** Customers or suppliers per query and write (default 1,000). */
  partyBatch?: number;
  /**
   * How long to wait for a full sink to drain (default 60 s). A reader that stops reading must not
   * hold a database connection and its snapshot for ever.
   */
  drainTimeoutMs?: number;
}

/**
 * Writes strings to the sink with backpressure: a write the sink cannot take at once must drain before
 * the next write (so at most one batch waits in the sink), but the next batch is built meanwhile.
 */
class SinkWriter {
  chars = 0;
  private draining: Promise<void> | undefined;
  private readonly out: XmlSink;
  private readonly drainTimeoutMs: number;
  constructor(out: XmlSink, drainTimeoutMs: number) {
    this.out = out;
    this.drainTimeoutMs = drainTimeoutMs;
  }

  async write(chunk: string): Promise<void> {
    await this.flush();
    if (this.out.destroyed) throw new SinkClosedError();
    this.chars += chunk.length;
    if (this.out.write(chunk)) return;
    this.draining = this.drained();
    // Awaited by the next write or flush; until then its failure must not count as unhandled.
    this.draining.catch(() => {});
  }

  /** Waits until the sink has taken everything written. */
  async flush(): Promise<void> {
    const draining = this.draining;
    this.draining = undefined;
    await draining;
  }

  private drained(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => settle(new SinkClosedError(`the output did not drain within ${this.drainTimeoutMs} ms`)), this.drainTimeoutMs);
      const settle = (err?: Error) => {
        clearTimeout(timer);
        this.out.off('drain', onDrain);
        this.out.off('close', onClose);
        this.out.off('error', onError);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(new SinkClosedError());
      const onError = (err: Error) => settle(err);
      this.out.on('drain', onDrain);
      this.out.on('close', onClose);
      this.out.on('error', onError);
    });
  }
}

const COMPANY_SQL = `
SELECT id, name, cvr, currency, vat_registered, fiscal_year_start_month FROM companies WHERE id = $1`;

const TOTALS_SQL = `
SELECT (SELECT count(*) FROM ledger_transactions WHERE company_id = $1 AND date BETWEEN $2::date AND $3::date)::int AS transactions,
       count(*)::int AS lines,
       COALESCE(sum(l.debit), 0)::numeric(20,2)::text AS debit,
       COALESCE(sum(l.credit), 0)::numeric(20,2)::text AS credit
FROM ledger_transactions t JOIN transaction_lines l ON l.transaction_id = t.id
WHERE t.company_id = $1 AND t.date BETWEEN $2::date AND $3::date`;

// Opening: everything before `from` for balance sheet accounts; for revenue and expense accounts only
// what lies between the start of the fiscal year containing `from` and `from`. Closing: opening + the
// period. The sums come from the monthly and daily balances, as the reports read them.
function accountsSql(companyId: string, { from, to }: SaftPeriod, profitAndLossStart: string) {
  const before = addDays(from, -1);
  return Prisma.sql`
SELECT id, account_number, name, type, standard_account_id, created,
       opening::text AS opening, (opening + movement)::numeric(20,2)::text AS closing
FROM (
  SELECT a.id, a.account_number, a.name, a.type, a.standard_account_id,
         to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS created,
         COALESCE(sum(m.debit - m.credit) FILTER (
           WHERE (m.part = 'before' AND a.type NOT IN ('revenue', 'expense')) OR (m.part = 'year' AND a.type IN ('revenue', 'expense'))), 0)::numeric(20,2) AS opening,
         COALESCE(sum(m.debit - m.credit) FILTER (WHERE m.part = 'period'), 0)::numeric(20,2) AS movement
  FROM accounts a
  LEFT JOIN (
    SELECT 'before' AS part, account_id, debit, credit FROM (${movements(companyId, BEGINNING, before)}) b
    UNION ALL SELECT 'year', account_id, debit, credit FROM (${movements(companyId, profitAndLossStart, before)}) y
    UNION ALL SELECT 'period', account_id, debit, credit FROM (${movements(companyId, from, to)}) p
  ) m ON m.account_id = a.id
  WHERE a.company_id = ${companyId}::uuid
  GROUP BY a.id
) s
ORDER BY account_number`;
}

const VAT_CODES_SQL = `SELECT code, name, rate::text AS rate FROM vat_codes WHERE company_id = $1 ORDER BY code`;
const FIRST_YEAR_SQL = `SELECT to_char(min(start_date), 'YYYY-MM-DD') AS start FROM fiscal_years WHERE company_id = $1`;

// Customers and suppliers that existed at some time in the period: created before its end and not
// deleted before its start ($2, $3: UTC instants of the period's first and day-after-last midnight).
const partySql = (table: 'customers' | 'suppliers') => `
SELECT id, name, cvr, email, phone, contact_person, address_line1, address_line2, postal_code, city, country
       ${table === 'suppliers' ? ', bank_reg_number, bank_account_number, iban' : ''}
FROM ${table}
WHERE company_id = $1 AND created_at < $3::timestamptz AND (deleted_at IS NULL OR deleted_at >= $2::timestamptz) AND id > $4::uuid
ORDER BY id
LIMIT $5`;

// Keyset over (system_id, line_number): a batch may end inside a transaction, so a transaction of
// any size never has to be held in memory whole. A transaction's own fields come with its first line
// only (the posting function numbers lines from 1), and a line names its account by id (the export has
// the accounts already): a quarter less work for PostgreSQL and for the driver than every line
// repeating them (docs/history/perf-log.md).
/** One batch of the journal (exported for the ledger bench's EXPLAIN). */
export const JOURNAL_SQL = `
SELECT t.system_id, l.line_number,
       CASE WHEN l.line_number = 1 THEN t.document_number END AS document_number,
       CASE WHEN l.line_number = 1 THEN to_char(t.date, 'YYYY-MM-DD') END AS date,
       CASE WHEN l.line_number = 1 THEN t.description END AS description,
       CASE WHEN l.line_number = 1 THEN t.source END AS source,
       CASE WHEN l.line_number = 1 THEN to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') END AS entry_date,
       CASE WHEN l.line_number = 1 THEN (SELECT v.id FROM vouchers v WHERE v.transaction_id = t.id) END AS voucher_id,
       l.account_id, l.debit::text AS debit, l.credit::text AS credit, l.description AS line_description,
       l.currency, l.currency_amount::text AS currency_amount, l.exchange_rate::text AS exchange_rate
FROM ledger_transactions t
JOIN transaction_lines l ON l.transaction_id = t.id
WHERE t.company_id = $1 AND t.date BETWEEN $2::date AND $3::date
  AND t.system_id >= $4 AND (t.system_id > $4 OR l.line_number > $5)
ORDER BY t.system_id, l.line_number
LIMIT $6`;

/**
 * JOURNAL_SQL with each line's dimension values (value ids), for a company whose lines carry any: one
 * probe of journal_line_dimensions' primary key per line, which the companies without dimensions skip.
 */
export const JOURNAL_WITH_ANALYSIS_SQL = JOURNAL_SQL.replace(
  'l.exchange_rate::text AS exchange_rate',
  'l.exchange_rate::text AS exchange_rate, (SELECT array_agg(d.value_id ORDER BY d.dimension_id) FROM journal_line_dimensions d WHERE d.line_id = l.id) AS value_ids',
);

// The company's dimension values for AnalysisTypeTable, dimensions in creation order (their AnalysisType
// follows it), values by code; and whether any journal line carries one.
const ANALYSIS_SQL = `
SELECT d.id AS dimension_id, d.name AS dimension_name, v.id AS value_id, v.code, v.name,
       EXISTS (SELECT 1 FROM journal_line_dimensions j WHERE j.company_id = $1) AS used
FROM dimensions d JOIN dimension_values v ON v.dimension_id = d.id
WHERE d.company_id = $1
ORDER BY d.created_at, d.id, v.code`;

type OrNull<T> = { [K in keyof T]: T[K] | null };

/** A row of JOURNAL_SQL: a line, and on line 1 its transaction's fields (null on the others). */
interface JournalRow extends JournalLine, OrNull<Omit<JournalTransaction, 'system_id'>> {
  /** bigint, as text. */
  system_id: string;
  account_id: string;
  /** JOURNAL_WITH_ANALYSIS_SQL: the line's dimension values (null: none). */
  value_ids?: string[] | null;
}

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Writes the SAF-T file of a company for a period to `out`. Throws DomainError (not_found,
 * invalid_request) before anything is written; any error after `onStart` leaves the output
 * incomplete, and the caller must abort it.
 */
export async function exportSaft(pool: Connectable, params: SaftExportParams, out: XmlSink, options: SaftExportOptions = {}): Promise<SaftExportResult> {
  const client = await pool.connect();
  let broken = false;
  try {
    // One snapshot for the header totals, the balances and every line: postings committed while the
    // file streams are not in it, so its totals always agree with its lines.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await writeSaft(client, params, out, options);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

async function writeSaft(client: PoolClient, params: SaftExportParams, out: XmlSink, options: SaftExportOptions): Promise<SaftExportResult> {
  const { rows: companies } = await client.query<SaftCompany>(COMPANY_SQL, [params.companyId]);
  const company = companies[0];
  if (!company) throw notFound('company', params.companyId);
  const period = saftPeriod(params, company.fiscal_year_start_month, today());
  const { from, to } = period;

  const { rows: totalsRows } = await client.query<{ transactions: number; lines: number; debit: string; credit: string }>(TOTALS_SQL, [company.id, from, to]);
  const totals = totalsRows[0]!;
  const plStart = fiscalYearContaining(from, company.fiscal_year_start_month).start;
  const accountsQuery = accountsSql(company.id, period, plStart);
  const { rows: accounts } = await client.query<SaftAccount & { id: string }>(accountsQuery.text, accountsQuery.values);
  const { rows: vatCodes } = await client.query<SaftVatCode>(VAT_CODES_SQL, [company.id]);
  const { rows: years } = await client.query<{ start: string | null }>(FIRST_YEAR_SQL, [company.id]);
  const taxEffective = years[0]?.start ?? from;

  const start: SaftExportStart = { company, period, filename: saftFilename(company, period), transactions: totals.transactions, lines: totals.lines };
  options.onStart?.(start);
  const w = new SinkWriter(out, options.drainTimeoutMs ?? 60_000);

  await w.write(`<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="${SAFT_NAMESPACE}">`);
  await w.write(headerXml(company, period, options.today ?? today()));
  await w.write('<MasterFiles>');
  await w.write(generalLedgerAccountsXml(accounts));
  const instants = [`${from}T00:00:00.000Z`, `${dayAfter(to)}T00:00:00.000Z`];
  await writeParties(client, w, 'customers', company.id, instants, options.partyBatch ?? 1000);
  await writeParties(client, w, 'suppliers', company.id, instants, options.partyBatch ?? 1000);
  await w.write(taxTableXml(vatCodes, taxEffective));
  // Dimensions as AnalysisTypeTable, one entry per value; the lines name theirs in Analysis (decision 586).
  const { rows: analysisRows } = await client.query<{
    dimension_id: string;
    dimension_name: string;
    value_id: string;
    code: string;
    name: string;
    used: boolean;
  }>(ANALYSIS_SQL, [company.id]);
  const types = analysisTypes([...new Map(analysisRows.map((r) => [r.dimension_id, { id: r.dimension_id, name: r.dimension_name }])).values()]);
  const entries = analysisRows.map((r) => ({ valueId: r.value_id, type: types.get(r.dimension_id)!, typeName: r.dimension_name, id: r.code, name: r.name }));
  await w.write(analysisTypeTableXml(entries));
  const analysis = analysisRows[0]?.used ? new Map(entries.map((e) => [e.valueId, { type: escapeText(e.type), id: escapeText(e.id) }])) : undefined;
  // Assets come last of the master files in the schema's order.
  const assets = await saftAssets(client, company.id, period);
  await w.write(assets.masterFiles);
  await w.write('</MasterFiles>');

  await w.write(
    `<GeneralLedgerEntries><NumberOfEntries>${totals.transactions}</NumberOfEntries>` +
      `<TotalDebit>${totals.debit}</TotalDebit><TotalCredit>${totals.credit}</TotalCredit>` +
      '<Journal><JournalID>GL</JournalID><Description>Finansposteringer (general ledger)</Description><Type>GL</Type>',
  );
  const written = await writeJournal(client, w, company, period, new Map(accounts.map((a) => [a.id, a.account_number])), options.lineBatch ?? 5000, analysis);
  // The header was computed before the lines were read: in one snapshot they must agree.
  if (written.transactions !== totals.transactions || fromOere(written.debit) !== totals.debit || fromOere(written.credit) !== totals.credit) {
    throw new Error(
      `SAF-T journal disagrees with its header: ${written.transactions} transactions, debit ${fromOere(written.debit)}, credit ${fromOere(written.credit)}; ` +
        `header ${totals.transactions}, ${totals.debit}, ${totals.credit}`,
    );
  }
  await w.write('</Journal></GeneralLedgerEntries>');
  // SourceDocuments is written when one of its parts has something: SalesInvoices, then AssetTransactions.
  let sourceDocuments = false;
  const openSourceDocuments = async () => {
    if (!sourceDocuments) await w.write('<SourceDocuments>');
    sourceDocuments = true;
  };
  await writeSalesInvoices(
    client,
    (chunk) => w.write(chunk),
    company.id,
    period,
    company.fiscal_year_start_month,
    options.partyBatch ?? 1000,
    openSourceDocuments,
    // The invoice lines name their dimensions by name (decision 840).
    new Map(analysisRows.map((r) => [r.dimension_name, types.get(r.dimension_id)!])),
  );
  if (assets.transactions) {
    await openSourceDocuments();
    await w.write(assets.transactions);
  }
  if (sourceDocuments) await w.write('</SourceDocuments>');
  await w.write('</AuditFile>\n');
  await w.flush();
  return { ...start, chars: w.chars };
}

async function writeParties(client: PoolClient, w: SinkWriter, table: 'customers' | 'suppliers', companyId: string, [since, until]: string[], batch: number) {
  const kind = table === 'customers' ? 'Customer' : 'Supplier';
  const sql = partySql(table);
  let after = FIRST_UUID;
  let opened = false;
  for (;;) {
    const { rows } = await client.query<SaftParty>(sql, [companyId, since, until, after, batch]);
    if (rows.length === 0) break;
    if (!opened) {
      await w.write(`<${kind}s>`);
      opened = true;
    }
    await w.write(partiesXml(kind, rows));
    after = rows[rows.length - 1]!.id;
    if (rows.length < batch) break;
  }
  if (opened) await w.write(`</${kind}s>`);
}

/** Ledger lines turned into XML between two looks at the socket (see writeJournal). */
const SLICE = 500;

async function writeJournal(
  client: PoolClient,
  w: SinkWriter,
  company: SaftCompany,
  { from, to }: SaftPeriod,
  accountNumbers: ReadonlyMap<string, string>,
  batch: number,
  /** The Analysis of each dimension value, when the company's lines carry any. */
  analysis?: ReadonlyMap<string, AnalysisRef>,
) {
  const sql = analysis ? JOURNAL_WITH_ANALYSIS_SQL : JOURNAL_SQL;
  let transactions = 0;
  let debit = 0n;
  let credit = 0n;
  let open = -1; // system id of the Transaction element currently open
  let shared: LineShared = { description: '', sourceDocument: '' }; // what its lines repeat (set as it opens)
  const batchAfter = (afterSystemId: number, afterLine: number) => client.query<JournalRow>(sql, [company.id, from, to, afterSystemId, afterLine, batch]);
  let next: ReturnType<typeof batchAfter> | undefined = batchAfter(-1, 0);
  while (next) {
    const { rows }: { rows: JournalRow[] } = await next;
    if (rows.length === 0) break;
    // The next batch is asked for before this one is written, and this one is written in slices with
    // the event loop let through between them, so that the next batch's rows are read off the socket
    // while this one is turned into XML: PostgreSQL and this process work at the same time (otherwise
    // PostgreSQL stalls on a full socket until the XML is done, and each waits for the other).
    const last = rows.at(-1)!;
    next = rows.length < batch ? undefined : batchAfter(Number(last.system_id), last.line_number);
    // Should this batch fail, the export is abandoned; the prefetch's own failure must not go unhandled.
    next?.catch(() => {});
    let parts: string[] = [];
    for (const [i, r] of rows.entries()) {
      if (i > 0 && i % SLICE === 0) {
        await w.write(parts.join(''));
        parts = [];
        await new Promise(setImmediate);
      }
      const systemId = Number(r.system_id);
      if (systemId !== open) {
        if (systemId < open) throw new Error(`SAF-T journal out of order: system id ${systemId} after ${open}`);
        if (r.document_number === null || r.date === null || r.entry_date === null) {
          throw new Error(`SAF-T journal: transaction ${systemId} begins with line ${r.line_number}, not line 1`);
        }
        if (open !== -1) parts.push(TRANSACTION_END);
        const t: JournalTransaction = {
          system_id: systemId,
          document_number: r.document_number,
          date: r.date,
          description: r.description ?? '',
          source: r.source ?? '',
          entry_date: r.entry_date,
          voucher_id: r.voucher_id,
        };
        parts.push(transactionStart(t, company.fiscal_year_start_month));
        shared = lineShared(t);
        open = systemId;
        transactions += 1;
      }
      // The schema's keyrefs select nothing (unprefixed XPaths), so referential integrity is ours.
      const accountNumber = accountNumbers.get(r.account_id);
      if (accountNumber === undefined) {
        throw new Error(`SAF-T line ${systemId}/${r.line_number} posts to an account missing from GeneralLedgerAccounts`);
      }
      const d = toOereFixed2(r.debit);
      const c = toOereFixed2(r.credit);
      debit += d;
      credit += c;
      const refs = r.value_ids && analysis ? r.value_ids.map((id) => analysis.get(id)!) : undefined;
      parts.push(lineElement(r, accountNumber, shared, d > 0n, company.currency, refs));
    }
    await w.write(parts.join(''));
  }
  if (open !== -1) await w.write(TRANSACTION_END);
  return { transactions, debit, credit };
}
