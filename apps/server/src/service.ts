// Starting and stopping the whole service: database (embedded or DATABASE_URL), migrations, the HTTP
// server and the background workers. Shutdown stops accepting, finishes in-flight requests and jobs,
// flushes the audit log and closes the pool.
import type { Server } from 'node:http';
import pino, { type Logger } from 'pino';
import { AuditLog } from '@tlr/api';
import type { Config } from '@tlr/config';
import { applyMigrations, createDatabase, resolveDatabaseServer, type Database, type DatabaseServer, type DbTimeouts } from '@tlr/db';
import { startBoss, type Boss } from '@tlr/jobs';
import { createApp } from './app.ts';
import { answerClientError } from './http/client-error.ts';
import { registerWorkers } from './worker.ts';

export interface Service {
  url: string;
  port: number;
  db: Database;
  logger: Logger;
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
export const timeoutsOf = (config: Config): DbTimeouts => ({
  statementMs: config.DB_STATEMENT_TIMEOUT_MS,
  connectMs: config.DB_CONNECT_TIMEOUT_MS,
  transactionMs: config.DB_TRANSACTION_TIMEOUT_MS,
});

export async function startService(config: Config, logger = createLogger(config)): Promise<Service> {
  const dbServer: DatabaseServer = await resolveDatabaseServer({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    embeddedPort: config.EMBEDDED_PG_PORT,
    log: (m) => logger.debug({ component: 'embedded-postgres' }, m),
  });
  if (dbServer.embedded) logger.info({ data_dir: config.DATA_DIR }, 'using embedded PostgreSQL (DATABASE_URL is unset)');
  const applied = await applyMigrations(dbServer.url);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');

  const db = createDatabase(dbServer.url, config.DB_POOL_SIZE, timeoutsOf(config));
  const audit = new AuditLog(db.pool, logger);
  let ready = false;
  const app = createApp({ db, logger, audit, isReady: () => ready, publicBaseUrl: config.PUBLIC_BASE_URL, requestTimeoutMs: config.REQUEST_TIMEOUT_MS });

  let boss: Boss | undefined;
  if (config.RUN_WORKER) {
    boss = await startBoss(dbServer.url, (e) => logger.error({ err: e }, 'pg-boss error'));
    await registerWorkers(boss, db, logger);
  }

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.PORT, config.HOST, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  const url = config.PUBLIC_BASE_URL ?? `http://${host}:${port}`;
  ready = true;

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
      await boss?.stop({ graceful: true, timeout: config.SHUTDOWN_TIMEOUT_MS });
      await audit.close();
      await db.close();
      await dbServer.stop();
      logger.info('stopped');
    })());

  return { url, port, db, logger, stop };
}
