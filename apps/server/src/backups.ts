// The scheduled backups: the worker's schedules of the run-backup job and its handler, which
// runs pgBackRest as a recorded run (domain backup/runs.ts; a failure is recorded, logged at error level,
// and shown by /readyz and the admin health page), and the copy of voucher objects to the backup bucket.
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { BUSINESS_TIME_ZONE, type Config } from '@tlr/config';
import type { Database, DatabaseServer } from '@tlr/db';
import { backupSettings, configPath, runBackup, switchWal, type Cluster } from '@tlr/db/backup';
import { copyVouchers, recordedBackupRun, type VoucherStore } from '@tlr/domain';
import { QUEUES, type Boss } from '@tlr/jobs';

/** The cluster this server's backups are of: the embedded one, or BACKUP_PG_DATA_DIR's with DATABASE_URL. */
export function backupCluster(config: Config, server: Pick<DatabaseServer, 'embedded' | 'dataDir' | 'url'>): Cluster | undefined {
  if (server.embedded) return { dataDir: server.dataDir!, url: server.url };
  return config.BACKUP_PG_DATA_DIR ? { dataDir: config.BACKUP_PG_DATA_DIR, url: server.url, socketDir: config.BACKUP_PG_SOCKET_DIR } : undefined;
}

export async function registerBackupWorker(
  boss: Boss,
  db: Database,
  logger: Logger,
  config: Config,
  cluster: Cluster | undefined,
  stores: { vouchers: VoucherStore; copy: VoucherStore | undefined },
): Promise<void> {
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
    if (!cluster || !existsSync(configPath(settings))) {
      logger.warn({ type }, 'scheduled backup skipped: backups are not set up (npm run tlr -- backup setup; docs/operations.md, Backups)');
      return;
    }
    try {
      const made = await recordedBackupRun(db.prisma, db.pool, type, () => runBackup(settings, cluster, type));
      logger.info({ type, label: made.label, repo_size: made.repo_size }, 'backup done');
    } catch (e) {
      logger.error({ type, err: { message: (e as Error).message } }, 'backup failed');
    }
  });
}
