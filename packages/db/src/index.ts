// @tlr/db: the Prisma client factory, the connection pool, migrations and where the server comes from.
import type pg from 'pg';
import type { PrismaClient } from './generated/prisma/client.ts';

export { createDatabase, type Database } from './client.ts';
export { applyMigrations } from './migrate.ts';
export { resolveDatabaseServer, ensureDatabase, dropDatabase, withDatabase, type DatabaseServer } from './server.ts';
export { Prisma, PrismaClient } from './generated/prisma/client.ts';
export type { User, Company, ApiKey, Customer, Product, Supplier, OutboxEvent, IdempotencyKey } from './generated/prisma/client.ts';

/** A Prisma client or an interactive transaction: what domain functions take as their database handle. */
export type Db = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
/** Plain SQL on the pool, for the per-request hot paths. */
export type Queryable = Pick<pg.Pool, 'query'>;
