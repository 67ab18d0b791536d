// E-mail delivery, with the guarantees of e-invoice delivery (einvoice/delivery.ts): a due delivery is
// claimed with a lease, handed to the SMTP server and its outcome recorded; a failed attempt is retried
// on the webhook schedule and the 8th failure leaves it failed. The claim is one UPDATE on the row
// (queued, due, and not leased to a live worker), so two workers never send one delivery at the same
// time. A worker that dies between the SMTP server's acceptance and the record leaves its lease to run
// out, and the message is sent again with the same Message-ID: at least once, never lost (decision 604).
// The queue's steps (claim, attempt, record, sweep) are the lease queue's, delivery/lease-queue.ts (815).
import { Prisma, type Db, type InTransaction } from '@tlr/db';
import { attemptClaimed, claimDue, dueWithin, leaseMs, recordOutcome, type ClaimedRow, type LeaseQueue } from '../delivery/lease-queue.ts';
import { markAccepted } from '../einvoice/delivery.ts';
import type { DueEmail } from './outbound.ts';

/** One message as the transport sends it: everything fixed when it was queued. */
export interface OutgoingEmail {
  messageId: string;
  fromName: string;
  to: string[];
  replyTo: string;
  subject: string;
  text: string;
  /** When it was queued: its Date header, the same at every attempt. */
  date: Date;
  attachment: { filename: string; content: Buffer };
}

/** What the SMTP server answered: accepted, or not (with its answer, to show and to retry on). */
export type SmtpOutcome = { outcome: 'accepted'; response: string } | { outcome: 'retry'; error: string; response: string };

export interface EmailTransport {
  /** smtp (SMTP_URL) or log (none: each message is written to the log). */
  kind: 'smtp' | 'log';
  send(message: OutgoingEmail): Promise<SmtpOutcome>;
}

export interface EmailSettings {
  transport: EmailTransport;
  /** The length of one "minute" of the (webhook) retry schedule: WEBHOOK_RETRY_UNIT_MS. */
  retryUnitMs: number;
  /** How long one attempt may take (EMAIL_SEND_TIMEOUT_MS); the lease is 2.25 times it, as an e-invoice's. */
  sendTimeoutMs: number;
}

export interface ClaimedEmail extends ClaimedRow {
  message_id: string;
  from_name: string;
  recipients: string[];
  reply_to: string;
  subject: string;
  body: string;
  attachment_name: string;
  attachment: Uint8Array;
  created_at: Date;
}

/** The lease on a delivery: the lease queue's, 2.25 times the send timeout, as an e-invoice's. */
export const emailLeaseMs = leaseMs;

/** The e-mail deliveries as a lease queue: what a claim returns, and what an outcome records besides. */
const deliveries: LeaseQueue<ClaimedEmail, SmtpOutcome> = {
  table: 'email_deliveries',
  columns: ['message_id', 'from_name', 'recipients', 'reply_to', 'subject', 'body', 'attachment_name', 'attachment', 'created_at'],
  // The SMTP server's answer, always (a thrown send's is ''), and when it was accepted.
  recordAlso: (s, status) => Prisma.sql`last_response = ${s.response}, sent_at = CASE WHEN ${status} = 'sent' THEN now() ELSE sent_at END`,
  // Unlike an e-invoice's, only the attempt whose outcome is recorded marks the invoice sent: a delivery
  // settled meanwhile (a lease taken over) has had, or will have, its own say. Kept as it was.
  onAccepted: (tx, scope, m, recorded) => (recorded ? markAccepted(tx, scope, m) : Promise.resolve()),
};

/**
 * Leases delivery `id` to the caller if it is queued and due; null if it is not (settled, not due yet, or
 * leased to another worker whose lease has not run out). Two claims at once: the row lock lets one
 * through, and the other finds it leased.
 */
export const claimEmail = (db: Db, id: string, sendTimeoutMs: number): Promise<ClaimedEmail | null> => claimDue(db, deliveries, id, sendTimeoutMs);

/** The message a claimed delivery sends, the same at every attempt. */
export const outgoing = (m: ClaimedEmail): OutgoingEmail => ({
  messageId: m.message_id,
  fromName: m.from_name,
  to: m.recipients,
  replyTo: m.reply_to,
  subject: m.subject,
  text: m.body,
  date: m.created_at,
  attachment: { filename: m.attachment_name, content: Buffer.from(m.attachment) },
});

/**
 * One attempt at a claimed delivery, and its outcome recorded in one transaction with what follows from
 * it (an approved invoice becomes sent). Returns when it falls due again (its retry), or null once it is
 * settled. A sandbox's e-mails never leave: they count as accepted at once, as its e-invoices do.
 */
export async function attemptEmail(run: InTransaction, settings: EmailSettings, m: ClaimedEmail): Promise<DueEmail | null> {
  return attemptClaimed(
    run,
    deliveries,
    m,
    {
      send: () => settings.transport.send(outgoing(m)),
      thrown: (error) => ({ outcome: 'retry', error, response: '' }),
      sandbox: { outcome: 'accepted', response: "sandbox: not sent (a test key's e-mails count as accepted)" },
    },
    settings.retryUnitMs,
  );
}

/** The outcome of an attempt, recorded only while the delivery is still this attempt's. */
export const recordEmail = (tx: Db, m: ClaimedEmail, s: SmtpOutcome, retryUnitMs: number): Promise<DueEmail | null> =>
  recordOutcome(tx, deliveries, m, s, retryUnitMs);

/** Queued deliveries falling due within `withinMs`: the sweep sends each its job (a wake-up lost in a crash). */
export const emailsDueWithin = (db: Db, withinMs: number): Promise<DueEmail[]> => dueWithin(db, deliveries.table, withinMs);
