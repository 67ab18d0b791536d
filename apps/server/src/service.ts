// Starting and stopping the whole service: database (embedded or DATABASE_URL), migrations, the HTTP
// server and the background workers. Shutdown stops accepting, finishes in-flight requests and jobs,
// flushes the request log and closes the pool.
import { createServer, type RequestListener, type Server } from 'node:http';
import pino, { type Logger } from 'pino';
import { RequestLog, type BackgroundJobs } from '@tlr/api';
import type { Config } from '@tlr/config';
import {
  applyMigrations,
  createDatabase,
  ensureServiceRole,
  lockDataFolder,
  resolveDatabaseServer,
  SERVICE_ROLE,
  serviceUrl,
  type Database,
  type DatabaseServer,
  type DbTimeouts,
} from '@tlr/db';
import { archivingFromStart, backupSettings } from '@tlr/db/backup';
import { StartupError } from '@tlr/db/server';
import {
  einvoiceValidationPool,
  setEinvoiceAsyncLines,
  setEinvoiceValidationIdleSeconds,
  setEinvoiceValidationThreads,
  setPasswordHashCost,
  sweepStaged,
  useReceiverDocuments,
  warmEinvoiceValidation,
  type WebhookSettings,
} from '@tlr/domain';
import { deliverEinvoiceAt, deliverEmailAt, QUEUES, startBoss, submitVatFilingAt, type Boss } from '@tlr/jobs';
import { backupVoucherStore, createObjectStore, storageDir, type ObjectStore } from '@tlr/storage';
import { createApp } from './app.ts';
import { answerClientError } from './http/client-error.ts';
import { einvoiceSettings, registerEinvoiceWorkers } from './einvoices.ts';
import { emailSettings, registerEmailWorkers } from './email.ts';
import { registerVatFilingWorkers, skatSettings } from './vat-filings.ts';
import { startWebhookDispatcher, webhookSettings } from './webhooks.ts';
import { registerBackupWorker, startBackups } from './backups.ts';
import { registerWorkers } from './worker.ts';

export interface Service {
  url: string;
  port: number;
  db: Database;
  logger: Logger;
  /** Where voucher documents are kept (STORAGE_BACKEND). */
  store: ObjectStore;
  /** The webhook secrets key and URL policy (tests make callers with them). */
  webhooks: WebhookSettings;
  /** The filesystem store's directory; undefined with S3. */
  storageDir: string | undefined;
  stop(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({
    level: config.LOG_LEVEL,
    base: { service: 'tlr' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Never log credentials, even by accident.
    redact: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.password', '*.key', '*.secret'],
  });
}

/** The database timeouts of the configuration (docs/operations.md). */
const timeoutsOf = (config: Config): DbTimeouts => ({
  statementMs: config.DB_STATEMENT_TIMEOUT_MS,
  connectMs: config.DB_CONNECT_TIMEOUT_MS,
  transactionMs: config.DB_TRANSACTION_TIMEOUT_MS,
});

/** The HTTP server on PORT and HOST, or a StartupError naming the setting to change. */
function listen(app: RequestListener, port: number, host: string): Promise<Server> {
  // Not Express 5's app.listen: it calls its callback on 'error' too, as if it were listening.
  const server = createServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const why: Record<string, string> = {
        EADDRINUSE: 'the port is in use; set PORT to a free port',
        EACCES: 'not allowed to use this port; set PORT to one above 1023',
        EADDRNOTAVAIL: 'this machine has no such address; set HOST to one of its addresses (0.0.0.0: all of them)',
      };
      reject(new StartupError(`cannot listen on ${host}:${port}: ${why[e.code ?? ''] ?? `${e.message}; check PORT and HOST`}`));
    });
    server.listen(port, host, () => resolve(server));
  });
}

/** PORT is checked before the database is started and migrated (seconds), not only when the API listens. */
async function checkPort(port: number, host: string): Promise<void> {
  if (port === 0) return; // any free port
  const probe = await listen(() => {}, port, host);
  await new Promise((resolve) => probe.close(resolve));
}

