// The background workers (pg-boss handlers). They run inside the server process by default
// (RUN_WORKER=false turns them off on a server that should only serve HTTP).
import type { Logger } from 'pino';
import { inTransaction, type Database } from '@tlr/db';
import {
  autoMatch,
  foldKeptCounts,
  makeRecurringInvoices,
  depreciateAssets,
  runAccruals,
  processPendingVouchers,
  purgeDispatchedEvents,
  purgeExpiredIdempotencyKeys,
  purgeExpiredOAuth,
  purgeIdleRateLimitLogs,
  purgeWebSessions,
  openSandboxResets,
  abandonSaftImport,
  openEinvoiceImports,
  openSaftImports,
  runNextEinvoiceImport,
  runSaftImport,
  runSandboxReset,
  sendDueReminders,
  sweepOverdue,
  expireQuotes,
  sweepStoredObjects,
  type VoucherStore,
  asSystem,
  AUTOMATIC_MATCHING,
} from '@tlr/domain';
import { QUEUES, type Boss } from '@tlr/jobs';

export async function registerWorkers(boss: Boss, db: Database, logger: Logger, store?: VoucherStore): Promise<void> {
  const run = inTransaction(db);
  await boss.work(QUEUES.purgeIdempotencyKeys.name, async () => {
    const n = await purgeExpiredIdempotencyKeys(db.prisma);
    if (n) logger.info({ purged: n }, 'expired idempotency keys forgotten');
  });
  await boss.work(QUEUES.purgeOutbox.name, async () => {
    const n = await purgeDispatchedEvents(db.prisma);
    if (n) logger.info({ purged: n }, 'dispatched outbox events older than 30 days removed');
  });
  await boss.work(QUEUES.purgeRateLimitLogs.name, async () => {
    await purgeIdleRateLimitLogs(db.prisma);
  });
  await boss.work(QUEUES.purgeExpiredCredentials.name, async () => {
    const n = (await purgeExpiredOAuth(db.prisma)) + (await purgeWebSessions(db.prisma));
    if (n) logger.info({ purged: n }, 'expired OAuth codes and tokens, sessions and sign-in windows removed');
  });
  await boss.work(QUEUES.sweepOverdueInvoices.name, async () => {
    const moved = await sweepOverdue(asSystem(run, QUEUES.sweepOverdueInvoices.name, 'tlr: overdue sweep'));
    if (moved) logger.info({ moved }, 'invoices past their due date marked overdue');
  });
  await boss.work(QUEUES.expireQuotes.name, async () => {
    const expired = await expireQuotes(asSystem(run, QUEUES.expireQuotes.name, 'tlr: quote expiry'));
    if (expired) logger.info({ expired }, 'quotes past their valid_until expired');
  });
  await boss.work(QUEUES.matchBankLines.name, async () => {
    const round = await autoMatch(asSystem(run, QUEUES.matchBankLines.name, AUTOMATIC_MATCHING), db.prisma);
    if (round.checked) logger.info(round, 'bank lines matched automatically');
  });
  await boss.work(QUEUES.sendDueReminders.name, async () => {
    const { sent, failed } = await sendDueReminders(asSystem(run, QUEUES.sendDueReminders.name, 'tlr: payment reminders'));
    if (sent) logger.info({ sent }, 'payment reminders sent');
    // Tried again the next day; the owner sees why in the log (a locked period, a deactivated account).
    for (const f of failed) logger.warn(f, 'payment reminder not sent');
  });
  await boss.work(QUEUES.makeRecurringInvoices.name, async () => {
    const { made, failed } = await makeRecurringInvoices(asSystem(run, QUEUES.makeRecurringInvoices.name, 'tlr: recurring invoices'));
    if (made) logger.info({ made }, 'recurring invoices made');
    // Tried again on the next run, in period order; the owner sees why in the log (a deleted customer, a locked period).
    for (const f of failed) logger.warn(f, 'recurring invoice period not made');
  });
  await boss.work(QUEUES.depreciateAssets.name, async () => {
    const { posted, failed } = await depreciateAssets(asSystem(run, QUEUES.depreciateAssets.name, 'tlr: depreciation'));
    if (posted) logger.info({ posted }, 'asset depreciation posted');
    // Tried again on the next run, in month order; the owner sees why in the log (no open fiscal year for the date).
    for (const f of failed) logger.warn(f, 'asset depreciation not posted');
  });
  await boss.work(QUEUES.runAccruals.name, async () => {
    const { posted, failed } = await runAccruals(asSystem(run, QUEUES.runAccruals.name, 'tlr: accruals'));
    if (posted) logger.info({ posted }, 'accrual months posted');
    // Tried again on the next run, in month order; the owner sees why in the log (no open fiscal year for the date).
    for (const f of failed) logger.warn(f, 'accrual month not posted');
  });
  await boss.work(QUEUES.foldKeptCounts.name, async () => {
    await foldKeptCounts(db.prisma);
  });
  const resetHandler = async ([job]: { data: { resetId: string } }[]) => {
    const reset = await runSandboxReset(db.prisma, run, job!.data.resetId, store);
    if (reset?.status === 'done') logger.info({ reset_id: reset.id, company_id: reset.company_id }, 'sandbox reset');
    if (reset?.status === 'failed') logger.error({ reset_id: reset.id, error: reset.error }, 'sandbox reset failed for good');
  };
  // Woken by NOTIFY when a job is sent; the poll only catches jobs sent while no worker listened.
  await boss.work(QUEUES.sandboxReset.name, { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 2 }, resetHandler);
  // Resets whose job died with a worker (killed mid-reset) go again now, not when the job expires.
  for (const resetId of await openSandboxResets(db.prisma)) await boss.send(QUEUES.sandboxReset.name, { resetId });
  await registerImportWorker(boss, db, logger);
  if (!store) return;
  await registerEinvoiceImportWorker(boss, db, logger, store);
  await boss.work(QUEUES.processVouchers.name, async () => {
    const completed = await processPendingVouchers(asSystem(run, QUEUES.processVouchers.name, 'tlr: voucher processing'), store);
    if (completed) logger.info({ completed }, 'vouchers processed');
  });
  await boss.work(QUEUES.sweepStoredObjects.name, async () => {
    const removed = await sweepStoredObjects(run, store);
    if (removed) logger.warn({ removed }, 'stored voucher objects without a voucher removed');
  });
}

