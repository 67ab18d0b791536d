// Filing the VAT return with Skattestyrelsen in the server process: the RSU B2B settings from the
// configuration, and the workers that send a filing again after a transport failure (one pg-boss job per
// moment a filing falls due) and sweep for lost wake-ups.
import type { Logger } from 'pino';
import type { Config } from '@tlr/config';
import { inTransaction, type Database, type Db } from '@tlr/db';
import { filingsDue, retryVatFiling, skatGateway, type SkatSettings } from '@tlr/domain';
import { QUEUES, submitVatFilingAt, type Boss } from '@tlr/jobs';

export const skatSettings = (config: Config): SkatSettings => ({
  certFile: config.SKAT_CERT_FILE,
  certPassphrase: config.SKAT_CERT_PASSPHRASE,
  gatewayUrl: config.SKAT_GATEWAY_URL,
  gatewayCertFile: config.SKAT_GATEWAY_CERT_FILE,
  gatewayCaFile: config.SKAT_GATEWAY_CA_FILE,
  timeoutMs: config.SKAT_TIMEOUT_MS,
  retryUnitMs: Math.min(config.WEBHOOK_RETRY_UNIT_MS, 5000),
});

/** The sweep's horizon: filings due within it get their job now (the sweep runs every minute). */
const SWEEP_AHEAD_MS = 60_000;

export async function registerVatFilingWorkers(boss: Boss, db: Database, settings: SkatSettings, logger: Logger): Promise<void> {
  const run = inTransaction(db);
  const pool = db.prisma as Db;
  await boss.work<{ filingId: string }>(QUEUES.submitVatFiling.name, { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1 }, async (jobs) => {
    for (const job of jobs) {
      // Settings taken away since: the filing waits for the sweep after they are back.
      let gateway;
      try {
        gateway = skatGateway(settings);
      } catch (e) {
        logger.warn({ filing_id: job.data.filingId, err: { message: (e as Error).message } }, 'VAT filing waits: the RSU B2B settings are incomplete');
        continue;
      }
      const next = await retryVatFiling(run, job.data.filingId, gateway, settings.retryUnitMs);
      if (next) await submitVatFilingAt(boss, { id: job.data.filingId, due: next });
      logger.info(
        { filing_id: job.data.filingId, next_attempt_at: next?.toISOString() ?? null },
        next ? 'VAT filing attempt failed; retried later' : 'VAT filing attempt done',
      );
    }
  });
  const sweep = async () => {
    for (const due of await filingsDue(pool, new Date(Date.now() + SWEEP_AHEAD_MS))) await submitVatFilingAt(boss, due);
  };
  await boss.work(QUEUES.sweepVatFilings.name, sweep);
  await sweep();
}
