// E-mail delivery in the server process: the transport the configuration names (SMTP through nodemailer,
// DKIM-signed when a key is set; or, without SMTP_URL, the log), and the workers that deliver queued
// e-mails (one pg-boss job per moment a delivery falls due) and sweep for lost wake-ups. The domain
// (email/delivery.ts) owns the claim, the lease and the outcome; this file only speaks SMTP.
import { readFileSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { Logger } from 'pino';
import type { Config } from '@tlr/config';
import { inTransaction, type Database, type Db } from '@tlr/db';
import { StartupError } from '@tlr/db/server';
import {
  asSystem,
  attemptEmail,
  claimEmail,
  emailsDueWithin,
  setMailDomain,
  type DueEmail,
  type EmailSettings,
  type EmailTransport,
  type OutgoingEmail,
  type SmtpOutcome,
} from '@tlr/domain';
import { deliverEmailAt, QUEUES, type Boss } from '@tlr/jobs';

/** What nodemailer's SMTP errors carry besides their message. */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

/** The message as nodemailer takes it: the same headers, Message-ID and Date at every attempt. */
const mailOf = (from: string, m: OutgoingEmail) => ({
  from: { name: m.fromName, address: from },
  to: m.to,
  ...(m.replyTo ? { replyTo: m.replyTo } : {}),
  subject: m.subject,
  text: m.text,
  date: m.date,
  messageId: m.messageId,
  attachments: [{ filename: m.attachment.filename, content: m.attachment.content, contentType: 'application/pdf' }],
});

/**
 * SMTP_URL's server: smtp:// upgrades with STARTTLS when the server offers it, smtps:// speaks TLS from
 * the first byte. An answer the server gives (4xx, 5xx) and a connection that fails or times out are
 * both retried on the schedule, the answer kept (decision 602).
 */
export function smtpTransport(
  url: string,
  from: string,
  timeoutMs: number,
  dkim?: { domainName: string; keySelector: string; privateKey: string },
): EmailTransport {
  const transporter = createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(dkim ? { dkim } : {}),
  } as SMTPTransport.Options);
  return {
    kind: 'smtp',
    async send(m): Promise<SmtpOutcome> {
      try {
        const info = (await transporter.sendMail(mailOf(from, m))) as { response?: string; rejected?: unknown[] };
        const rejected = (info.rejected ?? []).map(String);
        // Some recipients refused, the others accepted: sent (to those), with the refusals in the answer.
        return { outcome: 'accepted', response: `${info.response ?? ''}${rejected.length ? ` (refused: ${rejected.join(', ')})` : ''}` };
      } catch (e) {
        const err = e as SmtpError;
        const response = err.response ?? '';
        const error = err.responseCode ? `the SMTP server answered ${response}` : `the SMTP server could not be reached: ${err.message}`;
        return { outcome: 'retry', error, response };
      }
    },
  };
}

/** Without SMTP_URL: each e-mail is written to the log, and counts as sent (development; decision 605). */
export function logTransport(logger: Logger): EmailTransport {
  return {
    kind: 'log',
    async send(m) {
      logger.info(
        {
          to: m.to,
          reply_to: m.replyTo,
          subject: m.subject,
          message_id: m.messageId,
          attachment: m.attachment.filename,
          bytes: m.attachment.content.length,
          text: m.text,
        },
        'e-mail not sent (SMTP_URL is not set): logged instead',
      );
      return { outcome: 'accepted', response: 'logged: SMTP_URL is not set' };
    },
  };
}

/** The delivery settings of the configuration, made once at start; a DKIM key that cannot be read stops the start. */
export function emailSettings(config: Config, logger: Logger): EmailSettings {
  setMailDomain(config.SMTP_FROM.split('@')[1]!);
  let dkim: { domainName: string; keySelector: string; privateKey: string } | undefined;
  if (config.DKIM_PRIVATE_KEY_FILE && config.DKIM_DOMAIN && config.DKIM_SELECTOR) {
    let privateKey: string;
    try {
      privateKey = readFileSync(config.DKIM_PRIVATE_KEY_FILE, 'utf8');
    } catch (e) {
      throw new StartupError(`DKIM_PRIVATE_KEY_FILE: cannot read ${config.DKIM_PRIVATE_KEY_FILE} (${(e as Error).message})`);
    }
    if (!privateKey.includes('PRIVATE KEY')) throw new StartupError(`DKIM_PRIVATE_KEY_FILE: ${config.DKIM_PRIVATE_KEY_FILE} holds no PEM private key`);
    dkim = { domainName: config.DKIM_DOMAIN, keySelector: config.DKIM_SELECTOR, privateKey };
  }
  if (!config.SMTP_URL) logger.info('SMTP_URL is not set: e-mails are written to the log, not sent (docs/email.md)');
  return {
    transport: config.SMTP_URL ? smtpTransport(config.SMTP_URL, config.SMTP_FROM, config.EMAIL_SEND_TIMEOUT_MS, dkim) : logTransport(logger),
    retryUnitMs: config.WEBHOOK_RETRY_UNIT_MS,
    sendTimeoutMs: config.EMAIL_SEND_TIMEOUT_MS,
  };
}

/**
 * One delivery attempt by id, as the deliver-email job runs it: claimed (leased), sent, its outcome
 * recorded; `wake` sends the job of the moment it falls due again (the lease's end first, so that a
 * worker dying mid-send is taken over; then the retry). Null when there was nothing to do.
 */
export function emailDeliverer(db: Database, settings: EmailSettings, wake: (due: DueEmail) => Promise<void>) {
  const run = asSystem(inTransaction(db), QUEUES.deliverEmail.name, 'tlr: e-mail delivery');
  const pool = db.prisma as Db;
  return async (deliveryId: string): Promise<{ next: DueEmail | null } | null> => {
    const claimed = await claimEmail(pool, deliveryId, settings.sendTimeoutMs);
    if (!claimed) return null;
    await wake({ id: claimed.id, due: claimed.lease_until });
    const next = await attemptEmail(run, settings, claimed);
    if (next) await wake(next);
    return { next };
  };
}

/** The sweep's horizon: deliveries due within it get their job now (the sweep runs every minute). */
const SWEEP_AHEAD_MS = 60_000;

export async function registerEmailWorkers(boss: Boss, db: Database, settings: EmailSettings, logger: Logger): Promise<void> {
  const deliver = emailDeliverer(db, settings, (due) => deliverEmailAt(boss, due));
  await boss.work<{ deliveryId: string }>(
    QUEUES.deliverEmail.name,
    { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1, batchSize: 20 },
    async (jobs) => {
      const outcomes = await Promise.allSettled(jobs.map((job) => deliver(job.data.deliveryId)));
      const failures = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ delivery_id: jobs[i]!.data.deliveryId, error: o.reason as Error }] : []));
      for (const f of failures) logger.warn({ delivery_id: f.delivery_id, err: { message: f.error.message } }, 'e-mail attempt failed; its job is retried');
      // pg-boss retries the batch: a job whose delivery is leased or settled meanwhile does nothing.
      if (failures.length) throw failures[0]!.error;
    },
  );
  const pool = db.prisma as Db;
  const sweep = async () => {
    for (const due of await emailsDueWithin(pool, SWEEP_AHEAD_MS)) await deliverEmailAt(boss, due);
  };
  await boss.work(QUEUES.sweepEmails.name, sweep);
  await sweep();
}
