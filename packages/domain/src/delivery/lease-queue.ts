// The lease queue both outbound deliveries run on (decision 815): an e-mail (email_deliveries,
// email/delivery.ts) and an e-invoice message (einvoice_messages, einvoice/delivery.ts). The row is the
// truth; pg-boss jobs only wake it. A due row is claimed with a lease (one UPDATE: queued, due, and not
// leased to a live worker, so two workers never attempt one row at once), attempted, and its outcome
// recorded with its attempts: a failed attempt is retried on the webhook schedule and the 8th failure
// leaves it failed. A worker that dies mid-attempt leaves its lease to run out and the row is attempted
// again: at least once, never lost. What differs between the two tables is a parameter of the queue.
import { Prisma, type Db, type InTransaction } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { retryWaitMs } from '../webhooks/rules.ts';

/** A moment a row falls due: the delivery job for it is sent for then (@tlr/jobs). */
export interface DueRow {
  id: string;
  due: Date;
}

/** What every claimed row carries, whatever its table. */
export interface ClaimedRow {
  id: string;
  company_id: string;
  invoice_id: string | null;
  document_kind: string;
  livemode: boolean;
  attempts: number;
  /** The end of this worker's lease: the moment another may take the row over. */
  lease_until: Date;
}

/** The outcome of one attempt, as far as the queue needs it; each table's own outcome adds its answer. */
export type AttemptOutcome = { outcome: 'accepted' } | { outcome: 'retry' | 'rejected'; error: string };

/** The status an outcome leaves: sent, rejected (e-invoices only: an answer, no retry), queued again, or failed. */
export type RecordedStatus = 'sent' | 'rejected' | 'queued' | 'failed';

export interface LeaseQueue<Claimed extends ClaimedRow, Outcome extends AttemptOutcome> {
  /** Its table: a fixed name, never input. */
  table: 'email_deliveries' | 'einvoice_messages';
  /** The columns a claim returns besides those of ClaimedRow: what the attempt sends. */
  columns: readonly string[];
  /** What else an outcome records on the row (its answer; an e-mail's sent_at), as SET assignments. */
  recordAlso(outcome: Outcome, status: RecordedStatus): Prisma.Sql;
  /**
   * What follows from an accepted attempt, in its transaction; `recorded` says whether the outcome was
   * this attempt's to record (false: a receipt or a replay settled the row meanwhile).
   */
  onAccepted(tx: Db, scope: CompanyScope, row: Claimed, recorded: boolean): Promise<void>;
}

/**
 * A claimed row is attempted again by another worker once its lease has passed without an outcome: the
 * attempt's timeout, and a margin of 1.25 times it for recording the outcome (20 s + 25 s = 45 s for an
 * e-invoice by default). The margin shrinks with the timeout, so tests can run a lease out in seconds;
 * one too short for a slow database attempts a row twice, and never loses it.
 */
export const leaseMs = (attemptTimeoutMs: number) => attemptTimeoutMs * 2.25;

/**
 * Leases row `id` to the caller (for leaseMs of the attempt's timeout) if it is queued and due; null if it
 * is not (settled, not due yet, or leased to another worker whose lease has not run out). Two claims at
 * once: the row lock lets one through, and the other finds it leased.
 */
export async function claimDue<C extends ClaimedRow, O extends AttemptOutcome>(
  db: Db,
  queue: LeaseQueue<C, O>,
  id: string,
  attemptTimeoutMs: number,
): Promise<C | null> {
  const columns = Prisma.raw(queue.columns.map((c) => `q.${c}`).join(', '));
  const [claimed] = await db.$queryRaw<C[]>`
    UPDATE ${Prisma.raw(queue.table)} q SET next_attempt_at = now() + make_interval(secs => ${leaseMs(attemptTimeoutMs) / 1000}::float8)
    FROM companies c
    WHERE q.id = ${id}::uuid AND q.status = 'queued' AND q.next_attempt_at <= now() AND c.id = q.company_id
    RETURNING q.id, q.company_id, q.invoice_id, q.document_kind, c.sandbox_of_id IS NULL AS livemode, q.attempts, ${columns},
              q.next_attempt_at AS lease_until`;
  return claimed ?? null;
}

