// One connection pool per process, shared by Prisma (domain code) and by the few hot SQL paths that
// run on every request (credential lookup + rate limit, audit batches), which use the pool directly.
// A database that stops, restarts, drops connections or freezes must never take the process down or
// hold a request forever: every connection has an error listener, and every wait has a bound.
import type { Socket } from 'node:net';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { SettingsClient } from './transaction-settings.ts';

export interface DbTimeouts {
  /** Server-side statement_timeout; the client gives up one second later (a frozen server cannot cancel). */
  statementMs: number;
  /** Waiting for a pooled connection, or for a new one to connect. */
  connectMs: number;
  /** A whole transaction (Prisma's interactive transaction timeout). */
  transactionMs: number;
}

const DEFAULT_TIMEOUTS: DbTimeouts = { statementMs: 10_000, connectMs: 5_000, transactionMs: 15_000 };

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

/**
 * The client-side bound on a statement (a frozen server or a lost network cannot cancel it): a
 * connection that has a statement out and hears nothing for `ms` is destroyed; its statement fails as a
 * read timeout (503 to the caller) and the pool replaces the connection.
 *
 * One idle timer per connection, refreshed by its socket's traffic, rather than pg's `query_timeout`:
 * that wraps each query's callback in a closure sharing a context with the query and its timer, and V8
 * then kept every query's rows past a scavenge and promoted them to the old generation, about 4 KB per
 * GET by id (docs/history/perf-log.md, seventh session), so major collections came every few seconds under load.
 */
function giveUpWhenSilent(client: pg.PoolClient, ms: number): void {
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  socket.setTimeout(ms);
  // on, not setTimeout's callback (a once listener): the timer fires again after each silence.
  socket.on('timeout', () => {
    // Idle in the pool (or between a transaction's statements): nothing is awaited, nothing to give up.
    if ((client as unknown as { readyForQuery: boolean }).readyForQuery) return;
    socket.destroy(new Error(`Query read timeout: no answer from PostgreSQL within ${ms} ms`));
  });
}

export function createDatabase(url: string, poolSize = 10, timeouts: Partial<DbTimeouts> = {}): Database {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  const pool = new pg.Pool({
    // A transaction's BEGIN carries the settings it starts with (transaction-settings.ts).
    Client: SettingsClient,
    connectionString: url,
    max: poolSize,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: t.connectMs,
    options: `-c statement_timeout=${t.statementMs} -c idle_in_transaction_session_timeout=${t.transactionMs + 5_000}`,
    keepAlive: true,
  });
  pool.on('connect', (client) => {
    // The pool listens for errors of idle clients only; a client checked out between two queries of a
    // transaction (Prisma's) that loses its connection (57P01 on shutdown) would emit an unhandled
    // 'error' and end the process. Every client gets a listener; the query in flight reports the error.
    client.on('error', () => {});
    giveUpWhenSilent(client, t.statementMs + 1_000);
  });
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
