// E-mail delivery, with the guarantees of e-invoice delivery (einvoice/delivery.ts): a due delivery is
// claimed with a lease, handed to the SMTP server and its outcome recorded; a failed attempt is retried
// on the webhook schedule and the 8th failure leaves it failed. The claim is one UPDATE on the row
// (queued, due, and not leased to a live worker), so two workers never send one delivery at the same
// time. A worker that dies between the SMTP server's acceptance and the record leaves its lease to run
// out, and the message is sent again with the same Message-ID: at least once, never lost (decision 604).
import type { Db, InTransaction } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { markAccepted } from '../einvoice/delivery.ts';
import { retryWaitMs } from '../webhooks/rules.ts';
import type { DueEmail } from './outbound.ts';
import type { EmailStatus } from './schema.ts';

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

export interface ClaimedEmail {
  id: string;
  company_id: string;
  invoice_id: string | null;
  document_kind: string;
  livemode: boolean;
  attempts: number;
  message_id: string;
  from_name: string;
  recipients: string[];
  reply_to: string;
  subject: string;
  body: string;
  attachment_name: string;
  attachment: Uint8Array;
  created_at: Date;
  /** The end of this worker's lease: the moment another may take the delivery over. */
  lease_until: Date;
}

export const emailLeaseMs = (sendTimeoutMs: number) => sendTimeoutMs * 2.25;

/**
 * Leases delivery `id` to the caller if it is queued and due; null if it is not (settled, not due yet, or
 * leased to another worker whose lease has not run out). Two claims at once: the row lock lets one
 * through, and the other finds it leased.
 */
export async function claimEmail(db: Db, id: string, sendTimeoutMs: number): Promise<ClaimedEmail | null> {
  const [claimed] = await db.$queryRaw<ClaimedEmail[]>`
    UPDATE email_deliveries d SET next_attempt_at = now() + make_interval(secs => ${emailLeaseMs(sendTimeoutMs) / 1000}::float8)
    FROM companies c
    WHERE d.id = ${id}::uuid AND d.status = 'queued' AND d.next_attempt_at <= now() AND c.id = d.company_id
    RETURNING d.id, d.company_id, d.invoice_id, d.document_kind, c.sandbox_of_id IS NULL AS livemode, d.attempts, d.message_id, d.from_name,
              d.recipients, d.reply_to, d.subject, d.body, d.attachment_name, d.attachment, d.created_at, d.next_attempt_at AS lease_until`;
  return claimed ?? null;
}

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
  const sent: SmtpOutcome = m.livemode
    ? await settings.transport.send(outgoing(m)).catch((e: unknown) => ({ outcome: 'retry', error: (e as Error).message, response: '' }))
    : { outcome: 'accepted', response: "sandbox: not sent (a test key's e-mails count as accepted)" };
  return run((tx) => recordEmail(tx, m, sent, settings.retryUnitMs));
}

/** The outcome of an attempt, recorded only while the delivery is still this attempt's. */
export async function recordEmail(tx: Db, m: ClaimedEmail, s: SmtpOutcome, retryUnitMs: number): Promise<DueEmail | null> {
  const scope: CompanyScope = { companyId: m.company_id, livemode: m.livemode };
  // The invoice before the delivery, as every writer of both takes them (a send, an approval).
  if (m.invoice_id) await tx.$queryRaw`SELECT 1 FROM invoices WHERE id = ${m.invoice_id}::uuid FOR UPDATE`;
  const attempts = m.attempts + 1;
  const wait = s.outcome === 'retry' ? retryWaitMs(attempts, retryUnitMs) : null;
  const status: EmailStatus = s.outcome === 'accepted' ? 'sent' : wait === null ? 'failed' : 'queued';
  const [updated] = await tx.$queryRaw<{ next_attempt_at: Date | null }[]>`
    UPDATE email_deliveries SET
      status = ${status}, attempts = ${attempts}, last_error = ${s.outcome === 'accepted' ? '' : s.error}, last_response = ${s.response},
      next_attempt_at = CASE WHEN ${wait}::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => ${wait}::float8 / 1000) END,
      sent_at = CASE WHEN ${status} = 'sent' THEN now() ELSE sent_at END, updated_at = now()
    WHERE id = ${m.id}::uuid AND status = 'queued' AND attempts = ${m.attempts}
    RETURNING next_attempt_at`;
  // The invoice's own e-mail accepted: an approved invoice becomes sent (invoice.sent), as an e-invoice's acceptance makes it.
  if (updated && s.outcome === 'accepted') await markAccepted(tx, scope, m);
  return updated?.next_attempt_at ? { id: m.id, due: updated.next_attempt_at } : null;
}

/** Queued deliveries falling due within `withinMs`: the sweep sends each its job (a wake-up lost in a crash). */
export async function emailsDueWithin(db: Db, withinMs: number): Promise<DueEmail[]> {
  const rows = await db.$queryRaw<{ id: string; next_attempt_at: Date }[]>`
    SELECT id, next_attempt_at FROM email_deliveries
    WHERE status = 'queued' AND next_attempt_at <= now() + make_interval(secs => ${withinMs / 1000}::float8)
    ORDER BY next_attempt_at LIMIT 10000`;
  return rows.map((r) => ({ id: r.id, due: r.next_attempt_at }));
}
