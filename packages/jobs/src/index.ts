// The queue catalogue: every background job's name, schedule and options, and the typed way to start
// pg-boss on the service's own database (schema pgboss, beside Prisma's tables).
import { createHash } from 'node:crypto';
import { PgBoss, type Queue } from 'pg-boss';
import { BUSINESS_TIME_ZONE } from '@tlr/config';

export interface QueueSpec {
  name: string;
  /** Queue options (policy, retries, expiry, notify); the defaults otherwise. */
  options?: Omit<Queue, 'name'>;
  /** Cron schedule for periodic maintenance, in UTC unless tz says otherwise. */
  cron?: string;
  tz?: string;
}

export const QUEUES = {
  /** Forget idempotency keys older than 24 hours (contract: Conventions 2). */
  purgeIdempotencyKeys: { name: 'purge-idempotency-keys', cron: '*/10 * * * *' },
  /** Outbox events delivered to webhooks (fanned out) more than 30 days ago: their deliveries keep the bodies. */
  purgeOutbox: { name: 'purge-outbox', cron: '41 3 * * *' },
  /** Drop the rate-limit logs of keys idle for an hour. */
  purgeRateLimitLogs: { name: 'purge-rate-limit-logs', cron: '17 * * * *' },
  /** Expired OAuth codes and tokens (a day past expiry), browser sessions and sign-in throttle windows. */
  purgeExpiredCredentials: { name: 'purge-expired-credentials', cron: '29 * * * *' },
  /** Approved and sent invoices past their due date become overdue, just after midnight in Denmark. */
  sweepOverdueInvoices: { name: 'sweep-overdue-invoices', cron: '5 0 * * *', tz: BUSINESS_TIME_ZONE },
  /**
   * Payment reminders due today, for the companies with reminders_automatic (invoices/send-reminders.ts),
   * after the overdue sweep; each invoice's reminder in its own transaction under its row lock (SKIP LOCKED).
   */
  sendDueReminders: { name: 'send-due-reminders', cron: '15 0 * * *', tz: BUSINESS_TIME_ZONE },
  /** Sent quotes past their valid_until become expired (quotes/transitions.ts), just after midnight in Denmark. */
  expireQuotes: { name: 'expire-quotes', cron: '10 0 * * *', tz: BUSINESS_TIME_ZONE },
  /** The lists' kept counts (invoices, customers, products, suppliers) are folded to a few rows per company (lists/kept-counts.ts). */
  foldKeptCounts: { name: 'fold-kept-counts', cron: '* * * * *' },
  /** Pending vouchers are read (text, vendor, display name) and completed; every minute (pg-boss's finest cron). */
  processVouchers: { name: 'process-vouchers', cron: '* * * * *' },
  /**
   * Recurring invoices whose period has come make their invoices (recurring-invoices/make-recurring-invoices.ts),
   * every hour so that a template starting today makes today's invoice the same day, and a missed run is
   * caught up by the next; each period once under the template's row lock (SKIP LOCKED) and a unique key.
   */
  makeRecurringInvoices: { name: 'make-recurring-invoices', cron: '7 * * * *' },
  /**
   * Fixed assets post each month's depreciation on or after the month's last day (assets/depreciate-assets.ts),
   * just after midnight in Denmark: the month that ended yesterday is posted the same night, a missed run
   * is caught up by the next; each month once under the asset's row lock (SKIP LOCKED) and a unique key.
   */
  depreciateAssets: { name: 'depreciate-assets', cron: '20 0 * * *', tz: BUSINESS_TIME_ZONE },
  /**
   * Accrued expense and invoice lines move each month's share to their result account on or after the
   * month's last day (accruals/run-accruals.ts), just after midnight in Denmark, after depreciation; a missed
   * run is caught up by the next; each month once under the accrual's row lock (SKIP LOCKED) and a unique key.
   */
  runAccruals: { name: 'run-accruals', cron: '25 0 * * *', tz: BUSINESS_TIME_ZONE },
  /** Stored objects whose voucher never committed (or was deleted) are removed after a grace period. */
  sweepStoredObjects: { name: 'sweep-stored-objects', cron: '*/10 * * * *' },
  /**
   * One sandbox reset (companies/sandbox-reset.ts), by id. Standard policy: a job sent again for the
   * same reset (a request that joined it, a worker resuming it) is a no-op once it is done, and the
   * reset's own row lock keeps two runs apart, so no singleton policy is needed; a singleton would even
   * hold the resumed job back behind the dead worker's until that one expires. Retried with back-off.
   * The worker running it sends a heartbeat every 5 s: a job whose worker died is failed (and retried
   * elsewhere) at the next supervision after 10 s without one, not after the 120 s expiry.
   */
  sandboxReset: {
    name: 'sandbox-reset',
    options: { policy: 'standard', retryLimit: 5, retryDelay: 1, retryBackoff: true, expireInSeconds: 120, heartbeatSeconds: 10, notify: true },
  },
  /**
   * One attempt at an e-invoice message (domain einvoice/delivery.ts), by message id. A job is sent for
   * every moment the message falls due (queued or replayed, a retry's time, the end of the lease of the
   * worker sending it), with the id momentJobId makes of the message and that moment: sent twice, it is
   * one job. A job that finds its message not due (settled, or leased to a live worker) does nothing.
   * Retried by pg-boss only when the handler fails (the database away); the message's own retries are
   * the webhook schedule's, kept in its row.
   */
  deliverEinvoice: {
    name: 'deliver-einvoice',
    options: { policy: 'standard', retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120, notify: true },
  },
  /**
   * One attempt at a VAT filing queued by a transport failure (domain vat/filing.ts), by filing id: one job
   * per filing and moment (momentJobId), as deliver-einvoice. The filing's row lock (SKIP LOCKED) keeps two
   * attempts apart; its own back-off is kept in its row.
   */
  submitVatFiling: {
    name: 'submit-vat-filing',
    options: { policy: 'standard', retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120, notify: true },
  },
  /** A job for every VAT filing falling due within the next minute: a wake-up lost in a crash is sent again. */
  sweepVatFilings: { name: 'sweep-vat-filings', cron: '* * * * *' },
  /**
   * One attempt at an e-mail delivery (domain email/delivery.ts), by delivery id: one job per delivery and
   * moment (momentJobId), as deliver-einvoice; a job that finds its delivery not due does nothing.
   */
  deliverEmail: {
    name: 'deliver-email',
    options: { policy: 'standard', retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120, notify: true },
  },
  /** A job for every e-mail delivery falling due within the next minute: a wake-up lost in a crash is sent again. */
  sweepEmails: { name: 'sweep-emails', cron: '* * * * *' },
  /** A job for every e-invoice message falling due within the next minute: a wake-up lost in a crash is sent again. */
  sweepEinvoices: { name: 'sweep-einvoices', cron: '* * * * *' },
  /**
   * The directory transport's inbox (receipts and responses of the access point) is read; each run
   * sends the next for EINVOICE_INBOX_POLL_MS later (one job per slot: momentJobId), and the cron
   * starts the chain again should it break.
   */
  readEinvoiceInbox: { name: 'read-einvoice-inbox', cron: '* * * * *', options: { deleteAfterSeconds: 3600 } },
  /**
   * Bank lines automatic matching has not looked at (bank/auto-match.ts): an import matches its first lines
   * itself and leaves the rest, or what a crash left, to this sweep; two workers split lines (SKIP LOCKED).
   */
  matchBankLines: { name: 'match-bank-lines', cron: '* * * * *' },
  /**
   * A backup (apps/server/src/backups.ts), `{ type: 'full' | 'incr' }`, scheduled by the worker
   * from BACKUP_FULL_CRON and BACKUP_INCR_CRON (two schedules of this queue, by key). Singleton: one runs
   * at a time across servers; not retried (a failed run is recorded and logged, the next is the schedule's).
   */
  runBackup: { name: 'run-backup', options: { policy: 'singleton', retryLimit: 0, expireInSeconds: 6 * 3600 } },
  /** Voucher objects not yet copied to the second location (the backup bucket) are copied (backup/voucher-copies.ts). */
  copyVouchers: { name: 'copy-vouchers', cron: '*/10 * * * *', options: { policy: 'singleton' } },
  /**
   * With WAL archiving on, the WAL segment in use is closed (pg_switch_wal) every minute, so that it is archived:
   * the RPO bound archive_timeout was meant to keep and did not here (decision 334).
   */
  switchWal: { name: 'switch-wal', cron: '* * * * *', options: { policy: 'singleton', retryLimit: 0 } },
  /**
   * One SAF-T import (saft/import/imports.ts), by import id: a job sent again for a finished import is a
   * no-op, and the import's own lock keeps two runs apart. Long (a 1,000,000-line file takes minutes):
   * expires after an hour, with a heartbeat so that a dead worker's import is taken over sooner.
   */
  importSaft: {
    name: 'import-saft',
    options: { policy: 'standard', retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600, heartbeatSeconds: 30, notify: true },
  },
  /**
   * Long received e-invoices (einvoice/inbound-import.ts, decision 491): each job runs the next waiting
   * import, the companies in turn (not necessarily the one it was sent for), one per job; one is sent
   * per import. The rules' bound is 20 minutes: expires after 45, with a heartbeat.
   */
  importEinvoice: {
    name: 'import-einvoice',
    options: { policy: 'standard', retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 2700, heartbeatSeconds: 30, notify: true },
  },
} as const satisfies Record<string, QueueSpec>;

