// Accruals (periodisering) in the database: the accrued lines a booking records (what it put on the
// prepaid expenses or deferred income account), the one function that moves an accrual's next month to its
// result account (the monthly job, run-accruals.ts, calls it), the cancellation that stops them and tells
// the document's reversal what has moved, and the schedules a document shows. Every posting goes through
// the journal writer. docs/accruals.md; decisions 820-827.
import type { Db } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { amountToJson, decimalOf, Decimal, shareOut } from '../money.ts';
import { postTransaction } from '../ledger/post.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { signedLine } from '../ledger/documents.ts';
import type { LineDimensions } from '../dimensions/schema.ts';
import { firstOpenDay } from '../ledger/books.ts';
import { monthEnd } from '../assets/rules.ts';
import { accrualSchedule, firstDay, rangeMonths, type AccrualRange, type MovedShare } from './rules.ts';
import type { AccrualView } from './schema.ts';

export type AccrualDocument = 'expense' | 'invoice';

/** The holding account of each kind of document (decision 820): prepaid expenses for a cost, deferred income for revenue. */
export const HOLDING_ACCOUNT: Record<AccrualDocument, string> = { expense: DEFAULT_ACCOUNTS.prepaidExpenses, invoice: DEFAULT_ACCOUNTS.deferredIncome };

/** The company's holding account for the document's kind, by number; a chart without it (or with it deactivated) is refused by name. */
export async function holdingAccount(db: Db, scope: CompanyScope, kind: AccrualDocument, field: string) {
  const number = HOLDING_ACCOUNT[kind];
  const a = await db.account.findFirst({ where: { company_id: scope.companyId, account_number: number }, select: { id: true, active: true, name: true } });
  if (!a) throw new DomainError('chart_incomplete', `The chart of accounts has no account ${number}, which an accrual posts to.`, field);
  if (!a.active) throw new DomainError('account_inactive', `Account ${number} (${a.name}), which an accrual posts to, is deactivated.`, field);
  return a;
}

/** A line of the document booked to the holding account, as booking hands it over. */
export interface AccruedLine {
  /** The expense line or invoice line; null: the expense itself (one amount). */
  lineId: string | null;
  description: string;
  resultAccountId: string;
  range: AccrualRange;
  /** Its amount in the document's currency: what the DKK on the holding account is shared out by. */
  weight: Decimal;
  dimensions?: LineDimensions | undefined;
  /** The body's field, for a refusal: `accrual`, `lines[2].accrual`. */
  field: string;
}

/**
 * Records the accrued lines of a booking (decision 822): `posted` is what the booking put on the holding
 * account in DKK (debit − credit), shared out over the lines by their amounts, so that their accruals sum
 * to it exactly. A share below 0.01 a month is refused, naming the line's accrual.
 */
export async function recordAccruals(
  db: Db,
  scope: CompanyScope,
  doc: { type: AccrualDocument; id: string },
  holdingAccountId: string,
  posted: Decimal,
  lines: readonly AccruedLine[],
): Promise<void> {
  if (!lines.length) return;
  const shares = shareOut(
    posted,
    lines.map((l) => l.weight),
  );
  const rows = lines.map((l, i) => {
    const months = rangeMonths(l.range);
    const amount = shares[i]!;
    if (amount.abs().lessThan(new Decimal('0.01').times(months)))
      throw invalidRequest(`${amount.toFixed(2)} DKK cannot be spread over ${months} months: at least 0.01 a month.`, `${l.field}.to`);
    return {
      id: newId(),
      company_id: scope.companyId,
      document_type: doc.type,
      document_id: doc.id,
      line_id: l.lineId,
      description: l.description.slice(0, 500),
      holding_account_id: holdingAccountId,
      result_account_id: l.resultAccountId,
      amount: amount.toFixed(2),
      from_month: toDate(firstDay(l.range.from)),
      months,
      ...(l.dimensions && Object.keys(l.dimensions).length ? { dimensions: l.dimensions } : {}),
    };
  });
  await db.accrual.createMany({ data: rows });
}

/**
 * Moves the accrual's next month to its result account when the month's last day is on or before `day`
 * (decision 823): dated that day, or the first open day after a lock or a closed year when that is still
 * on or before `day` (decision 824, as depreciation's 571). One month per call, under the accrual's row
 * lock (SKIP LOCKED with `skipLocked`: null when another run holds it); the month's row is unique per
 * accrual and month. The month posted, or null when none is due.
 */
