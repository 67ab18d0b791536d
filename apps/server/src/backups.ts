// The server's backups: whether they are set up (at start: the stanza of the embedded server, and one
// line naming the missing step when they are not), the worker's schedules of the run-backup job and its
// handler, which runs pgBackRest as a recorded run (domain backup/runs.ts; a failure is recorded, logged
// at error level, and shown by /readyz and the admin health page), and the copy of voucher objects to the
// backup bucket.
import type { Logger } from 'pino';
import { BUSINESS_TIME_ZONE, type Config } from '@tlr/config';
import type { Database, DatabaseServer, Queryable } from '@tlr/db';
import {
  backupCluster,
  backupSettings,
  backupSetup,
  ensureStanza,
  pgbackrestInstalled,
  runBackup,
  switchWal,
  type BackupSetup,
  type Cluster,
} from '@tlr/db/backup';
import { copyVouchers, recordedBackupRun, type VoucherStore } from '@tlr/domain';
import { QUEUES, type Boss } from '@tlr/jobs';

/** This server's backups: the cluster backed up, and whether it is, asked afresh (/readyz, the admin health page, each scheduled run). */
export interface Backups {
  cluster: Cluster | undefined;
  state(): Promise<BackupSetup>;
}

/**
 * At start, after the database: the stanza for the current config (the embedded server's first start
 * writes the config and turns on archiving before PostgreSQL starts, decision 422), then one line at
 * warn level naming the missing step when backups are not set up. Never fatal: the server runs without
 * backups.
 */
export async function startBackups(
  config: Config,
  server: Pick<DatabaseServer, 'embedded' | 'dataDir' | 'url'>,
  pool: Queryable,
  logger: Logger,
): Promise<Backups> {
  const settings = backupSettings(config);
  const cluster = backupCluster(config, server);
  const state = async () => {
    const archiveMode = await pool.query<{ mode: string }>(`SELECT current_setting('archive_mode') AS mode`).then(
      (r) => r.rows[0]?.mode,
      () => undefined,
    );
    return backupSetup(settings, cluster, { embedded: server.embedded, archiveMode });
  };
  if (cluster && pgbackrestInstalled()) {
    await ensureStanza(settings, cluster).catch((e: Error) => logger.warn({ err: { message: e.message } }, 'the pgBackRest stanza could not be created'));
  }
  const now = await state();
  if (now.set_up) logger.info({ backup_dir: settings.dir }, 'backups are set up');
  else logger.warn(now.reason);
  return { cluster, state };
}

export async function registerBackupWorker(
  boss: Boss,
  db: Database,
  logger: Logger,
  config: Config,
  backups: Backups,
  stores: { vouchers: VoucherStore; copy: VoucherStore | undefined },
): Promise<void> {
  const { cluster } = backups; // set up only with a cluster
  const { copy } = stores;
  if (copy) {
    // Every ten minutes, a hundred at a time until none is left: the second location trails by minutes.
    await boss.work(QUEUES.copyVouchers.name, async () => {
      let copied = 0;
      for (let n = -1; n !== 0; copied += n) n = await copyVouchers(db.prisma, stores.vouchers, copy);
      if (copied) logger.info({ copied }, 'voucher objects copied to the backup bucket');
    });
  }
  // A server where tlr's role may not switch the WAL says so once, at warn level (decision 334).
  let refused = false;
  await boss.work(QUEUES.switchWal.name, async () => {
    try {
      await switchWal(db.pool);
    } catch (e) {
      if (!refused)
        logger.warn(
          { err: { message: (e as Error).message } },
          'WAL segments are not switched every minute: GRANT EXECUTE ON FUNCTION pg_switch_wal() to the role of DATABASE_URL',
        );
      refused = true;
    }
  });
  const settings = backupSettings(config);
  await boss.schedule(QUEUES.runBackup.name, config.BACKUP_FULL_CRON, { type: 'full' }, { tz: BUSINESS_TIME_ZONE, key: 'full' });
  await boss.schedule(QUEUES.runBackup.name, config.BACKUP_INCR_CRON, { type: 'incr' }, { tz: BUSINESS_TIME_ZONE, key: 'incr' });
  await boss.work<{ type: 'full' | 'incr' }>(QUEUES.runBackup.name, async ([job]) => {
    const type = job?.data.type === 'full' ? 'full' : 'incr';
    const state = await backups.state();
    if (!state.set_up) return void logger.warn({ type }, `scheduled backup skipped: ${state.reason}`);
    try {
      const made = await recordedBackupRun(db.prisma, db.pool, type, () => runBackup(settings, cluster!, type));
      logger.info({ type, label: made.label, repo_size: made.repo_size }, 'backup done');
    } catch (e) {
      logger.error({ type, err: { message: (e as Error).message } }, 'backup failed');
    }
  });
}
