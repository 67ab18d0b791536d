// E-invoice delivery, at least once, with the guarantees of webhook delivery: a due message is claimed
// with a lease, handed to the access point and its outcome recorded; a failed attempt is retried on the
// webhook schedule and the 8th failure leaves it failed (dead letter) until replayed. A worker that
// dies mid-attempt leaves its lease to run out, and the message is attempted again (twice, perhaps,
// never lost). The row is the truth; the jobs that run it (@tlr/jobs deliverEinvoice) only wake it.
// The queue's steps (claim, attempt, record, sweep) are the lease queue's, delivery/lease-queue.ts.
import { Prisma, type Db, type InTransaction } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { attemptClaimed, claimDue, dueWithin, type ClaimedRow, type LeaseQueue } from '../delivery/lease-queue.ts';
import { setInvoiceStatus } from '../invoices/set-invoice-status.ts';
import type { DueMessage } from './outbound.ts';
import type { EinvoiceTransport, HandOver } from './transports.ts';

/** A claimed message's lease: leaseMs of the hand-over timeout (the lease queue's, delivery/lease-queue.ts). */
export { leaseMs } from '../delivery/lease-queue.ts';

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

export interface ClaimedMessage extends ClaimedRow {
  document_xml: string;
  document_uuid: string;
  receiver_peppol_id: string;
}

/** The e-invoice messages as a lease queue: what a claim returns, and what an outcome records besides. */
const messages: LeaseQueue<ClaimedMessage, HandOver> = {
  table: 'einvoice_messages',
  columns: ['document_xml', 'document_uuid', 'receiver_peppol_id'],
  // An answer without a response (a thrown hand-over) keeps the last one.
  recordAlso: (h) => Prisma.sql`last_response = COALESCE(${h.response ? JSON.stringify(h.response) : null}::jsonb, last_response)`,
  // Unlike an e-mail's, an accepted hand-over marks the invoice sent even when a receipt or a replay
  // recorded meanwhile: the access point has the document whatever the row says now. Kept as it was.
  onAccepted: (tx, scope, m) => markAccepted(tx, scope, m),
};

/**
 * Leases message `id` to the caller (for leaseMs of the hand-over timeout) if it is queued and due; null if it is not (settled, not due yet,
 * or leased to another worker, whose lease has not run out). Two claims at once: the row lock lets one
 * through, and the other finds it leased.
 */
export const claimEinvoice = (db: Db, id: string, handOverTimeoutMs: number): Promise<ClaimedMessage | null> => claimDue(db, messages, id, handOverTimeoutMs);

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
  return attemptClaimed(
    run,
    messages,
    m,
    {
      send: () => settings.transport.send({ messageId: m.id, xml: m.document_xml, receiver: m.receiver_peppol_id, documentUuid: m.document_uuid }),
      thrown: (error) => ({ outcome: 'retry', error }),
      sandbox: { outcome: 'accepted', response: { source: 'sandbox', detail: 'A sandbox document is not sent: it counts as accepted.' } },
    },
    settings.retryUnitMs,
  );
}

/**
 * Queued messages falling due within `withinMs` (due already, or a retry or a lease ending soon): the
 * sweep sends each its job, so that none waits on a wake-up lost with a crashed process.
 */
export const einvoicesDueWithin = (db: Db, withinMs: number): Promise<DueMessage[]> => dueWithin(db, messages.table, withinMs);
