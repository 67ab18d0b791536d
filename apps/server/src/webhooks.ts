// Webhooks in the server process: the settings (the secrets key from WEBHOOK_SECRETS_KEY, else a file
// made once in DATA_DIR), and the dispatcher loop that turns outbox events into deliveries and sends
// the due ones. Several processes may run it at once (domain/webhooks/dispatch.ts shares the work).
import type { Logger } from 'pino';
import type { Config } from '@tlr/config';
import type { Database } from '@tlr/db';
import { deliverDue, fanOut, type WebhookSettings } from '@tlr/domain';
import { webhookSecretsKey } from './webhook-secrets-key.ts';

export function webhookSettings(config: Config, logger: Logger): WebhookSettings {
  if (config.WEBHOOK_ALLOW_INSECURE_URLS) {
    logger.warn('WEBHOOK_ALLOW_INSECURE_URLS is on: webhooks may target http:// and private or loopback addresses. Never in production.');
  }
  return {
    key: config.WEBHOOK_SECRETS_KEY ? Buffer.from(config.WEBHOOK_SECRETS_KEY, 'base64') : webhookSecretsKey(config.DATA_DIR),
    allowInsecure: config.WEBHOOK_ALLOW_INSECURE_URLS,
    retryUnitMs: config.WEBHOOK_RETRY_UNIT_MS,
  };
}

/**
 * `lanes` loops, each fanning out and sending a round at a time (SKIP LOCKED keeps them apart), so one
 * round's slowest receiver does not hold up the next. Each polls every `idleMs` while there is nothing to
 * do, at once while there is. stop() waits for the rounds in flight.
 */
export function startWebhookDispatcher(db: Database, settings: WebhookSettings, logger: Logger, { idleMs = 200, lanes = 2 } = {}): { stop(): Promise<void> } {
  let running = true;
  const wakes = new Set<() => void>();
  let failing = false;
  const lane = async () => {
    let pause = idleMs;
    while (running) {
      let busy = false;
      try {
        busy = (await fanOut(db)) > 0;
        busy = (await deliverDue(db, settings)) > 0 || busy;
        if (failing) logger.info('webhook dispatch works again');
        failing = false;
        pause = idleMs;
      } catch (e) {
        // The database away (a restart, a failover): one warning per outage, and a pause that grows to 5 s.
        if (!failing) logger.warn({ err: { message: (e as Error).message } }, 'webhook dispatch failed; retrying until the database answers');
        failing = true;
        pause = Math.min(pause * 2, 5_000);
      }
      if (!busy && running) {
        await new Promise<void>((r) => {
          const wake = () => (wakes.delete(wake), r());
          wakes.add(wake);
          setTimeout(wake, pause);
        });
      }
    }
  };
  const loops = Array.from({ length: lanes }, lane);
  return {
    async stop() {
      running = false;
      for (const wake of [...wakes]) wake();
      await Promise.all(loops);
    },
  };
}