export async function startService(config: Config, logger = createLogger(config)): Promise<Service> {
  setEinvoiceValidationThreads(config.EINVOICE_VALIDATION_THREADS);
  setEinvoiceValidationIdleSeconds(config.EINVOICE_VALIDATION_IDLE_SECONDS);
  // What the transport knows of receivers decides the format of customers on einvoice_format auto, in requests and jobs alike.
  const einvoices = einvoiceSettings(config);
  useReceiverDocuments(einvoices.transport.receivers);
  setEinvoiceAsyncLines(config.EINVOICE_ASYNC_LINES);
  setPasswordHashCost(config.PASSWORD_HASH_COST);
  // /readyz's detail: where the official e-invoice rules are (loaded once the service listens).
  let einvoiceRules = config.EINVOICE_WARM_AT_START ? 'loading' : 'on_first_document';
  // What is open so far: stop() closes it in reverse order, and so does a start that fails half-way,
  // so that the process can end with the one line about the cause.
  const opened: (() => Promise<unknown>)[] = [];
  const closeAll = async (quietly = false) => {
    for (const close of [...opened].reverse()) await (quietly ? close().catch(() => {}) : close());
  };
  const giveUp = async (e: unknown): Promise<never> => {
    await closeAll(true);
    throw e;
  };
  // One server per embedded data folder (decision 159): a second one would share the first one's
  // PostgreSQL and lose it when the first stops. Servers on DATABASE_URL share their database by design.
  if (!config.DATABASE_URL) {
    const lock = lockDataFolder(config.DATA_DIR);
    opened.push(async () => lock.release());
  }
  await checkPort(config.PORT, config.HOST).catch(giveUp);
  // Staged uploads a crashed process left behind (files/staged-upload.ts); a running server's are kept.
  const swept = await sweepStaged().catch((e: Error) => (logger.warn({ err: { message: e.message } }, 'sweeping staged uploads failed'), []));
  if (swept.length) logger.info({ removed: swept.length }, 'staged uploads of stopped processes removed');
  const dbServer: DatabaseServer = await resolveDatabaseServer({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    embeddedPort: config.EMBEDDED_PG_PORT,
    log: (m) => logger.debug({ component: 'embedded-postgres' }, m),
    // Ctrl-C is for us: we finish in-flight work on the database and stop it last, also one we found
    // running in the data folder we hold. WAL archiving from its first start (decision 422).
    embedded: { ownProcessGroup: true, adopt: true, beforeStart: archivingFromStart(backupSettings(config)) },
  }).catch(giveUp);
  opened.push(() => dbServer.stop());
  if (dbServer.embedded) logger.info({ data_dir: dbServer.dataDir }, 'using embedded PostgreSQL (DATABASE_URL is unset)');
  const applied = await applyMigrations(dbServer.url).catch(giveUp);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');

  // Least privilege (packages/db/src/roles.ts): the books through SERVICE_ROLE; migrations, pg-boss and backups as the owner.
  const role = await ensureServiceRole(dbServer.url).catch(giveUp);
  if (!role.ok)
    logger.warn(
      { reason: role.reason },
      `the service connects as the role of DATABASE_URL: it may not create the role ${SERVICE_ROLE} (docs/operations.md says what to grant)`,
    );
  const db = createDatabase(role.ok ? serviceUrl(dbServer.url) : dbServer.url, config.DB_POOL_SIZE, timeoutsOf(config));
  opened.push(() => db.close());
  // The owner's few connections: the backups' (pg_switch_wal is not the service's to call).
  const ownerDb = role.ok ? createDatabase(dbServer.url, 2, timeoutsOf(config)) : db;
  if (ownerDb !== db) opened.push(() => ownerDb.close());
  const backups = await startBackups(config, dbServer, db.pool, logger);
  const requestLog = new RequestLog(db.pool, logger);
  opened.push(() => requestLog.close());
  const store = createObjectStore(config);
  opened.push(() => store.close());
  // Not fatal: the API serves everything but voucher documents while the store is away (503 for those).
  await store
    .check()
    .catch((e: Error) =>
      logger.warn({ backend: store.backend, err: { message: e.message } }, 'voucher storage is not reachable; uploads and downloads answer 503 until it is'),
    );
  // Once per start: the Message-IDs' domain (for the API that queues e-mails as for the workers that send
  // them), and without SMTP_URL the one line saying e-mails are logged, not sent.
  const email = await Promise.resolve()
    .then(() => emailSettings(config, logger))
    .catch(giveUp);
  const webhooks = await Promise.resolve()
    .then(() => webhookSettings(config, logger))
    .catch(giveUp);
  // Message and code only: its errors are connection-level, and the whole error carries the pg client.
  // Each of its workers reports every failed poll: during an outage, one line per 30 s with the count.
  let quietUntil = 0;
  let suppressed = 0;
  const onBossError = (e: Error) => {
    if (Date.now() < quietUntil) return void (suppressed += 1);
    logger.error({ err: { message: e.message, code: (e as { code?: string }).code }, ...(suppressed ? { suppressed } : {}) }, 'pg-boss error');
    suppressed = 0;
    quietUntil = Date.now() + 30_000;
  };
  // The worker's pg-boss, or (RUN_WORKER=false) a sender started on the first job this server sends.
  let boss: Boss | undefined;
  let sender: Promise<Boss> | undefined;
  opened.push(async () => (sender ? (await sender.catch(() => undefined))?.stop({ graceful: false }) : undefined));
  const queue = async () =>
    boss ?? (await (sender ??= startBoss(dbServer.url, onBossError, true).catch((e: unknown) => ((sender = undefined), Promise.reject(e)))));
  const jobs: BackgroundJobs = {
    resetPickupMs: config.SANDBOX_RESET_PICKUP_MS,
    async sandboxReset(resetId) {
      await (await queue()).send(QUEUES.sandboxReset.name, { resetId });
    },
    async einvoicesQueued(due) {
      const q = await queue();
      for (const message of due) await deliverEinvoiceAt(q, message);
    },
    async emailsQueued(due) {
      const q = await queue();
      for (const delivery of due) await deliverEmailAt(q, delivery);
    },
    async saftImport(importId) {
      await (await queue()).send(QUEUES.importSaft.name, { importId });
    },
    async einvoiceImport(importId) {
      await (await queue()).send(QUEUES.importEinvoice.name, { importId });
    },
    async vatFilingQueued(filing) {
      await submitVatFilingAt(await queue(), filing);
    },
  };

  let ready = false;
  const app = createApp({
    db,
    logger,
    requestLog,
    isReady: () => ready,
    // Loaded while a worker holds every rule set (decision 495): should that worker die, the next document loads its rules first.
    einvoiceRules: () => (einvoiceRules === 'loaded' && !einvoiceValidationPool.holdsEveryRuleSet() ? 'on_first_document' : einvoiceRules),
    backups: backups.state,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    store,
    webhooks,
    oauthAllowLocalhost: config.OAUTH_ALLOW_HTTP_LOCALHOST,
    jobs,
    skat: skatSettings(config),
    trustProxy: config.TRUST_PROXY,
  });

  if (config.RUN_WORKER) {
    const worker = await startBoss(dbServer.url, onBossError).catch(giveUp);
    opened.push(() => worker.stop({ graceful: true, timeout: config.SHUTDOWN_TIMEOUT_MS }));
    await registerWorkers(worker, db, logger, store).catch(giveUp);
    const copyStore = backupVoucherStore(config);
    if (copyStore) opened.push(() => copyStore.close());
    await registerBackupWorker(worker, ownerDb, logger, config, backups, { vouchers: store, copy: copyStore }).catch(giveUp);
    await registerEinvoiceWorkers(worker, db, einvoices, logger, store).catch(giveUp);
    await registerVatFilingWorkers(worker, db, skatSettings(config), logger).catch(giveUp);
    await registerEmailWorkers(worker, db, email, logger).catch(giveUp);
    boss = worker;
    const dispatcher = startWebhookDispatcher(db, webhooks, logger);
    opened.push(() => dispatcher.stop());
  }

  const server = await listen(app, config.PORT, config.HOST).catch(giveUp);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  const url = config.PUBLIC_BASE_URL ?? `http://${host}:${port}`;
  ready = true;
  if (config.EINVOICE_WARM_AT_START) {
    // Once the service listens (its start is not slowed): a document that arrives before the load ends
    // waits for it, not for a compile or a load of its own; /readyz says when it is done.
    const started = Date.now();
    warmEinvoiceValidation().then(
      () => {
        einvoiceRules = 'loaded';
        logger.info({ ms: Date.now() - started }, 'e-invoice rules loaded');
      },
      (e: unknown) => {
        einvoiceRules = 'failed';
        logger.warn({ err: e }, 'loading the e-invoice rules failed; the first document tries again');
      },
    );
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      ready = false;
      logger.info('shutting down: finishing in-flight requests and jobs');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections turn idle as their last response ends: close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const forced = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS);
      await closed;
      clearInterval(sweep);
      clearTimeout(forced);
      await closeAll();
      logger.info('stopped');
    })());

  return { url, port, db, logger, store, webhooks, storageDir: store.backend === 'filesystem' ? storageDir(config) : undefined, stop };
}
