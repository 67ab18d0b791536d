// The one posting function. Every producer of ledger entries (manual transactions, reversals, and in
// later issues invoice approvals and expense postings) calls postTransaction inside its own database
// transaction. It assigns, under the company's number-sequence row lock (so in order across servers):
//   - document_number: the next number of the company's unified document number sequence, shared by
//     every numbered document; a posting that belongs to an already numbered document may pass that
//     number instead of drawing a new one;
//   - system_id: the next number in posting order (SAF-T SystemID), one per posted transaction.
// Both are gapless: a failed posting rolls back with its transaction, and its numbers with it.
// The lock is held from the first statement that takes it until commit, so everything that can be
// done before (checks, lookups, opening a fiscal year) is done before; under the lock there are two
// statements: one that draws the numbers, checks the lock date and writes the transaction, its lines
// and the balances, and one that records the event.
import { type Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { companyAndYear, openFiscalYearFor } from './books.ts';
import { fromDate, toDate } from '../calendar.ts';
import { assertPostable, totalsByAccount, totalsByVatBase, type PostingLine } from './rules.ts';
import { transactionView, type TransactionView } from './views.ts';

/** What produced a posting; the documents' own postings are changed through their documents only. */
export const POSTING_SOURCES = ['manual', 'reversal', 'invoice', 'payment', 'credit_note', 'expense', 'vat_settlement', 'bank', 'reminder', 'import'] as const;
export type PostingSource = (typeof POSTING_SOURCES)[number];

export interface Posting {
  date: string;
  description: string;
  lines: PostingLine[];
  source: PostingSource;
  sourceId?: string | undefined;
  reversesId?: string | undefined;
  voucherId?: string | undefined;
  /** An existing document number to post under; by default the next one is drawn. */
  documentNumber?: bigint | undefined;
}

const periodLocked = (date: string, lock: string) =>
  new DomainError('period_locked', `The books are locked up to and including ${lock}; ${date} cannot be posted.`, 'date');

interface Drawn {
  document_number: bigint;
  system_id: bigint;
  created_at: Date;
  lock_date: Date | null;
  posted: boolean;
  /** Set by the control trail's trigger (null when nothing was posted). */
  registered_at: Date | null;
  registered_by: unknown;
}

export async function postTransaction(db: Db, scope: CompanyScope, posting: Posting): Promise<TransactionView> {
  assertPostable(posting.lines);
  const { company, year } = await companyAndYear(db, scope.companyId, posting.date);
  // Early answer for the common case; the binding check is repeated under the lock below.
  if (company.lock_date && toDate(posting.date) <= company.lock_date) throw periodLocked(posting.date, fromDate(company.lock_date));
  await openFiscalYearFor(db, company, posting.date, year);
  // The number and name the view shows: as the caller read them, or read here.
  const unknown = posting.lines.filter((l) => !l.account).map((l) => l.accountId);
  const accounts = new Map(posting.lines.flatMap((l) => (l.account ? [[l.accountId, l.account] as const] : [])));
  if (unknown.length) {
    const read = await db.account.findMany({
      where: { company_id: scope.companyId, id: { in: unknown } },
      select: { id: true, account_number: true, name: true },
    });
    for (const a of read) accounts.set(a.id, a);
  }

  const id = newId();
  const c = scope.companyId;
  const lines = posting.lines.map((l, i) => ({ ...l, id: newId(), line_number: i + 1 }));
  const totals = [...totalsByAccount(posting.lines)];
  // The VAT return's boxes: per code, the lines that are a base (not VAT on an account the return reads).
  const bases = [...totalsByVatBase(posting.lines, (id) => accounts.get(id)?.account_number ?? '')];
  const col = <T>(f: (l: (typeof lines)[number]) => T) => lines.map(f);

  // Takes the company's row lock (held until commit). The lock date is read under it, so a lock set by
  // the operator can never be slipped past; a locked date inserts nothing and rolls back below.
  const [drawn] = await db.$queryRaw<Drawn[]>`
    WITH seq AS (
      UPDATE number_sequences
      SET last_document_number = last_document_number + ${posting.documentNumber === undefined ? 1 : 0},
          last_system_id = last_system_id + 1
      WHERE company_id = ${c}::uuid
      RETURNING last_document_number, last_system_id, date_trunc('milliseconds', clock_timestamp()) AS at
    ),
    co AS (SELECT lock_date FROM companies WHERE id = ${c}::uuid),
    ok AS (SELECT seq.* FROM seq, co WHERE co.lock_date IS NULL OR ${posting.date}::date > co.lock_date),
    tx AS (
      INSERT INTO ledger_transactions (id, company_id, document_number, system_id, date, description, source, source_id, reverses_id, voucher_id, created_at)
      SELECT ${id}::uuid, ${c}::uuid, COALESCE(${posting.documentNumber ?? null}::bigint, ok.last_document_number), ok.last_system_id,
             ${posting.date}::date, ${posting.description}, ${posting.source}, ${posting.sourceId ?? null}::uuid,
             ${posting.reversesId ?? null}::uuid, ${posting.voucherId ?? null}::uuid, ok.at
      FROM ok
      RETURNING id, registered_at, registered_by
    ),
    lines AS (
      INSERT INTO transaction_lines (id, company_id, transaction_id, line_number, account_id, debit, credit, description, vat_code,
                                     currency, currency_amount, exchange_rate)
      SELECT l.id, ${c}::uuid, tx.id, l.n, l.account_id, l.debit, l.credit, l.description, l.vat_code, l.currency, l.currency_amount, l.exchange_rate
      FROM tx, unnest(${col((l) => l.id)}::uuid[], ${col((l) => l.line_number)}::int2[], ${col((l) => l.accountId)}::uuid[],
                      ${col((l) => l.debit.toFixed(2))}::numeric[], ${col((l) => l.credit.toFixed(2))}::numeric[],
                      ${col((l) => l.description)}::text[], ${col((l) => l.vatCode)}::text[], ${col((l) => l.foreign?.currency ?? '')}::text[],
                      ${col((l) => l.foreign?.amount.toFixed(2) ?? null)}::numeric[], ${col((l) => l.foreign?.rate.toFixed() ?? null)}::numeric[])
        AS l(id, n, account_id, debit, credit, description, vat_code, currency, currency_amount, exchange_rate)
    ),
    t AS (
      SELECT * FROM ok, unnest(${totals.map(([a]) => a)}::uuid[], ${totals.map(([, t]) => t.debit.toFixed(2))}::numeric[],
                               ${totals.map(([, t]) => t.credit.toFixed(2))}::numeric[]) AS t(account_id, debit, credit)
    ),
    daily AS (
      INSERT INTO account_daily_balances AS b (company_id, account_id, date, debit, credit)
      SELECT ${c}::uuid, account_id, ${posting.date}::date, debit, credit FROM t
      ON CONFLICT (company_id, account_id, date) DO UPDATE SET debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit
    ),
    monthly AS (
      INSERT INTO account_monthly_balances AS m (company_id, account_id, month, debit, credit)
      SELECT ${c}::uuid, account_id, date_trunc('month', ${posting.date}::date)::date, debit, credit FROM t
      ON CONFLICT (company_id, account_id, month) DO UPDATE SET debit = m.debit + EXCLUDED.debit, credit = m.credit + EXCLUDED.credit
    ),
    vat_bases AS (
      INSERT INTO vat_monthly_bases AS v (company_id, month, vat_code, debit, credit)
      SELECT ${c}::uuid, date_trunc('month', ${posting.date}::date)::date, b.vat_code, b.debit, b.credit
      FROM ok, unnest(${bases.map(([code]) => code)}::text[], ${bases.map(([, t]) => t.debit.toFixed(2))}::numeric[],
                      ${bases.map(([, t]) => t.credit.toFixed(2))}::numeric[]) AS b(vat_code, debit, credit)
      ON CONFLICT (company_id, month, vat_code) DO UPDATE SET debit = v.debit + EXCLUDED.debit, credit = v.credit + EXCLUDED.credit
    )
    SELECT COALESCE(${posting.documentNumber ?? null}::bigint, seq.last_document_number) AS document_number,
           seq.last_system_id AS system_id, seq.at AS created_at, co.lock_date, EXISTS (SELECT 1 FROM ok) AS posted,
           (SELECT registered_at FROM tx) AS registered_at, (SELECT registered_by FROM tx) AS registered_by
    FROM seq, co`;
  // The number row is gone only when a sandbox reset deleted the books while this posting waited for it.
  if (!drawn) throw new DomainError('conflict', 'The books were reset while this posting waited; retry it.');
  if (!drawn.posted) throw periodLocked(posting.date, fromDate(drawn.lock_date!));

  const view = transactionView({
    id,
    company_id: c,
    document_number: drawn.document_number,
    system_id: drawn.system_id,
    date: toDate(posting.date),
    description: posting.description,
    source: posting.source,
    source_id: posting.sourceId ?? null,
    source_journal_id: null,
    source_transaction_id: null,
    reverses_id: posting.reversesId ?? null,
    voucher_id: posting.voucherId ?? null,
    created_at: drawn.created_at,
    registered_at: drawn.registered_at!,
    registered_by: drawn.registered_by as Prisma.JsonValue,
    reversed_by: null,
    lines: lines.map((l) => ({
      id: l.id,
      company_id: c,
      transaction_id: id,
      line_number: l.line_number,
      account_id: l.accountId,
      debit: l.debit as unknown as Prisma.Decimal,
      credit: l.credit as unknown as Prisma.Decimal,
      description: l.description,
      vat_code: l.vatCode,
      currency: l.foreign?.currency ?? '',
      currency_amount: (l.foreign?.amount ?? null) as unknown as Prisma.Decimal | null,
      exchange_rate: (l.foreign?.rate ?? null) as unknown as Prisma.Decimal | null,
      account: accounts.get(l.accountId) ?? { account_number: '', name: '' },
    })),
  });
  const { lines: _lines, ...compact } = view;
  await recordEvent(db, scope, 'transaction.created', compact);
  return view;
}

export const transactionInclude = {
  lines: { orderBy: { line_number: 'asc' as const }, include: { account: { select: { account_number: true, name: true } } } },
  reversed_by: { select: { id: true } },
};
