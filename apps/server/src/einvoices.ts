// E-invoice delivery in the server process: the transport the configuration names, and the workers
// that deliver queued messages (one pg-boss job per moment a message falls due), sweep for lost
// wake-ups and read the directory transport's inbox.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '@tlr/config';
import { inTransaction, type Database, type Db, type InTransaction } from '@tlr/db';
import {
  asSystem,
  attemptEinvoice,
  claimEinvoice,
  directoryTransport,
  einvoicesDueWithin,
  httpTransport,
  importFromInbox,
  readEinvoiceInbox,
  takeQueuedEinvoices,
  type EinvoiceSettings,
  type VoucherStore,
} from '@tlr/domain';
import { deliverEinvoiceAt, momentJobId, QUEUES, type Boss } from '@tlr/jobs';

export function einvoiceSettings(config: Config): EinvoiceSettings {
  const folder = join(config.DATA_DIR, 'einvoice');
  return {
    transport:
      config.EINVOICE_TRANSPORT === 'http'
        ? httpTransport(config.EINVOICE_HTTP_URL!, config.EINVOICE_HTTP_TOKEN, config.EINVOICE_HANDOVER_TIMEOUT_MS)
        : directoryTransport(
            config.EINVOICE_OUTBOX_DIR ?? join(folder, 'outbox'),
            config.EINVOICE_INBOX_DIR ?? join(folder, 'inbox'),
            config.EINVOICE_RECEIVERS_FILE,
          ),
    retryUnitMs: config.WEBHOOK_RETRY_UNIT_MS,
    inboxPollMs: config.EINVOICE_INBOX_POLL_MS,
    handOverTimeoutMs: config.EINVOICE_HANDOVER_TIMEOUT_MS,
  };
}

/** The sweep's horizon: messages due within it get their job now (the sweep runs every minute). */
const SWEEP_AHEAD_MS = 60_000;

/** `store`: where received documents are kept as vouchers; without one, received documents wait in the inbox. */
export async function registerEinvoiceWorkers(boss: Boss, db: Database, settings: EinvoiceSettings, logger: Logger, store?: VoucherStore): Promise<void> {
  // What the delivery and the inbox register (an invoice's sent status, a received voucher) is named for the job, as every job's is.
  const run = asSystem(inTransaction(db), QUEUES.deliverEinvoice.name, 'tlr: e-invoice delivery');
  const pool = db.prisma as Db;
  const deliver = async (messageId: string) => {
    const claimed = await claimEinvoice(pool, messageId, settings.handOverTimeoutMs);
    if (!claimed) return;
    // Should this worker die mid-attempt, the message's job at the lease's end takes it over.
    await deliverEinvoiceAt(boss, { id: claimed.id, due: claimed.lease_until });
    const next = await attemptEinvoice(run, settings, claimed);
    if (next) await deliverEinvoiceAt(boss, next);
    else logger.info({ message_id: claimed.id }, 'e-invoice settled');
  };
  // Polled every second besides NOTIFY: a retry's job becomes due at its time, which no NOTIFY announces.
  await boss.work<{ messageId: string }>(
    QUEUES.deliverEinvoice.name,
    { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1, batchSize: 20 },
    async (jobs) => {
      const outcomes = await Promise.allSettled(jobs.map((job) => deliver(job.data.messageId)));
      const failures = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ message_id: jobs[i]!.data.messageId, error: o.reason as Error }] : []));
      for (const f of failures) logger.warn({ message_id: f.message_id, err: { message: f.error.message } }, 'e-invoice attempt failed; its job is retried');
      // pg-boss retries the batch: a job whose message is leased or settled meanwhile does nothing.
      if (failures.length) throw failures[0]!.error;
    },
  );
  const sweep = async () => {
    for (const due of await einvoicesDueWithin(pool, SWEEP_AHEAD_MS)) await deliverEinvoiceAt(boss, due);
  };
  await boss.work(QUEUES.sweepEinvoices.name, sweep);
  // Messages whose wake-up died with a process go now, not at the next minute.
  await sweep();

  // An import queues the response "received": its delivery is woken once the import commits, as a request's is.
  const runAndWake: InTransaction = async (fn) => {
    let queued: ReturnType<typeof takeQueuedEinvoices> = [];
    const result = await run(async (tx) => {
      const r = await fn(tx);
      queued = takeQueuedEinvoices(tx);
      return r;
    });
    for (const due of queued) await deliverEinvoiceAt(boss, due);
    return result;
  };

  const inbox = settings.transport.inbox;
  const poll = settings.inboxPollMs;
  await boss.work(QUEUES.readEinvoiceInbox.name, { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1 }, async () => {
    // The schedule is every worker's; a transport without an inbox (http) has nothing to read.
    if (!inbox) return;
    try {
      const round = await readEinvoiceInbox(run, inbox, store && ((xml) => importFromInbox(runAndWake, pool, store, xml)));
      if (round.recorded) logger.info({ recorded: round.recorded }, 'e-invoice receipts and responses recorded');
      for (const i of round.imported) logger.info({ file: i.file, message_id: i.messageId }, 'e-invoice received');
      for (const r of round.refused) logger.warn({ file: r.file, reason: r.reason }, 'e-invoice inbox file moved to refused/');
    } finally {
      // The next read, once per slot however many runs ask for it (the cron restarts a broken chain).
      const slot = Math.floor(Date.now() / poll) + 1;
      await boss.send(QUEUES.readEinvoiceInbox.name, {}, { id: momentJobId('inbox', poll, slot), startAfter: new Date(slot * poll) });
    }
  });
  if (inbox) await boss.send(QUEUES.readEinvoiceInbox.name, {});
}
