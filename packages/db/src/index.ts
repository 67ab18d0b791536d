// @tlr/db: the Prisma client factory, the connection pool, migrations and where the server comes from.
import type pg from 'pg';
import { Prisma, type PrismaClient } from './generated/prisma/client.ts';

export { createDatabase, type Database } from './client.ts';
export { applyMigrations } from './migrate.ts';
export { resolveDatabaseServer, ensureDatabase, dropDatabase, withDatabase, freePort, type DatabaseServer } from './server.ts';
export { Prisma, PrismaClient } from './generated/prisma/client.ts';
export type { User, Company, ApiKey, Customer, Product, Supplier, OutboxEvent, IdempotencyKey } from './generated/prisma/client.ts';

/** A Prisma client or an interactive transaction: what domain functions take as their database handle. */
export type Db = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
/** Plain SQL on the pool, for the per-request hot paths. */
export type Queryable = Pick<pg.Pool, 'query'>;
/** A pool to take one connection from, for a long read inside one snapshot (the SAF-T export). */
export type Connectable = Pick<pg.Pool, 'connect'>;
export type PoolClient = pg.PoolClient;

/** A unique-constraint violation, whether raised by a Prisma model call (P2002) or raw SQL (P2010/23505). */
export function isUniqueViolation(e: unknown): boolean {
  if (!(e instanceof Prisma.PrismaClientKnownRequestError)) return false;
  return e.code === 'P2002' || (e.code === 'P2010' && ((e.meta as { code?: string } | undefined)?.code === '23505' || e.message.includes('23505')));
}
