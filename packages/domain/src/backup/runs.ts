// The table of backup runs: a run is recorded with the books at its start, then succeeded or
// failed; the last one is what /readyz and the admin health page show.
import type { Connectable, Db } from '@tlr/db';
import { recordBooks, type Books } from './books.ts';

/** What a backup tool reports of a backup it made (@tlr/db/backup's BackupInfo). */
export interface MadeBackup {
  label: string;
  repo_size: number;
  database_size: number;
}

export interface LastBackupRun {
  status: 'running' | 'succeeded' | 'failed';
  type: string;
  started_at: string;
  finished_at: string | null;
  label: string | null;
  error: string | null;
}

/** The books in one snapshot (REPEATABLE READ), so that a company's balances match its recorded last id. */
async function snapshotBooks(pool: Connectable): Promise<Books> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const books = await recordBooks(client);
    await client.query('COMMIT');
    return books;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Runs `backup` as a recorded run: the row (with the books) is committed first, so that the backup holds
 * it; it is marked succeeded or failed (with the error) after. Rethrows the backup's failure.
 */
export async function recordedBackupRun<T extends MadeBackup>(db: Db, pool: Connectable, type: 'full' | 'incr', backup: () => Promise<T>): Promise<T> {
  const books = await snapshotBooks(pool);
  const [run] = await db.$queryRaw<{ id: string }[]>`
    INSERT INTO backup_runs (type, status, books) VALUES (${type}, 'running', ${JSON.stringify(books)}::jsonb) RETURNING id`;
  try {
    const made = await backup();
    await db.$executeRaw`
      UPDATE backup_runs SET status = 'succeeded', finished_at = now(), label = ${made.label},
        repo_size = ${made.repo_size}, database_size = ${made.database_size}
      WHERE id = ${run!.id}::uuid`;
    return made;
  } catch (e) {
    await db.$executeRaw`
      UPDATE backup_runs SET status = 'failed', finished_at = now(), error = ${(e as Error).message} WHERE id = ${run!.id}::uuid`.catch(() => {});
    throw e;
  }
}

/** The books recorded by the last succeeded run whose backup `label` names (the drill's reference). */
export async function booksOfBackup(db: Db, label: string): Promise<Books | undefined> {
  const [row] = await db.$queryRaw<{ books: Books }[]>`
    SELECT books FROM backup_runs WHERE label = ${label} AND status = 'succeeded' ORDER BY started_at DESC LIMIT 1`;
  return row?.books;
}

/** The last run, or undefined before the first. */
export async function lastBackupRun(db: Db): Promise<LastBackupRun | undefined> {
  const [row] = await db.$queryRaw<
    { status: LastBackupRun['status']; type: string; started_at: Date; finished_at: Date | null; label: string | null; error: string | null }[]
  >`SELECT status, type, started_at, finished_at, label, error FROM backup_runs ORDER BY started_at DESC LIMIT 1`;
  return row && { ...row, started_at: row.started_at.toISOString(), finished_at: row.finished_at?.toISOString() ?? null };
}