export async function accrueNextMonth(db: Db, scope: CompanyScope, id: string, opts: { day: string; skipLocked?: boolean }): Promise<string | null> {
  const [locked] = opts.skipLocked
    ? await db.$queryRaw<{ id: string }[]>`SELECT id FROM accruals WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE SKIP LOCKED`
    : await db.$queryRaw<{ id: string }[]>`SELECT id FROM accruals WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) return null;
  const row = await db.accrual.findUniqueOrThrow({ where: { id } });
  if (row.status !== 'active') return null;
  const amount = decimalOf(row.amount);
  const m = accrualSchedule(fromDate(row.from_month), row.months, amount)[row.months_posted];
  if (!m) return null;
  const end = monthEnd(m.month);
  if (end > opts.day) return null;
  const date = await firstOpenDay(db, scope.companyId, end);
  if (date > opts.day) return null;
  const text = `Periodisering ${m.month.slice(0, 7)}: ${row.description || (row.document_type === 'expense' ? 'Udgift' : 'Faktura')}`.slice(0, 500);
  const dimensions = (row.dimensions as LineDimensions | null) ?? undefined;
  const posted = await postTransaction(db, scope, {
    date,
    description: text,
    source: 'accrual',
    sourceId: row.document_id,
    // What booking put on the holding account moves to the result account: the month's share off the one, onto the other.
    lines: [signedLine(row.result_account_id, m.amount, text, dimensions ? { dimensions } : {}), signedLine(row.holding_account_id, m.amount.negated(), text)],
  });
  await db.accrualPosting.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      accrual_id: row.id,
      month: toDate(m.month),
      amount: m.amount.toFixed(2),
      transaction_id: posted.id,
      date: toDate(date),
    },
  });
  const months = row.months_posted + 1;
  const moved = decimalOf(row.moved).plus(m.amount);
  await db.accrual.update({
    where: { id: row.id },
    data: { months_posted: months, moved: moved.toFixed(2), status: months >= row.months ? 'done' : 'active' },
  });
  await recordEvent(db, scope, 'accrual.posted', {
    accrual_id: row.id,
    document_type: row.document_type,
    document_id: row.document_id,
    line_id: row.line_id,
    month: m.month,
    amount: amountToJson(m.amount),
    date,
    transaction_id: posted.id,
    remaining: amountToJson(amount.minus(moved)),
  });
  return m.month;
}

/** The month an accrual would move next (for the job's log of a refusal). */
export async function pendingAccrualMonth(db: Db, id: string): Promise<string | undefined> {
  const row = await db.accrual.findUnique({ where: { id } });
  return row ? accrualSchedule(fromDate(row.from_month), row.months, decimalOf(row.amount))[row.months_posted]?.month : undefined;
}

/**
 * Stops a document's accruals as it is cancelled (decision 825): under their row locks (a month the job is
 * posting is waited for, then counted), every accrual is cancelled and no later month is posted. Answers
 * what each has moved, for the document's reversal (rules.ts reversalWithMoved).
 */
export async function cancelAccruals(db: Db, scope: CompanyScope, documentId: string): Promise<MovedShare[]> {
  const locked = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM accruals WHERE document_id = ${documentId}::uuid AND company_id = ${scope.companyId}::uuid ORDER BY id FOR UPDATE`;
  if (!locked.length) return [];
  const rows = await db.accrual.findMany({ where: { id: { in: locked.map((r) => r.id) } }, orderBy: { id: 'asc' } });
  await db.accrual.updateMany({ where: { id: { in: rows.map((r) => r.id) }, status: 'active' }, data: { status: 'cancelled' } });
  return rows.map((r) => ({ holdingAccountId: r.holding_account_id, resultAccountId: r.result_account_id, moved: decimalOf(r.moved) }));
}

/** The key of a line's accrual in accrualSchedules' answer: the line id, or "" for the expense itself. */
export const accrualKey = (documentId: string, lineId: string | null) => `${documentId}:${lineId ?? ''}`;

/** The schedules of the documents' accruals (decision 826), by accrualKey: two statements however many documents. */
export async function accrualSchedules(db: Db, documentIds: readonly string[]): Promise<Map<string, AccrualView['schedule']>> {
  const out = new Map<string, AccrualView['schedule']>();
  if (!documentIds.length) return out;
  const rows = await db.accrual.findMany({ where: { document_id: { in: [...documentIds] } }, include: { postings: true } });
  for (const r of rows) {
    const posted = new Map(r.postings.map((p) => [fromDate(p.month), p]));
    const schedule = accrualSchedule(fromDate(r.from_month), r.months, decimalOf(r.amount)).map((m) => {
      const p = posted.get(m.month);
      return {
        month: m.month,
        amount: amountToJson(m.amount),
        status: p ? ('posted' as const) : r.status === 'cancelled' ? ('cancelled' as const) : ('pending' as const),
        date: p ? fromDate(p.date) : null,
        transaction_id: p?.transaction_id ?? null,
      };
    });
    out.set(accrualKey(r.document_id, r.line_id), schedule);
  }
  return out;
}

/** A stored range and its schedule as a document shows it; null when the line is not accrued. */
export function accrualView(range: AccrualRange | null, schedules: ReadonlyMap<string, AccrualView['schedule']>, key: string): AccrualView | null {
  return range ? { ...range, schedule: schedules.get(key) ?? [] } : null;
}
