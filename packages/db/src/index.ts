// @tlr/db: the Prisma client factory, the connection pool, migrations and where the server comes from.
import type pg from 'pg';
import type { Database } from './client.ts';
import { Prisma, type PrismaClient } from './generated/prisma/client.ts';

export { createDatabase, type Database, type DbTimeouts } from './client.ts';
export { withTransactionSettings } from './transaction-settings.ts';
export { applyMigrations } from './migrate.ts';
export { lockDataFolder, type DataFolderLock } from './data-lock.ts';
export { resolveDatabaseServer, closeAfterCommand, ensureDatabase, dropDatabase, withDatabase, freePort, type DatabaseServer } from './server.ts';
export { Prisma, PrismaClient } from './generated/prisma/client.ts';
export type {
  Company,
  Account,
  Customer,
  Product,
  Supplier,
  BankAccount,
  BankStatement,
  BankLine,
  Invoice,
  InvoiceReminder,
  RecurringInvoice,
  RecurringInvoicePeriod,
  FixedAsset,
  AssetDepreciation,
  FiscalYear,
} from './generated/prisma/client.ts';

/** A Prisma client or an interactive transaction: what domain functions take as their database handle. */
export type Db = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
/** Runs `fn` in one interactive transaction: how domain functions that commit in steps take their database. */
export type InTransaction = <T>(fn: (tx: Db) => Promise<T>) => Promise<T>;
/** The interactive transactions of `db`, bounded by its transaction options (a connection's wait, the whole). */
export const inTransaction =
  (db: Database): InTransaction =>
  (fn) =>
    db.prisma.$transaction((tx) => fn(tx as Db), db.transactionOptions);
/** Plain SQL on the pool, for the per-request hot paths. */
export type Queryable = Pick<pg.Pool, 'query'>;
/** A pool to take one connection from, for a long read inside one snapshot (the SAF-T export). */
export type Connectable = Pick<pg.Pool, 'connect'>;
export type PoolClient = pg.PoolClient;

function violates(e: unknown, prismaCode: string, sqlState: string): boolean {
  if (!(e instanceof Prisma.PrismaClientKnownRequestError)) return false;
  return e.code === prismaCode || (e.code === 'P2010' && ((e.meta as { code?: string } | undefined)?.code === sqlState || e.message.includes(sqlState)));
}

/** A unique-constraint violation, whether raised by a Prisma model call (P2002) or raw SQL (P2010/23505). */
export const isUniqueViolation = (e: unknown) => violates(e, 'P2002', '23505');

/** A foreign-key violation (P2003, or 23503 from raw SQL): a row referred to was deleted meanwhile. */
export const isForeignKeyViolation = (e: unknown) => violates(e, 'P2003', '23503');
export { ensureServiceRole, serviceUrl, SERVICE_ROLE } from './roles.ts';