/**
 * A job id (a UUID) made from what the job is for, so that sending the same job again is a no-op:
 * pg-boss inserts a job whose id its queue already holds as nothing.
 */
export function momentJobId(...parts: (string | number)[]): string {
  const h = createHash('sha256').update(parts.join('|')).digest('hex');
  // Laid out as a version 8 (custom) UUID of RFC 9562.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Queues of earlier versions, by their old names: start removes each with its schedule and its jobs, so
 * that a renamed job's old schedule does not go on running in an existing database.
 */
const RETIRED_QUEUES = [
  // foldKeptCounts, named when it folded the invoice counts only.
  'fold-invoice-counts',
  // purgeRateLimitLogs, named when the limits were fixed windows (decision 172).
  'purge-rate-limit-windows',
] as const;

export type Boss = PgBoss;

/**
 * `sender`: only sends jobs (a server with RUN_WORKER=false): no supervision, no schedules, a small
 * pool. Workers and senders listen for NOTIFY, so a job is picked up the moment it is sent.
 */
export async function startBoss(connectionString: string, onError: (e: Error) => void, sender = false): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString,
    schema: 'pgboss',
    max: sender ? 2 : 4,
    useListenNotify: !sender,
    // Supervision (expiry, heartbeats; a pass runs every max of the two intervals) every 10 s rather than
    // pg-boss's 60: a dead worker's reset is taken over sooner. One instance a round does it.
    ...(sender ? { supervise: false, schedule: false } : { superviseIntervalSeconds: 10, monitorIntervalSeconds: 10 }),
  });
  boss.on('error', onError);
  try {
    await boss.start();
    for (const name of RETIRED_QUEUES) {
      // deleteQueue would take the schedule along (ON DELETE CASCADE); said outright, it does not rely on that.
      await boss.unschedule(name);
      // Another server starting at the same moment may delete it first (pg-boss then fails on the
      // queue it no longer finds): gone is what both want.
      await boss.deleteQueue(name).catch(async (e: unknown) => {
        if (await boss.getQueue(name)) throw e;
      });
    }
    for (const q of Object.values(QUEUES) as QueueSpec[]) {
      await boss.createQueue(q.name, q.options ?? {});
      // createQueue leaves an existing queue as it was: options added since reach it here (a policy cannot change).
      const { policy: _policy, ...changeable } = q.options ?? {};
      if (Object.keys(changeable).length) await boss.updateQueue(q.name, changeable);
      if (q.cron && !sender) await boss.schedule(q.name, q.cron, null, q.tz ? { tz: q.tz } : {});
    }
  } catch (e) {
    // Its pool and timers would keep a process that gives up alive.
    await boss.stop({ graceful: false }).catch(() => {});
    throw e;
  }
  return boss;
}

/**
 * The deliver-einvoice job for the moment a message falls due: one job per message and moment, however
 * often it is sent (by the request that queued it, the worker that leased or retried it, the sweep).
 */
export async function deliverEinvoiceAt(boss: PgBoss, message: { id: string; due: Date }): Promise<void> {
  await boss.send(QUEUES.deliverEinvoice.name, { messageId: message.id }, { id: momentJobId(message.id, message.due.getTime()), startAfter: message.due });
}

/** The submit-vat-filing job for the moment a queued filing falls due (one job per filing and moment). */
export async function submitVatFilingAt(boss: PgBoss, filing: { id: string; due: Date }): Promise<void> {
  await boss.send(QUEUES.submitVatFiling.name, { filingId: filing.id }, { id: momentJobId(filing.id, filing.due.getTime()), startAfter: filing.due });
}

/** The deliver-email job for the moment a delivery falls due (one job per delivery and moment). */
export async function deliverEmailAt(boss: PgBoss, delivery: { id: string; due: Date }): Promise<void> {
  await boss.send(
    QUEUES.deliverEmail.name,
    { deliveryId: delivery.id },
    { id: momentJobId('email', delivery.id, delivery.due.getTime()), startAfter: delivery.due },
  );
}
