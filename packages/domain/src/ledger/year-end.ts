// Closing a fiscal year (årsafslutning): the checks that block it, the closing entry that moves every
// revenue and expense account's balance for the year to the equity account of the result (6940 Overført
// resultat), posted through the one journal writer on the year's last day, and the lock (the year is
// closed: nothing more is posted into it). Reopening reverses the closing entry with a new entry that
// names who and why (the control trail registers it). docs/reports.md#closing-the-fiscal-year; decisions 549-555.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { fromDate, toDate } from '../calendar.ts';
import { DEFAULT_ACCOUNTS } from './default-accounts.ts';
import { postTransaction } from './post.ts';
import { reversingLines, storedPostingLine, type PostingLine } from './rules.ts';
import { movements, YEAR_END_SOURCE, yearEndLinesNegated } from '../reports/balances.ts';
import { periodContaining } from '../vat/periods.ts';
import type { VatFrequency } from './fiscal-years.ts';
import { bankReconciliation } from '../bank/reconciliation.ts';
import { recordEvent } from '../events/outbox.ts';
import { amountToJson, Decimal } from '../money.ts';

type YearRow = { id: string; start_date: Date; end_date: Date; closed: boolean; closing_transaction_id: string | null; closed_at: Date | null };

export interface Blocker {
  kind: 'vat_period_unsettled' | 'draft_invoice' | 'draft_expense' | 'earlier_year_open' | 'later_year_closed';
  detail: string;
  id?: string;
}

/** The year that starts on `start`, locked FOR UPDATE: two closes (or a close and a reopen) take turns. */
async function lockedYear(db: Db, companyId: string, start: string): Promise<YearRow> {
  const [year] = await db.$queryRaw<YearRow[]>`
    SELECT id, start_date, end_date, closed, closing_transaction_id, closed_at FROM fiscal_years
    WHERE company_id = ${companyId}::uuid AND start_date = ${start}::date FOR UPDATE`;
  if (!year) throw notFound('fiscal year', start);
  return year;
}

/** Every revenue and expense account's balance over the year (debit − credit), non-zero only. */
async function resultBalances(db: Db, companyId: string, from: string, to: string) {
  return db.$queryRaw<{ account_id: string; account_number: string; name: string; balance: { toString(): string } }[]>`
    SELECT a.id AS account_id, a.account_number, a.name, SUM(m.debit) - SUM(m.credit) AS balance
    FROM (${movements(companyId, from, to)}) m JOIN accounts a ON a.id = m.account_id
    WHERE a.type IN ('revenue', 'expense')
    GROUP BY a.id, a.account_number, a.name
    HAVING SUM(m.debit) <> SUM(m.credit)
    ORDER BY a.account_number`;
}

/** The year's result as the profit and loss shows it (credit − debit of revenue and expense accounts), closing entries left out. */
async function yearResult(db: Db, companyId: string, from: string, to: string): Promise<Decimal> {
  const [row] = await db.$queryRaw<{ result: { toString(): string } | null }[]>`
    SELECT SUM(m.credit) - SUM(m.debit) AS result
    FROM (${movements(companyId, from, to)} UNION ALL ${yearEndLinesNegated(companyId, from, to)}) m
    JOIN accounts a ON a.id = m.account_id AND a.type IN ('revenue', 'expense')`;
  return new Decimal(row?.result?.toString() ?? 0);
}

/** What blocks closing the year: unsettled VAT periods, drafts dated in it, an earlier year still open. */
async function closeBlockers(db: Db, companyId: string, year: YearRow): Promise<Blocker[]> {
  const [company, earlier, periods, invoices, expenses] = await Promise.all([
    db.company.findUniqueOrThrow({ where: { id: companyId }, select: { vat_registered: true, vat_period_frequency: true } }),
    db.fiscalYear.findMany({ where: { company_id: companyId, start_date: { lt: year.start_date }, closed: false }, orderBy: { start_date: 'asc' } }),
    db.$queryRaw<{ start_date: Date; end_date: Date }[]>`
      SELECT p.start_date, p.end_date FROM vat_periods p
      WHERE p.fiscal_year_id = ${year.id}::uuid
        AND NOT EXISTS (SELECT 1 FROM vat_returns r WHERE r.company_id = p.company_id AND r.start_date = p.start_date)
      ORDER BY p.start_date`,
    db.invoice.findMany({
      where: { company_id: companyId, status: 'draft', issue_date: { gte: year.start_date, lte: year.end_date } },
      select: { id: true, issue_date: true },
      orderBy: [{ issue_date: 'asc' }, { id: 'asc' }],
    }),
    db.expense.findMany({
      where: { company_id: companyId, status: 'draft', date: { gte: year.start_date, lte: year.end_date } },
      select: { id: true, date: true },
      orderBy: [{ date: 'asc' }, { id: 'asc' }],
    }),
  ]);
  const blockers: Blocker[] = [];
  for (const y of earlier) {
    const start = fromDate(y.start_date);
    blockers.push({ kind: 'earlier_year_open', id: start, detail: `The fiscal year ${start} to ${fromDate(y.end_date)} is to be closed first.` });
  }
  if (company.vat_registered) {
    for (const p of periods) {
      const name = periodContaining(fromDate(p.start_date), company.vat_period_frequency as VatFrequency).period;
      blockers.push({ kind: 'vat_period_unsettled', id: name, detail: `The VAT period ${name} is not settled (POST /vat-returns/${name}/settle).` });
    }
  }
  for (const i of invoices)
    blockers.push({ kind: 'draft_invoice', id: i.id, detail: `A draft invoice is dated ${fromDate(i.issue_date)}: approve or delete it.` });
  for (const e of expenses) blockers.push({ kind: 'draft_expense', id: e.id, detail: `A draft expense is dated ${fromDate(e.date)}: book or delete it.` });
  return blockers;
}