/** How one claimed row is attempted: its send, what a thrown send counts as, and a sandbox's outcome. */
export interface Attempt<O extends AttemptOutcome> {
  send(): Promise<O>;
  thrown(error: string): O;
  /** A sandbox's rows never leave: they count as accepted at once. */
  sandbox: O;
}

/**
 * One attempt at a claimed row, and its outcome recorded in one transaction with what follows from it.
 * Returns when the row falls due again (its retry), or null once it is settled.
 */
export async function attemptClaimed<C extends ClaimedRow, O extends AttemptOutcome>(
  run: InTransaction,
  queue: LeaseQueue<C, O>,
  row: C,
  attempt: Attempt<O>,
  retryUnitMs: number,
): Promise<DueRow | null> {
  const outcome = row.livemode ? await attempt.send().catch((e: unknown) => attempt.thrown((e as Error).message)) : attempt.sandbox;
  return run((tx) => recordOutcome(tx, queue, row, outcome, retryUnitMs));
}

/** The outcome of an attempt, recorded only while the row is still this attempt's. */
export async function recordOutcome<C extends ClaimedRow, O extends AttemptOutcome>(
  tx: Db,
  queue: LeaseQueue<C, O>,
  row: C,
  outcome: O,
  retryUnitMs: number,
): Promise<DueRow | null> {
  const o: AttemptOutcome = outcome;
  const scope: CompanyScope = { companyId: row.company_id, livemode: row.livemode };
  // The invoice before the row, as every writer of both takes them (a send, an approval, a receipt).
  if (row.invoice_id) await tx.$queryRaw`SELECT 1 FROM invoices WHERE id = ${row.invoice_id}::uuid FOR UPDATE`;
  const attempts = row.attempts + 1;
  const wait = o.outcome === 'retry' ? retryWaitMs(attempts, retryUnitMs) : null;
  const status: RecordedStatus = o.outcome === 'accepted' ? 'sent' : o.outcome === 'rejected' ? 'rejected' : wait === null ? 'failed' : 'queued';
  // Only while it is still this attempt's: a receipt or a replay that came meanwhile keeps what it recorded.
  const [updated] = await tx.$queryRaw<{ next_attempt_at: Date | null }[]>`
    UPDATE ${Prisma.raw(queue.table)} SET
      status = ${status}, attempts = ${attempts}, last_error = ${o.outcome === 'accepted' ? '' : o.error}, ${queue.recordAlso(outcome, status)},
      next_attempt_at = CASE WHEN ${wait}::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => ${wait}::float8 / 1000) END,
      updated_at = now()
    WHERE id = ${row.id}::uuid AND status = 'queued' AND attempts = ${row.attempts}
    RETURNING next_attempt_at`;
  if (o.outcome === 'accepted') await queue.onAccepted(tx, scope, row, updated !== undefined);
  return updated?.next_attempt_at ? { id: row.id, due: updated.next_attempt_at } : null;
}

/** Queued rows falling due within `withinMs` (due already, or a retry or a lease ending soon): the sweep sends each its job. */
export async function dueWithin(db: Db, table: LeaseQueue<ClaimedRow, AttemptOutcome>['table'], withinMs: number): Promise<DueRow[]> {
  const rows = await db.$queryRaw<{ id: string; next_attempt_at: Date }[]>`
    SELECT id, next_attempt_at FROM ${Prisma.raw(table)}
    WHERE status = 'queued' AND next_attempt_at <= now() + make_interval(secs => ${withinMs / 1000}::float8)
    ORDER BY next_attempt_at LIMIT 10000`;
  return rows.map((r) => ({ id: r.id, due: r.next_attempt_at }));
}
