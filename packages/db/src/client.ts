// One connection pool per process, shared by Prisma (domain code) and by the few hot SQL paths that
// run on every request (credential lookup + rate limit, audit batches), which use the pool directly.
// A database that stops, restarts, drops connections or freezes must never take the process down or
// hold a request forever: every connection has an error listener, and every wait has a bound.
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';

export interface DbTimeouts {
  /** Server-side statement_timeout; the client gives up one second later (a frozen server cannot cancel). */
  statementMs: number;
  /** Waiting for a pooled connection, or for a new one to connect. */
  connectMs: number;
  /** A whole transaction (Prisma's interactive transaction timeout). */
  transactionMs: number;
}

export const DEFAULT_TIMEOUTS: DbTimeouts = { statementMs: 10_000, connectMs: 5_000, transactionMs: 15_000 };

export interface Database {
  pool: pg.Pool;
  prisma: PrismaClient;
  timeouts: DbTimeouts;
  /** For interactive transactions: maxWait for a connection, timeout for the whole transaction. */
  transactionOptions: { maxWait: number; timeout: number };
  close(): Promise<void>;
}

// Keep numeric columns as strings in raw queries: money must never pass through a JS float.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
// BIGINT counts (totals) fit comfortably in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createDatabase(url: string, poolSize = 10, timeouts: Partial<DbTimeouts> = {}): Database {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: t.connectMs,
    options: `-c statement_timeout=${t.statementMs} -c idle_in_transaction_session_timeout=${t.transactionMs + 5_000}`,
    query_timeout: t.statementMs + 1_000,
    keepAlive: true,
  });
  // The pool listens for errors of idle clients only; a client checked out between two queries of a
  // transaction (Prisma's) that loses its connection (57P01 on shutdown) would emit an unhandled
  // 'error' and end the process. Every client gets a listener; the query in flight reports the error.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    pool,
    prisma,
    timeouts: t,
    transactionOptions: { maxWait: t.connectMs, timeout: t.transactionMs },
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