/** Bank accounts whose bank balance and ledger balance differ at the year's end: a warning, not a blocker. */
async function bankWarnings(db: Db, scope: CompanyScope, end: string) {
  const accounts = await db.bankAccount.findMany({ where: { company_id: scope.companyId }, select: { id: true, name: true }, orderBy: { name: 'asc' } });
  const out: { kind: 'bank_unreconciled'; bank_account_id: string; detail: string; difference: number }[] = [];
  for (const a of accounts) {
    const r = await bankReconciliation(db, scope, a.id, { as_of: end }).catch((e: unknown) => {
      // A bank account whose opening balance date lies after the year has nothing to reconcile in it.
      if (e instanceof DomainError && e.code === 'invalid_request') return null;
      throw e;
    });
    if (r && r.difference !== 0) {
      out.push({
        kind: 'bank_unreconciled',
        bank_account_id: a.id,
        difference: r.difference,
        detail: `The bank account ${a.name} does not reconcile at ${end}: bank minus ledger is ${new Decimal(r.difference).toFixed(2)} ${r.currency}.`,
      });
    }
  }
  return out;
}

/**
 * Posts on `date` even when the lock date covers it (a VAT settlement locks up to the period's end, the
 * year's last day): the lock is lowered for this transaction's own posting and put back before commit;
 * other transactions never see the lowered value (decision 552).
 */
async function postPastLock(db: Db, scope: CompanyScope, date: string, post: () => Promise<{ id: string }>) {
  const [co] = await db.$queryRaw<{ lock_date: Date | null }[]>`SELECT lock_date FROM companies WHERE id = ${scope.companyId}::uuid FOR UPDATE`;
  const lock = co?.lock_date ?? null;
  const lowered = lock && lock >= toDate(date);
  if (lowered) await db.$executeRaw`UPDATE companies SET lock_date = ${date}::date - 1 WHERE id = ${scope.companyId}::uuid`;
  const posted = await post();
  if (lowered) await db.$executeRaw`UPDATE companies SET lock_date = ${fromDate(lock)}::date WHERE id = ${scope.companyId}::uuid`;
  return posted;
}

export interface FiscalYearView {
  start_date: string;
  end_date: string;
  state: 'open' | 'closed';
  result: number;
  closing_transaction_id: string | null;
  closed_at: string | null;
}

async function yearView(db: Db, companyId: string, y: YearRow): Promise<FiscalYearView> {
  const start = fromDate(y.start_date);
  const end = fromDate(y.end_date);
  return {
    start_date: start,
    end_date: end,
    state: y.closed ? 'closed' : 'open',
    result: amountToJson(await yearResult(db, companyId, start, end)),
    closing_transaction_id: y.closing_transaction_id,
    closed_at: y.closed_at ? y.closed_at.toISOString() : null,
  };
}

/** GET /fiscal-years: every year of the company, the earliest first, with its state, result and closing entry. */
export async function listFiscalYears(db: Db, companyId: string): Promise<FiscalYearView[]> {
  const years = await db.fiscalYear.findMany({ where: { company_id: companyId }, orderBy: { start_date: 'asc' } });
  return Promise.all(years.map((y) => yearView(db, companyId, y)));
}

/**
 * Closes the fiscal year starting `start`: refused (409 fiscal_year_blocked, every blocker listed) while a
 * VAT period of it is unsettled, a draft is dated in it or an earlier year is open; otherwise posts the
 * closing entry on its last day and closes it. Bank accounts that do not reconcile at its end are warnings.
 */
