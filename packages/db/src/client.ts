// One connection pool per process, shared by Prisma (domain code) and by the few hot SQL paths that
// run on every request (credential lookup + rate limit, audit batches), which use the pool directly.
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';

export interface Database {
  pool: pg.Pool;
  prisma: PrismaClient;
  close(): Promise<void>;
}

// Keep numeric columns as strings in raw queries: money must never pass through a JS float.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
// BIGINT counts (totals) fit comfortably in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createDatabase(url: string, poolSize = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {}); // an idle client's broken connection is replaced; queries report their own errors
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    pool,
    prisma,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
