// The events outbox: every create, update and delete records its catalog event here, in the same
// transaction as the change. Delivery (webhooks) reads this table later; nothing is lost on a crash.
import { API_VERSION } from '@tlr/config';
import { Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { newId } from '../ids.ts';

export const EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.approved',
  'invoice.sent',
  'invoice.paid',
  'invoice.cancelled',
  'invoice.overdue',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'product.created',
  'product.updated',
  'product.deleted',
  'expense.created',
  'expense.updated',
  'expense.deleted',
  'supplier.created',
  'supplier.updated',
  'supplier.deleted',
  'transaction.created',
  'voucher.created',
  'voucher.deleted',
  // Additive: beyond the contract's 23.
  'vat_return.settled',
  // Additive: the VAT return sent to Skattestyrelsen as a draft, and approved there (docs/vat-return.md, Filing).
  'vat_return.submitted',
  'vat_return.approved',
  // Additive: a payment reminder (rykker) issued on an invoice.
  'invoice.reminder_sent',
  // Additive: a recurring invoice (template) created, changed, paused, resumed; data is the RecurringInvoiceWithInvoices
  // resource as the request answers it. Deleted: { id }.
  'recurring_invoice.created',
  'recurring_invoice.updated',
  'recurring_invoice.deleted',
  'recurring_invoice.paused',
  'recurring_invoice.resumed',
  // Additive: a bank statement imported; data is the BankStatement resource.
  'bank_statement.imported',
  // Additive: a fiscal year closed (its result moved to equity) or reopened; data is the FiscalYear resource.
  'fiscal_year.closed',
  'fiscal_year.reopened',
  // Additive: quotes (tilbud), one event per change; data is the Quote resource without its lines.
  'quote.created',
  'quote.updated',
  'quote.deleted',
  'quote.sent',
  'quote.accepted',
  'quote.declined',
  'quote.expired',
  // Additive: fixed assets (docs/assets.md). created and disposed carry the Asset resource; depreciated, one
  // per asset and month posted, carries { asset_id, month, amount, date, transaction_id, accumulated_depreciation, book_value }.
  'asset.created',
  'asset.disposed',
  'asset.depreciated',
  // Additive: accruals (docs/accruals.md): one per accrual and month moved to its result account, carrying
  // { accrual_id, document_type, document_id, line_id, month, amount, date, transaction_id, remaining }.
  'accrual.posted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

interface PendingEvent {
  id: string;
  scope: CompanyScope;
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Transactions whose events wait for one INSERT at their end (flushEvents), instead of one round trip
 * each: the procedure pipeline opens every mutation's transaction this way. A transaction not listed
 * here (a background job's) records each event at once.
 */
const held = new WeakMap<Db, PendingEvent[]>();

/** From now on, events recorded on `tx` are held until flushEvents(tx), which must run before commit. */
export function holdEvents(tx: Db): void {
  held.set(tx, []);
}

/**
 * For a savepoint of a transaction that holds its events: how many are held now (`mark`), and, after a
 * ROLLBACK TO SAVEPOINT, forgetting those recorded since (`forget`), as the rollback forgot their changes.
 */
export const heldEvents = {
  mark: (tx: Db): number => held.get(tx)?.length ?? 0,
  forget: (tx: Db, mark: number): void => void held.get(tx)?.splice(mark),
};

export async function recordEvent(db: Db, scope: CompanyScope, type: EventType, data: Record<string, unknown>): Promise<string> {
  return (await recordEvents(db, scope, type, [data]))[0]!;
}

/** Events of one type, in order: held like recordEvent's, or else written in one statement (a batch of postings). */
export async function recordEvents(db: Db, scope: CompanyScope, type: EventType, data: readonly Record<string, unknown>[]): Promise<string[]> {
  const events = data.map((d) => ({ id: newId(), scope, type, data: d }));
  const pending = held.get(db);
  if (pending) for (const e of events) pending.push(e);
  else if (events.length) await db.$executeRaw`WITH ${eventsInsert(events)} SELECT 1`;
  return events.map((e) => e.id);
}

/**
 * The held events as one CTE (`WITH <this>, ... SELECT ...`), in the order they were recorded (their
 * outbox sequence follows it). JSON.stringify, not Prisma's Json mapping: amounts beyond double
 * precision are raw JSON numbers (money.ts), which jsonb keeps exact as numeric.
 */
function eventsInsert(events: readonly PendingEvent[]): Prisma.Sql {
  return Prisma.sql`events AS (
    INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data)
    SELECT e.id, e.company_id, e.type, e.livemode, ${API_VERSION}, e.data::jsonb
    FROM unnest(${events.map((e) => e.id)}::uuid[], ${events.map((e) => e.scope.companyId)}::uuid[], ${events.map((e) => e.type)}::text[],
                ${events.map((e) => e.scope.livemode)}::boolean[], ${events.map((e) => JSON.stringify(e.data))}::text[])
      WITH ORDINALITY AS e(id, company_id, type, livemode, data, n)
    ORDER BY e.n
  )`;
}

/**
 * Writes the events held on `tx` and stops holding them; with `andThen`, a statement of the caller's
 * that runs in the same round trip (the stored idempotent response). One statement either way.
 */
export async function flushEvents(tx: Db, andThen?: Prisma.Sql): Promise<void> {
  const events = held.get(tx) ?? [];
  held.delete(tx);
  if (!events.length && !andThen) return;
  const parts = [...(events.length ? [eventsInsert(events)] : []), ...(andThen ? [Prisma.sql`also AS (${andThen})`] : [])];
  await tx.$executeRaw`WITH ${Prisma.join(parts, ', ')} SELECT 1`;
}

/** Days a fanned-out event stays in the outbox; its webhook deliveries keep their own bodies. */
const OUTBOX_RETENTION_DAYS = 30;

/** Deletes events fanned out more than 30 days ago (a daily job); an event not yet fanned out stays. */
export async function purgeDispatchedEvents(db: Db): Promise<number> {
  return db.$executeRaw`DELETE FROM outbox_events WHERE dispatched_at < now() - make_interval(days => ${OUTBOX_RETENTION_DAYS})`;
}
