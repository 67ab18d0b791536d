// The background workers (pg-boss handlers). They run inside the server process by default
// (RUN_WORKER=false turns them off on a server that should only serve HTTP).
import type { Logger } from 'pino';
import type { Database } from '@tlr/db';
import { purgeExpiredIdempotencyKeys } from '@tlr/domain';
import { QUEUES, type Boss } from '@tlr/jobs';

export async function registerWorkers(boss: Boss, db: Database, logger: Logger): Promise<void> {
  await boss.work(QUEUES.purgeIdempotencyKeys.name, async () => {
    const n = await purgeExpiredIdempotencyKeys(db.prisma);
    if (n) logger.info({ purged: n }, 'expired idempotency keys forgotten');
  });
  await boss.work(QUEUES.purgeRateLimitWindows.name, async () => {
    await db.pool.query(`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '1 hour'`);
  });
}
