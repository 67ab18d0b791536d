// E-invoice delivery, at least once, with the guarantees of webhook delivery: a due message is claimed
// with a lease, handed to the access point and its outcome recorded; a failed attempt is retried on the
// webhook schedule and the 8th failure leaves it failed (dead letter) until replayed. A worker that
// dies mid-attempt leaves its lease to run out, and the message is attempted again (twice, perhaps,
// never lost). The row is the truth; the jobs that run it (@tlr/jobs deliverEinvoice) only wake it.
import type { Db, InTransaction } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { setInvoiceStatus } from '../invoices/set-invoice-status.ts';
import { retryWaitMs } from '../webhooks/rules.ts';
import type { DueMessage } from './outbound.ts';
import type { EinvoiceStatus } from './schema.ts';
import type { EinvoiceTransport, HandOver } from './transports.ts';

/**
 * A claimed message is attempted again by another worker once its lease has passed without an outcome:
 * the hand-over's timeout, and a margin of 1.25 times it for recording the outcome (20 s + 25 s = 45 s
 * by default). The margin shrinks with the timeout, so tests can run a lease out in seconds; one too
 * short for a slow database hands a document over twice, and never loses it.
 */
export const leaseMs = (handOverTimeoutMs: number) => handOverTimeoutMs * 2.25;

/** What the delivery worker needs of the configuration. */
export interface EinvoiceSettings {
  transport: EinvoiceTransport;
  /** The length of one "minute" of the (webhook) retry schedule: WEBHOOK_RETRY_UNIT_MS. */
  retryUnitMs: number;
  /** How often the directory transport's inbox is read. */
  inboxPollMs: number;
  /** How long a hand-over may take (the http transport's timeout): EINVOICE_HANDOVER_TIMEOUT_MS. The lease follows from it. */
  handOverTimeoutMs: number;
}

export interface ClaimedMessage {
  id: string;
  company_id: string;
  invoice_id: string | null;
  document_kind: string;
  livemode: boolean;
  attempts: number;
  document_xml: string;
  document_uuid: string;
  receiver_peppol_id: string;
  /** The end of this worker's lease: the moment another may take the message over. */
  lease_until: Date;
}

/**
 * Leases message `id` to the caller (for leaseMs of the hand-over timeout) if it is queued and due; null if it is not (settled, not due yet,
 * or leased to another worker, whose lease has not run out). Two claims at once: the row lock lets one
 * through, and the other finds it leased.
 */
export async function claimEinvoice(db: Db, id: string, handOverTimeoutMs: number): Promise<ClaimedMessage | null> {
  const [claimed] = await db.$queryRaw<ClaimedMessage[]>`
    UPDATE einvoice_messages m SET next_attempt_at = now() + make_interval(secs => ${leaseMs(handOverTimeoutMs) / 1000}::float8)
    FROM companies c
    WHERE m.id = ${id}::uuid AND m.status = 'queued' AND m.next_attempt_at <= now() AND c.id = m.company_id
    RETURNING m.id, m.company_id, m.invoice_id, m.document_kind, c.sandbox_of_id IS NULL AS livemode, m.attempts, m.document_xml, m.document_uuid,
              m.receiver_peppol_id, m.next_attempt_at AS lease_until`;
  return claimed ?? null;
}

/**
 * The access point has the document: an approved invoice becomes sent, with its invoice.sent event,
 * through the invoices' own transition. One already sent, overdue or paid stays as it is. A credit
 * note's acceptance leaves its invoice alone: the invoice it cancelled stays cancelled, no invoice.sent.
 */
export async function markAccepted(tx: Db, scope: CompanyScope, message: { invoice_id: string | null; document_kind: string }): Promise<void> {
  const invoiceId = message.invoice_id;
  if (!invoiceId || message.document_kind !== 'invoice') return;
  const [invoice] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM invoices WHERE id = ${invoiceId}::uuid FOR UPDATE`;
  if (invoice?.status === 'approved') await setInvoiceStatus(tx, scope, invoiceId, { status: 'sent' });
}

/**
 * One attempt at a claimed message, and its outcome recorded in one transaction with what follows
 * from it (the invoice sent). Returns when the message falls due again (its retry), or null once
 * it is settled. A sandbox's documents never reach the access point: they are accepted at once.
 */
export async function attemptEinvoice(run: InTransaction, settings: EinvoiceSettings, m: ClaimedMessage): Promise<DueMessage | null> {
  const handOver: HandOver = m.livemode
    ? await settings.transport
        .send({ messageId: m.id, xml: m.document_xml, receiver: m.receiver_peppol_id, documentUuid: m.document_uuid })
        .catch((e: unknown) => ({ outcome: 'retry', error: (e as Error).message }))
    : { outcome: 'accepted', response: { source: 'sandbox', detail: 'A sandbox document is not sent: it counts as accepted.' } };
  return run((tx) => record(tx, m, handOver, settings.retryUnitMs));
}

async function record(tx: Db, m: ClaimedMessage, h: HandOver, retryUnitMs: number): Promise<DueMessage | null> {
  const scope: CompanyScope = { companyId: m.company_id, livemode: m.livemode };
  // The invoice before the message, as every writer of both takes them (a send, an approval, a receipt).
  if (m.invoice_id) await tx.$queryRaw`SELECT 1 FROM invoices WHERE id = ${m.invoice_id}::uuid FOR UPDATE`;
  const attempts = m.attempts + 1;
  const wait = h.outcome === 'retry' ? retryWaitMs(attempts, retryUnitMs) : null;
  const status: EinvoiceStatus = h.outcome === 'accepted' ? 'sent' : h.outcome === 'rejected' ? 'rejected' : wait === null ? 'failed' : 'queued';
  // Only while it is still this attempt's: a receipt or a replay that came meanwhile keeps what it recorded.
  const [updated] = await tx.$queryRaw<{ next_attempt_at: Date | null }[]>`
    UPDATE einvoice_messages SET
      status = ${status}, attempts = ${attempts}, last_error = ${h.outcome === 'accepted' ? '' : h.error},
      next_attempt_at = CASE WHEN ${wait}::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => ${wait}::float8 / 1000) END,
      last_response = COALESCE(${h.response ? JSON.stringify(h.response) : null}::jsonb, last_response), updated_at = now()
    WHERE id = ${m.id}::uuid AND status = 'queued' AND attempts = ${m.attempts}
    RETURNING next_attempt_at`;
  if (h.outcome === 'accepted') await markAccepted(tx, scope, m);
  return updated?.next_attempt_at ? { id: m.id, due: updated.next_attempt_at } : null;
}

/**
 * Queued messages falling due within `withinMs` (due already, or a retry or a lease ending soon): the
 * sweep sends each its job, so that none waits on a wake-up lost with a crashed process.
 */
export async function einvoicesDueWithin(db: Db, withinMs: number): Promise<DueMessage[]> {
  const rows = await db.$queryRaw<{ id: string; next_attempt_at: Date }[]>`
    SELECT id, next_attempt_at FROM einvoice_messages
    WHERE status = 'queued' AND next_attempt_at <= now() + make_interval(secs => ${withinMs / 1000}::float8)
    ORDER BY next_attempt_at LIMIT 10000`;
  return rows.map((r) => ({ id: r.id, due: r.next_attempt_at }));
}