/** The SAF-T import job alone (registerWorkers runs it with the rest; a test runs it without the other queues). */
export async function registerImportWorker(boss: Boss, db: Database, logger: Logger): Promise<void> {
  await boss.work(
    QUEUES.importSaft.name,
    { pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 },
    async ([job]: { data: { importId: string }; retryCount: number }[]) => {
      let done;
      try {
        done = await runSaftImport(db, job!.data.importId);
      } catch (e) {
        // The file's refusals are outcomes, not errors: this is the database or a bug. On the last try the import is failed.
        if (job!.retryCount >= QUEUES.importSaft.options.retryLimit)
          await abandonSaftImport(db.prisma, job!.data.importId, (e as Error).message).catch(() => {});
        throw e;
      }
      if (done?.status === 'succeeded') logger.info({ import_id: done.id, ...done.counts }, 'SAF-T import succeeded');
      if (done?.status === 'failed') logger.warn({ import_id: done.id, problem: done.problem }, 'SAF-T import refused');
    },
  );
  // Imports whose job died with a worker go again now.
  for (const importId of await openSaftImports(db.prisma)) await boss.send(QUEUES.importSaft.name, { importId });
}

/**
 * The import-einvoice job (decision 491): each job runs the next waiting import of a long received
 * e-invoice, the companies in turn. When only runs that may have died hold imports, a job is sent again
 * for the end of their lease.
 */
export async function registerEinvoiceImportWorker(boss: Boss, db: Database, logger: Logger, store: VoucherStore): Promise<void> {
  await boss.work(QUEUES.importEinvoice.name, { pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, async () => {
    const { view, retryAfterMs } = await runNextEinvoiceImport(db, store);
    if (view?.status === 'succeeded') logger.info({ import_id: view.id, einvoice_id: view.einvoice_id }, 'e-invoice import succeeded');
    if (view?.status === 'failed') logger.warn({ import_id: view.id, problem: view.problem }, 'e-invoice import refused');
    if (retryAfterMs) await boss.send(QUEUES.importEinvoice.name, {}, { startAfter: Math.ceil(retryAfterMs / 1000) });
  });
  // Imports whose job died with a worker go again now: one job for each waiting or running import.
  for (let n = await openEinvoiceImports(db.prisma); n > 0; n--) await boss.send(QUEUES.importEinvoice.name, {});
}
