// Backup benchmark: the time and repository size of a full and an incremental pgBackRest backup
// of a database with BENCH_LINES journal lines, and the time of a restore (pgBackRest restore, then
// PostgreSQL's start with recovery), next to the bare baseline in the same run: tar of the data folder
// (no compression, no encryption) and untar of it.
//
//   tsx bench/backup.ts     (or: npm run bench:backup)
//
//   a. an embedded PostgreSQL in a temporary folder (its own, not DATA_DIR's), migrated, one company
//   b. BENCH_LINES journal lines posted through the journal writer's batch (four lines a transaction)
//   c. backup setup, PostgreSQL started again (archive_mode), a full backup, 1% more lines, an incremental one
//   d. tar of the data folder (PostgreSQL running, as the backup ran): the baseline
//   e. restore of the last backup into a new folder, and PostgreSQL started on it; untar: the baseline
//
// Environment (all optional): BENCH_LINES (1000000); BENCH_RPO=1 first measures, on the idle database, the
// seconds from a commit until its WAL segment is in the repository (minutes: see docs/operations.md).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations, createDatabase, freePort, resolveDatabaseServer, type Database, type DatabaseServer } from '@tlr/db';
import { listBackups, restoreBackup, runBackup, setupBackups, type BackupSettings } from '@tlr/db/backup';
import { startEmbeddedPostgres } from '@tlr/db/embedded';
import { Decimal, today, type Posting, type PostingLine } from '@tlr/domain';
import { benchCompany, machineLines, mib, seconds, seedPostings } from './lib.ts';

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const log = (m: string) => console.log(m);

/** Transactions `from` to `from + transactions - 1`, four lines each, dated today, through the journal writer. */
async function insertLines(db: Database, companyId: string, from: number, transactions: number): Promise<void> {
  const accounts = (
    await db.pool.query<{ id: string; account_number: string; name: string }>(
      'SELECT id, account_number, name FROM accounts WHERE company_id = $1 AND active ORDER BY account_number',
      [companyId],
    )
  ).rows;
  const date = today();
  const zero = new Decimal(0);
  function* postings(): Generator<Posting> {
    for (let n = from; n < from + transactions; n++) {
      const amount = new Decimal((n % 10_000) + 1).div(100);
      const lines = [1, 2, 3, 4].map((k): PostingLine => {
        const account = accounts[(n * (7 + 2 * k) + k * 37) % accounts.length]!;
        return { accountId: account.id, account, debit: k % 2 ? amount : zero, credit: k % 2 ? zero : amount, description: '', vatCode: '' };
      });
      yield { date, description: `Bilag ${n}`, source: 'manual', lines };
    }
  }
  await seedPostings(db, companyId, postings());
}

const du = (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

async function main() {
  const root = mkdtempSync('/tmp/tlr-bench-backup-');
  chmodSync(root, 0o755);
  const settings: BackupSettings = { dir: join(root, 'backup'), repoPath: join(root, 'backup', 'repo') };
  let server: DatabaseServer | undefined;
  let db: Database | undefined;
  const start = async () => (server = await resolveDatabaseServer({ databaseUrl: undefined, dataDir: root, embeddedPort: await freePort() }));
  try {
    for (const line of machineLines()) log(line);
    await start();
    await setupBackups(settings, { dataDir: server!.dataDir!, url: server!.url });
    await server!.stop();
    await start();
    const cluster = { dataDir: server!.dataDir!, url: server!.url };
    await applyMigrations(server!.url);
    db = createDatabase(server!.url, 2, { statementMs: 600_000, transactionMs: 600_000 });
    const { companyId } = await benchCompany(db, { name: 'Backup Bench ApS', ownerEmail: 'bench-backup@example.dk', keys: 0 });
    let t = process.hrtime.bigint();
    if (process.env.BENCH_RPO === '1') {
      // RPO: one commit on the otherwise idle database, then until its WAL segment is in the repository.
      const { wal } = (await db.pool.query<{ wal: string }>(`SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS wal FROM (SELECT txid_current()) AS w`))
        .rows[0]!;
      const archived = async () =>
        (await db!.pool.query<{ done: boolean }>('SELECT coalesce(last_archived_wal >= $1, false) AS done FROM pg_stat_archiver', [wal])).rows[0]!.done;
      while (!(await archived())) await new Promise((r) => setTimeout(r, 250));
      log(`RPO: a commit's WAL segment reached the repository after ${seconds(t).toFixed(1)} s (archive_timeout 60 s)`);
      t = process.hrtime.bigint();
    }
    await insertLines(db, companyId, 1, LINES / 4);
    await db.pool.query('CHECKPOINT');
    log(`${LINES} journal lines inserted in ${seconds(t).toFixed(1)} s; data folder ${mib(du(cluster.dataDir))}`);

    t = process.hrtime.bigint();
    const full = await runBackup(settings, cluster, 'full');
    const fullS = seconds(t);
    await insertLines(db, companyId, LINES / 4 + 1, LINES / 400);
    t = process.hrtime.bigint();
    const incr = await runBackup(settings, cluster, 'incr');
    const incrS = seconds(t);
    t = process.hrtime.bigint();
    const tar = join(root, 'baseline.tar');
    // The cluster runs on (as the backups read it too): a WAL segment written meanwhile is "changed as we
    // read it", GNU tar's exit 1, which for a baseline of the copying time is no failure.
    try {
      execFileSync('tar', ['--warning=no-file-changed', '-C', cluster.dataDir, '-cf', tar, '.']);
    } catch (e) {
      if ((e as { status?: number }).status !== 1) throw e;
    }
    const tarS = seconds(t);
    log(`full backup  ${fullS.toFixed(1)} s, database ${mib(full.database_size)}, in the repository ${mib(full.repo_size)} (zstd, AES-256)`);
    log(`incr backup  ${incrS.toFixed(1)} s after ${LINES / 100} more lines, in the repository ${mib(incr.repo_size)}`);
    log(`baseline tar ${tarS.toFixed(1)} s, ${mib(statSync(tar).size)}`);
    log(`repository   ${mib(du(settings.repoPath))} on disk, ${(await listBackups(settings)).length} backups`);

    const target = join(root, 'restored');
    t = process.hrtime.bigint();
    await restoreBackup(settings, cluster.dataDir, { label: incr.label }, target);
    const restoreS = seconds(t);
    t = process.hrtime.bigint();
    const restored = await startEmbeddedPostgres(target, await freePort());
    const startS = seconds(t);
    await restored.stop();
    const untar = join(root, 'untar');
    execFileSync('mkdir', [untar]);
    t = process.hrtime.bigint();
    execFileSync('tar', ['-C', untar, '-xf', tar]);
    const untarS = seconds(t);
    log(
      `restore      ${restoreS.toFixed(1)} s (pgbackrest restore) + ${startS.toFixed(1)} s (PostgreSQL start, recovery) = ${(restoreS + startS).toFixed(1)} s`,
    );
    log(`baseline untar ${untarS.toFixed(1)} s`);
  } finally {
    await db?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