export async function closeFiscalYear(db: Db, scope: CompanyScope, start: string) {
  const year = await lockedYear(db, scope.companyId, start);
  const end = fromDate(year.end_date);
  if (year.closed) throw new DomainError('fiscal_year_closed', `The fiscal year ${start} to ${end} is closed already.`, 'start');
  const blockers = await closeBlockers(db, scope.companyId, year);
  if (blockers.length) {
    throw new DomainError('fiscal_year_blocked', `The fiscal year ${start} to ${end} cannot be closed: ${blockers.map((b) => b.detail).join(' ')}`, 'start', {
      blockers,
    });
  }
  const warnings = await bankWarnings(db, scope, end);
  const balances = await resultBalances(db, scope.companyId, start, end);
  let closingId: string | null = null;
  if (balances.length) {
    const equity = await db.account.findFirst({ where: { company_id: scope.companyId, account_number: DEFAULT_ACCOUNTS.yearResult } });
    if (!equity) throw invalidRequest(`The chart has no account ${DEFAULT_ACCOUNTS.yearResult} for the year's result.`, 'start');
    const zero = new Decimal(0);
    const lines: PostingLine[] = balances.map((b) => {
      const balance = new Decimal(b.balance.toString());
      // The opposite of each balance: debit balances are credited, credit balances debited.
      return {
        accountId: b.account_id,
        account: { account_number: b.account_number, name: b.name },
        debit: balance.isNegative() ? balance.negated() : zero,
        credit: balance.isPositive() ? balance : zero,
        description: '',
        vatCode: '',
      };
    });
    const net = balances.reduce((sum, b) => sum.plus(b.balance.toString()), zero); // debit − credit of the result accounts
    // The result (credit − debit) to equity: a profit is credited, a loss debited.
    if (!net.isZero()) {
      lines.push({
        accountId: equity.id,
        account: { account_number: equity.account_number, name: equity.name },
        debit: net.isNegative() ? zero : net,
        credit: net.isNegative() ? net.negated() : zero,
        description: '',
        vatCode: '',
      });
    }
    const posted = await postPastLock(db, scope, end, () =>
      postTransaction(db, scope, {
        date: end,
        description: `Årsafslutning ${start} til ${end}: årets resultat til egenkapital`,
        lines,
        source: YEAR_END_SOURCE,
      }),
    );
    closingId = posted.id;
  }
  const [closed] = await db.$queryRaw<YearRow[]>`
    UPDATE fiscal_years SET closed = true, closing_transaction_id = ${closingId}::uuid, closed_at = now()
    WHERE id = ${year.id}::uuid
    RETURNING id, start_date, end_date, closed, closing_transaction_id, closed_at`;
  const view = await yearView(db, scope.companyId, closed!);
  await recordEvent(db, scope, 'fiscal_year.closed', { ...view });
  return { ...view, warnings };
}

/**
 * Reopens a closed fiscal year: its closing entry is reversed by a new entry on the year's last day whose
 * text says why; the year is open again. Refused while a later year is closed (reopen that one first).
 */
export async function reopenFiscalYear(db: Db, scope: CompanyScope, start: string, reason: string) {
  const year = await lockedYear(db, scope.companyId, start);
  const end = fromDate(year.end_date);
  if (!year.closed) throw new DomainError('fiscal_year_not_closed', `The fiscal year ${start} to ${end} is open.`, 'start');
  const later = await db.fiscalYear.findMany({
    where: { company_id: scope.companyId, start_date: { gt: year.start_date }, closed: true },
    orderBy: { start_date: 'asc' },
  });
  if (later.length) {
    const blockers: Blocker[] = later.map((y) => ({
      kind: 'later_year_closed',
      id: fromDate(y.start_date),
      detail: `The later fiscal year ${fromDate(y.start_date)} to ${fromDate(y.end_date)} is closed: reopen it first.`,
    }));
    throw new DomainError('fiscal_year_not_closed', blockers.map((b) => b.detail).join(' '), 'start', { blockers });
  }
  // Open first: the reversal is posted into the year like any posting.
  await db.$executeRaw`UPDATE fiscal_years SET closed = false, closing_transaction_id = NULL, closed_at = NULL WHERE id = ${year.id}::uuid`;
  let reversalId: string | null = null;
  if (year.closing_transaction_id) {
    const closing = await db.ledgerTransaction.findUniqueOrThrow({
      where: { id: year.closing_transaction_id },
      include: { lines: { orderBy: { line_number: 'asc' } } },
    });
    const reversal = await postPastLock(db, scope, end, () =>
      postTransaction(db, scope, {
        date: end,
        description: `Genåbning af regnskabsåret ${start} til ${end} (tilbageførsel af bilag ${closing.document_number}): ${reason}`,
        lines: reversingLines(closing.lines.map(storedPostingLine)),
        source: YEAR_END_SOURCE,
        reversesId: closing.id,
      }),
    );
    reversalId = reversal.id;
  }
  const view = await yearView(db, scope.companyId, { ...year, closed: false, closing_transaction_id: null, closed_at: null });
  const out = { ...view, reopening_transaction_id: reversalId, reason };
  await recordEvent(db, scope, 'fiscal_year.reopened', out);
  return out;
}
